"""Analyses: capacity, failure tolerance and scheduler tuning, worked out on the workers.

An analysis starts as a row (queued). A worker plans it with the engine (the parts to run, or the answer at
once), stores one AnalysisPart per part and sends each to the workers, which run them in parallel. The worker
that finishes the last part has the engine combine the outcomes into the answer; a capacity answer is then
checked by a real run of the revision with the nodes it adds, linked from the analysis. Cancelling stops what
has not started: queued parts are dropped when a worker picks them up, and no answer is combined. The workers'
side is in tasks.py (plan_analysis, run_analysis_part, finish_analysis).
"""

from django.db import transaction
from django.utils import timezone

from . import activity
from .activity import Verb
from .models import Analysis, AnalysisPart

Status = Analysis.Status
MAX_SEED = 2**31 - 1


class AnalysisInvalid(Exception):
    def __init__(self, field, message):
        super().__init__(message)
        self.field = field


def start(scenario, revision, kind, spec, seed, user):
    """Queue an analysis of `revision`; AnalysisInvalid for an unknown kind, a spec that is not an object or a
    bad seed (the engine checks the rest on the worker, and a bad spec then fails the analysis, naming the field)."""
    from .tasks import enqueue_analysis

    if kind not in Analysis.Kind.values:
        raise AnalysisInvalid("kind", f"unknown analysis {kind!r}: one of {', '.join(Analysis.Kind.values)}")
    if not isinstance(spec, dict):
        raise AnalysisInvalid("spec", "the spec is an object")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise AnalysisInvalid("seed", f"the seed is a whole number from 0 to {MAX_SEED}")
    with transaction.atomic():
        analysis = Analysis.objects.create(scenario=scenario, revision=revision, kind=kind, spec=spec, seed=seed,
                                           created_by=user)
        transaction.on_commit(lambda: enqueue_analysis(analysis.pk))
    activity.record(user, Verb.RUN_QUEUED, scenario=scenario,
                    object=f"analysis {analysis.pk} ({analysis.get_kind_display().lower()}) of revision "
                           f"{revision.number}", revision=revision.number)
    return analysis


def cancel(analysis):
    """Stop an unfinished analysis: True if it was still going."""
    done = Analysis.objects.filter(pk=analysis.pk, status__in=[Status.QUEUED, Status.RUNNING]).update(
        status=Status.CANCELLED, finished_at=timezone.now())
    if done:
        AnalysisPart.objects.filter(analysis=analysis, status=Status.QUEUED).update(status=Status.CANCELLED)
    return bool(done)


def progress(analysis):
    """{"done", "total"}: parts finished of those planned (total 0 before the plan)."""
    parts = list(analysis.parts.values_list("status", flat=True))
    return {"done": sum(1 for s in parts if s in (Status.SUCCEEDED, Status.FAILED)), "total": len(parts)}
