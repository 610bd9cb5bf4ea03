"""A run's row: what every queued run is created by (services.queue_run sends it to a worker; a worker that
queues a run itself, as an analysis checking its answer does, sends it with its own task); and what a page's poll
waits on while a run it shows is unfinished (await_news)."""

import time

from django.db.models import BooleanField, ExpressionWrapper, Q

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


# How often await_news looks at the runs it waits for: one indexed query of a few rows each time.
NEWS_CHECK_SECONDS = 0.03


def await_news(runs, seconds):
    """Wait at most ``seconds`` for one of these runs (None ones are left out) that is unfinished to move on: its
    status changes, or its counts are stored (tasks._counts_first, while it stores its result). True as soon as
    one does; False when none is unfinished or none moved in time. A page's poll asks with what it shows and is
    answered when there is something new to show, not at the poll's next tick: the draft editor's runs panel
    showed a quick edit's counts a quarter of a second after they were stored, on average an eighth."""
    waiting = sorted(r.pk for r in runs if r is not None and not r.is_finished)
    if not waiting or seconds <= 0:
        return False
    deadline = time.monotonic() + seconds
    before = where_they_are(waiting)
    while time.monotonic() < deadline:
        time.sleep(min(NEWS_CHECK_SECONDS, max(0.0, deadline - time.monotonic())))
        if where_they_are(waiting) != before:
            return True
    return False


def where_they_are(pks):
    """[(pk, status, whether its counts are stored)] of these runs that exist, by pk: what a page showing them
    waits on (one indexed query, no result or text read)."""
    return list(Run.objects.filter(pk__in=pks).order_by("pk").annotate(
        counted=ExpressionWrapper(Q(summary__isnull=False), output_field=BooleanField())).values_list(
        "pk", "status", "counted"))
