"""REST API: compare two runs of a scenario."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from webapp.scenarios import compare, results_cache
from webapp.scenarios.manifests import limits
from webapp.scenarios.models import Run, Scenario

CompareSerializer = inline_serializer("RunComparison", fields={
    "a": serializers.IntegerField(), "b": serializers.IntegerField(), "key": serializers.CharField(),
    "counts": serializers.DictField(), "moved": serializers.ListField(child=serializers.DictField()),
    "became_pending": serializers.ListField(child=serializers.DictField()),
    "got_scheduled": serializers.ListField(child=serializers.DictField()),
    "only_a": serializers.ListField(child=serializers.DictField()),
    "only_b": serializers.ListField(child=serializers.DictField()),
    "displaced": serializers.ListField(child=serializers.DictField()),
    "unchanged": serializers.IntegerField(), "domains": serializers.ListField(child=serializers.DictField()),
})


def visible_run(request, run_id, field):
    runs = Run.objects.defer("result", "manifests")  # (comparison_facts reads what it needs)
    run = runs.filter(pk=run_id, scenario__in=Scenario.objects.visible_to(request.user)).first()
    if run is None:
        raise exceptions.NotFound(f"{field}: run {run_id} not found.")
    return run


def comparison(a, b, key):
    for name, run in (("a", a), ("b", b)):
        if run.scenario_id != a.scenario_id:
            raise exceptions.ValidationError({name: ["Both runs must belong to the same scenario."]})
        if run.status != Run.Status.SUCCEEDED:
            raise exceptions.ValidationError({name: [f"Run {run.pk} has no result ({run.status})."]})
    facts = results_cache.comparison_facts(a, b)
    for name, run, found in (("a", a, facts[0]), ("b", b, facts[1])):
        if found is None:
            raise exceptions.ValidationError({name: [f"Run {run.pk} has no result ({run.status})."]})
    diff = compare.compare_facts(*facts, key)
    return {
        "a": a.pk, "b": b.pk, "key": key, "counts": {"a": diff["a"], "b": diff["b"]},
        **{k: diff[k] for k in ("moved", "became_pending", "got_scheduled", "only_a", "only_b", "displaced",
                                "unchanged", "domains")},
    }


KEY = OpenApiParameter("key", str, description="Topology key of the per-domain counts (default the zone label)")


class ScenarioCompareView(GenericAPIView):
    """Compare runs ?a=<run>&b=<run> of this scenario."""

    serializer_class = CompareSerializer
    queryset = Run.objects.none()

    @extend_schema(parameters=[OpenApiParameter("a", int, required=True), OpenApiParameter("b", int, required=True), KEY],
                   responses=CompareSerializer)
    def get(self, request, pk):
        scenario = get_object_or_404(Scenario.objects.visible_to(request.user), pk=pk)
        ids = {}
        for name in ("a", "b"):
            raw = request.query_params.get(name, "")
            if not limits.is_number(raw):
                raise exceptions.ValidationError({name: ["A run id is expected, e.g. ?a=12&b=13."]})
            ids[name] = raw
        runs = Run.objects.defer("result", "manifests")  # (comparison_facts reads what it needs)
        a = get_object_or_404(runs, scenario=scenario, pk=ids["a"])
        b = get_object_or_404(runs, scenario=scenario, pk=ids["b"])
        return Response(comparison(a, b, request.query_params.get("key") or compare.ZONE_KEY))


class RunCompareView(GenericAPIView):
    """Compare run {a} (before) with run {b} (after)."""

    serializer_class = CompareSerializer
    queryset = Run.objects.none()

    @extend_schema(parameters=[KEY], responses=CompareSerializer)
    def get(self, request, a, b):
        return Response(comparison(visible_run(request, a, "a"), visible_run(request, b, "b"),
                                   request.query_params.get("key") or compare.ZONE_KEY))
