"""Sweeps: start a grid of variants, watch the table of outcomes fill in."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from webapp.scenarios import engine, sweeps
from webapp.scenarios.manifests import edits
from webapp.scenarios.models import Membership, Sweep

from .views import get_scenario

Role = Membership.Role


def form_context(scenario, **extra):
    head = scenario.head()
    return {"scenario": scenario, "head": head, "outline": sweeps.form_outline(head),
            "sweeps": scenario.sweeps.all()[:20], "max_cells": sweeps.MAX_CELLS, **extra}


@login_required
def sweep_list(request, pk):
    scenario = get_scenario(request, pk)
    return render(request, "front/sweep_list.html", form_context(
        scenario, can_edit=scenario.allows(request.user, Role.EDITOR), values=request.GET))


def spec_from_post(post):
    spec = {"type": post.get("type", "")}
    if spec["type"] == "skew":
        spec.update(workload=post.get("workload", ""), index=post.get("index", "0") or "0",
                    maxSkew=post.get("maxSkew", ""), minDomains=post.get("minDomains", ""))
    elif spec["type"] == "zones":
        spec["key"] = post.get("key", "") or edits.ZONE_KEY
    return spec


@login_required
@require_POST
def sweep_create(request, pk):
    scenario = get_scenario(request, pk, Role.EDITOR)
    try:
        sweep = sweeps.start(scenario, scenario.head(), spec_from_post(request.POST), request.user)
    except engine.ScenarioInvalid as e:
        return render(request, "front/sweep_list.html", form_context(
            scenario, can_edit=True, values=request.POST,
            error={"message": str(e), "object": e.object, "field": e.field}))
    return redirect("sweep-detail", sweep_id=sweep.pk)


@login_required
def sweep_detail(request, sweep_id):
    sweep = get_object_or_404(Sweep.objects.select_related("revision"), pk=sweep_id)
    scenario = get_scenario(request, sweep.scenario_id)
    rows = sweeps.table(sweep)
    context = {"scenario": scenario, "sweep": sweep, "rows": rows, "done": sweeps.finished(sweep),
               "skew_names": sorted({name for row in rows for name in row["skew"]})}
    template = "front/sweep_detail.html#sweep-table" if request.htmx else "front/sweep_detail.html"
    return render(request, template, context)
