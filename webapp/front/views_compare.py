"""Two runs side by side."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from webapp.scenarios import compare, limits, services
from webapp.scenarios.models import Membership, Revision, Run

from .views import get_scenario

Role = Membership.Role


def pick(scenario, value, user, can_edit):
    """A run id "12", or a revision "r3" (its latest run; one is queued if there is none)."""
    value = (value or "").strip()
    if value.startswith("r") and limits.is_number(value[1:]):
        revision = Revision.objects.filter(scenario=scenario, number=int(value[1:])).first()
        if revision is None:
            return None, f"{value}: no such revision"
        run = scenario.runs.filter(revision=revision, manifests="").order_by("-created_at", "-id").first()
        if run is None:
            if not can_edit:
                return None, f"{value} has never been run"
            run = services.queue_run(scenario, revision, user=user)
        return run, ""
    if limits.is_number(value):
        run = scenario.runs.filter(pk=int(value)).first()
        return run, "" if run else f"run {value}: no such run in this scenario"
    return None, ""


@login_required
def compare_runs(request, pk):
    scenario = get_scenario(request, pk)
    can_edit = scenario.allows(request.user, Role.EDITOR)
    a, err_a = pick(scenario, request.GET.get("a"), request.user, can_edit)
    b, err_b = pick(scenario, request.GET.get("b"), request.user, can_edit)
    key = request.GET.get("key") or compare.ZONE_KEY
    diff = None
    waiting = bool(a and b and not (a.is_finished and b.is_finished))
    if a and b and a.result is not None and b.result is not None:
        diff = compare.compare(a.result, b.result, key)
    context = {
        "scenario": scenario, "a": a, "b": b, "diff": diff, "key": key, "waiting": waiting,
        "errors": [e for e in (err_a, err_b) if e],
        "choices": scenario.runs.select_related("revision").defer(
            "result", "manifests", "summary", "revision__manifests", "revision__summary")[:50],
        "numbers": scenario.revisions.values_list("number", flat=True),
        "a_value": request.GET.get("a", ""), "b_value": request.GET.get("b", ""),
    }
    template = "front/compare.html#compare-result" if request.htmx else "front/compare.html"
    return render(request, template, context)
