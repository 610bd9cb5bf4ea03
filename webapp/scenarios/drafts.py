"""Drafts: one user's unsaved edits of a scenario, run and saved through services."""

import logging
import secrets
import time

from django.conf import settings
from django.utils import timezone

from . import after_response, engine, runs, services, texts
from .manifests import edits
from .manifests import summary as manifests_summary
from .models import Draft, Run

log = logging.getLogger(__name__)


def summary(manifests, config=""):
    """(ok, message, warnings, object, field): the engine's verdict on a text, for the editor
    (manifests.summary.check: remembered per text, kept in the database for a large one)."""
    return manifests_summary.check(manifests, config)


def summary_of(draft):
    """summary of the draft's text; for a large one not read yet, the verdict kept for it by manifests.summary.check
    (found by the text's stored key: the text is not read)."""
    name = f"engine check {engine.fingerprint()} {engine.text_key(draft.config or '').hex()}"  # (check's name)
    found = texts.stored_fact(draft, "manifests", name)
    return dict(found) if found is not None else summary(draft.manifests, draft.config)


def outline_of(draft):
    """The quick-edit outline of the draft's text (manifests.edits.outline); for a large one not read yet, the one
    kept for it (found by the text's stored key: the text is not read)."""
    found = texts.stored_fact(draft, "manifests", edits.OUTLINE_FACT)
    return found if found is not None else edits.outline(draft.manifests)


def get_or_start(scenario, user):
    """The user's draft of the scenario, started from the current revision if there is none."""
    draft = _drafts(scenario, user).first()
    if draft is None:
        head = scenario.head()
        draft, _ = Draft.objects.get_or_create(
            scenario=scenario, author=user,
            defaults={"base_revision": head, "manifests": head.manifests, "config": head.config},
        )
    return draft


def find(scenario, user):
    return _drafts(scenario, user).first()


def _drafts(scenario, user):
    """The user's draft of the scenario with its base revision, their texts read when asked for (the draft page
    of a large text shows what is kept about it; replaying the edits reads the base revision's): a page of a
    5,000-node draft would otherwise decompress both texts (0.4 s each). The base revision's summary of its load
    (a megabyte of JSON at 5,000 nodes, 14 ms to decode) is read when asked for too: the runs panel, asked for four
    times a second while a run simulates, reads this."""
    return Draft.objects.filter(scenario=scenario, author=user).select_related("base_revision").defer(
        "manifests", "base_revision__manifests", "base_revision__summary")


def _store(draft, edit_list, undone):
    draft.edits, draft.undone = edit_list, undone
    draft.updated_at = timezone.now()
    draft.save()
    return draft


def set_text(draft, manifests, config=None):
    """Store the text as typed (validity is shown, not enforced: a draft may be mid-edit). The text is an edit
    of its own, holding the text; typing on right after typing replaces that edit instead of adding one."""
    config = draft.config if config is None else config
    if (manifests, config) == (draft.manifests, draft.config):
        return draft
    edit = {"op": "text", "manifests": manifests, "config": config}
    kept = list(draft.edits)
    if kept and kept[-1].get("op") == "text":
        kept.pop()
    draft.manifests, draft.config = manifests, config
    return _store(draft, kept + [edit], [])


class Unchanged(Exception):
    """An edit that leaves the draft's text as it is (a node cordoned already, a constraint form sent with no field
    changed): nothing is stored, so the edit list gains no entry that did nothing, and there is nothing to run."""


def apply(draft, edit, changed=None):
    """Apply one structured edit; raises edits.EditError / engine.ScenarioInvalid, or Unchanged when the edit leaves
    the text as it is; the draft is unchanged then. ``changed``: edits.apply_edit's."""
    config = draft.config
    new = edits.apply_edit(draft.manifests, edit, config, checked=lambda text, scenario: (
        manifests_summary.check(text, config, scenario=scenario)), changed=changed)  # (the verdict shown)
    if new == draft.manifests:
        raise Unchanged(edits.describe(edit))
    draft.manifests = new
    draft.validated = (draft.manifests, config)  # (apply_edit loaded it and checked its size: see run)
    return _store(draft, list(draft.edits) + [edit], [])


def prepare_for_edits(draft):
    """Read into this web process, from the engine's disk cache, what the draft's next quick edit reads first there
    (its documents, its loaded scenario, where its items are: edits.prepare) when its text is one whose quick edits
    run ahead (EDIT_RUN_AHEAD_MIN_BYTES) and are kept in memory (up to ENGINE_KEEP_LOADED_BYTES). The draft editor's
    page leaves this for after its response: the person's first edit usually reaches the process that served the
    page, and read them itself (a first edit of a 5,000-node draft: 1.4 s of server time, against 0.7 s after)."""
    low, high = settings.EDIT_RUN_AHEAD_MIN_BYTES, settings.ENGINE_KEEP_LOADED_BYTES
    key = texts.stored_key(draft, "manifests")
    size = texts.size_of(key) if key and low is not None and low >= 0 else None
    if size is None or not low <= size <= high:
        return
    started = time.perf_counter()
    docs, scenario = edits.prepare(draft.manifests, draft.config)
    log.info("drafts: for the next edit, %s in %.0f ms", "read the draft's documents and scenario from the disk cache"
             if scenario else "read the draft's documents from the disk cache" if docs else
             "found nothing of the draft's text in the disk cache", (time.perf_counter() - started) * 1000)


def queue_fields_ahead(draft, edit, user):
    """[the draft's run, queued ahead of the edit's text] when the edit changes fields of a spread constraint of a large
    text (edits.spread_fields), before anything reads the draft's text (its key is read): the worker sets the fields in
    the scenario it loaded for that text (engine.scenario_ahead). [] for any other edit, or when the run could not be
    queued (apply_running_ahead then queues it as it makes the edit). The edit may be the one the form sent, every
    field of the constraint: the worker sets them only where that gives what the edit the person made gives."""
    limit = settings.EDIT_RUN_AHEAD_MIN_BYTES
    spread = edits.spread_fields(edit)
    if spread is None or limit is None or limit < 0:
        return []
    key = texts.stored_key(draft, "manifests")
    if not key or (texts.size_of(key) or 0) < limit:
        return []
    return _queue_ahead(draft, key, draft.config, user, spread=spread)


def apply_running_ahead(draft, edit, user, queued=None):
    """apply(), the draft's run queued as soon as the edit is made when its text is large (EDIT_RUN_AHEAD_MIN_BYTES)
    and the edit changed documents in place: the worker starts from the scenario of the text before the edit
    (engine.scenario_ahead) while this request writes, checks and stores the new text, most of a second at 5,000
    nodes. A change of a spread constraint's fields is queued before the edit reads a document (the worker sets
    them in the loaded scenario: edits.spread_fields). The run's text is written once the draft's is; the run is
    deleted when the edit fails, when the draft's text changed since it was queued, or when its text is the one the
    draft's previous run simulated (as run_if_changed would not queue it). A run of the base revision to compare with
    is queued too when there is none. ``queued``: queue_fields_ahead's, when the caller queued it (before reading the
    text). Returns the draft's run, or None (run_if_changed then runs the draft as after any change)."""
    base, config = draft.manifests, draft.config
    limit = settings.EDIT_RUN_AHEAD_MIN_BYTES
    large = limit is not None and 0 <= limit <= len(base)
    ahead = list(queued) if queued is not None else queue_fields_ahead(draft, edit, user)
    if ahead and getattr(ahead[0], "ahead_base", None) != texts.key_of(base):
        _drop(ahead)  # (the draft's text changed since it was queued: edited in another tab)
        ahead = []

    def changed(docs):
        if ahead:  # (for a worker that could not set the edit's fields)
            engine.hand_over_documents(ahead[0].params["ahead"], docs)
        elif large:
            ahead.extend(_queue_ahead(draft, texts.key_of(base), config, user, docs=docs))
        return bool(ahead)

    try:
        apply(draft, edit, changed=changed)
    except BaseException:  # (Unchanged too: the run would simulate the text the draft has)
        _drop(ahead)
        raise
    if not ahead:
        return None
    run = ahead[0]
    try:
        earlier = _draft_runs(draft).exclude(pk=run.pk).first()
        if earlier is not None and (texts.stored_key(earlier, "manifests"), earlier.config) == (
                texts.key_of(draft.manifests), draft.config):
            _drop(ahead)
            return None
        Run.objects.filter(pk=run.pk).update(manifests=draft.manifests)
        run.manifests = draft.manifests
        runs.record_queued(run, user)
    except BaseException:
        _drop(ahead)
        raise
    if latest_runs(draft)[1] is None:
        services.queue_run(draft.scenario, draft.base_revision, user=user)  # (what run_if_changed compares with)
    return run


def _queue_ahead(draft, base_key, config, user, docs=None, spread=None):
    """[the draft's run queued ahead of its text], or [] when the documents (or the spread constraint's fields:
    edits.spread_fields') could not be handed over or the queue is unavailable (the run is then queued, or refused,
    as after any change)."""
    from .tasks import QueueUnavailable, enqueue

    token = secrets.token_hex(16)
    if spread is not None:
        handed = engine.hand_over_edit(token, base_key, config, spread)
    else:
        handed = engine.hand_over(token, base_key, config, docs)
    if not handed:
        return []
    run = runs.create_run(draft.scenario, draft.base_revision, user=user, source=Run.Source.DRAFT, config=config,
                          label="draft", ahead=token, record=False)  # (recorded once its text is written)
    run.ahead_base = base_key  # (this request's: what apply_running_ahead checks the text it edits against)
    try:
        enqueue(run.pk)
    except QueueUnavailable:
        _drop([run])
        return []
    after_response.hold_for(run.pk)  # (what this request leaves for after its response waits for the run)
    return [run]


def _drop(queued):
    if queued:
        after_response.release()
    for run in queued:
        Run.objects.filter(pk=run.pk).delete()
        engine.drop_handed(run.params["ahead"])


def _draft_runs(draft):
    return draft.scenario.runs.filter(source=Run.Source.DRAFT, created_by=draft.author).defer(
        "result", "manifests").order_by("-created_at", "-id")


def replay(base, edit_list):
    """(manifests, config) of a base revision with edits applied in order: a text edit replaces the text, any
    other applies to the text as it then is."""
    manifests, config = base.manifests, base.config
    for edit in edit_list:
        if edit.get("op") == "text":
            if "manifests" in edit:  # (a text edit stored before they held their text changes nothing)
                manifests, config = edit["manifests"], edit.get("config", config)
        else:
            manifests = edits.apply_edit(manifests, edit, config)
    return manifests, config


def undo(draft):
    """Take the latest edit back (kept for redo): the text is the base with the edits before it. Returns the
    edit undone, or None when there is none."""
    if not draft.edits:
        return None
    kept, edit = list(draft.edits[:-1]), draft.edits[-1]
    draft.manifests, draft.config = replay(draft.base_revision, kept)
    _store(draft, kept, list(draft.undone) + [edit])
    return edit


def redo(draft):
    """Apply the latest undone edit again. Returns it, or None when there is none."""
    if not draft.undone:
        return None
    edit, undone = draft.undone[-1], list(draft.undone[:-1])
    draft.manifests, draft.config = replay(draft.base_revision, list(draft.edits) + [edit])
    _store(draft, list(draft.edits) + [edit], undone)
    return edit


def history(draft):
    """[{"n", "text", "undone"}]: the edits as a person reads them, then the undone ones (the next redo first)."""
    done = [{"n": i + 1, "text": edits.describe(e), "undone": False} for i, e in enumerate(draft.edits)]
    return done + [{"n": None, "text": edits.describe(e), "undone": True} for e in reversed(draft.undone)]


def run(draft, user, seed=0):
    """Queue a Run of the draft's text (label "draft"), based on its base revision. The text is validated
    first, unless a quick edit in this request wrote it and the engine checked it then (``apply``): validating
    a large text again reads its loaded scenario back from the disk cache, a tenth of a second or more at
    5,000 nodes before the run could be queued."""
    validated = getattr(draft, "validated", None)
    if validated is None or validated[0] is not draft.manifests or validated[1] != draft.config:
        engine.validate(draft.manifests, draft.config)
    return services.queue_run(draft.scenario, draft.base_revision, user=user, source=Run.Source.DRAFT,
                              seed=seed, manifests=draft.manifests, config=draft.config, label="draft")


def save(draft, user, message=""):
    """A new revision from the draft (stale-checked against its base), then the draft is gone."""
    revision = services.save_revision(
        draft.scenario, manifests=draft.manifests, config=draft.config, author=user,
        message=message or describe(draft.edits), base=draft.base_revision.number,
    )
    draft.delete()
    return revision


def rebase(draft):
    """Keep the draft's text but base it on the current revision (after a stale save): its edits become that
    text, so that the new base with them is still the draft."""
    draft.base_revision = draft.scenario.head()
    return _store(draft, [{"op": "text", "manifests": draft.manifests, "config": draft.config}], [])


def run_if_changed(draft, user):
    """The draft runs by itself: queue a run of its text unless its latest run is of this very text or the text
    is not a valid scenario (the editor says why); and one of the base revision to compare with, if none.
    Returns the draft's run queued, or None."""
    mine, saved = latest_runs(draft)
    if mine is not None and (mine.manifests, mine.config) == (draft.manifests, draft.config):
        return None
    if not summary(draft.manifests, draft.config)["ok"]:
        return None
    queued = run(draft, user)
    if saved is None:
        services.queue_run(draft.scenario, draft.base_revision, user=user)
    return queued


def describe(edit_list):
    """A revision message for a draft's edits: what they did, in a sentence or two."""
    said = [edits.describe(e) for e in edit_list if isinstance(e, dict)]
    said = [s for i, s in enumerate(said) if s not in said[:i]]  # (typing, saved several times, is one edit)
    if not said:
        return "Draft"
    return "; ".join(said[:4]) + (f"; and {len(said) - 4} more edits" if len(said) > 4 else "")


def latest_runs(draft):
    """(the draft's latest run, the base revision's latest plain run), their results and texts not read (a
    5,000-node result is 129 MB: results_cache.result_of reads one when a page needs it)."""
    runs = draft.scenario.runs.select_related("revision", "created_by").defer(
        "result", "manifests", "revision__manifests", "revision__summary")
    mine = runs.filter(source=Run.Source.DRAFT, created_by=draft.author).order_by("-created_at", "-id").first()
    saved = runs.filter(revision=draft.base_revision, source=Run.Source.REVISION).order_by("-created_at", "-id").first()
    return mine, saved
