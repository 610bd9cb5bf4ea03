"""REST API: the run result dashboard's data (topology, nodes, pod explanations, timeline), from the stored result."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from webapp.front import results
from webapp.scenarios import engine, explanations, results_cache
from webapp.scenarios.manifests import limits
from webapp.scenarios.models import Run, Scenario

from . import result_types as types


def finished_run(request, run_id):
    run = Run.objects.filter(pk=run_id, scenario__in=Scenario.objects.visible_to(request.user)).defer(
        "result", "manifests").first()
    if run is None:
        raise exceptions.NotFound(f"Run {run_id} not found.")
    # (the result read as the pages read it: once per process, tens of MB at production size)
    run.result = results_cache.result_of(run) if run.status == Run.Status.SUCCEEDED else None
    if not run.result:
        raise exceptions.NotFound(f"Run {run_id} has no result yet (status {run.status}).")
    return run, run.result


def metadata(run):
    found = results.pod_meta(run.result)  # the engine's record; older results: read from the text
    if found is not None:
        return found
    try:
        return engine.pod_metadata(*run.scenario_text())
    except engine.ScenarioInvalid:
        return {}


def step_param(request):
    raw = request.query_params.get("step", "").strip()
    if not raw:
        return None
    if not limits.is_number(raw):
        raise exceptions.ValidationError({"step": ["A cycle number is expected, e.g. ?step=3."]})
    return int(raw)


class ResultView(GenericAPIView):
    queryset = Run.objects.none()
    serializer_class = None


class RunTopologyView(ResultView):
    """Domains of a topology key with their nodes and pods, pending pods and the spread constraint of a pod."""

    @extend_schema(parameters=[
        OpenApiParameter("key", str, description="Node label key (default the zone label)"),
        OpenApiParameter("step", int, description="State after this cycle, replayed from the recorded events"),
        OpenApiParameter("pod", str, description="namespace/name whose latest spread constraints to explain"),
    ], responses=types.TopologySerializer, operation_id="runs_topology_retrieve")
    def get(self, request, run_id):
        run, result = finished_run(request, run_id)
        key = request.query_params.get("key") or results.ZONE_KEY
        keys = results.topology_keys(result)
        if keys and key not in keys:
            raise exceptions.ValidationError({"key": [f"No node has the label {key!r}; try one of: {', '.join(keys)}."]})
        meta = metadata(run)
        step = step_param(request)
        wanted = request.query_params.get("pod") or results.default_spread_pod(result, meta)
        final = results.final_spreads(result, wanted) if wanted else []
        view = results.topology(result, key, meta=meta, step=step,
                                final=next((f for f in final if f["key"] == key), None))
        state = explanations.READY
        if wanted:
            result, state, _ = explanations.with_explanation(run, result, wanted)
        pod, cycle, constraints = results.spread_constraints(result, wanted)
        return Response({**view, "keys": keys, "spread": {
            "pod": pod or wanted, "cycle": cycle and cycle.get("cycle"), "status": state,
            "constraints": [results.spread_view(c, result) for c in constraints],
            "final": final if step is None else []}})


class RunPodView(ResultView):
    """Why a pod is where it is, or pending: FailedScheduling message, filter table, scores, sentences, nomination."""

    @extend_schema(responses={
        200: types.ExplanationSerializer,
        202: OpenApiResponse(types.ExplanationSerializer, description="Being computed by a worker (the run kept "
                             "explanations of its pending pods only): the outcome so far; ask again in a moment."),
    }, operation_id="runs_pod_explanation_retrieve")
    def get(self, request, run_id, namespace, name):
        run, result = finished_run(request, run_id)
        pod = f"{namespace}/{name}"
        bound = results.bound_pod(result, pod)
        if bound is not None:  # running before the run: nothing to explain
            return Response({**bound, "outcome": "Evicted" if bound["evicted"] else "Running",
                             "status": explanations.READY})
        if results.explanation(result, pod) is None:
            raise exceptions.NotFound(f"Pod {pod} is not in run {run_id}.")
        result, state, error = explanations.with_explanation(run, result, pod)
        if state == Run.Status.FAILED:
            raise exceptions.APIException(f"The explanation of {pod} could not be computed: {error}")
        if state != explanations.READY:
            # the run kept explanations for its pending pods only: a worker is computing this one
            return Response({**results.explanation(result, pod), "status": state,
                             "detail": "The explanation is being computed; ask again in a moment."},
                            status=202)
        return Response({**results.explanation(result, pod), "status": state})


class RunNodeView(ResultView):
    """A node's requested vs allocatable, taints, cordon, pods and nominations."""

    @extend_schema(responses=types.NodeSerializer, operation_id="runs_node_retrieve")
    def get(self, request, run_id, name):
        run, result = finished_run(request, run_id)
        node = results.node_view(result, name, metadata(run))
        if node is None:
            raise exceptions.NotFound(f"Node {name} is not in run {run_id}.")
        return Response(node)


class RunTimelineView(ResultView):
    """One simulation cycle (?step=N) with its pod, outcome, node, message and events."""

    @extend_schema(parameters=[OpenApiParameter("step", int, description="Cycle number (default the first)")],
                   responses=types.TimelineSerializer, operation_id="runs_timeline_retrieve")
    def get(self, request, run_id):
        _, result = finished_run(request, run_id)
        return Response(results.timeline(result, step_param(request)))
