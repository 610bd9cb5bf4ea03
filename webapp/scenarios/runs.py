"""A run's row: what every queued run is created by (services.queue_run sends it to a worker; a worker that
queues a run itself, as an analysis checking its answer does, sends it with its own task)."""

from . import activity
from .activity import Verb
from .models import Run


def create_run(scenario, revision, *, user, source=Run.Source.REVISION, seed=0, options=None, manifests="",
               config="", label="", sweep=None, variant=None, record=True, edits=None, ahead=None):
    """``edits``: a sweep cell queued without its text; its worker applies them to the revision's text.
    ``ahead``: a draft's run queued before its text is written (Run.queued_ahead)."""
    if ahead is not None and (source != Run.Source.DRAFT or manifests):
        raise ValueError("only a draft's run is queued ahead of its text")
    if (source == Run.Source.REVISION) != (manifests == "" and edits is None and ahead is None):
        raise ValueError("a revision's run simulates the revision's text; a draft's or a cell's its own")
    if edits is not None and (source != Run.Source.SWEEP_CELL or manifests):
        raise ValueError("only a sweep cell is queued with edits instead of its text")
    run = Run.objects.create(
        scenario=scenario, revision=revision, created_by=user, source=source, manifests=manifests,
        config=config, label=label, sweep=sweep, variant=variant or {}, edits=edits,
        params={"seed": seed, "options": options or {}, **({"ahead": ahead} if ahead else {})},
    )
    if record:
        record_queued(run, user)
    return run


def record_queued(run, user):
    """The activity entry of a queued run."""
    what = {Run.Source.REVISION: "", Run.Source.DRAFT: " of a draft"}.get(run.source, f" ({run.label})")
    activity.record(user, Verb.RUN_QUEUED, scenario=run.scenario,
                    object=f"run {run.pk}{what} of revision {run.revision.number}", run=run.pk,
                    revision=run.revision.number)
