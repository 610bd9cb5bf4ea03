import contextlib
import logging
import time
from datetime import timedelta

import psycopg
from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from psycopg.types.json import Jsonb

from . import compare, engine, large_json, results_cache, runs, texts
from .manifests import edits, pods
from .models import Analysis, AnalysisPart, PodExplanation, Run, RunPage
from .signals import run_computed

log = logging.getLogger(__name__)

INTERNAL_ERROR = "The engine failed on this scenario because of an internal error; it has been logged."
WORKER_LOST = ("The worker running this simulation stopped {n} times (killed or out of memory); "
               "it was not retried again.")
EXPLANATION_LOST = "The worker computing it stopped (killed or out of memory)."
RESULT_TOO_LARGE = ("The simulation finished, but its result is larger than the database can store in one "
                    "document (PostgreSQL refuses JSON over 256 MB). Run it with fewer pending pods, or with "
                    "the engine's command line, which has no such limit.")
# A run whose worker died is redelivered and restarted at most this many times (Run.attempts counts restarts).
MAX_RESTARTS = 2


class QueueUnavailable(Exception):
    """The broker (Redis) could not be reached, so a run could not be handed to a worker."""

    message = ("The run queue is unavailable right now (the message broker cannot be reached). "
               "Your scenario and its revisions are saved; "
               "the run is kept as queued and starts when the queue is back.")

    def __str__(self):
        return self.message


@shared_task(
    bind=True,
    acks_late=True,
    # A worker killed mid-run (SIGKILL, OOM) puts the message back instead of acking it as failed.
    reject_on_worker_lost=True,
    ignore_result=True,
    time_limit=settings.RUN_TIME_LIMIT,
    soft_time_limit=settings.RUN_SOFT_TIME_LIMIT,
)
def execute_run(self, run_id):
    if not claim(run_id, redelivered=bool((self.request.delivery_info or {}).get("redelivered"))):
        return
    started = time.perf_counter()
    # (the texts are read only if the engine needs them: a worker that kept the loaded scenario does not)
    run = Run.objects.select_related("revision").defer("manifests", "revision__manifests").get(pk=run_id)
    # What follows the simulation lays out the pages' rows from the result and writes it: a 150,000-pod run's result
    # is millions of lists and dicts, and the scenario's objects are alive too, so each full collection of the cycle
    # collector walked all of them again (seconds a run, at the first rows laid out); none of this makes a cycle.
    with contextlib.ExitStack() as after_the_engine:
        def pause_collection():
            after_the_engine.enter_context(engine.without_cycle_collection())

        if run.queued_ahead:
            outcome = compute_ahead(run, simulated=pause_collection)
            if outcome is None:
                return  # (the edit was not made: its request deleted the run)
            run, (status, result, error) = outcome
        else:
            status, result, error = compute(run)
        pause_collection()
        _store_outcome(run_id, run, started, status, result, error)


def _store_outcome(run_id, run, started, status, result, error):
    """Lay out the run's page rows, store its outcome, and keep what the pages read by parts."""
    run_done = time.perf_counter()
    succeeded = status == Run.Status.SUCCEEDED
    summary = compare.cell_summary(result) if succeeded else None
    facts = compare.final_facts(result) if succeeded else None  # (what a comparison with another run reads)
    computed = time.perf_counter()
    # The counts and the comparison's facts first, in a write of their own while the run is still running: the
    # draft editor shows them without waiting for the result, whose write is most of the store (PostgreSQL parses
    # a 5,000-node run's 19 MB into jsonb in 0.3 to 0.5 s), nor for the rest of the page's rows.
    if succeeded:
        _counts_first(run_id, {"compare": facts}, summary)
    counted = time.perf_counter()
    page = page_of(run, result, facts) if succeeded else None
    # Then one write for status, result, error and the page's rows; only if the stuck-run reaper hasn't taken the
    # run meanwhile.
    try:
        store(lambda: _finish(run_id, page, status=status, result=result, error=error, summary=summary,
                              finished_at=timezone.now(), progress=None), f"run {run_id}")
    except ResultTooLarge as e:
        log.error("run %s: the database refused its result: %s", run_id, e)
        status = Run.Status.FAILED
        store(lambda: _finish(run_id, None, status=status, result=None, error=RESULT_TOO_LARGE, summary=None,
                              finished_at=timezone.now(), progress=None), f"run {run_id}")
    log.info("run %s: %s; engine %.0f ms, counts stored %.0f ms after it, stored in %.0f ms", run_id, status,
             (computed - started) * 1000, (counted - run_done) * 1000, (time.perf_counter() - computed) * 1000)
    if status == Run.Status.SUCCEEDED:  # (after the run is seen finished: for the pages that read it by parts)
        try:
            results_cache.keep_part_sizes(run_id)
            if run.sweep_id is None:  # (a sweep's cells are many: 10 MB each at 150,000 pods, for the API alone)
                results_cache.keep_deflated(run_id)
        except DatabaseError:
            log.warning("run %s: could not keep its result's part sizes or deflated text", run_id, exc_info=True)


def page_of(run, result, facts):
    """What the pages lay out from a run's result once: the facts a comparison reads (``facts``: its
    compare.final_facts) and what the receivers of run_computed return."""
    data = {"compare": facts}
    for _, found in run_computed.send(sender=Run, run=run, result=result):
        data.update(found or {})
    return data


def _counts_first(run_id, page, summary):
    """Store a succeeded run's counts (``summary``) and the first of its page's rows (``page``: what the draft
    editor's runs panel reads, views_edit.runs_context) while it is still running here, its step "storing". A
    failed write is only logged: _finish writes them with the result anyway."""
    def write():
        with transaction.atomic():
            if Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).update(
                    summary=summary, progress={"step": "storing"}):
                RunPage.objects.filter(run_id=run_id).delete()
                RunPage.objects.create(run_id=run_id, data=page)
    try:
        store(write, f"run {run_id}'s counts")
    except (DatabaseError, ResultTooLarge):
        log.warning("run %s: could not store its counts before its result", run_id, exc_info=True)


def _finish(run_id, page, **outcome):
    """Store a run's outcome (and its page's rows) in one transaction, if the run is still running here."""
    result = outcome.pop("result", None)
    bound = result is not None and connection.vendor == "postgresql"
    if not bound:
        outcome["result"] = result
    with transaction.atomic():
        done = Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).update(**outcome)
        if done and bound:
            _write_result(run_id, result)
        if done:
            RunPage.objects.filter(run_id=run_id).delete()
            if page is not None:
                RunPage.objects.create(run_id=run_id, data=page)
    return done


def _write_result(run_id, result):
    """UPDATE the run's result on PostgreSQL with the JSON as a bound parameter: Django's cursor quotes a
    parameter into the statement's text, which the server then scans (a 136 MB result: 4 to 5.5 s against 1.7 s
    bound)."""
    meta = Run._meta
    sql = (f"UPDATE {connection.ops.quote_name(meta.db_table)} SET "
           f"{connection.ops.quote_name(meta.get_field('result').column)} = %s WHERE id = %s")
    bound = psycopg.Cursor(connection.connection)  # (Django's cursors are psycopg's ClientCursor)
    with (connection.make_debug_cursor(bound) if connection.queries_logged else connection.make_cursor(bound)
          ) as cursor:  # (Django's wrapper: its execute wrappers run, its errors are Django's)
        cursor.execute(sql, [Jsonb(result, dumps=large_json.dumps), run_id])


STORE_ATTEMPTS = 4


class ResultTooLarge(Exception):
    """The database refused a write for a size limit of its own (PostgreSQL's SQLSTATE class 54,
    e.g. a jsonb document over 256 MB): writing it again would fail the same way."""


def _over_a_limit(err):
    return str(getattr(err.__cause__, "sqlstate", "") or "").startswith("54")


def store(update, what):
    """update() (a write of the task's outcome), again on a new connection if the database dropped
    the one it had (a restart, a failover, pg_terminate_backend while the engine ran): the result of
    minutes of simulation is not lost, nor is the run left "running" for the reaper to redo. A write
    the database refuses for its size raises ResultTooLarge at once."""
    for attempt in range(1, STORE_ATTEMPTS + 1):
        try:
            return update()
        except (OperationalError, InterfaceError) as e:
            if _over_a_limit(e):
                raise ResultTooLarge(str(e).splitlines()[0]) from e
            if attempt == STORE_ATTEMPTS:
                raise
            log.warning("%s: the database connection failed while storing the outcome; retrying", what,
                        exc_info=True)
            connection.close()
            time.sleep(0.5 * attempt)


def claim(run_id, redelivered=False):
    """Mark the run running; False if another delivery has it or it is finished.

    A first delivery claims a queued run. A redelivered message (its worker died
    before acking) may also take over a run left `running`, since nobody else is
    running it; after MAX_RESTARTS restarts the run fails instead of looping.
    """
    now = timezone.now()
    if Run.objects.filter(pk=run_id, status=Run.Status.QUEUED).update(status=Run.Status.RUNNING, started_at=now):
        return True
    if not redelivered:
        return False
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id, status=Run.Status.RUNNING).first()
        if run is None:
            return False
        if run.attempts >= MAX_RESTARTS:
            Run.objects.filter(pk=run_id).update(
                status=Run.Status.FAILED, finished_at=now, error=WORKER_LOST.format(n=run.attempts + 1))
            return False
        Run.objects.filter(pk=run_id).update(started_at=now, attempts=F("attempts") + 1)
    log.warning("run %s: redelivered after its worker stopped; running it again", run_id)
    return True


def enqueue(run_id):
    """Send the run to a worker; QueueUnavailable if the broker is down (the Run row stays queued)."""
    # The queue is read at send time, so a test session can point the web process at its own worker.
    try:
        execute_run.apply_async((run_id,), queue=execute_run.app.conf.task_default_queue,
                                retry_policy=settings.RUN_PUBLISH_RETRY)
    except (KombuOperationalError, OSError) as e:
        log.error("run %s: could not reach the broker: %s", run_id, e)
        raise QueueUnavailable() from e


def write_cell_text(run):
    """A sweep cell queued without its text: its revision's with the cell's edits applied, stored with the run
    (a redelivered cell finds it there); the error when an edit does not apply (naming the object and field)."""
    tell_progress(run.pk, {"step": "editing"})
    try:
        text = edits.apply_edits(run.revision.manifests, run.edits, run.config)
    except engine.ScenarioInvalid as e:  # (an EditError too)
        where = " ".join(x for x in (e.object, e.field) if x and x not in str(e))
        return f"The cell's edits do not apply{f' ({where})' if where else ''}: {e}"
    store(lambda: Run.objects.filter(pk=run.pk).update(manifests=text), f"run {run.pk}'s text")
    run.manifests = text
    return ""


def compute(run):
    if run.awaits_text:
        error = write_cell_text(run)
        if error:
            return Run.Status.FAILED, None, error
    # What the engine needs is read from the database now (the connection may be gone by the time it is done):
    # a large text's loaded scenario is looked for in the disk cache by the text's stored key, and the text is
    # read only when the cache does not have it.
    stored_key, config, read = run.scenario_source()
    size = texts.size_of(stored_key)
    cached = engine.cached_file(stored_key, config, size) if size is not None else None
    manifests = None if cached is not None else read()

    def simulate(**options):
        if settings.RUN_TEST_DELAY:
            time.sleep(settings.RUN_TEST_DELAY)  # tests only: a slow run to kill or time out
        if cached is None:
            return engine.simulate(manifests, config, remember=True, **options)
        # (the file may have gone meanwhile: the text is then read, on a new connection if need be)
        return engine.simulate_cached(cached, config, lambda: store(read, f"run {run.pk}'s text"), size=size,
                                      **options)
    return _simulated(run, simulate)


def _simulated(run, simulate):
    """compute's outcome of ``simulate(seed, detail, progress)``: the engine's result, or the error a user reads."""
    try:
        result = simulate(seed=int(run.seed), detail=settings.RUN_DETAIL,
                          progress=lambda step: tell_progress(run.pk, step))
    except engine.ScenarioInvalid as e:
        return Run.Status.FAILED, None, str(e)
    except SoftTimeLimitExceeded:
        return Run.Status.FAILED, None, f"The simulation took longer than {settings.RUN_SOFT_TIME_LIMIT} s and was stopped."
    except Exception:
        log.exception("run %s failed in the engine", run.pk)
        return Run.Status.FAILED, None, INTERNAL_ERROR
    return Run.Status.SUCCEEDED, result, ""


# How long a run queued ahead of its text waits for the quick edit's request to write it (that request stopped).
AHEAD_TEXT_WAIT = 120
AHEAD_TEXT_LOST = ("The quick edit that queued this run did not finish writing the draft's new text, so the run "
                   "was not simulated; edit or run the draft again.")


def compute_ahead(run, simulated=lambda: None):
    """(the run, compute's outcome) of a draft's run queued by a quick edit before its text was written
    (Run.queued_ahead): the engine puts the edit's changed directives into the scenario of the text before the
    edit and simulates it while the edit's request writes the text; the outcome is kept once the text is written.
    Where the engine cannot (the edit changed more than directives, or the documents are gone), the run waits for
    the text and is simulated from it. None when the run was deleted meanwhile (the edit failed). ``simulated()``
    is called once the simulation is done (the caller pauses the cycle collector: waiting for the text, the first
    allocations after a simulation set off a full collection of the scenario and result, a tenth of a second at
    5,000 nodes)."""
    tell_progress(run.pk, {"step": "loading"})
    started = time.perf_counter()
    try:
        scenario = engine.scenario_ahead(run.params["ahead"], wanted=lambda: _awaits_its_text(run),
                                         set_fields=edits.scenario_with_fields)
    except Exception:
        log.exception("run %s: the edit's scenario could not be made ahead of its text", run.pk)
        scenario = None
    log.info("run %s: %s in %.0f ms", run.pk, "the edit's scenario made ahead of its text" if scenario is not None
             else "the edit changed more than directives: its text is loaded", (time.perf_counter() - started) * 1000)
    token = run.params["ahead"]
    if scenario is None:
        run = _await_text(run)
        engine.drop_handed(token)
        return None if run is None else (run, compute(run) if run.manifests_written else _text_lost())
    outcome = _simulated(run, lambda **options: engine.simulate_scenario(scenario, **options))
    simulated()
    done = time.perf_counter()
    run = _await_text(run)
    engine.drop_handed(token)  # (the documents handed over for a worker that could not set an edit's fields)
    if run is None:
        return None
    log.info("run %s: its text was written %.0f ms after it was simulated", run.pk, (time.perf_counter() - done) * 1000)
    if not run.manifests_written:
        return run, _text_lost()
    stored_key, config, _ = run.scenario_source()
    engine.keep_loaded(stored_key, config, scenario, texts.size_of(stored_key))  # (for the draft's next edit)
    return run, outcome


def _awaits_its_text(run):
    """Whether a run queued ahead still waits for its request to write its text (false once it is deleted, or its
    text is written: the documents a request hands over come before that)."""
    found = list(texts.with_stored_key(Run.objects.filter(pk=run.pk), "manifests").values_list("stored_key", flat=True))
    return bool(found) and not found[0]


def _text_lost():
    return Run.Status.FAILED, None, AHEAD_TEXT_LOST


def _await_text(run, wait=None):
    """The run once its quick edit's request has written its text (``manifests_written``), or once AHEAD_TEXT_WAIT
    has passed (not written); None when the request deleted it."""
    deadline = time.monotonic() + (AHEAD_TEXT_WAIT if wait is None else wait)
    pause = 0.01
    while True:
        found = store(lambda: texts.with_stored_key(
            Run.objects.select_related("revision").defer("manifests", "revision__manifests"), "manifests").filter(
            pk=run.pk).first(), f"run {run.pk}'s text")
        if found is None:
            return None
        found.manifests_written = bool(texts.known_key(found, "manifests"))
        if found.manifests_written or time.monotonic() > deadline:
            return found
        time.sleep(pause)
        pause = min(0.05, pause * 1.5)


def tell_progress(run_id, step):
    """The worker's step, for the run page (a write of one small field; a failed write is not the run's failure)."""
    try:
        Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).update(progress=step)
    except (OperationalError, InterfaceError):
        log.warning("run %s: could not store its progress", run_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             time_limit=settings.RUN_TIME_LIMIT, soft_time_limit=settings.RUN_SOFT_TIME_LIMIT)
def explain_pod(self, explanation_id):
    """Simulate a finished run's text and seed again, explaining one pod's latest cycle."""
    now = timezone.now()
    if not PodExplanation.objects.filter(pk=explanation_id, status=Run.Status.QUEUED).update(
            status=Run.Status.RUNNING, started_at=now):
        if (self.request.delivery_info or {}).get("redelivered"):
            # Its worker died mid-simulation (killed, out of memory): end it with the reason rather
            # than leave it running, and a page polling it, forever. It is not tried again: the same
            # simulation would likely kill the next worker too.
            PodExplanation.objects.filter(pk=explanation_id, status=Run.Status.RUNNING).update(
                status=Run.Status.FAILED, error=EXPLANATION_LOST)
        return
    pe = PodExplanation.objects.select_related("run__revision").get(pk=explanation_id)
    manifests, config = pe.run.scenario_text()
    status, result, error = Run.Status.SUCCEEDED, None, ""
    try:
        if settings.RUN_TEST_DELAY:
            time.sleep(settings.RUN_TEST_DELAY)  # tests only: an explanation to kill
        out = engine.simulate(manifests, config, seed=int(pe.run.seed), detail=[pe.pod])
        result = {"explanation": out.get("explanations", {}).get(pe.pod),
                  "preemption": out.get("preemptions", {}).get(pe.pod)}
    except engine.ScenarioInvalid as e:
        status, error = Run.Status.FAILED, str(e)
    except SoftTimeLimitExceeded:
        status, error = Run.Status.FAILED, f"The simulation took longer than {settings.RUN_SOFT_TIME_LIMIT} s and was stopped."
    except Exception:
        log.exception("explanation %s failed in the engine", explanation_id)
        status, error = Run.Status.FAILED, INTERNAL_ERROR
    store(lambda: PodExplanation.objects.filter(pk=explanation_id, status=Run.Status.RUNNING).update(
        status=status, result=result, error=error), f"explanation {explanation_id}")


def enqueue_explanation(explanation_id):
    """Send an explanation to a worker; QueueUnavailable if the broker is down."""
    try:
        explain_pod.apply_async((explanation_id,), queue=explain_pod.app.conf.task_default_queue,
                                retry_policy=settings.RUN_PUBLISH_RETRY)
    except (KombuOperationalError, OSError) as e:
        log.error("explanation %s: could not reach the broker: %s", explanation_id, e)
        raise QueueUnavailable() from e


def try_enqueue(run_id):
    try:
        enqueue(run_id)
    except QueueUnavailable:
        return False
    return True


@shared_task(ignore_result=True)
def reap_stuck_runs():
    return reap_stuck()


def reap_stuck(now=None):
    """Re-queue (once) or fail runs stuck in `running` past the limit; resend old queued ones.

    Returns (requeued, failed, resent) counts.
    """
    now = now or timezone.now()
    stuck_before = now - timedelta(seconds=settings.RUN_TIME_LIMIT + 30)
    requeued = failed = resent = 0
    for run in Run.objects.filter(status=Run.Status.RUNNING, started_at__lt=stuck_before):
        if run.attempts < 1:
            requeued += Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(
                status=Run.Status.QUEUED, attempts=run.attempts + 1, started_at=None
            )
            if not try_enqueue(run.pk):
                break
        else:
            failed += Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(
                status=Run.Status.FAILED, finished_at=now,
                error="The run did not finish in time (its worker stopped or the time limit was reached).",
            )
    # An explanation whose whole worker vanished is not redelivered before the visibility timeout.
    failed += PodExplanation.objects.filter(status=Run.Status.RUNNING, started_at__lt=stuck_before).update(
        status=Run.Status.FAILED, error=EXPLANATION_LOST)
    if settings.RUN_QUEUED_RESEND_AFTER is not None:
        # A lost message would leave a run queued forever; resending is harmless thanks to the claim.
        old = now - timedelta(seconds=settings.RUN_QUEUED_RESEND_AFTER)
        for run_id in Run.objects.filter(status=Run.Status.QUEUED, created_at__lt=old).values_list("pk", flat=True):
            if not try_enqueue(run_id):
                break  # the broker is down; the next reaping resends them
            resent += 1
    if requeued or failed or resent:
        log.warning("stuck-run reaper: %s re-queued, %s failed, %s resent", requeued, failed, resent)
    return requeued, failed, resent


# --- analyses: a plan, then its parts in parallel, then the combined answer (scenarios/analyses.py) ----------
def _send(task, arg, what):
    try:
        task.apply_async((arg,), queue=task.app.conf.task_default_queue, retry_policy=settings.RUN_PUBLISH_RETRY)
    except (KombuOperationalError, OSError) as e:
        log.error("%s: could not reach the broker: %s", what, e)
        raise QueueUnavailable() from e


def enqueue_analysis(analysis_id):
    _send(plan_analysis, analysis_id, f"analysis {analysis_id}")


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             time_limit=settings.RUN_TIME_LIMIT, soft_time_limit=settings.RUN_SOFT_TIME_LIMIT)
def plan_analysis(self, analysis_id):
    """Plan with the engine: store the parts and send each to the workers, or store the answer at once."""
    Status = Analysis.Status

    if not Analysis.objects.filter(pk=analysis_id, status=Status.QUEUED).update(
            status=Status.RUNNING, started_at=timezone.now()):
        return  # cancelled, or another delivery has it
    analysis = Analysis.objects.select_related("revision").get(pk=analysis_id)
    manifests, config = analysis.revision.manifests, analysis.revision.config
    try:
        parts, answer = engine.analysis_plan(analysis.kind, manifests, config, analysis.spec, analysis.seed)
    except engine.ScenarioInvalid as e:
        parts, answer, error = None, None, str(e)
    except SoftTimeLimitExceeded:
        parts, answer, error = None, None, f"Planning took longer than {settings.RUN_SOFT_TIME_LIMIT} s."
    except Exception:
        log.exception("analysis %s failed in the engine", analysis_id)
        parts, answer, error = None, None, INTERNAL_ERROR
    if parts is None:
        Analysis.objects.filter(pk=analysis_id, status=Status.RUNNING).update(
            status=Status.FAILED, error=error, finished_at=timezone.now())
        return
    with transaction.atomic():
        rows = AnalysisPart.objects.bulk_create([
            AnalysisPart(analysis_id=analysis_id, index=i, label=p.get("label", "")[:300], part=p)
            for i, p in enumerate(parts)])
        for row in rows:
            transaction.on_commit(lambda pk=row.pk: _send(run_analysis_part, pk, f"analysis part {pk}"))
    if not parts:
        finish_analysis(analysis_id, lambda analysis, outcomes: (answer, None))


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True,
             time_limit=settings.RUN_TIME_LIMIT, soft_time_limit=settings.RUN_SOFT_TIME_LIMIT)
def run_analysis_part(self, part_id):
    """One part, on whichever worker is free; the last one in has the answer combined."""
    Status = Analysis.Status

    # a redelivered message (its worker died mid-part) takes the part over; any other finds it queued
    redelivered = bool((self.request.delivery_info or {}).get("redelivered"))
    takeable = [Status.QUEUED, Status.RUNNING] if redelivered else [Status.QUEUED]
    claimed = AnalysisPart.objects.filter(pk=part_id, status__in=takeable,
                                          analysis__status=Status.RUNNING).update(status=Status.RUNNING)
    if not claimed:  # cancelled (the analysis or this part), or taken by another delivery
        AnalysisPart.objects.filter(pk=part_id, status=Status.QUEUED).update(status=Status.CANCELLED)
        return
    part = AnalysisPart.objects.select_related("analysis__revision").get(pk=part_id)
    analysis = part.analysis
    manifests, config = analysis.revision.manifests, analysis.revision.config
    outcome, error = None, ""
    try:
        outcome = engine.analysis_part(analysis.kind, manifests, config, analysis.spec, part.part, analysis.seed)
    except engine.ScenarioInvalid as e:
        error = str(e)
    except SoftTimeLimitExceeded:
        error = f"This part took longer than {settings.RUN_SOFT_TIME_LIMIT} s and was stopped."
    except Exception:
        log.exception("analysis part %s failed in the engine", part_id)
        error = INTERNAL_ERROR
    AnalysisPart.objects.filter(pk=part_id, status=Status.RUNNING).update(
        status=Status.FAILED if error else Status.SUCCEEDED, outcome=outcome, error=error,
        finished_at=timezone.now())

    def combine(analysis, outcomes):
        answer = engine.analysis_answer(analysis.kind, manifests, config, analysis.spec, outcomes)
        if analysis.kind == Analysis.Kind.REPLICAS:  # checked with that many copies of the pod
            text = pods.with_copies(manifests, answer["pod"], answer["replicas"]) if answer["replicas"] else None
            return answer, text
        return answer, engine.analysis_verifying_text(analysis.kind, manifests, config, analysis.spec, answer)

    finish_analysis(analysis.pk, combine)


def finish_analysis(analysis_id, combine):
    """Once every part is in: the answer (``combine(analysis, outcomes)`` -> answer, verifying text or None),
    or the first failed part's error; exactly once, by whichever worker finished last. A verifying text is
    queued as a run of the revision (source "analysis"), linked from the analysis."""
    Status = Analysis.Status
    with transaction.atomic():
        analysis = Analysis.objects.select_for_update().filter(pk=analysis_id, status=Status.RUNNING).first()
        if analysis is None:
            return None
        parts = list(analysis.parts.order_by("index"))
        if any(p.status in (Status.QUEUED, Status.RUNNING) for p in parts):
            return None
        failed = next((p for p in parts if p.status == Status.FAILED), None)
        if failed is not None:
            analysis.status, analysis.error = Status.FAILED, f"{failed.label}: {failed.error}"
        else:
            try:
                analysis.answer, text = combine(analysis, [p.outcome for p in parts])
            except engine.ScenarioInvalid as e:
                analysis.status, analysis.error = Status.FAILED, str(e)
            except Exception:
                log.exception("analysis %s: the answer could not be combined", analysis_id)
                analysis.status, analysis.error = Status.FAILED, INTERNAL_ERROR
            else:
                analysis.status = Status.SUCCEEDED
                if text:
                    run = runs.create_run(
                        analysis.scenario, analysis.revision, user=analysis.created_by, source=Run.Source.ANALYSIS,
                        seed=analysis.seed, manifests=text, config=analysis.revision.config, record=False,
                        label=f"analysis {analysis.pk}: {analysis.answer.get('sentence', '')}"[:200])
                    analysis.verifying_run = run
                    transaction.on_commit(lambda: try_enqueue(run.pk))  # (the reaper resends a lost one)
        analysis.finished_at = timezone.now()
        analysis.save(update_fields=["status", "error", "answer", "verifying_run", "finished_at"])
    return analysis
