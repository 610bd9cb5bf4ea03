"""Run result dashboard: topology, nodes, pod explanations, nominations and the events timeline.

Every view here also serves share links, read-only, under /s/<token>/ (see sharing.py).
"""

from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render

from webapp.scenarios import engine, explanations, results_cache
from webapp.scenarios.manifests import limits
from webapp.scenarios.models import Run, RunPage

from . import results
from .sharing import share_context, shareable, shared_scenario_or_404
from .views import get_scenario


# drawn on the topology and timeline pages, unless ?all=1: nodes per domain, pods in the pending tray; and the
# domains listed per spread constraint at the run's end (a hostname constraint has one per node)
TOPOLOGY_NODES, TOPOLOGY_PENDING, FINAL_SPREAD_DOMAINS = 50, 200, 50
# what the pod page reads of a result besides the pod's own entries (read together when read by parts)
POD_PAGE_PARTS = ("pods", "cycles", "nodes", "events")
BOUND_POD_PARTS = ("boundPods", "nodes")  # (the page of a pod bound before the run)
NODE_PAGE_PARTS = ("nodes", "events", "pods")  # (and its pods' entries of "podInfo", an entry each)
# what the topology page reads of a large result (and at a step, or on the timeline, the cycles and events too); its
# pods' workloads an entry each, its facts about every pod as the worker laid them out (topology_facts)
TOPOLOGY_PAGE_PARTS = ("nodes", "pods", "spreadDomains", "podsPerDomain", "podsPerDomainAtStart", "volumes")
STEP_PARTS = ("cycles", "events")
TIMELINE_PAGE_PARTS = tuple(p for p in TOPOLOGY_PAGE_PARTS if p != "spreadDomains") + STEP_PARTS  # (no spreads)
NODE_CARDS = 1000  # the Nodes view of a larger cluster shows this many, with a filter by name and "show all"


def finished_run(request, run_id, token=None, by_parts=False, parts=()):
    """(run, scenario, result) of a run the user (or the share link) may see; 404 for others or without a result.
    ``by_parts``: for a page that reads a few of the result's parts (results_cache: a large result is then read a
    part at a time; the nodes pages read a fifth of a 5,000-node result, and do not need its explanations), the
    ``parts`` it knows it reads together."""
    runs = Run.objects.select_related("revision", "scenario__team", "created_by").defer(
        "result", "revision__manifests", "revision__summary")  # (tens of MB at production size)
    if token is None:
        run = get_object_or_404(runs, pk=run_id)
        scenario = get_scenario(request, run.scenario_id)
    else:
        scenario = shared_scenario_or_404(token)
        run = get_object_or_404(runs, scenario=scenario, pk=run_id)
    result = results_cache.result_of(run, by_parts=by_parts) if run.status == Run.Status.SUCCEEDED else None
    if not result:
        raise Http404(f"Run {run.pk} has no result yet ({run.status}).")
    if parts and isinstance(result, results_cache.StoredResult):
        result.prefetch(parts)
    run.result = result  # (the cached one: the row was read without it)
    return run, scenario, result


def metadata(run):
    """Pod labels/owners as the engine recorded them in the run's result; for a result stored before it did,
    from the run's manifests ({} if they no longer parse: the trace still shows)."""
    found = results_cache.derived(run.result, "pod_meta", results.pod_meta)
    if found is not None:
        return found
    try:
        return engine.pod_metadata(*run.scenario_text())
    except engine.ScenarioInvalid:
        return {}


def int_param(request, name):
    raw = request.GET.get(name, "").strip()
    return int(raw) if limits.is_number(raw) else None


def topology_facts(run, result, meta):
    """What the topology and timeline pages read of every pod (results.topology_facts): as the worker kept it
    beside the run (run_page.py), else worked out from the result (once while this process keeps it)."""
    if "_topology_facts" not in run.__dict__:
        run._topology_facts = RunPage.objects.filter(run_id=run.pk).values_list("data__topology", flat=True).first()
    if run._topology_facts is None:
        run._topology_facts = results_cache.derived(result, "topology_facts",
                                                    lambda r: results.topology_facts(r, meta))
    return run._topology_facts


def all_url(request):
    """This page's address with ?all=1 (its other parameters kept)."""
    query = request.GET.copy()
    query["all"] = "1"
    return "?" + query.urlencode()


def topology_context(run, result, key, step, pod, show_all=False, keep=(), shared=False, spread=True):
    """The topology view; with ``spread``, a pod's spread constraints beside it (the topology page's, not the
    timeline's), computed on demand when the run did not keep them. Unless
    ``show_all``, a domain draws at most TOPOLOGY_NODES nodes (and those in ``keep`` or with nominated pods), the
    tray TOPOLOGY_PENDING pods."""
    meta = metadata(run)
    facts = topology_facts(run, result, meta)
    keys = results.topology_keys(result)
    stepped = results.stepped_keys(result)
    if step is not None and stepped is not None:  # a cycle's counts are kept for these keys only
        keys = [k for k in keys if k in stepped]
    if key not in keys:
        key = keys[0] if keys else results.ZONE_KEY
    pod = (pod or facts["defaultSpreadPod"]) if spread else None
    final = results.final_spreads(result, pod) if pod else []
    view = results.topology(result, key, meta=meta, step=step, limit=None if show_all else TOPOLOGY_NODES,
                            keep=keep, tray_limit=None if show_all else TOPOLOGY_PENDING,
                            final=next((f for f in final if f["key"] == key), None), workloads=facts["workloads"])
    explaining, explain_error = False, ""
    if pod:
        result, state, explain_error = explanations.with_explanation(run, result, pod, queue=not shared)
        explaining = state in (Run.Status.QUEUED, Run.Status.RUNNING)
        if state == explanations.NOT_COMPUTED:
            explain_error = "this run did not keep it, and a share link does not ask a worker to compute it."
    spread_pod, cycle, constraints = results.spread_constraints(result, pod) if spread else (None, None, [])
    not_evaluated = "" if constraints or explaining or explain_error or not pod else \
        results.spread_not_evaluated(result, pod)
    nominated_pods, nominated_nodes = results.nominations(result)
    candidates = facts["spreadCandidates"] if spread else []
    if spread_pod and constraints and spread_pod not in candidates:  # (explained since the run: offered too)
        candidates = [spread_pod, *candidates]
    return {
        "run": run, "topo": view, "keys": keys, "key": key, "step": step, "last_step": facts["lastStep"],
        "spread_pod": spread_pod or pod, "spread_pod_ns": (spread_pod or pod or "/").split("/", 1)[0],
        "spread_pod_name": (spread_pod or pod or "/").split("/", 1)[1], "spread_cycle": cycle and cycle.get("cycle"),
        "spreads": [results.spread_view(c, result) for c in constraints],
        "final_spreads": [results.listed_domains(f, None if show_all else FINAL_SPREAD_DOMAINS) for f in final]
        if step is None else [],
        "spread_pods": candidates,
        "spread_explaining": explaining, "spread_error": explain_error, "spread_not_evaluated": not_evaluated,
        "nominated_pods": nominated_pods, "nominated_nodes": nominated_nodes, "show_all": show_all,
        "topology_nodes": TOPOLOGY_NODES, "topology_pending": TOPOLOGY_PENDING,
    }


@shareable
def run_topology(request, run_id, token=None):
    step = int_param(request, "step")
    run, scenario, result = finished_run(request, run_id, token, by_parts=True,
                                         parts=TOPOLOGY_PAGE_PARTS + (STEP_PARTS if step is not None else ()))
    pod = request.GET.get("pod") or None
    if pod is not None and "/" not in pod:
        raise Http404(f"Pod {pod}: expected namespace/name.")
    context = {"scenario": scenario, **share_context(token), **topology_context(
        run, result, request.GET.get("key", results.ZONE_KEY), step,
        pod, show_all=request.GET.get("all") == "1", shared=token is not None), "all_url": all_url(request)}
    if request.htmx:
        return render(request, "front/run_topology.html#topology-panel", context)
    return render(request, "front/run_topology.html", context)


@shareable
def run_pod(request, run_id, namespace, name, token=None):
    # (by parts: a large result's pod page reads the pod's entries of the parts keyed by pod, not those parts, and
    # then the parts the page of such a pod shows: the engine's entry says whether it was bound before the run)
    run, scenario, result = finished_run(request, run_id, token, by_parts=True)
    pod = f"{namespace}/{name}"
    if isinstance(result, results_cache.StoredResult):
        bound_before = ((result.get("podInfo") or {}).get(pod) or {}).get("boundBeforeRun")
        result.prefetch(POD_PAGE_PARTS if bound_before is False else BOUND_POD_PARTS if bound_before else
                        POD_PAGE_PARTS + BOUND_POD_PARTS)
    bound = results.bound_pod(result, pod)
    if bound is not None:  # running before the run: nothing was scheduled, so nothing to explain
        return render(request, "front/run_bound_pod.html", {
            "run": run, "scenario": scenario, "b": bound, "chip": results.chip(pod, metadata(run)),
            **share_context(token)})
    if results.explanation(result, pod) is None:
        raise Http404(f"Pod {pod} is not in run {run.pk}.")
    result, state, error = explanations.with_explanation(run, result, pod, queue=token is None)
    explanation = results.explanation(result, pod)
    meta = metadata(run)
    context = {"run": run, "scenario": scenario, "x": explanation, "chip": results.chip(pod, meta),
               "gates": (meta.get(pod) or {}).get("gates") or [], "namespace": namespace, "name": name,
               "priority": (meta.get(pod) or {}).get("priority"),
               "requests": {r: results.quantity(r, v) for r, v in ((meta.get(pod) or {}).get("requests") or {}).items()},
               "outcome": next((r for r in result.get("pods", []) if r["pod"] == pod), {}),
               "preempted_by_this": results.preempted(result, meta, preemptor=pod),
               "explaining": state in (Run.Status.QUEUED, Run.Status.RUNNING), "explain_error": error,
               "not_computed": state == explanations.NOT_COMPUTED,
               **share_context(token)}
    if request.htmx:
        return render(request, "front/run_pod.html#pod-panel", context)
    return render(request, "front/run_pod.html", context)


@shareable
def run_pod_path(request, run_id, pod, token=None):
    """The pod page by "namespace/name" (as the result tables print pods)."""
    namespace, _, name = pod.partition("/")
    if not name:
        raise Http404(f"Pod {pod}: expected namespace/name.")
    if token is not None:
        shared_scenario_or_404(token)
        return redirect("shared-run-pod", token=token, run_id=run_id, namespace=namespace, name=name)
    return redirect("run-pod", run_id=run_id, namespace=namespace, name=name)


@shareable
def run_node(request, run_id, name, token=None):
    run, scenario, result = finished_run(request, run_id, token, by_parts=True, parts=NODE_PAGE_PARTS)
    node = results.node_view(result, name, metadata(run))
    if node is None:
        raise Http404(f"Node {name} is not in run {run.pk}.")
    return render(request, "front/run_node.html", {"run": run, "scenario": scenario, "node": node,
                                                    **share_context(token)})


@shareable
def run_nodes(request, run_id, token=None):
    run, scenario, result = finished_run(request, run_id, token, by_parts=True)
    name = request.GET.get("q", "").strip()
    show_all = request.GET.get("all") == "1"
    nodes, matched = results.nodes_overview(result, name, None if show_all else NODE_CARDS)
    keys = results.topology_keys(result)
    group_by = request.GET.get("group", "")
    group_by = group_by if group_by in keys else ""
    return render(request, "front/run_nodes.html", {
        "run": run, "scenario": scenario, "nodes": nodes, "q": name, "matched": matched,
        "total": len(result.get("nodes", [])), "keys": keys, "group_by": group_by,
        "groups": results.group_nodes(result, nodes, group_by) if group_by else None, **share_context(token)})


@shareable
def run_timeline(request, run_id, token=None):
    run, scenario, result = finished_run(request, run_id, token, by_parts=True, parts=TIMELINE_PAGE_PARTS)
    tl = results.timeline(result, int_param(request, "step"))
    key = request.GET.get("key", results.ZONE_KEY)
    pod = (tl["cycle"] or {}).get("pod") or "/"
    landed = (tl["cycle"] or {}).get("node")
    context = {"run": run, "scenario": scenario, "tl": tl, "tl_ns": pod.split("/", 1)[0], "tl_name": pod.split("/", 1)[1],
               **share_context(token), **topology_context(run, result, key, tl["step"], None, spread=False,
                                                          show_all=request.GET.get("all") == "1",
                                                          keep={landed} if landed else ()),
               "all_url": all_url(request)}
    if request.htmx:
        return render(request, "front/run_timeline.html#timeline-panel", context)
    return render(request, "front/run_timeline.html", context)
