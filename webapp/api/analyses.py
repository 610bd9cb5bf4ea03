"""REST API of analyses (capacity, failure tolerance, tuning): start one (202), list, read, cancel."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.reverse import reverse

from webapp.scenarios import analyses
from webapp.scenarios.models import Analysis, Membership, Scenario

Role = Membership.Role

AnalysisRequestSerializer = inline_serializer("AnalysisRequest", fields={
    "kind": serializers.ChoiceField(choices=Analysis.Kind.values),
    "spec": serializers.DictField(required=False, help_text=(
        "capacity: extraZones (list), templates (list of {name, zone, labels, allocatable, taints}), priceLabel, "
        "maxPerTemplate; replicas: pod (namespace/name), limit; drain: nodes (list); tuning: candidates (list of "
        "{name, strategy, weights, disabled}); zones: nothing")),
    "seed": serializers.IntegerField(required=False, default=0, help_text="every candidate run uses it"),
})


class AnalysisSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    revision = serializers.IntegerField(source="revision.number", read_only=True)
    progress = serializers.SerializerMethodField()
    verifying_run = serializers.IntegerField(source="verifying_run_id", allow_null=True, read_only=True,
                                             help_text="the run that checks a capacity answer (the nodes added)")
    answer = serializers.JSONField(read_only=True, help_text="the engine's answer; its sentence says it in words")
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None, allow_null=True)

    class Meta:
        model = Analysis
        fields = ["id", "url", "scenario", "revision", "kind", "spec", "seed", "status", "progress", "answer",
                  "error", "verifying_run", "created_by", "created_at", "started_at", "finished_at"]

    def get_url(self, analysis) -> str:
        return reverse("api:analysis-detail", args=[analysis.pk], request=self.context.get("request"))

    @extend_schema(responses=inline_serializer("AnalysisProgress", fields={
        "done": serializers.IntegerField(), "total": serializers.IntegerField()}))
    def get_progress(self, analysis) -> dict:
        return analyses.progress(analysis)


def visible(request):
    return Analysis.objects.filter(scenario__in=Scenario.objects.visible_to(request.user)).select_related(
        "revision", "created_by")


class ScenarioAnalysesView(GenericAPIView):
    """The scenario's analyses (newest first), or start one of its current revision on the workers."""

    serializer_class = AnalysisSerializer
    queryset = Analysis.objects.none()

    @extend_schema(responses=AnalysisSerializer(many=True))
    def get(self, request, pk):
        scenario = get_object_or_404(Scenario.objects.visible_to(request.user), pk=pk)
        page = self.paginate_queryset(visible(request).filter(scenario=scenario))
        return self.get_paginated_response(AnalysisSerializer(page, many=True,
                                                              context=self.get_serializer_context()).data)

    @extend_schema(request=AnalysisRequestSerializer, responses={202: AnalysisSerializer})
    def post(self, request, pk):
        scenario = get_object_or_404(Scenario.objects.visible_to(request.user).select_related("team"), pk=pk)
        if not scenario.allows(request.user, Role.EDITOR):
            raise exceptions.PermissionDenied(f"You need the editor role in team {scenario.team.name} to do this.")
        data = request.data if isinstance(request.data, dict) else {}
        try:
            analysis = analyses.start(scenario, scenario.head(), data.get("kind", ""), data.get("spec", {}),
                                      data.get("seed", 0), request.user)
        except analyses.AnalysisInvalid as e:
            return Response({"detail": str(e), "field": e.field}, status=status.HTTP_400_BAD_REQUEST)
        return Response(AnalysisSerializer(analysis, context=self.get_serializer_context()).data,
                        status=status.HTTP_202_ACCEPTED,
                        headers={"Location": reverse("api:analysis-detail", args=[analysis.pk], request=request)})


class AnalysisDetailView(GenericAPIView):
    """An analysis: its progress while its parts run, then its answer (poll until status is final)."""

    serializer_class = AnalysisSerializer
    queryset = Analysis.objects.none()

    def get(self, request, analysis_id):
        analysis = get_object_or_404(visible(request), pk=analysis_id)
        return Response(AnalysisSerializer(analysis, context=self.get_serializer_context()).data)


class AnalysisCancelView(GenericAPIView):
    """Cancel an unfinished analysis: parts not started are dropped and no answer is combined (409 if finished)."""

    serializer_class = AnalysisSerializer
    queryset = Analysis.objects.none()

    @extend_schema(request=None, responses={200: AnalysisSerializer})
    def post(self, request, analysis_id):
        analysis = get_object_or_404(visible(request).select_related("scenario__team"), pk=analysis_id)
        if not analysis.scenario.allows(request.user, Role.EDITOR):
            raise exceptions.PermissionDenied(
                f"You need the editor role in team {analysis.scenario.team.name} to do this.")
        if not analyses.cancel(analysis):
            return Response({"detail": f"Analysis {analysis.pk} has already finished ({analysis.status})."},
                            status=status.HTTP_409_CONFLICT)
        analysis.refresh_from_db()
        return Response(AnalysisSerializer(analysis, context=self.get_serializer_context()).data)
