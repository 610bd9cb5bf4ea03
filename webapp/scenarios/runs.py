"""A run's row: what every queued run is created by (services.queue_run sends it to a worker; a worker that
queues a run itself, as an analysis checking its answer does, sends it with its own task)."""

from . import activity
from .activity import Verb
from .models import Run


def create_run(scenario, revision, *, user, source=Run.Source.REVISION, seed=0, options=None, manifests="",
               config="", label="", sweep=None, variant=None, record=True, edits=None):
    """``edits``: a sweep cell queued without its text; its worker applies them to the revision's text."""
    if (source == Run.Source.REVISION) != (manifests == "" and edits is None):
        raise ValueError("a revision's run simulates the revision's text; a draft's or a cell's its own")
    if edits is not None and (source != Run.Source.SWEEP_CELL or manifests):
        raise ValueError("only a sweep cell is queued with edits instead of its text")
    run = Run.objects.create(
        scenario=scenario, revision=revision, created_by=user, source=source, manifests=manifests,
        config=config, label=label, sweep=sweep, variant=variant or {}, edits=edits,
        params={"seed": seed, "options": options or {}},
    )
    if record:
        what = {Run.Source.REVISION: "", Run.Source.DRAFT: " of a draft"}.get(source, f" ({label})")
        activity.record(user, Verb.RUN_QUEUED, scenario=scenario,
                        object=f"run {run.pk}{what} of revision {revision.number}", run=run.pk,
                        revision=revision.number)
    return run
