"""Two runs side by side."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode

from webapp.scenarios import compare, results_cache, services
from webapp.scenarios.manifests import limits
from webapp.scenarios.models import Membership, Revision, Run

from .views import get_scenario
from .views_results import all_url

Role = Membership.Role


# what the page does not read of a run and its revision (comparison_facts reads what it needs of the result; a
# draft's run and a revision hold their text, 267 MB at 150,000 pods)
UNREAD = ("result", "manifests", "revision__manifests", "revision__summary")


def pick(scenario, value, user, start=False):
    """A run id "12", or a revision "r3" (its latest run; with ``start``, one is queued if there is none)."""
    value = (value or "").strip()
    if value.startswith("r") and limits.is_number(value[1:]):
        revisions = Revision.objects.defer("manifests", "summary")
        revision = revisions.filter(scenario=scenario, number=int(value[1:])).first()
        if revision is None:
            return None, f"{value}: no such revision"
        runs = scenario.runs.filter(revision=revision, source=Run.Source.REVISION)
        run = runs.select_related("revision").defer(*UNREAD).order_by("-created_at", "-id").first()
        if run is None:
            if not start:
                return None, f"{value} has never been run"
            run = services.queue_run(scenario, revision, user=user)
        return run, ""
    if limits.is_number(value):
        run = scenario.runs.filter(pk=int(value)).select_related("revision").defer(*UNREAD).first()
        return run, "" if run else f"run {value}: no such run in this scenario"
    return None, ""


# The compare page lists at most this many changed pods unless asked for all (?all=1): a quick edit of a
# 150,000-pod cluster moved thousands, seconds of rendering (the API lists them all).
COMPARE_PAGE_ROWS = 1000
CHANGE_LISTS = ("moved", "became_pending", "got_scheduled", "displaced", "only_a", "only_b")


def _listed(diff, limit):
    """{list: its pods the page lists}: of the changed pods, in the table's order, the first ``limit`` (all with
    None), and "count"/"total": how many are listed and changed."""
    out, left = {}, limit
    for name in CHANGE_LISTS:
        out[name] = diff[name] if left is None else diff[name][:left]
        if left is not None:
            left -= len(out[name])
    return {**out, "count": sum(len(out[n]) for n in CHANGE_LISTS), "total": sum(len(diff[n]) for n in CHANGE_LISTS)}


@login_required
def compare_runs(request, pk):
    """GET shows a comparison and never starts anything (a link from another site must not queue work);
    an editor's POST runs the revisions named that have no run yet, then shows the comparison."""
    if request.method == "POST":
        scenario = get_scenario(request, pk, Role.EDITOR)
        for name in ("a", "b"):
            pick(scenario, request.POST.get(name), request.user, start=True)
        query = urlencode({k: request.POST.get(k, "") for k in ("a", "b", "key") if request.POST.get(k)})
        return redirect(f"{reverse('compare', args=[scenario.pk])}?{query}")
    scenario = get_scenario(request, pk)
    a, err_a = pick(scenario, request.GET.get("a"), request.user)
    b, err_b = pick(scenario, request.GET.get("b"), request.user)
    never_run = [e for e in (err_a, err_b) if e.endswith("has never been run")]
    key = request.GET.get("key") or compare.ZONE_KEY
    diff = None
    waiting = bool(a and b and not (a.is_finished and b.is_finished))
    listed = None
    if a and b and a.status == Run.Status.SUCCEEDED and b.status == Run.Status.SUCCEEDED:
        facts = results_cache.comparison_facts(a, b)
        if None not in facts:
            diff = compare.compare_facts(*facts, key)
            listed = _listed(diff, None if request.GET.get("all") == "1" else COMPARE_PAGE_ROWS)
    context = {
        "scenario": scenario, "a": a, "b": b, "diff": diff, "listed": listed, "all_url": all_url(request),
        "key": key, "waiting": waiting,
        "errors": [e for e in (err_a, err_b) if e], "never_run": never_run,
        "can_edit": scenario.allows(request.user, Role.EDITOR),
        "choices": scenario.runs.select_related("revision").defer(
            "result", "manifests", "summary", "revision__manifests", "revision__summary").order_by("-id")[:50],
        "revision_values": [f"r{n}" for n in scenario.revisions.order_by("-number").values_list("number", flat=True)],
        "a_value": request.GET.get("a", ""), "b_value": request.GET.get("b", ""),
        "sides": [("a", "Before (A)", request.GET.get("a", "").strip()),
                  ("b", "After (B)", request.GET.get("b", "").strip())],
    }
    template = "front/compare.html#compare-result" if request.htmx else "front/compare.html"
    return render(request, template, context)
