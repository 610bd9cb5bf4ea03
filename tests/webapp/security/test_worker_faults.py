"""Faults: a worker SIGKILLed mid-run, a run over its time limit, the broker (Redis) stopped.

Every process here is private to the test: its own redis-server port, worker queue and web port.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest
from django.db import connection
from kombu import Connection

from webapp.scenarios import services
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import ApiToken, Membership, PodExplanation, Revision, Run, ShareLink, Team
from webapp.scenarios.tasks import execute_run, explain_pod

from ..base import SMALL, make_user
from .helpers import Redis, app_env, call, pool_children, start_web, start_worker, wait_until

MIN_DOMAINS = (EXAMPLES_DIR / "min-domains.yaml").read_text()

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server (make test-deps)"),
]


@pytest.fixture
def scenario():
    user = make_user("faulty")
    team = Team.objects.create(name="faults")
    Membership.objects.create(team=team, user=user, role="owner")
    return services.create_scenario(team=team, name="Fault", manifests=SMALL, author=user)


@pytest.fixture
def redis(tmp_path):
    server = Redis(tmp_path / "redis.log")
    yield server
    server.stop()


def send(run, broker_url, queue, **options):
    """What enqueue() does, on a private broker (options: the sender's time limits travel in the message)."""
    with Connection(broker_url) as conn:
        execute_run.apply_async((run.pk,), queue=queue, connection=conn, **options)


def new_run(scenario):
    return Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=scenario.created_by)


def status_of(run):
    return Run.objects.filter(pk=run.pk).values_list("status", flat=True).get()


def test_it_redelivers_a_run_whose_worker_was_killed_and_finishes_it_once(scenario, redis, tmp_path):
    worker = start_worker(connection, redis.url, tmp_path / "worker.log", RUN_TEST_DELAY=1)
    try:
        run = new_run(scenario)
        send(run, redis.url, worker.queue)
        wait_until(lambda: status_of(run) == "running", 20, "the run to start")
        [child] = pool_children(worker.pid)
        os.kill(child, signal.SIGKILL)  # mid-run: the engine has not answered yet
        wait_until(lambda: status_of(run) in Run.FINISHED, 30, "the redelivered run to finish")
        run.refresh_from_db()
        assert (run.status, run.error, run.attempts) == ("succeeded", "", 1), worker.text()
        assert run.result["pods"] == [{"pod": "default/web-1", "outcome": "Scheduled", "node": "node-a"}]
        # (Celery logs the task's end after it returns, a moment after the run is seen finished)
        wait_until(lambda: "succeeded in" in worker.text(), 10, "the task's end in the worker's log")
        log = worker.text()
        assert "WorkerLostError" in log or "exited with 'signal 9" in log, log
        assert log.count("succeeded in") == 1, log  # executed to the end once, one result
        assert Run.objects.filter(scenario=scenario).count() == 1
    finally:
        worker.stop()


def test_it_reruns_once_a_run_whose_whole_worker_was_killed(scenario, redis, tmp_path):
    """The machine dies (worker and pool SIGKILLed at once): the stuck-run reaper re-queues the run for another worker."""
    worker = start_worker(connection, redis.url, tmp_path / "worker.log", RUN_TEST_DELAY=1)
    try:
        run = new_run(scenario)
        send(run, redis.url, worker.queue)
        wait_until(lambda: status_of(run) == "running", 20, "the run to start")
        worker.stop(signal.SIGKILL)
        time.sleep(2)  # long enough for a killed worker to have finished, had it lived
        assert status_of(run) == "running"
        second = start_worker(connection, redis.url, tmp_path / "worker2.log", queue=worker.queue)
        try:
            reaped = subprocess.run(
                [sys.executable, "manage.py", "shell", "-c",
                 "from datetime import timedelta; from django.utils import timezone; "
                 "from webapp.scenarios.tasks import reap_stuck; print(reap_stuck(timezone.now() + timedelta(seconds=400)))"],
                env=app_env(connection, redis.url, second.queue), capture_output=True, text=True, timeout=60)
            assert reaped.returncode == 0, reaped.stderr
            assert reaped.stdout.strip().endswith("(1, 0, 0)"), reaped.stdout  # one re-queued, none failed
            wait_until(lambda: status_of(run) in Run.FINISHED, 30, "the re-queued run to finish")
            run.refresh_from_db()
            assert (run.status, run.attempts, run.error) == ("succeeded", 1, ""), second.text()
        finally:
            second.stop()
    finally:
        worker.stop()


def test_it_fails_a_run_that_exceeds_its_time_limit_with_a_readable_reason(scenario, redis, tmp_path):
    # RUN_TIME_LIMIT=3 gives a 1 s soft limit; the run sleeps 20 s before the engine.
    worker = start_worker(connection, redis.url, tmp_path / "worker.log", RUN_TIME_LIMIT=3, RUN_TEST_DELAY=20)
    try:
        run = new_run(scenario)
        started = time.monotonic()
        send(run, redis.url, worker.queue, time_limit=3, soft_time_limit=1)
        wait_until(lambda: status_of(run) in Run.FINISHED, 20, "the run to time out")
        run.refresh_from_db()
        assert run.status == "failed"
        assert run.error == "The simulation took longer than 1 s and was stopped.", run.error
        assert run.result is None and run.finished_at is not None
        assert time.monotonic() - started < 10
    finally:
        worker.stop()


def test_it_answers_503_while_redis_is_down_keeps_edits_and_runs_queued_runs_when_it_returns(
        scenario, redis, tmp_path):
    user = scenario.created_by
    _, key = ApiToken.create(user, "fault")
    worker = start_worker(connection, redis.url, tmp_path / "worker.log")
    web = start_web(connection, redis.url, worker.queue, tmp_path / "web.log")
    base = f"{web.url}/api/scenarios/{scenario.pk}"
    restarted = []
    try:
        code, body = call("POST", f"{base}/runs/", {}, token=key)
        assert code == 202, body
        wait_until(lambda: status_of(Run(pk=body["id"])) == "succeeded", 30, "the first run")

        redis.stop()
        started = time.monotonic()
        code, body = call("POST", f"{base}/runs/", {}, token=key)
        assert code == 503, body
        assert "run queue is unavailable" in body["detail"] and "starts when the queue is back" in body["detail"]
        assert time.monotonic() - started < 10
        stranded = Run.objects.filter(scenario=scenario).order_by("-id").first()
        assert stranded.status == "queued"
        # Editing does not need the broker.
        code, body = call("POST", f"{base}/revisions/", {"manifests": SMALL + "# while redis is down\n"},
                          token=key, headers={"If-Match": '"1"'})
        assert code == 201, body
        assert Revision.objects.filter(scenario=scenario).count() == 2

        restarted.append(Redis(tmp_path / "redis2.log", port=redis.port))  # back on the same port
        # The worker reconnects by itself; a run created now executes.
        code, body = call("POST", f"{base}/runs/", {}, token=key)
        assert code == 202, body
        wait_until(lambda: status_of(Run(pk=body["id"])) == "succeeded", 60, "a run after redis returned")
        # The run queued during the outage is resent by the reaper (its message never reached Redis).
        reaped = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c",
             "from webapp.scenarios.tasks import reap_stuck; print(reap_stuck())"],
            env=app_env(connection, redis.url, worker.queue, RUN_QUEUED_RESEND_AFTER=0),
            capture_output=True, text=True, timeout=60)
        assert reaped.returncode == 0, reaped.stderr
        wait_until(lambda: status_of(stranded) == "succeeded", 30, "the run queued during the outage")
        assert Run.objects.filter(scenario=scenario, status="succeeded").count() == 3
    finally:
        web.stop()
        worker.stop()
        for server in restarted:
            server.stop()


class PageWatcher(threading.Thread):
    """GETs pages over and over while faults happen, and keeps every answer of 500 or more."""

    def __init__(self, urls):
        super().__init__(daemon=True)
        self.urls, self.errors, self.count = urls, [], 0
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            for url in list(self.urls):
                try:
                    with urllib.request.urlopen(url, timeout=30) as r:
                        code = r.status
                except urllib.error.HTTPError as e:
                    code = e.code
                except OSError:
                    continue
                self.count += 1
                if code >= 500:
                    self.errors.append((url, code))
            time.sleep(0.1)


def terminate_other_backends():
    """pg_terminate_backend on every other connection to this database (the worker's and the web server's)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return cursor.fetchone()[0]


def ended(model, pk):
    row = model.objects.filter(pk=pk).values("status", "error").get()
    return row if row["status"] in Run.FINISHED else None


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_terminate_backend needs PostgreSQL")
def test_it_ends_every_run_and_explanation_once_whatever_is_killed(redis, tmp_path):
    """The pool process mid-run and mid-explanation, the embedded beat, the database connections and Redis,
    in turn: every run and explanation ends (succeeded, or failed with a reason), and no page answers 500."""
    user = make_user("faulty")
    team = Team.objects.create(name="faults")
    Membership.objects.create(team=team, user=user, role="owner")
    scenario = services.create_scenario(team=team, name="Faults", manifests=MIN_DOMAINS, author=user)
    _, key = ApiToken.create(user, "faults")
    _, share = ShareLink.create(scenario, user)
    worker = start_worker(connection, redis.url, tmp_path / "worker.log", RUN_TEST_DELAY=2, REAP_INTERVAL=1,
                          BEAT_CHECK_INTERVAL=0.5, args=("-B", "-s", str(tmp_path / "beat-schedule")))
    web = start_web(connection, redis.url, worker.queue, tmp_path / "web.log")
    watcher = PageWatcher([f"{web.url}/s/{share}/"])
    watcher.start()
    started = []
    try:
        def beat_pids():
            return re.findall(r"embedded beat process pid (\d+)", worker.text())

        wait_until(beat_pids, 20, "the beat to start")

        def pool_process():
            beats = {int(p) for p in beat_pids()}
            return next(p for p in pool_children(worker.pid) if p not in beats)

        def run_until_running():
            run = new_run(scenario)
            send(run, redis.url, worker.queue)
            started.append(run.pk)
            watcher.urls.append(f"{web.url}/s/{share}/runs/{run.pk}/")
            wait_until(lambda: status_of(run) == "running", 30, f"run {run.pk} to start")
            return run

        # 1. The pool process killed mid-run: redelivered, finished once.
        run = run_until_running()
        os.kill(pool_process(), signal.SIGKILL)
        assert wait_until(lambda: ended(Run, run.pk), 40, "the run whose worker was killed") == \
            {"status": "succeeded", "error": ""}, worker.text()
        placed = next(p["pod"] for p in Run.objects.get(pk=run.pk).result["pods"] if p["outcome"] == "Scheduled")
        ns, name = placed.split("/")
        watcher.urls.append(f"{web.url}/s/{share}/runs/{run.pk}/pods/{ns}/{name}/")

        # 2. The pool process killed mid-explanation: it ends failed, with the reason.
        pe = PodExplanation.objects.create(run=run, pod=placed)
        with Connection(redis.url) as conn:
            explain_pod.apply_async((pe.pk,), queue=worker.queue, connection=conn)
        wait_until(lambda: PodExplanation.objects.get(pk=pe.pk).status == "running", 30, "the explanation to start")
        os.kill(pool_process(), signal.SIGKILL)
        assert wait_until(lambda: ended(PodExplanation, pe.pk), 40, "the explanation whose worker was killed") == \
            {"status": "failed", "error": "The worker computing it stopped (killed or out of memory)."}, worker.text()

        # 3. The beat killed: another starts, and the reaping goes on.
        [first] = beat_pids()
        os.kill(int(first), signal.SIGKILL)
        wait_until(lambda: len(beat_pids()) == 2, 20, "a new beat")
        reapings = worker.text().count("tasks.reap_stuck_runs[")
        wait_until(lambda: worker.text().count("tasks.reap_stuck_runs[") > reapings, 20, "a reaping from the new beat")

        # 4. Every database connection but the test's terminated mid-run: the result is stored all the same.
        run = run_until_running()
        time.sleep(0.5)  # inside the run's delay, before the engine
        assert terminate_other_backends() >= 1
        assert wait_until(lambda: ended(Run, run.pk), 30, "the run whose connection was terminated") == \
            {"status": "succeeded", "error": ""}, worker.text()
        assert Run.objects.get(pk=run.pk).result["pods"]

        # 5. Redis stopped mid-run, then back: that run ends, and a new one runs.
        run = run_until_running()
        redis.stop()
        assert wait_until(lambda: ended(Run, run.pk), 30, "the run while redis is down")["status"] == "succeeded"
        started.append(Redis(tmp_path / "redis2.log", port=redis.port))
        code, body = call("POST", f"{web.url}/api/scenarios/{scenario.pk}/runs/", {}, token=key)
        assert code == 202, body
        assert wait_until(lambda: ended(Run, body["id"]), 60, "a run after redis returned")["status"] == "succeeded"

        # Ended once: no run is left unfinished, none ran to the end twice.
        assert not Run.objects.exclude(status__in=Run.FINISHED).exists()
        log = worker.text()
        for pk in [pk for pk in started if isinstance(pk, int)]:
            assert len(re.findall(rf"run {pk}: succeeded", log)) <= 1, log
    finally:
        watcher.done.set()
        watcher.join(35)
        web.stop()
        worker.stop()
        for server in started:
            if isinstance(server, Redis):
                server.stop()
    assert watcher.count > 0 and watcher.errors == [], (watcher.errors, web.text()[-3000:])
