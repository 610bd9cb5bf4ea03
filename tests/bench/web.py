"""The web round trip: a run of a 100-node / 1,000-pod scenario, from the API
request to the stored result, through a real Celery worker, Redis and PostgreSQL.

``python -m tests.bench.web`` (``make bench`` runs it): creates the database
``whatif_bench`` on this machine's PostgreSQL when missing, migrates it, starts a worker
on a queue of its own, then times ``POST /api/scenarios/<id>/runs/`` until
``GET /api/runs/<id>/`` says succeeded (polling every 100 ms, ``--poll-ms``), several times, and prints
each figure, and the worker's own log lines (engine and database times). ``--pages`` then times
one GET of each dashboard page of the scenario and its last run; ``--size 1000`` (4 MB of YAML)
shows what a large cluster costs the web process. ``--edit`` times two quick edits of the draft
(``set_spread`` on the ``frontend`` pods) through the API, each with the run of the edited draft
until its result is stored (the second edit starts from the documents the first wrote), then a third
in a new web process, as when the next edit reaches another of a deployment's processes, and one as the
draft editor posts it (that request queues the run itself; timed to the editor's runs panel with the counts). At
the 5000 size that edit's run is queued ahead of its text (EDIT_RUN_AHEAD_MIN_BYTES): the worker's log lines say how
long it took to make the edited scenario from the one it ran before, and how long the run then waited for the text;
``EDIT_RUN_AHEAD_MIN_BYTES=-1`` in the environment times the same edit with its run queued after its text. The
editor's edit is timed to its runs panel with the counts, the panel asked for from the moment the response is written,
by another process, at the interval the page's htmx asks at. ``--browser N`` then makes N edits as a person does, in
headless Chromium against gunicorn (three processes of four threads, as docker-compose.yml), timed in the page
from the click.
``--sweep N`` starts an N-cell sweep (maxSkew x minDomains of that constraint), times it until
every cell is stored, and prints the database's size before and after, with the tables that hold
texts and results (texts are stored once by content, compressed). Creating the scenario
validates it in this process, which keeps the loaded scenario in the engine's disk
cache; the worker's first run reads it from there, and it keeps loaded scenarios in memory
for later runs of the same revision (other seeds, sweeps, explanations). The first run also
pays for this process's first publish to the broker. A benchmark, not a test: nothing is
asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DB = "whatif_bench"


def _env() -> dict:
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{DB}")
    env.setdefault("REDIS_URL", "redis://127.0.0.1:6379/5")
    env.setdefault("FAST_PASSWORD_HASHER", "true")
    return env


def _start_worker(env: dict, queue: str, log: Path) -> subprocess.Popen:
    out = open(log, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "webapp", "worker", "-l", "info", "-P", "solo",
         "-Q", queue, "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env={**env, "CELERY_QUEUE": queue}, stdout=out, stderr=subprocess.STDOUT,
        start_new_session=True)
    deadline = time.monotonic() + 60
    while "ready." not in log.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the worker did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.1)
    return proc


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench.web", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", default="small", help="generator size (default small: 100 x 1,000)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--poll-ms", type=int, default=100,
                   help="how often to ask the API whether a run is done (default 100 ms; each poll costs this "
                        "process about 7 ms of CPU, which a 10 ms interval took from the worker and the database "
                        "on a 2-core machine)")
    p.add_argument("--pages", action="store_true",
                   help="then time one GET of each dashboard page of the scenario and its last run")
    p.add_argument("--fresh", action="store_true",
                   help="with --pages: time each page again in a new process, the first read of its data there")
    p.add_argument("--edit", action="store_true",
                   help="then time two quick edits of the draft, each with the run of the edited draft")
    p.add_argument("--browser", type=int, default=0, metavar="N",
                   help="with --edit: then N quick edits in headless Chromium (Debian's, /usr/bin/chromium) against "
                        "gunicorn with 3 processes of 4 threads, as docker-compose.yml serves the app, each timed "
                        "from the click to the draft run's counts on the page")
    p.add_argument("--pause", type=float, default=0.0, metavar="SECONDS",
                   help="with --browser: wait this long after the page has loaded and after each run's result is on "
                        "it before the next edit (a person reading it; 0: each edit at once)")
    p.add_argument("--new-worker", action="store_true",
                   help="with --browser: a new worker for the browser edits, one that holds nothing of the draft (as "
                        "one that has run other scenarios since): the first edit's run reads the scenario from the "
                        "disk cache and takes over no cycles")
    p.add_argument("--threads", type=int, default=4, metavar="N",
                   help="with --browser: gunicorn's threads a process (4, as docker-compose.yml; 1: sync workers)")
    p.add_argument("--keep-alive", type=int, default=75, metavar="SECONDS",
                   help="with --browser: gunicorn's --keep-alive (75, as docker-compose.yml; gunicorn's default is 2)")
    p.add_argument("--sweep", type=int, default=0, metavar="N",
                   help="then run an N-cell sweep (at most 48) and print the database size")
    args = p.parse_args(argv)
    env = _env()
    os.environ.update(env)
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", DB],
                   capture_output=True, check=False)  # exists already: fine
    os.environ["DJANGO_SETTINGS_MODULE"] = "webapp.settings"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from webapp.scenarios import frozen

    frozen.enable()  # (as in a web process: webapp/wsgi.py)

    from tests.bench.generate import generate, to_yaml
    from webapp.celery import app
    from webapp.scenarios.models import Membership, Run, Team
    from django.contrib.auth import get_user_model

    call_command("migrate", verbosity=0)
    queue = f"whatif-bench-{uuid.uuid4().hex[:8]}"
    app.conf.task_default_queue = queue
    user, _ = get_user_model().objects.get_or_create(username="bench")
    team, _ = Team.objects.get_or_create(name="bench")
    Membership.objects.get_or_create(team=team, user=user, defaults={"role": "owner"})
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    text = to_yaml(generate(args.size, 0).objects)
    # a text of its own each time (the List's resourceVersion): the texts an earlier bench stored, and the scenarios
    # the engine's disk cache kept of them, are not found again, as a person's new edit is not
    head, sep, tail = text.rpartition("resourceVersion: ''")
    text = head + (f"resourceVersion: '{uuid.uuid4().int % 10**12}'" if sep else "") + tail
    t = time.perf_counter()
    r = client.post(f"/api/scenarios/?team=bench&name=bench-{args.size}-{queue}", text,
                    content_type="application/yaml")
    created = time.perf_counter() - t
    if r.status_code != 201:
        raise SystemExit(f"creating the scenario failed: {r.status_code} {r.content[:500]!r}")
    runs_url, scenario_id = r.json()["links"]["runs"], r.json()["id"]
    print(f"created the scenario through the API in {created * 1000:,.0f} ms ({len(text) / 1e6:.1f} MB "
          "of YAML, validated by the engine in this process)", flush=True)
    log = Path(tempfile.mkdtemp(prefix="whatif-bench-web-")) / "worker.log"
    worker = _start_worker(env, queue, log)
    times = []
    try:
        for i in range(args.runs):
            t = time.perf_counter()
            r = client.post(runs_url, {"seed": i}, content_type="application/json")
            run_url = r.json()["url"]
            while True:
                body = client.get(run_url).json()
                if body["status"] in (Run.Status.SUCCEEDED, Run.Status.FAILED):
                    break
                time.sleep(args.poll_ms / 1000)
            seconds = time.perf_counter() - t
            times.append(seconds)
            pods = len(body["result"]["pods"]) if body["result"] else 0
            what = ("first: the worker reads the scenario from the disk cache" if i == 0
                    else "the worker has the scenario in memory")
            print(f"run {i + 1}: {body['status']} in {seconds * 1000:.0f} ms ({pods} pods; {what})",
                  flush=True)
        edited = _time_edit(client, scenario_id) if args.edit else None
        if args.edit and args.browser:
            if args.new_worker:
                os.killpg(worker.pid, signal.SIGTERM)
                worker.wait(20)
                log = log.with_name("worker-new.log")
                worker = _start_worker(env, queue, log)
                print("browser edits: on a new worker", flush=True)
            _time_browser_edits(env, queue, scenario_id, args.browser, log, args.threads, args.pause, args.keep_alive)
        if args.sweep:
            _time_sweep(client, scenario_id, args.sweep)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(20)
    if args.pages:
        _time_pages(client, scenario_id, body, fresh=args.fresh, edited=edited)
    lines = [ln.split("]", 1)[-1].strip() for ln in log.read_text().splitlines()
             if "engine:" in ln or "stored in" in ln]
    ahead = [ln.split("]", 1)[-1].strip() for ln in log.read_text().splitlines()
             if "ahead of its text" in ln or "its text was written" in ln or "its text is loaded" in ln]
    if ahead:
        print("worker log (runs queued ahead of their text):", *ahead, sep="\n  ", flush=True)
    print("worker log (first and last runs):", *(lines[:2] + lines[-2:] if len(lines) > 4 else lines),
          sep="\n  ")
    print(f"web round trip, {args.size} ({len(text) / 1e6:.1f} MB of YAML): first run "
          f"{times[0] * 1000:.0f} ms, then median {statistics.median(times[1:] or times) * 1000:.0f} ms "
          f"over {len(times) - 1} runs (target: under 1,000 ms)")
    return 0


def _wait_run(client, run_url: str) -> dict:
    from webapp.scenarios.models import Run

    while True:
        body = client.get(run_url).json()
        if body["status"] in (Run.Status.SUCCEEDED, Run.Status.FAILED):
            return body
        time.sleep(0.05)


def _time_edit(client, scenario_id: int) -> dict:
    """Two quick edits of the draft through the API, each followed by the draft's run to its stored result (the
    second's returned). The first edit in a process reads the draft's text and decodes all of it; the second
    starts from the documents the first wrote, and the engine decodes only the objects it changed. The test
    client counts what the web process does once the response is written (a WSGI server has sent it by then:
    ``request_finished``, where frozen.py may collect and the documents are kept on disk): that part is printed
    apart."""
    body = None
    for n, skew in ((1, 2), (2, 3)):
        body = _time_one_edit(client, scenario_id, n, {"op": "set_spread", "workload": "app=frontend", "index": 0,
                                                     "maxSkew": skew})
    # (not 5: the generator's own maxSkew for frontend, which would make the draft the saved text again, whose
    # loaded scenario and stored text every process has already)
    _time_page_edit(client, scenario_id, 6)
    # as when the next edit reaches another web process (a deployment runs several): it has read nothing yet
    edit = {"op": "set_spread", "workload": "app=frontend", "index": 0, "maxSkew": 4}
    print(f"quick edit 3 (set_spread maxSkew 4 on app=frontend) in a new web process: "
          f"{_fresh_request('post', f'/api/scenarios/{scenario_id}/draft/edits/', json.dumps(edit))} (it takes the "
          "draft's documents from the disk cache; its first request's imports are not counted)", flush=True)
    return body


def _time_one_edit(client, scenario_id: int, n: int, edit: dict) -> dict:
    from django.core.signals import request_finished

    from webapp.scenarios import frozen
    from webapp.scenarios.manifests import documents

    after = {}

    def timed(receiver):
        def run(sender, **kwargs):
            t0 = time.perf_counter()
            receiver(sender, **kwargs)
            after[receiver.__name__] = after.get(receiver.__name__, 0) + time.perf_counter() - t0
        return run

    receivers = [(r, timed(r)) for r in (frozen._request_finished, documents._write_pending)]
    for receiver, wrapped in receivers:
        request_finished.disconnect(receiver)
        request_finished.connect(wrapped, weak=False)
    t = time.perf_counter()
    try:
        r = client.post(f"/api/scenarios/{scenario_id}/draft/edits/", edit, content_type="application/json")
    finally:
        for receiver, wrapped in receivers:
            request_finished.disconnect(wrapped)
            request_finished.connect(receiver)
    edited = time.perf_counter() - t
    if r.status_code != 200:
        raise SystemExit(f"the quick edit failed: {r.status_code} {r.content[:500]!r}")
    r = client.post(f"/api/scenarios/{scenario_id}/draft/run/", content_type="application/json")
    body = _wait_run(client, r.json()["url"])
    total = time.perf_counter() - t
    print(f"quick edit {n} (set_spread maxSkew {edit['maxSkew']} on app=frontend): stored in {edited:.2f} s "
          f"({sum(after.values()):.2f} s of it after the response was written: frozen.py's collection "
          f"{after.get('_request_finished', 0):.2f} s, keeping the documents on disk "
          f"{after.get('_write_pending', 0):.2f} s); the edited draft run {body['status']} "
          f"{total:.2f} s after the edit was sent", flush=True)
    return body


def _time_page_edit(client, scenario_id: int, skew: int) -> None:
    """A quick edit as the draft editor makes it (the constraint form, posted by htmx): that request queues the
    draft's run itself before its response, and the work after the response (frozen.py's collection, keeping the
    documents) runs beside the worker, not before it. Timed from sending the edit to the editor's runs panel
    rendered with the run's counts, the panel asked for as the page asks for it: from the moment the response is
    written (a browser has it then; the web process goes on with its work after it), at the interval its
    ``hx-trigger`` names (each response names the next), by another process, as another of a deployment's web
    processes answers the page's requests while this one finishes its work (``_poll_panel``)."""
    import multiprocessing

    from django.conf import settings
    from django.core.signals import request_finished

    from urllib.parse import urlencode

    from webapp.front import views_edit
    from webapp.scenarios import drafts, frozen
    from webapp.scenarios.manifests import documents
    from webapp.scenarios.models import Draft, Run

    hx = {"HTTP_HX_REQUEST": "true"}
    panel_url = f"/scenarios/{scenario_id}/draft/runs/"
    draft_runs = Run.objects.filter(scenario_id=scenario_id, source=Run.Source.DRAFT).order_by("-created_at", "-id")
    before = draft_runs.values_list("pk", flat=True).first()
    spawn = multiprocessing.get_context("spawn")  # (a fork would share this process's heap, copied page by page
    ours, theirs = spawn.Pipe()  # as its work after the response collects it)
    poller = spawn.Process(
        target=_poll_panel, args=(theirs, client.session.session_key, panel_url), daemon=True)
    poller.start()
    theirs.close()
    if ours.recv() != "ready":
        raise SystemExit("the panel's poller did not start")
    # the response is written when request_finished is sent: a receiver ahead of the web app's own says so
    written = []

    def stamp(sender, **kwargs):
        written.append(time.perf_counter())
        mine = draft_runs.values_list("pk", flat=True).first()
        draft = Draft.objects.filter(scenario_id=scenario_id).order_by("-updated_at").first()
        # (the panel's URL as the response's panel names it: with what it shows, answered 204 until that changes)
        ours.send((written[0], mine if mine != before else None,
                   f"{panel_url}?{urlencode({'seen': views_edit.panel_state(*drafts.latest_runs(draft))})}"))

    receivers = (frozen._request_finished, documents._write_pending)
    for receiver in receivers:
        request_finished.disconnect(receiver)
    request_finished.connect(stamp, weak=False)
    for receiver in receivers:
        request_finished.connect(receiver)
    sent = time.time()  # (the database's timestamps are wall-clock)
    t = time.perf_counter()
    try:
        r = client.post(f"/scenarios/{scenario_id}/draft/edit/", {
            "op": "set_spread", "workload": "app=frontend", "index": "0", "maxSkew": str(skew)}, **hx)
    finally:
        request_finished.disconnect(stamp)
    answered = time.perf_counter() - t
    if r.status_code != 200 or b"Applied" not in r.content or not written:
        poller.kill()
        raise SystemExit(f"the editor's quick edit failed: {r.status_code} {r.content[:500]!r}")
    found = re.search(r'id="draft-runs"[^>]*hx-trigger="(?:load, )?every (\d+)(ms|s)"', r.content.decode())
    if found is None or (found.group(1), found.group(2)) != (str(settings.RUN_POLL_FAST_MS), "ms"):
        print(f"  (the response's runs panel asks again {found and found.group(0)!r}, not every "
              f"{settings.RUN_POLL_FAST_MS}ms as the poller did)", flush=True)
    polled = ours.recv()
    poller.join(10)
    if isinstance(polled, str):
        raise SystemExit(polled)
    shown, polls, rendered, waiting, finished, compared = polled
    if not compared:
        print("  (the runs panel did not show the comparison of the draft's run with the saved one)", flush=True)
    print(f"quick edit in the draft editor (set_spread maxSkew {skew} on app=frontend): response written "
          f"{written[0] - t:.2f} s after the edit was sent (the run queued in it; the web process's work after it "
          f"ended at {answered:.2f} s); the runs panel with the run's counts {shown - t:.2f} s after the edit was "
          f"sent, asked for as the page asks, by another process ({polls} requests from the response on, the last "
          f"{rendered * 1000:.0f} ms to render, those before it {waiting * 1000:.0f} ms at most; the run finished, "
          f"its result stored, on the panel at {finished - t:.2f} s; the worker's times for the run are its log's "
          "last lines)", flush=True)
    run = Run.objects.get(pk=draft_runs.values_list("pk", flat=True).first())
    if run.started_at and run.finished_at:
        at = [(stamp.timestamp() - sent) for stamp in (run.created_at, run.started_at, run.finished_at)]
        print(f"  its run: queued {at[0]:.2f} s after the edit was sent, taken by the worker at {at[1]:.2f} s, "
              f"the result's write began at {at[2]:.2f} s (its counts were stored just before); the panel showed "
              f"the counts {shown - t - at[2]:+.2f} s from then", flush=True)


def _poll_panel(conn, session_key: str, panel_url: str) -> None:
    """The draft editor's runs panel, asked for as the page asks for it once it has the edit's response: at once
    (the panel's "load" trigger), then at the interval each answer names (and at once after a held poll, or after
    a render whose panel asks on "load"), until the runs are finished. Sends back (when the draft run's counts were
    on it, requests made, the last one's render time, the longest before it, when the runs were finished, whether
    the comparison with the saved run was on it); times are perf_counter's, which every process shares."""
    import html as html_module

    import django

    try:
        django.setup()
        from django.conf import settings
        from django.test import Client

        client = Client(HTTP_HOST="127.0.0.1")
        client.cookies[settings.SESSION_COOKIE_NAME] = session_key
        hx = {"HTTP_HX_REQUEST": "true"}
        client.get(panel_url, **hx)  # (this process's first request imports the views and templates)
        conn.send("ready")
        written, run_pk, url = conn.recv()
        if run_pk is None:
            conn.send("the editor's quick edit queued no draft run")
            return
        counted = f'<p class="counts" data-run="{run_pk}">'  # (the draft run's counts, as the panel shows them)
        wait, shown, polls, rendered, waiting, html = settings.RUN_POLL_FAST_MS / 1000, None, 0, 0.0, 0.0, ""
        asked = written - wait  # (the panel the response brings asks once it is on the page: "load")
        while True:
            time.sleep(max(0.0, asked + wait - time.perf_counter()))
            t0 = time.perf_counter()
            r = client.get(url, **hx)
            asked = time.perf_counter()
            polls += 1
            if r.status_code == 204:  # (nothing changed: the page keeps its panel, and asks again)
                waiting = max(waiting, asked - t0)
                if asked - t0 >= wait:  # (a poll the server held: htmx's tick queued meanwhile asks at once)
                    asked -= wait
                continue
            html = r.content.decode()
            named = re.search(r'id="draft-runs"[^>]*hx-get="([^"]+)"', html)
            url = html_module.unescape(named[1]) if named else url
            if shown is None:
                if counted in html:
                    shown, rendered = asked, asked - t0
                else:
                    waiting = max(waiting, asked - t0)
            found = re.search(r'id="draft-runs"[^>]*hx-trigger="(?:load, )?every (\d+)(ms|s)"', html)
            if found is None:  # (no trigger: both runs are finished)
                break
            wait = int(found.group(1)) / (1000 if found.group(2) == "ms" else 1)
            if found.group(0).endswith(f'"load, every {found.group(1)}{found.group(2)}"'):
                asked -= wait  # (the panel just swapped in asks at once)
            if asked - written > 120:
                conn.send("the editor's runs panel still waited for the runs after 2 minutes")
                return
        if shown is None:
            conn.send("the editor's runs panel never showed the draft run's counts")
            return
        conn.send((shown, polls, rendered, waiting, asked, "draft-diff-summary" in html))
    except Exception as e:  # noqa: BLE001 - said by the bench, which would otherwise wait for an answer forever
        conn.send(f"the panel's poller failed: {e!r}")


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]
# In the page: when the edit's response is swapped in (its "Applied" note) and when a run the panel did not show
# before shows its counts; each a performance.now() (milliseconds), read after the click.
_STAMP = """(before) => { const seen = new Set(before); const m = window.__bench = {};
  new MutationObserver(() => {
    if (!m.ok && document.querySelector('#edit-ok')) m.ok = performance.now();
    for (const e of document.querySelectorAll('p.counts'))
      if (!m.counts && !seen.has(e.dataset.run)) { m.counts = performance.now(); m.run = e.dataset.run; }
  }).observe(document.body, {subtree: true, childList: true});
  document.addEventListener('htmx:beforeRequest', () => { m.requests = (m.requests || 0) + 1;
    if (!m.sent) m.sent = performance.now(); });
  document.addEventListener('click', () => { if (!m.clicked) m.clicked = performance.now(); }, true);
  m.click = performance.now(); m.wall = Date.now(); }"""
# m.click: when Playwright is asked to click (its checks that the button is visible, stable and not covered come
# after it); m.clicked: when the page received the click event; m.sent: when htmx sent the edit's request.


def _time_browser_edits(env: dict, queue: str, scenario_id: int, count: int, log: Path, threads: int,
                        pause: float, keep_alive: int = 75) -> None:
    """Quick edits of the draft as a person makes them: headless Chromium, logged in, fills the frontend
    constraint's maxSkew in the draft editor and presses Apply; timed in the page from the click to the edit's
    response on the page and to the draft run's counts on it (the runs panel asks for them as htmx does). The app
    is served by gunicorn with three processes of four threads (docker-compose.yml's), which this bench starts on
    a free port, and run by this bench's worker. The browser shares this machine's cores with the web processes and
    the worker, which a person's browser would not. Each line says which web process made the edit, and whether it
    made the previous one (the documents of the draft's text are then in its memory; another process reads them from
    the disk cache). Last, how long after the worker stored each run's counts the page showed them. The first edit is
    made ``pause`` seconds after the editor's page has loaded, each other once the one before has its result on the
    page, ``pause`` seconds later (a person reading it; clicked the moment the page had loaded, the first edit
    reached another web process than the page's in three runs of three, one that had read nothing of the draft)."""
    import socket
    import urllib.request

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser edits: Playwright is not installed (the test requirements: make test)", flush=True)
        return
    if not Path(CHROMIUM).exists():
        print(f"browser edits: no {CHROMIUM} (make test-deps installs Debian's chromium)", flush=True)
        return
    from django.contrib.auth import get_user_model

    password = uuid.uuid4().hex
    user = get_user_model().objects.get(username="bench")
    user.set_password(password)
    user.save()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    logs = Path(tempfile.mkdtemp(prefix="whatif-bench-gunicorn-"))
    access = logs / "access.log"
    with open(logs / "gunicorn.log", "w") as out:  # (the server writes to its own copy of the file)
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "webapp.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "3",
             "--threads", str(threads), "--keep-alive", str(keep_alive), "--access-logfile", str(access),
             "--access-logformat", '%(p)s "%(r)s" %(s)s %(M)s'],
            cwd=ROOT, env={**env, "CELERY_QUEUE": queue, "DJANGO_SETTINGS_MODULE": "webapp.settings"},
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/login/", timeout=5)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"gunicorn did not start:\n{(logs / 'gunicorn.log').read_text()[-2000:]}")
                time.sleep(0.2)
        counted, from_event, shown_at = [], [], {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{base}/login/")
            page.get_by_label("Username").fill("bench")
            page.get_by_label("Password").fill(password)
            page.get_by_role("button", name="Log in").click()
            page.get_by_role("heading", name="Scenarios").wait_for()
            page.goto(f"{base}/scenarios/{scenario_id}/draft/")
            previous = None
            for n, skew in enumerate(range(7, 7 + count), 1):  # (values no earlier edit of this bench made)
                # (polling every 200 ms, not at each frame: this page's work is not to take a core from the run)
                page.wait_for_function("() => !document.querySelector('#draft-runs[hx-trigger]')",
                                       timeout=120_000, polling=200)
                time.sleep(pause)
                before = page.evaluate("() => [...document.querySelectorAll('p.counts')].map(e => e.dataset.run)")
                card = page.locator(".quick-card", has=page.get_by_role(
                    "heading", name="app=frontend · constraint 0"))
                card.get_by_label("maxSkew").fill(str(skew))
                edits_before = access.read_text().count("/draft/edit/")
                page.evaluate(_STAMP, before)
                card.get_by_role("button", name="Apply").click()
                page.wait_for_function("() => window.__bench.counts", timeout=120_000, polling=200)
                m = page.evaluate("() => window.__bench")
                made = [ln.split()[0].strip("<>") for ln in access.read_text().splitlines() if "/draft/edit/" in ln]
                pid = made[edits_before] if len(made) > edits_before else "?"
                counted.append((m["counts"] - m["click"]) / 1000)
                from_event.append((m["counts"] - m.get("clicked", m["click"])) / 1000)
                shown_at[m["run"]] = (m["wall"] + m["counts"] - m["click"]) / 1000
                which = ("the one that made the previous edit" if pid == previous else
                         "another than made the previous edit" if previous else "the first edit")
                print(f"browser edit {n} (maxSkew {skew}): the response on the page "
                      f"{(m['ok'] - m['click']) / 1000:.2f} s after the click, the draft run's counts "
                      f"{counted[-1]:.2f} s (run {m['run']}; web process {pid}, {which}; the click event "
                      f"{m.get('clicked', m['click']) - m['click']:.0f} ms after the click was asked for, "
                      f"the request {m.get('sent', m['click']) - m.get('clicked', m['click']):.0f} ms "
                      "after the event)", flush=True)
                previous = pid
            page.wait_for_function("() => !document.querySelector('#draft-runs[hx-trigger]')",
                                   timeout=120_000, polling=200)  # (the last run's result stored: its log line)
            browser.close()
        print(f"browser edits: the draft run's counts on the page {statistics.median(counted):.2f} s after the click "
              f"(median of {len(counted)}; {min(counted):.2f}–{max(counted):.2f} s); "
              f"{statistics.median(from_event):.2f} s after the page received the click event "
              f"({min(from_event):.2f}–{max(from_event):.2f} s)", flush=True)
        lags = _after_the_counts(log, shown_at)
        if lags:
            print(f"browser edits: the counts on the page {statistics.median(lags):.2f} s after the worker stored "
                  f"them (median of {len(lags)}; {min(lags):.2f}–{max(lags):.2f} s; from its log, to about 0.05 s)",
                  flush=True)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(20)


_STORED = re.compile(r"^\[(\S+ \S+): .*\] run (\d+): succeeded; engine \d+ ms, counts stored (\d+) ms after it, "
                     r"stored in (\d+) ms")


def _after_the_counts(log: Path, shown_at: dict) -> list:
    """Seconds from when the worker stored each run's counts to when the page showed them (``shown_at``: epoch
    seconds by run id). The worker's log line comes after the result's write (``stored in``), which began once the
    counts were stored; the counts' own write is told apart from the result's to within the time the engine's
    summary takes (some tens of ms)."""
    lags = []
    for line in log.read_text().splitlines():
        found = _STORED.match(line)
        if found is None or found[2] not in shown_at:
            continue
        logged = datetime.strptime(found[1], "%Y-%m-%d %H:%M:%S,%f").timestamp()  # (the worker's local time)
        stored = logged - int(found[4]) / 1000 + int(found[3]) / 1000
        lags.append(shown_at[found[2]] - stored)
    return lags


def _database_sizes() -> str:
    from django.db import connection

    with connection.cursor() as c:
        c.execute("SELECT pg_database_size(current_database()), pg_total_relation_size('scenarios_text'), "
                  "pg_total_relation_size('scenarios_run'), (SELECT count(*) FROM scenarios_text), "
                  "(SELECT count(*) FROM scenarios_run)")
        db, texts, runs, n_texts, n_runs = c.fetchone()
    return (f"database {db / 1e6:,.0f} MB (texts {texts / 1e6:,.1f} MB in {n_texts} rows, runs "
            f"{runs / 1e6:,.1f} MB in {n_runs} rows)")


def _time_sweep(client, scenario_id: int, cells: int) -> None:
    """An N-cell maxSkew x minDomains sweep to its last stored cell, and the database before and after."""
    skews = max(1, min(8, cells))
    domains = max(1, cells // skews)
    spec = {"type": "skew", "workload": "app=frontend", "index": 0,
            "maxSkew": ",".join(str(s) for s in range(1, skews + 1)),
            "minDomains": ",".join(["none"] + [str(d) for d in range(2, domains + 1)])}
    print(f"sweep of {skews * domains} cells; before it: {_database_sizes()}", flush=True)
    t = time.perf_counter()
    r = client.post(f"/api/scenarios/{scenario_id}/sweeps/", spec, content_type="application/json")
    started = time.perf_counter() - t
    if r.status_code != 202:
        raise SystemExit(f"the sweep failed to start: {r.status_code} {r.content[:500]!r}")
    url = r.headers["Location"]
    while not (body := client.get(url).json())["finished"]:
        time.sleep(0.5)
    print(f"sweep: {len(body['cells'])} cells queued in {started:.1f} s (the first cell's text written and "
          f"checked in the request, the others' by their workers), all stored {time.perf_counter() - t:.1f} s after the request; after it: "
          f"{_database_sizes()}", flush=True)


_FRESH_REQUEST = """
import os, sys, time
import django
django.setup()
from django.contrib.auth import get_user_model
from django.core.signals import request_finished
from django.test import Client
from webapp.scenarios import frozen
from webapp.scenarios.manifests import documents
frozen.enable()  # (as in a web process: webapp/wsgi.py)
after = [0.0]  # what the process does once the response is written (a WSGI server has sent it by then)
def timed(receiver):
    def run(sender, **kwargs):
        t0 = time.perf_counter()
        receiver(sender, **kwargs)
        after[0] += time.perf_counter() - t0
    return run
for receiver in (frozen._request_finished, documents._write_pending):
    request_finished.disconnect(receiver)
    request_finished.connect(timed(receiver), weak=False)
client = Client(HTTP_HOST="127.0.0.1")
client.force_login(get_user_model().objects.get(username="bench"))
client.get("/login/")  # (the process's first request imports the URLs: not the page's time)
after[0] = 0.0
method, url, arg = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
if method == "post":  # (arg: the JSON body)
    t = time.perf_counter()
    r = client.post(url, arg, content_type="application/json")
else:  # (arg: an Accept-Encoding)
    headers = {"HTTP_ACCEPT_ENCODING": arg} if arg else {}
    t = time.perf_counter()
    r = client.get(url, **headers)
print(r.status_code, round((time.perf_counter() - t - after[0]) * 1000), round(after[0] * 1000))
"""


def _fresh_get(url: str, encoding: str = "") -> str:
    return _fresh_request("get", url, encoding)


def _fresh_request(method: str, url: str, arg: str = "") -> str:
    """One GET (arg: an Accept-Encoding) or POST (arg: a JSON body) of url in a new process (nothing of the
    scenario or run read there yet): "status ms", the time to the response written, and what the process did
    after it when it did something."""
    done = subprocess.run([sys.executable, "-c", _FRESH_REQUEST, method, url, *([arg] if arg else [])], cwd=ROOT,
                          capture_output=True, text=True,
                          env={**os.environ, "DJANGO_SETTINGS_MODULE": "webapp.settings"})
    lines = done.stdout.split()
    if len(lines) < 3:
        return f"failed: {done.stderr[-300:]}"
    after = f" (then {int(lines[-1]):,} ms after the response)" if int(lines[-1]) else ""
    return f"{lines[-3]}  {int(lines[-2]):>7,} ms{after}"


def _time_pages(client, scenario_id: int, run: dict, fresh: bool = False, edited: dict | None = None) -> None:
    """One GET of each page a person opens on this scenario and run, timed (and, ``fresh``, again in a new
    process each); after a quick edit (``edited``: the draft's run), the comparison of that run with ``run``, as a
    page and through the API."""
    rows = (run.get("result") or {}).get("pods") or []
    pod = next((r for r in rows if r.get("outcome") != "Scheduled"), rows[0] if rows else {})
    node = next((r["node"] for r in rows if r.get("node")), "")
    ns, name = (pod.get("pod") or "default/none").split("/", 1)
    pages = [("scenario", f"/scenarios/{scenario_id}/"), ("draft editor", f"/scenarios/{scenario_id}/draft/"),
             ("gated pods", f"/scenarios/{scenario_id}/pods/"), ("run", f"/runs/{run['id']}/"),
             ("nodes", f"/runs/{run['id']}/nodes/"), ("node", f"/runs/{run['id']}/nodes/{node}/"),
             ("topology", f"/runs/{run['id']}/topology/"), ("timeline", f"/runs/{run['id']}/timeline/"),
             ("pod", f"/runs/{run['id']}/pods/{ns}/{name}/"), ("API run", f"/api/runs/{run['id']}/"),
             ("API run, gzip", f"/api/runs/{run['id']}/")]  # (as a client that accepts gzip asks for it)
    if edited:
        pages += [("compare", f"/scenarios/{scenario_id}/compare/?a={run['id']}&b={edited['id']}"),
                  ("API compare", f"/api/runs/{run['id']}/compare/{edited['id']}/")]
    print("pages (one GET each; status, ms, size as sent):", flush=True)
    for label, url in pages:
        encoding = "gzip" if label.endswith("gzip") else ""
        t = time.perf_counter()
        r = client.get(url, **({"HTTP_ACCEPT_ENCODING": encoding} if encoding else {}))
        print(f"  {label:<13} {r.status_code}  {(time.perf_counter() - t) * 1000:>7,.0f} ms  "
              f"{len(r.content) / 1e6:5.1f} MB  {url}", flush=True)
    if fresh:
        print("pages, each in a new process (status, ms):", flush=True)
        for label, url in pages:
            print(f"  {label:<13} {_fresh_get(url, 'gzip' if label.endswith('gzip') else '')}  {url}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
