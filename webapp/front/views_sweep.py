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
               "skew_names": sorted({name for row in rows for name in row["skew"]}),
               "grid": grid(rows), "chart": chart(rows)}
    template = "front/sweep_detail.html#sweep-table" if request.htmx else "front/sweep_detail.html"
    return render(request, template, context)


def _shade(pending, most):
    """A cell's colour by its pending pods: green for none, then lighter to deeper red (dark text stays readable)."""
    if pending is None:
        return "#e4e7eb"
    if pending == 0:
        return "#c6f6d5"
    light = 92 - round(32 * pending / max(most, 1))
    return f"hsl(0, 75%, {light}%)"


def grid(rows):
    """A two-axis skew sweep (maxSkew × minDomains) as a grid of its cells: rows maxSkew, columns minDomains, each
    cell its run's pending pods (the engine's count), coloured; None for another sweep."""
    cells = [r for r in rows if "maxSkew" in r["variant"] and "minDomains" in r["variant"]]
    if not cells or len(cells) != len(rows):
        return None
    skews = sorted({r["variant"]["maxSkew"] for r in cells})
    domains = sorted({r["variant"]["minDomains"] for r in cells}, key=lambda d: (d is not None, d or 0))
    if len(skews) < 2 or len(domains) < 2:
        return None
    most = max([r["pending"] or 0 for r in cells] + [1])
    at = {(r["variant"]["maxSkew"], r["variant"]["minDomains"]): r for r in cells}
    return {"columns": ["unset" if d is None else d for d in domains],
            "rows": [{"maxSkew": s, "cells": [dict(at[(s, d)], colour=_shade(at[(s, d)]["pending"], most))
                                             if (s, d) in at else None for d in domains]} for s in skews]}


def chart(rows, width=560, bar=22):
    """A one-axis sweep (a maxSkew list, or each zone removed) as horizontal bars of pending pods per cell (drawn
    as inline SVG by the template); None for a grid or an unfinished sweep."""
    if grid(rows) is not None or not rows or any(r["pending"] is None for r in rows):
        return None
    most = max([r["pending"] for r in rows] + [1])
    label_w = 220
    bars = [{"label": f"without {r['variant']['removed_zone']}" if "removed_zone" in r["variant"] else r["label"],
             "run": r["run"], "pending": r["pending"], "y": i * (bar + 8),
             "w": round((width - label_w - 100) * r["pending"] / most), "x": label_w,
             "colour": _shade(r["pending"], most)} for i, r in enumerate(rows)]
    return {"bars": bars, "width": width, "height": len(rows) * (bar + 8), "bar": bar, "label_w": label_w}
