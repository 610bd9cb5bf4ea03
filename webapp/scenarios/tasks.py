import logging
from datetime import timedelta

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from . import engine
from .models import Run

log = logging.getLogger(__name__)

INTERNAL_ERROR = "The engine failed on this scenario because of an internal error; it has been logged."


@shared_task(
    acks_late=True,
    ignore_result=True,
    time_limit=settings.RUN_TIME_LIMIT,
    soft_time_limit=settings.RUN_SOFT_TIME_LIMIT,
)
def execute_run(run_id):
    # Claim first, so a redelivered message (acks_late) or a second worker is a no-op.
    claimed = Run.objects.filter(pk=run_id, status=Run.Status.QUEUED).update(
        status=Run.Status.RUNNING, started_at=timezone.now()
    )
    if not claimed:
        return
    run = Run.objects.select_related("revision").get(pk=run_id)
    status, result, error = compute(run)
    # One write for status, result and error; only if the sweep hasn't reaped the run meanwhile.
    Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).update(
        status=status, result=result, error=error, finished_at=timezone.now()
    )


def enqueue(run_id):
    # The queue is read at send time, so a test session can point the web process at its own worker.
    execute_run.apply_async((run_id,), queue=execute_run.app.conf.task_default_queue)


def compute(run):
    manifests, config = run.scenario_text()
    try:
        result = engine.simulate(manifests, config, seed=int(run.seed))
    except engine.ScenarioInvalid as e:
        return Run.Status.FAILED, None, str(e)
    except SoftTimeLimitExceeded:
        return Run.Status.FAILED, None, f"The simulation took longer than {settings.RUN_SOFT_TIME_LIMIT} s and was stopped."
    except Exception:
        log.exception("run %s failed in the engine", run.pk)
        return Run.Status.FAILED, None, INTERNAL_ERROR
    return Run.Status.SUCCEEDED, result, ""


@shared_task(ignore_result=True)
def sweep_runs():
    return sweep()


def sweep(now=None):
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
            enqueue(run.pk)
        else:
            failed += Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(
                status=Run.Status.FAILED, finished_at=now,
                error="The run did not finish in time (its worker stopped or the time limit was reached).",
            )
    if settings.RUN_QUEUED_RESEND_AFTER is not None:
        # A lost message would leave a run queued forever; resending is harmless thanks to the claim.
        old = now - timedelta(seconds=settings.RUN_QUEUED_RESEND_AFTER)
        for run_id in Run.objects.filter(status=Run.Status.QUEUED, created_at__lt=old).values_list("pk", flat=True):
            enqueue(run_id)
            resent += 1
    if requeued or failed or resent:
        log.warning("sweep: %s re-queued, %s failed, %s resent", requeued, failed, resent)
    return requeued, failed, resent
