"""Draft editing: the YAML editor with live validation, quick edits, run / save / discard."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from webapp.scenarios import after_response, compare, drafts, engine, results_cache, services
from webapp.scenarios.manifests import edits, limits
from webapp.scenarios.models import Membership
from webapp.scenarios.runs import await_news

from .templatetags.polling import poll_every
from .views import get_scenario

Role = Membership.Role

# Quick-edit form fields copied into the edit dict (empty ones are left out).
EDIT_FIELDS = ("workload", "index", "value", "maxSkew", "minDomains", "whenUnsatisfiable", "topologyKey",
               "replicas", "node", "name", "zone", "key", "effect", "target", "priority",
               "priorityClassName")


def draft_context(request, scenario, draft, **extra):
    return {
        **runs_context(scenario, draft),
        "check": drafts.summary_of(draft), "history": drafts.history(draft), "version": version_of(draft),
        "shown": limits.in_browser_stored(draft, "manifests"), "outline": drafts.outline_of(draft),
        "stale": draft.base_revision.number != scenario.current_revision, **extra,
    }


def runs_context(scenario, draft):
    """What the runs panel shows (the draft's latest run beside the base revision's, and what changed between
    them): all the panel asks for while it waits for a run, without the editor's verdict, outline and history
    (the outline of a 5,000-node draft is read from the database, a tenth of a second or more)."""
    mine, saved = drafts.latest_runs(draft)
    diff = skews = None
    if mine and saved and mine.counts_stored and saved.counts_stored:  # (a run storing its result has them)
        # (the facts the worker kept for comparing: a few MB of a 140 MB result)
        before, after = results_cache.comparison_facts(saved, mine)
        if before and after:
            diff, skews = compare.compare_facts(before, after), compare.skew_changes(before["skew"], after["skew"])
    changes, total = _changes(diff, DRAFT_CHANGES_LISTED)
    return {
        "changes": changes, "changes_total": total, "scenario": scenario, "draft": draft,
        "draft_run": mine, "saved_run": saved, "diff": diff, "skews": skews,
        "draft_counts": _counts(mine), "saved_counts": _counts(saved), "panel_state": panel_state(mine, saved),
    }


def panel_state(*runs):
    """What the runs panel shows of its runs, as a token the panel's poll sends back (``seen``): the panel asks for
    itself every quarter second while a run is simulating, and until the token changes it is answered with no content
    (htmx leaves the panel as it is) rather than rendered again; each render took a tenth of a second of the core the
    worker's simulation shares. The poll's own pace is part of it (it slows down once the run is no longer young)."""
    shown = [f"{r.pk}.{r.status}.{int(r.counts_stored)}.{bool(r.error):d}" if r is not None else "-" for r in runs]
    return "_".join(shown + [poll_every(*runs)])


# the pods the editor lists of what the draft's run changed (the compare page lists them all): a quick edit of a
# 150,000-pod cluster moved thousands, 25,000 table cells
DRAFT_CHANGES_LISTED = 200


def _changes(diff, limit):
    """(the first ``limit`` changed pods as {pod, saved, draft}: newly scheduled, newly pending, displaced, moved;
    how many there are)."""
    if not diff:
        return [], 0
    kinds = (
        (diff["got_scheduled"], lambda p: "not in the saved revision" if p.get("new") else "pending", lambda p: p["to"]),
        (diff["became_pending"], lambda p: p["from"], lambda p: "pending"),
        (diff["displaced"], lambda p: p["from"], lambda p: "evicted (preempted)"),
        (diff["moved"], lambda p: p["from"], lambda p: p["to"]),
    )
    rows = [{"pod": p["pod"], "saved": saved(p), "draft": draft(p)}
            for pods, saved, draft in kinds for p in pods[:limit]][:limit]
    return rows, sum(len(pods) for pods, _, _ in kinds)


def _counts(run):
    """The counts the editor shows of a run (None until they are stored: before its result, which the run's
    pages read, is)."""
    if run is None or not run.counts_stored:
        return None
    return compare.counts_of(run, lambda r: results_cache.result_of(r, by_parts=True))


def render_draft(request, scenario, draft, fragment=None, status=200, **extra):
    context = draft_context(request, scenario, draft, **extra)
    template = f"front/draft.html#{fragment}" if (request.htmx and fragment) else "front/draft.html"
    return render(request, template, context, status=status)


@login_required
def draft_detail(request, pk):
    """GET: the user's draft (started from the current revision); POST: store the editor's text."""
    scenario = get_scenario(request, pk, Role.EDITOR)
    draft = drafts.get_or_start(scenario, request.user)
    if request.method == "POST":
        # (a draft too large for the page has no manifests box: its text stays)
        keep_typed_text(draft, request.POST)
        drafts.run_if_changed(draft, request.user)
        messages.success(request, "Draft text stored.")
        return redirect("draft-detail", pk=scenario.pk)
    after_response.after_this_response(lambda: drafts.prepare_for_edits(draft))  # (for the person's first edit)
    return render_draft(request, scenario, draft)


@login_required
@require_POST
def draft_autosave(request, pk):
    """The editor's text, stored as it is typed (after a pause): the engine's verdict on it, and the draft run
    by itself when it is valid (the side-by-side panel and the edit list come along)."""
    scenario = get_scenario(request, pk, Role.EDITOR)
    draft = drafts.get_or_start(scenario, request.user)
    keep_typed_text(draft, request.POST)
    drafts.run_if_changed(draft, request.user)
    return render(request, "front/draft.html#autosaved", draft_context(request, scenario, draft, autosaved=True))


@login_required
@require_POST
def draft_undo(request, pk):
    return _step(request, pk, drafts.undo, "Undid", "There is no edit to undo.")


@login_required
@require_POST
def draft_redo(request, pk):
    return _step(request, pk, drafts.redo, "Redid", "There is no undone edit to redo.")


def _step(request, pk, step, verb, nothing):
    scenario = get_scenario(request, pk, Role.EDITOR)
    draft = drafts.get_or_start(scenario, request.user)
    try:
        done = step(draft)
    except engine.ScenarioInvalid as e:  # a later edit no longer applies
        draft.refresh_from_db()
        return render_draft(request, scenario, draft, "draft-body", edit_error={
            "message": str(e), "object": e.object, "field": e.field, "origin": origin_of(request)})
    if done is None:
        return render_draft(request, scenario, draft, "draft-body",
                            edit_error={"message": nothing, "origin": origin_of(request)})
    return changed(request, scenario, draft, f"{verb}: {edits.describe(done)}.")


def changed(request, scenario, draft, said, kind="success", run=True):
    """After a change of the draft: it runs by itself (unless ``run`` is false: nothing changed), and the page (or its
    body) says what was done (``kind``: the message's, "success" or "info")."""
    if run:
        drafts.run_if_changed(draft, request.user)
    if request.htmx:
        return render_draft(request, scenario, draft, "draft-body",
                            edit_ok={"said": said, "kind": kind, "origin": origin_of(request)})
    (messages.success if kind == "success" else messages.info)(request, said)
    return redirect("draft-detail", pk=scenario.pk)


# What an edit that changed nothing found already so, by op (the edit's fields fill it in)
ALREADY = {
    "cordon": "{node} is cordoned already",
    "uncordon": "{node} is not cordoned",
    "add_taint": "{node} has that taint already",
    "set_replicas": "{workload} has {replicas} replicas already",
    "set_priority": "{target} has that priority already",
    "add_gate": "{target} has the gate {name} already",
}


def unchanged_said(edit):
    """What the page says of an edit that left the draft as it was (drafts.Unchanged)."""
    op = edit.get("op")
    if op == "set_spread" and not set(edit) & {"maxSkew", "minDomains", "whenUnsatisfiable", "topologyKey"}:
        return (f"No change: no field of spread constraint {edit.get('index', 0)} of {edit.get('workload', '')} "
                "differs from the draft's.")
    try:
        return f"No change: {ALREADY[op].format(**edit)}."
    except (KeyError, IndexError):  # (another op, or a field the sentence names is missing)
        return f"No change: “{edits.describe(edit)}” leaves the draft as it is, so the edit list stays as it was."


@login_required
@require_POST
def draft_validate(request, pk):
    """The engine's verdict on the posted text, as the editor's status fragment."""
    scenario = get_scenario(request, pk, Role.EDITOR)
    check = drafts.summary(request.POST.get("manifests", ""), request.POST.get("config", ""))
    return render(request, "front/_editor_check.html", {"check": check, "scenario": scenario})


TARGET_OPS = ("set_priority", "add_gate", "remove_gate")  # these name the pod or workload "target"
NODE_OPS = ("cordon", "uncordon", "remove_node", "add_node", "add_taint", "remove_taint")


def edit_from_post(post):
    """The edit dict of a quick-edit form (fields named as the edit functions' arguments)."""
    op = post.get("op", "")
    edit = {"op": op}
    for field in EDIT_FIELDS:
        value = post.get(field, "").strip()
        if value != "":
            edit[field] = value
    if op == "set_priority" and "priority" in edit and not limits.is_number(edit["priority"].removeprefix("-")) \
            and "priorityClassName" not in edit:
        edit["priorityClassName"] = edit.pop("priority")
    if op in TARGET_OPS and "workload" in edit and "target" not in edit:
        edit["target"] = edit.pop("workload")
    if op in NODE_OPS:
        edit.pop("workload", None)
        name = edit.pop("name", "")
        if op == "add_node":
            edit["name"] = name
        elif op == "add_taint":
            spec, _, effect = name.partition(":")
            key, _, value = spec.partition("=")
            edit.update(key=key, value=value, effect=effect or "NoSchedule")
        elif op == "remove_taint":
            edit["key"] = name.split("=")[0].split(":")[0]
    if op not in ("add_node", "remove_zone"):
        edit.pop("zone", None)
    return edit


def only_changed_fields(edit, draft):
    """A constraint form sends every field of the constraint: keep those the person changed, so that the edit
    (and the edit list, and the revision message) says what changed."""
    if edit.get("op") != "set_spread":
        return edit
    current = edits.spread_constraint(draft.manifests, edit.get("workload"), edit.get("index", 0))
    if not current:
        return edit
    current = dict(current, minDomains=current.get("minDomains", "unset"))
    return {k: v for k, v in edit.items() if k in ("op", "workload", "index") or str(current.get(k)) != str(v)}


def origin_of(request):
    """The id of the form that made the change (its message is shown beside it); an id, nothing else."""
    origin = request.POST.get("origin", "")
    return origin if origin.replace("-", "").isalnum() and len(origin) <= 80 else ""


def version_of(draft):
    """What the page's editor was loaded from: the draft as of its latest change."""
    return f"{len(draft.edits)}-{draft.updated_at.timestamp():.6f}"


def keep_typed_text(draft, post):
    """Store the editor's text first when a quick edit sends it, so what was typed there is not lost; a text sent
    from an older state of the draft (an autosave that left before a quick edit landed) is not stored over it.
    True when it stored a text."""
    if "manifests" not in post:
        return False
    if post.get("version") and post["version"] != version_of(draft):
        return False
    # Browsers may send CRLF line ends; the stored text has LF.
    manifests = post["manifests"].replace("\r\n", "\n")
    config = post.get("config", draft.config).replace("\r\n", "\n")
    if (manifests, config) == (draft.manifests.replace("\r\n", "\n"), draft.config.replace("\r\n", "\n")):
        return False
    drafts.set_text(draft, manifests, config)
    return True


@login_required
@require_POST
def draft_edit(request, pk):
    scenario = get_scenario(request, pk, Role.EDITOR)
    draft = drafts.get_or_start(scenario, request.user)
    typed = keep_typed_text(draft, request.POST)
    posted = edit_from_post(request.POST)
    queued = drafts.queue_fields_ahead(draft, posted, request.user)  # (before the text is read: a large one takes long)
    edit = only_changed_fields(posted, draft)
    try:
        drafts.apply_running_ahead(draft, edit, request.user, queued=queued)
    except drafts.Unchanged:  # (the text typed in the editor runs, when this request stored it)
        return changed(request, scenario, draft, unchanged_said(edit), kind="info", run=typed)
    except engine.ScenarioInvalid as e:
        draft.refresh_from_db()
        return render_draft(request, scenario, draft, "draft-body", edit_error={
            "message": str(e), "object": e.object, "field": e.field, "origin": origin_of(request)})
    return changed(request, scenario, draft, f"Applied: {edits.describe(edit)}.")


@login_required
@require_POST
def draft_run(request, pk):
    scenario = get_scenario(request, pk, Role.EDITOR)
    draft = drafts.get_or_start(scenario, request.user)
    try:
        drafts.run(draft, request.user)
    except engine.ScenarioInvalid as e:
        messages.error(request, f"The draft is not a valid scenario: {e}")
        return redirect("draft-detail", pk=scenario.pk)
    if not drafts.latest_runs(draft)[1]:
        services.queue_run(scenario, draft.base_revision, user=request.user)  # something to compare with
    messages.success(request, "Draft run queued.")
    return redirect("draft-detail", pk=scenario.pk)


@login_required
def draft_runs(request, pk):
    """The side-by-side runs panel (polled while a run is unfinished)."""
    scenario = get_scenario(request, pk, Role.EDITOR)
    draft = drafts.find(scenario, request.user)
    if draft is None:
        return redirect("scenario-detail", pk=scenario.pk)
    seen = request.GET.get("seen")
    if seen:
        shown = drafts.latest_runs(draft)
        unchanged = seen == panel_state(*shown)
        if unchanged and await_news(shown, settings.RUN_POLL_WAIT_MS / 1000):  # (answered once there is news)
            unchanged = seen == panel_state(*drafts.latest_runs(draft))
        if unchanged:
            return HttpResponse(status=204)  # (nothing the panel shows has changed: it stays, and asks again)
    context = runs_context(scenario, draft)
    if context["draft_run"] is not None and context["draft_run"].counts_stored:
        after_response.showing(context["draft_run"].pk)  # (the edit's work left for after it goes on once sent)
    return render(request, "front/draft.html#draft-runs", context)


@login_required
@require_POST
def draft_save(request, pk):
    scenario = get_scenario(request, pk, Role.EDITOR)
    draft = drafts.get_or_start(scenario, request.user)
    try:
        revision = drafts.save(draft, request.user, request.POST.get("message", "").strip())
    except services.StaleRevision as e:
        scenario.refresh_from_db()
        return render_draft(request, scenario, draft, status=409, stale_save=e.current)
    except engine.ScenarioInvalid as e:
        messages.error(request, f"Not saved, the draft is not a valid scenario: {e}")
        return redirect("draft-detail", pk=scenario.pk)
    messages.success(request, f"Draft saved as revision {revision.number}.")
    return redirect("scenario-detail", pk=scenario.pk)


@login_required
@require_POST
def draft_rebase(request, pk):
    scenario = get_scenario(request, pk, Role.EDITOR)
    drafts.rebase(drafts.get_or_start(scenario, request.user))
    messages.success(request, f"The draft is now based on r{scenario.current_revision}; save it again to overwrite.")
    return redirect("draft-detail", pk=scenario.pk)


@login_required
@require_POST
def draft_discard(request, pk):
    scenario = get_scenario(request, pk, Role.EDITOR)
    draft = drafts.find(scenario, request.user)
    if draft:
        draft.delete()
    messages.success(request, "Draft discarded.")
    return redirect("scenario-detail", pk=scenario.pk)
