"""Two runs side by side."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode

from webapp.scenarios import compare, services
from webapp.scenarios.manifests import limits
from webapp.scenarios.models import Membership, Revision, Run

from .views import get_scenario

Role = Membership.Role


def pick(scenario, value, user, start=False):
    """A run id "12", or a revision "r3" (its latest run; with ``start``, one is queued if there is none)."""
    value = (value or "").strip()
    if value.startswith("r") and limits.is_number(value[1:]):
        revision = Revision.objects.filter(scenario=scenario, number=int(value[1:])).first()
        if revision is None:
            return None, f"{value}: no such revision"
        run = scenario.runs.filter(revision=revision, source=Run.Source.REVISION).order_by("-created_at", "-id").first()
        if run is None:
            if not start:
                return None, f"{value} has never been run"
            run = services.queue_run(scenario, revision, user=user)
        return run, ""
    if limits.is_number(value):
        run = scenario.runs.filter(pk=int(value)).first()
        return run, "" if run else f"run {value}: no such run in this scenario"
    return None, ""


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
    if a and b and a.result is not None and b.result is not None:
        diff = compare.compare(a.result, b.result, key)
    context = {
        "scenario": scenario, "a": a, "b": b, "diff": diff, "key": key, "waiting": waiting,
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
