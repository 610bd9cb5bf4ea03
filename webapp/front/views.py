from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import HttpResponseNotFound, HttpResponseServerError, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template import loader
from django.urls import reverse
from django.utils import timezone
from django_htmx.http import HttpResponseClientRedirect
from django.views.decorators.http import require_POST, require_safe
from webapp.scenarios.manifests import summary
from . import results, run_page
from webapp.scenarios import activity, drafts, engine, fixes, pod_updates, results_cache, services, sweeps
from webapp.scenarios.manifests import limits
from webapp.scenarios.forms import RevisionForm, RunForm, ScenarioCreateForm, TokenForm
from webapp.scenarios.models import ApiToken, Membership, Revision, Run, RunPage, Scenario, ShareLink, Sweep

from .sharing import share_context, shared_scenario_or_404

Role = Membership.Role
# Columns a list of revisions or runs does not show: a large scenario's text is tens of MB, its run's result
# about a third of that.
REVISION_TEXT = ("manifests", "summary")
RUN_TEXT = ("result", "manifests", "revision__manifests", "revision__summary")


def page_not_found(request, exception=None):
    if request.path.startswith("/api/"):  # an API client reads DRF's error shape, not a page
        return JsonResponse({"detail": "Not found."}, status=404)
    return HttpResponseNotFound(loader.render_to_string("404.html", request=request))


def server_error(request):
    # No context processors or DB queries: this must render even when they fail.
    return HttpResponseServerError(loader.get_template("500.html").render({}))


def get_scenario(request, pk, role=Role.VIEWER):
    """The scenario if the user may see it (else 404) and has `role` in its team (else 403)."""
    scenario = get_object_or_404(Scenario.objects.visible_to(request.user).select_related("team"), pk=pk)
    if not scenario.allows(request.user, role):
        raise PermissionDenied
    return scenario


@login_required
def scenario_list(request):
    scenarios = Scenario.objects.visible_to(request.user).select_related("team", "created_by")
    q = request.GET.get("q", "").strip()
    if q:
        scenarios = scenarios.filter(Q(name__icontains=q) | Q(team__name__icontains=q))
    rows = [(s, s.runs.defer(*RUN_TEXT[:2]).first(), s.revisions.select_related("author").defer(*REVISION_TEXT).first())
            for s in scenarios[:200]]
    changes = activity.changes_since_seen(request.user, [s for s, _, _ in rows])
    rows = [(s, run, head, changes[s.pk]) for s, run, head in rows]
    template = "front/scenario_list.html#scenario-table" if request.htmx else "front/scenario_list.html"
    return render(request, template, {"rows": rows, "q": q})


@login_required
def scenario_create(request):
    form = ScenarioCreateForm(request.POST or None, request.FILES or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        scenario = services.create_scenario(
            team=data["team"], name=data["name"], manifests=data["manifests"], config=data["config"],
            author=request.user, message=data["message"] or "Created",
        )
        read = scenario.head().summary.get("load") or {}
        counted = ", ".join(f"{n} {kind}" for kind, n in sorted((read.get("read") or {}).items()))
        ignored = sum(i.get("count", 0) for i in read.get("ignored") or [])
        source = f" from {form.uploaded}" if getattr(form, "uploaded", None) else ""
        messages.success(request, f"Scenario “{scenario.name}” created{source}: read {counted or 'nothing'}"
                                  + (f"; {ignored} object{'s' if ignored != 1 else ''} ignored (see Cluster below)"
                                     if ignored else "") + ".")
        show_warnings(request, form)
        if request.htmx:  # (the form posts through htmx to show the upload's progress)
            return HttpResponseClientRedirect(reverse("scenario-detail", args=[scenario.pk]))
        return redirect("scenario-detail", pk=scenario.pk)
    return render(request, "front/scenario_create.html", {"form": form})


def show_warnings(request, form):
    for warning in getattr(form, "warnings", []):
        messages.warning(request, f"Engine warning: {warning}")


def detail_context(request, scenario, form=None, stale=None):
    head = scenario.head()
    new_link = request.session.pop("new_share_link", None)
    if new_link and new_link.get("scenario") != scenario.pk:
        new_link = None
    shown = limits.in_browser_stored(head, "manifests")
    found = head.summary
    if form is None:  # (a text too large for the page is replaced by uploading a file)
        form = RevisionForm(initial={"manifests": head.manifests if shown["editable"] else "",
                                     "config": head.config, "base_revision": head.number})
    return {
        "scenario": scenario,
        "head": head,
        "role": scenario.role_of(request.user),
        "can_edit": scenario.allows(request.user, Role.EDITOR),
        "is_owner": scenario.allows(request.user, Role.OWNER),
        "form": form,
        "stale": stale,
        "revisions": scenario.revisions.select_related("author").defer(*REVISION_TEXT)[:50],
        "runs": scenario.runs.select_related("revision", "created_by").defer(*RUN_TEXT)[:10],
        "share_links": scenario.share_links.filter(revoked_at__isnull=True),
        "new_share_url": new_link and new_link["url"],
        **node_rows(request, found),
        "kinds": dict(found["counts"]),
        "load": head.summary["load"],
        "shown": shown,
        # a fork links to its source only for those who may open it
        "fork_source": scenario.forked_from_id and Scenario.objects.visible_to(request.user)
        .filter(pk=scenario.forked_from_id).first(),
    }


def node_rows(request, found):
    """The node table of a scenario page (from a summary): at most RUN_PAGE_ROWS rows unless ?all=1."""
    limit = None if request.GET.get("all") == "1" else run_page.RUN_PAGE_ROWS
    return {"nodes": summary.rows_of(found, limit), "nodes_total": len(found["nodes"])}


@login_required
def scenario_detail(request, pk):
    scenario = get_scenario(request, pk)
    activity.mark_seen(request.user, scenario)  # the scenario list's "since you looked" starts again here
    return render(request, "front/scenario_detail.html", detail_context(request, scenario))


@login_required
@require_POST
def scenario_save(request, pk):
    scenario = get_scenario(request, pk, Role.EDITOR)
    post = request.POST
    if "config" not in post:  # (the page sends a file; the configuration stays as it is)
        post = post.copy()
        post["config"] = scenario.head().config
    form = RevisionForm(post, request.FILES)
    stale = kept_in_draft = None
    if form.is_valid():
        data = form.cleaned_data
        # After a 409 the user may knowingly save their text on top of the revision they were shown.
        overwrite = request.POST.get("overwrite", "")
        base = int(overwrite) if limits.is_number(overwrite) else data["base_revision"]
        try:
            revision = services.save_revision(
                scenario, manifests=data["manifests"], config=data["config"], author=request.user,
                message=data["message"], base=base,
            )
        except services.StaleRevision as e:
            # Keep the user's text in the form; they decide how to merge.
            stale = e.current
            scenario.refresh_from_db()
        else:
            messages.success(request, f"Saved revision {revision.number}.")
            show_warnings(request, form)
            if request.htmx:  # a plain redirect would be swapped into the form
                return HttpResponseClientRedirect(reverse("scenario-detail", args=[scenario.pk]))
            return redirect("scenario-detail", pk=scenario.pk)
    refused = {"manifests", "upload", "config"} & set(form.errors)
    if refused and getattr(form, "uploaded", None) and form.data.get("manifests"):
        kept_in_draft = keep_in_draft(request, scenario, form.data["manifests"])
    context = detail_context(request, scenario, form=form, stale=stale)
    context["kept_in_draft"] = kept_in_draft
    if request.htmx:
        return render(request, "front/scenario_detail.html#edit-form", context)
    return render(request, "front/scenario_detail.html", context, status=409 if stale else 200)


def keep_in_draft(request, scenario, text):
    """A refused file is not lost: its text goes into the person's draft (one undoable edit), where the
    editor marks the error's line."""
    draft = drafts.get_or_start(scenario, request.user)
    if text != draft.manifests:
        drafts.set_text(draft, text, draft.config)
    return True


@login_required
@require_POST
def scenario_delete(request, pk):
    scenario = get_scenario(request, pk, Role.OWNER)
    services.delete_scenario(scenario, by=request.user)
    messages.success(request, f"Scenario “{scenario.name}” deleted.")
    return redirect("scenario-list")


@login_required
def revision_detail(request, pk, number):
    scenario = get_scenario(request, pk)
    revision = get_object_or_404(Revision.objects.select_related("author"), scenario=scenario, number=number)
    against = request.GET.get("against", "")
    against = int(against) if limits.is_number(against) else max(revision.number - 1, 0)
    previous = scenario.revisions.filter(number=against).first()
    return render(request, "front/revision_detail.html", {
        "scenario": scenario, "revision": revision, "previous": previous,
        "diff": services.diff_revisions(previous, revision) if previous else "",
        "shown": limits.in_browser(revision.manifests),
        "download_url": f"{reverse('api:scenario-manifests', args=[scenario.pk])}?revision={revision.number}",
        "can_edit": scenario.allows(request.user, Role.EDITOR),
        "numbers": scenario.revisions.values_list("number", flat=True),
    })


@login_required
@require_POST
def revision_restore(request, pk, number):
    scenario = get_scenario(request, pk, Role.EDITOR)
    old = get_object_or_404(Revision, scenario=scenario, number=number)
    revision = services.restore_revision(scenario, old, author=request.user)
    messages.success(request, f"Revision {old.number} restored as revision {revision.number}.")
    return redirect("scenario-detail", pk=scenario.pk)


@login_required
@require_POST
def run_create(request, pk):
    scenario = get_scenario(request, pk, Role.EDITOR)
    form = RunForm(request.POST)
    if not form.is_valid():
        messages.error(request, "The seed must be a whole number ≥ 0.")
        return redirect("scenario-detail", pk=scenario.pk)
    number = form.cleaned_data["revision"] or scenario.current_revision
    revision = get_object_or_404(Revision, scenario=scenario, number=number)
    run = services.queue_run(scenario, revision, user=request.user, seed=form.cleaned_data["seed"] or 0)
    return redirect("run-detail", run_id=run.pk)


def run_context(run, poll_url, shared=False, show_all=False, rows=None):
    """The run page; ``rows``: its rows as the worker laid them out (run_page.rows), else laid out from the
    run's result (which is then ``run.result``)."""
    if rows is None:
        rows = run_page.rows(run.result, show_all)
    found = summary.summarize(run.manifests) if run.manifests else run.revision.summary
    nodes = summary.rows_of(found, None if show_all else run_page.RUN_PAGE_ROWS)
    for node in nodes:
        node["placed"] = rows["placed"].get(node["name"], [])
    totals = {**rows["totals"], "nodes": len(found["nodes"])}
    return {
        "run": run, "poll_url": poll_url, "shared": shared, "nodes": nodes,
        **{k: rows[k] for k in ("pods", "outcomes", "pending_groups", "preempted", "events", "evicted", "ignored")},
        "totals": totals,
        "capped": len(rows["pods"]) < totals["pods"] or len(rows["events"]) < totals["events"]
        or len(nodes) < totals["nodes"],
    }


def stored_rows(run):
    """The rows the worker laid out for a finished run's page (None for a run stored before it did); read once
    per request (the fixes panel asks too)."""
    if "_stored_rows" not in run.__dict__:
        run._stored_rows = RunPage.objects.filter(run_id=run.pk).values_list("data__rows", flat=True).first() \
            if run.status == Run.Status.SUCCEEDED else None
    return run._stored_rows


def with_result(run, show_all):
    """(run with .result read when its page needs it, the page's stored rows or None)."""
    rows = None if show_all else stored_rows(run)
    if rows is None and run.status == Run.Status.SUCCEEDED:
        run.result = results_cache.result_of(run)
    else:
        run.result = None  # (not read: the row was read without it)
    return run, rows


def render_run(request, run, poll_url, page_context):
    # The polled fragment needs the page's context too: a shared one links under /s/<token>/.
    show_all = request.GET.get("all") == "1"
    run, rows = with_result(run, show_all)
    context = {**page_context, **run_context(run, poll_url, shared=page_context.get("shared", False),
                                             show_all=show_all, rows=rows)}
    if request.htmx:
        return render(request, "front/_run_result.html", context)
    return render(request, "front/run_detail.html", context)


@login_required
def run_detail(request, run_id):
    run = get_object_or_404(Run.objects.select_related("revision", "scenario__team", "created_by")
                            .defer("revision__manifests", "revision__summary", "result"), pk=run_id)
    scenario = get_scenario(request, run.scenario_id)
    return render_run(request, run, request.path, {"scenario": scenario,
                                                   **fixes_context(run, scenario, request.user)})


def outcomes_of(run):
    """[(outcome, pods)] of a finished run, as the engine counted them."""
    rows = stored_rows(run)
    if rows is not None:
        return rows["outcomes"]
    return run_page.rows(results_cache.result_of(run))["outcomes"]


def fixes_context(run, scenario, user):
    """The run's check of candidate fixes (a "fixes" sweep), if one was started, and whether one may be."""
    sweep = Sweep.objects.filter(scenario=scenario, spec__type="fixes", spec__run=run.pk).order_by("-id").first()
    rows, best = fixes.outcome(sweep) if sweep else ([], None)
    pending = run.status == Run.Status.SUCCEEDED and bool(dict(outcomes_of(run)).get("Unschedulable"))
    return {"fixes_sweep": sweep, "fix_rows": rows, "best_fix": best,
            "fixes_running": any(r["status"] in ("queued", "running") for r in rows),
            "can_check_fixes": pending and run.source == Run.Source.REVISION and user is not None
            and scenario.allows(user, Role.EDITOR)}


@login_required
def run_fixes(request, run_id):
    """GET: the fixes panel (polled while its runs are unfinished); POST: start checking the candidate fixes."""
    run = get_object_or_404(Run.objects.select_related("revision", "scenario").defer(*RUN_TEXT), pk=run_id)
    scenario = get_scenario(request, run.scenario_id, Role.EDITOR if request.method == "POST" else Role.VIEWER)
    if request.method == "POST":
        try:
            sweeps.start(scenario, run.revision, {"type": "fixes", "run": run.pk}, request.user)
        except (sweeps.SweepInvalid, engine.ScenarioInvalid) as e:
            messages.error(request, f"Nothing to check: {e}")
        return redirect(reverse("run-detail", args=[run.pk]) + "#fixes")
    return render(request, "front/_fixes.html", {"run": run, "scenario": scenario,
                                                 **fixes_context(run, scenario, request.user)})


@require_safe
def shared_scenario(request, token):
    scenario = shared_scenario_or_404(token)
    head = scenario.head()
    return render(request, "front/shared_scenario.html", {
        "scenario": scenario, "head": head, "token": token, "shared": True,
        "revisions": scenario.revisions.select_related("author").defer(*REVISION_TEXT)[:50],
        "runs": scenario.runs.select_related("revision").defer(*RUN_TEXT)[:20],
        **node_rows(request, head.summary),
        "shown": limits.in_browser_stored(head, "manifests"),
        **shared_gated_pods(scenario, head),
    })


def shared_gated_pods(scenario, head):
    """The gated pods panel of a shared scenario, rendered in place (read-only)."""
    try:
        pods, invalid = pod_updates.gated_pods(head), ""
    except engine.ScenarioInvalid as e:
        pods, invalid = [], str(e)
    return {"pods": pods, "invalid": invalid,
            "attempts": scenario.pod_updates.select_related("author", "revision", "base_revision")[:50]}


@require_safe
def shared_run(request, token, run_id):
    scenario = shared_scenario_or_404(token)
    run = get_object_or_404(Run.objects.select_related("revision", "created_by").defer("revision__manifests", "revision__summary", "result"),
                            scenario=scenario, pk=run_id)
    return render_run(request, run, request.path, {"scenario": scenario, **share_context(token)})


@login_required
@require_POST
def share_link_create(request, pk):
    scenario = get_scenario(request, pk, Role.OWNER)
    link, token = services.create_share_link(scenario, request.user)
    # shown once, in the Sharing section beside a copy button (only a hash of the token is kept)
    request.session["new_share_link"] = {"scenario": scenario.pk, "url": request.build_absolute_uri(f"/s/{token}/")}
    return redirect(reverse("scenario-detail", args=[scenario.pk]) + "#share-h")


@login_required
@require_POST
def share_link_revoke(request, pk, link_id):
    scenario = get_scenario(request, pk, Role.OWNER)
    link = get_object_or_404(ShareLink, scenario=scenario, pk=link_id)
    services.revoke_share_link(link, request.user)
    messages.success(request, "Share link revoked.")
    return redirect("scenario-detail", pk=scenario.pk)


@login_required
def token_list(request):
    form = TokenForm(request.POST or None)
    new_key = None
    if request.method == "POST" and form.is_valid():
        _, new_key = ApiToken.create(request.user, form.cleaned_data["name"])
        form = TokenForm()
    tokens = ApiToken.objects.filter(user=request.user)
    return render(request, "front/token_list.html", {"form": form, "tokens": tokens, "new_key": new_key})


@login_required
@require_POST
def token_revoke(request, token_id):
    token = get_object_or_404(ApiToken, user=request.user, pk=token_id)  # someone else's: 404, not "revoked"
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    messages.success(request, "Token revoked.")
    return redirect("token-list")
