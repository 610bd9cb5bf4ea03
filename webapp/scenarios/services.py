"""Writes that must keep every revision: saves, restores, runs."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from . import activity, runs
from .manifests import summary as summaries
from .activity import Verb
from .models import Revision, Run, Scenario, ShareLink


class StaleRevision(Exception):
    """The save named a base revision that is no longer the newest."""

    def __init__(self, current):
        super().__init__(f"revision {current} is the current one")
        self.current = current


def create_scenario(*, team, name, manifests, config="", author, message="", record=True):
    summary = summaries.of_text(manifests, config)
    with transaction.atomic():
        scenario = Scenario.objects.create(team=team, name=name, created_by=author, current_revision=1)
        Revision.objects.create(
            scenario=scenario, number=1, manifests=manifests, config=config or "",
            author=author, message=message or "Created", summary=summary,
        )
    if record:
        activity.record(author, Verb.SCENARIO_CREATED, scenario=scenario, object=name, revision=1)
    if author is not None:  # its author has seen it: the scenario list counts changes from here
        activity.mark_seen(author, scenario)
    return scenario


def save_revision(scenario, *, manifests, config="", author, message="", base=None):
    """Add revision n+1 if `base` (when given) is still the newest, else raise StaleRevision.

    The scenario row is locked and bumped with a conditional UPDATE, and
    (scenario, number) is unique, so of concurrent saves on one base exactly
    one wins on PostgreSQL; the others get StaleRevision and lose nothing
    they can't resend.
    """
    summary = summaries.of_text(manifests, config)
    try:
        with transaction.atomic():
            locked = Scenario.objects.select_for_update().get(pk=scenario.pk)
            current = locked.current_revision
            if base is not None and base != current:
                raise StaleRevision(current)
            bumped = Scenario.objects.filter(pk=scenario.pk, current_revision=current).update(
                current_revision=current + 1, updated_at=timezone.now()
            )
            if bumped != 1:
                raise StaleRevision(Scenario.objects.get(pk=scenario.pk).current_revision)
            revision = Revision.objects.create(
                scenario=locked, number=current + 1, manifests=manifests,
                config=config or "", author=author, message=message, summary=summary,
            )
    except IntegrityError:
        raise StaleRevision(Scenario.objects.get(pk=scenario.pk).current_revision)
    scenario.current_revision = revision.number
    activity.record(author, Verb.REVISION_SAVED, scenario=scenario, object=f"revision {revision.number}",
                    revision=revision.number, message=message)
    return revision


def restore_revision(scenario, old, *, author, base=None):
    return save_revision(
        scenario, manifests=old.manifests, config=old.config, author=author,
        message=f"Restored revision {old.number}", base=base,
    )


def rename_scenario(scenario, name, by=None):
    old = scenario.name
    Scenario.objects.filter(pk=scenario.pk).update(name=name, updated_at=timezone.now())
    scenario.name = name
    if old != name:
        activity.record(by, Verb.SCENARIO_RENAMED, scenario=scenario, object=f"{old} → {name}")


def delete_scenario(scenario, by=None):
    Scenario.objects.filter(pk=scenario.pk).update(deleted_at=timezone.now())
    activity.record(by, Verb.SCENARIO_DELETED, scenario=scenario, object=scenario.name)


def create_share_link(scenario, user):
    """A new read-only link: (the ShareLink, its token, shown once)."""
    link, token = ShareLink.create(scenario, user)
    activity.record(user, Verb.SHARE_LINK_CREATED, scenario=scenario, object=f"link {link.prefix}…", link=link.pk)
    return link, token


def revoke_share_link(link, user):
    if ShareLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(revoked_at=timezone.now()):
        activity.record(user, Verb.SHARE_LINK_REVOKED, scenario=link.scenario, object=f"link {link.prefix}…",
                        link=link.pk)


def queue_run(scenario, revision, *, user, source=Run.Source.REVISION, seed=0, options=None, manifests="",
              config="", label="", sweep=None, variant=None, record=True, edits=None):
    """The one way to queue a run: create the Run (of `revision`, or of a draft's or a sweep cell's text based
    on it, as `source` says) and hand its id to a worker once the row is committed."""
    from .tasks import enqueue

    with transaction.atomic():
        run = runs.create_run(scenario, revision, user=user, source=source, seed=seed, options=options,
                              manifests=manifests, config=config, label=label, sweep=sweep, variant=variant,
                              record=record, edits=edits)
        # After commit, so the worker never looks for a row it cannot see yet.
        transaction.on_commit(lambda: enqueue(run.pk))
    return run


def diff_revisions(old, new):
    """Unified diff text of manifests (and config) from `old` to `new`."""
    import difflib

    def lines(revision, part):
        return getattr(revision, part).splitlines(keepends=True)

    out = []
    for part, filename in (("manifests", "scenario.yaml"), ("config", "config.yaml")):
        out.extend(
            difflib.unified_diff(
                lines(old, part), lines(new, part),
                fromfile=f"r{old.number}/{filename}", tofile=f"r{new.number}/{filename}",
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in out)
