"""Answers: start a capacity, failure or tuning analysis, watch its parts finish on the workers, read the answer."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from webapp.scenarios import analyses, compare, engine
from webapp.scenarios.manifests import pods
from webapp.scenarios.models import Analysis, Membership

from .views import get_scenario

Role = Membership.Role
STRATEGIES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")


def words(text):
    return [w.strip() for w in text.replace("\n", ",").split(",") if w.strip()]


def spec_from_post(kind, post):
    """The spec a start form asks for (the engine checks it on the worker)."""
    if kind == "capacity":
        spec = {"extraZones": words(post.get("extraZones", ""))}
        if post.get("priceLabel", "").strip():
            spec["priceLabel"] = post["priceLabel"].strip()
        if post.get("maxPerTemplate", "").strip().isdigit():
            spec["maxPerTemplate"] = int(post["maxPerTemplate"])
        if post.get("templates", "").strip():
            try:
                spec["templates"] = json.loads(post["templates"])
            except json.JSONDecodeError as e:
                raise analyses.AnalysisInvalid("templates", f"not JSON: {e.msg} at line {e.lineno}") from None
            if not isinstance(spec["templates"], list):
                raise analyses.AnalysisInvalid("templates", "a JSON list of templates")
        return spec
    if kind == "replicas":
        spec = {"pod": post.get("pod", "").strip()}
        if post.get("limit", "").strip().isdigit():
            spec["limit"] = int(post["limit"])
        return spec
    if kind == "drain":
        return {"nodes": words(post.get("nodes", ""))}
    if kind == "tuning":
        chosen = [s for s in STRATEGIES if post.get(f"strategy-{s}")] or list(STRATEGIES)
        weights = {}
        for item in words(post.get("weights", "")):
            name, _, value = item.partition("=")
            if not value.strip().isdigit():
                raise analyses.AnalysisInvalid("weights", f"{item!r}: write plugin=weight, e.g. PodTopologySpread=5")
            weights[name.strip()] = int(value)
        disabled = words(post.get("disabled", ""))
        candidates = [{"strategy": s} for s in chosen]
        if weights or disabled:  # each strategy also with the weights and without the disabled plugins
            candidates += [{"strategy": s, "weights": weights, "disabled": disabled, "name": f"{s} (tuned)"}
                           for s in chosen]
        return {"candidates": candidates}
    return {}


def list_context(request, scenario, **extra):
    head = scenario.head()
    try:
        outline = engine.analysis_outline(head.manifests, head.config)
    except engine.ScenarioInvalid:
        outline = {"templates": [], "zones": [], "nodes": [], "pods": []}
    return {"scenario": scenario, "head": head, "outline": outline, "strategies": STRATEGIES,
            "analyses": scenario.analyses.select_related("revision", "created_by")[:30],
            "can_edit": scenario.allows(request.user, Role.EDITOR), **extra}


@login_required
def analysis_list(request, pk):
    scenario = get_scenario(request, pk)
    return render(request, "front/analysis_list.html", list_context(request, scenario))


@login_required
@require_POST
def analysis_create(request, pk):
    scenario = get_scenario(request, pk, Role.EDITOR)
    kind = request.POST.get("kind", "")
    seed = request.POST.get("seed", "0").strip() or "0"
    try:
        spec = spec_from_post(kind, request.POST)
        analysis = analyses.start(scenario, scenario.head(), kind, spec, int(seed) if seed.isdigit() else -1,
                                  request.user)
    except analyses.AnalysisInvalid as e:
        return render(request, "front/analysis_list.html",
                      list_context(request, scenario, error={"field": e.field, "message": str(e), "kind": kind}),
                      status=400)
    return redirect("analysis-detail", analysis_id=analysis.pk)


def detail_context(analysis):
    answer = analysis.answer or {}
    run = analysis.verifying_run
    copies = None
    if analysis.kind == Analysis.Kind.REPLICAS and run and run.result:
        made = [p for p in run.result["pods"] if p["pod"].startswith(answer["pod"] + pods.COPY_SUFFIX)]
        copies = {"all": len(made), "scheduled": sum(1 for p in made if p.get("node"))}
    return {"analysis": analysis, "scenario": analysis.scenario, "answer": answer, "copies": copies,
            "progress": analyses.progress(analysis), "parts": analysis.parts.all(),
            "verifying": run, "verifying_counts": compare.counts(run.result) if run and run.result else None,
            "chart": tuning_chart(answer.get("runs") or []) if analysis.kind == Analysis.Kind.TUNING else None}


def tuning_chart(rows):
    """Bars of cpu and memory utilisation spread (stddev across nodes) per candidate: shorter is more balanced."""
    if not rows:
        return None
    label_w, bar, gap, width = 220, 14, 10, 420
    top = max([r["cpu"]["stddev"] for r in rows] + [r["memory"]["stddev"] for r in rows] + [0.01])
    bars, y = [], 24
    for r in rows:
        for what, colour in (("cpu", "#3b82f6"), ("memory", "#f59e0b")):
            value = r[what]["stddev"]
            bars.append({"label": r["candidate"]["name"] if what == "cpu" else "", "what": what, "y": y,
                         "x": label_w, "w": round(width * value / top), "value": value, "colour": colour})
            y += bar + 2
        y += gap
    return {"bars": bars, "height": y + 8, "width": label_w + width + 90, "label_w": label_w, "bar": bar}


@login_required
def analysis_detail(request, analysis_id):
    analysis = get_object_or_404(Analysis.objects.select_related("scenario", "revision", "verifying_run"),
                                 pk=analysis_id)
    scenario = get_scenario(request, analysis.scenario_id)
    context = {**detail_context(analysis), "scenario": scenario,
               "can_edit": scenario.allows(request.user, Role.EDITOR)}
    template = "front/analysis_detail.html#analysis-body" if request.htmx else "front/analysis_detail.html"
    return render(request, template, context)


@login_required
@require_POST
def analysis_cancel(request, analysis_id):
    analysis = get_object_or_404(Analysis, pk=analysis_id)
    get_scenario(request, analysis.scenario_id, Role.EDITOR)
    if analyses.cancel(analysis):
        messages.success(request, f"Analysis #{analysis.pk} cancelled: no further part starts.")
    else:
        messages.info(request, f"Analysis #{analysis.pk} had already finished.")
    return redirect("analysis-detail", analysis_id=analysis.pk)
