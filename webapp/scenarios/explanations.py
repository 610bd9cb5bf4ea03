"""Pod explanations a run did not keep, computed on demand by a worker.

A run explains only the pods its simulation left pending (settings.RUN_DETAIL); the
dashboard asks for any other pod's explanation here. The first request creates a
PodExplanation row and queues it after commit; later ones find it queued, running or done.
"""

import logging
from collections import ChainMap
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from .models import PodExplanation, Run
from .tasks import QueueUnavailable, enqueue_explanation

log = logging.getLogger(__name__)

# A queued explanation whose message may have been lost (broker down) is sent again after this.
RESEND_AFTER = timedelta(seconds=15)
READY = "ready"
NOT_COMPUTED = "not computed"
MAX_PENDING = 4  # explanations queued or running per run
PENDING = (Run.Status.QUEUED, Run.Status.RUNNING)


def has_explanation(result, pod):
    return pod in ((result or {}).get("explanations") or {})


def with_explanation(run, result, pod, queue=True):
    """(result with the pod's explanation merged in, state, error): state is "ready", or
    the PodExplanation's status while a worker computes it ("queued", "running", "failed").

    Only members queue work (``queue``): a share link's reader sees what was computed, else
    NOT_COMPUTED, since each new pod is a whole simulation on a worker. A run has at most
    MAX_PENDING explanations queued or running; past that a new one waits ("queued", no row)
    and the polling page asks again."""
    if has_explanation(result, pod) or run.status != Run.Status.SUCCEEDED or not any(
            c.get("pod") == pod for c in (result or {}).get("cycles", [])):
        return result, READY, ""  # explained already, or never tried (nothing to explain)
    pe = PodExplanation.objects.filter(run=run, pod=pod).first()
    if pe is None:
        if not queue:
            return result, NOT_COMPUTED, ""
        if PodExplanation.objects.filter(run=run, status__in=PENDING).count() >= MAX_PENDING:
            return result, Run.Status.QUEUED, ""
        pe = _get_or_create(run, pod)
    if pe.status == Run.Status.SUCCEEDED:
        return merged(result, pod, pe.result or {}), READY, ""
    if pe.status == Run.Status.QUEUED and pe.created_at < timezone.now() - RESEND_AFTER:
        _send(pe.pk)  # the claim makes a second delivery harmless
    return result, pe.status, pe.error


def merged(result, pod, found):
    """The result with the pod's explanation (and preemption) as computed later laid over it: the result itself
    is not copied (it may be read a part at a time: results_cache.StoredResult)."""
    out = ChainMap({}, result)
    if found.get("explanation") is not None:  # (nor is a part: it too may be read an entry at a time)
        out["explanations"] = ChainMap({pod: found["explanation"]}, result.get("explanations") or {})
    if found.get("preemption") is not None:
        out["preemptions"] = ChainMap({pod: found["preemption"]}, result.get("preemptions") or {})
    return out


def _get_or_create(run, pod):
    try:
        with transaction.atomic():
            pe, created = PodExplanation.objects.get_or_create(run=run, pod=pod)
    except IntegrityError:  # another request created it first
        return PodExplanation.objects.get(run=run, pod=pod)
    if created:
        transaction.on_commit(lambda: _send(pe.pk))
    return pe


def _send(pk):
    try:
        enqueue_explanation(pk)
    except QueueUnavailable:
        log.warning("explanation %s stays queued: the broker is unavailable", pk)
