"""REST API of sweeps: start a grid (202), read its table."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.reverse import reverse

from webapp.scenarios import engine, sweeps
from webapp.scenarios.models import Membership, Scenario, Sweep

Role = Membership.Role

SweepSpecSerializer = inline_serializer("SweepSpec", fields={
    "type": serializers.ChoiceField(choices=["skew", "zones"]),
    "workload": serializers.CharField(required=False, help_text="type skew: Kind/ns/name or app=web"),
    "index": serializers.IntegerField(required=False, help_text="type skew: which spread constraint (0)"),
    "maxSkew": serializers.ListField(child=serializers.IntegerField(), required=False),
    "minDomains": serializers.ListField(child=serializers.CharField(), required=False,
                                        help_text='numbers, or "none" for unset'),
    "key": serializers.CharField(required=False, help_text="type zones: the zone label"),
})


class CellSerializer(serializers.Serializer):
    run = serializers.IntegerField(source="run.pk")
    run_url = serializers.SerializerMethodField()
    label = serializers.CharField()
    variant = serializers.DictField()
    status = serializers.CharField()
    scheduled = serializers.IntegerField(allow_null=True)
    pending = serializers.IntegerField(allow_null=True)
    skew = serializers.DictField(child=serializers.IntegerField(), help_text="max skew observed per constraint")
    error = serializers.CharField()

    def get_run_url(self, row) -> str:
        return reverse("api:run-detail", args=[row["run"].pk], request=self.context.get("request"))


class SweepSerializer(serializers.ModelSerializer):
    revision = serializers.IntegerField(source="revision.number", read_only=True)
    finished = serializers.SerializerMethodField()
    cells = serializers.SerializerMethodField()

    class Meta:
        model = Sweep
        fields = ["id", "scenario", "revision", "spec", "created_at", "finished", "cells"]

    def get_finished(self, sweep) -> bool:
        return sweeps.finished(sweep)

    @extend_schema_field(CellSerializer(many=True))
    def get_cells(self, sweep):
        return CellSerializer(sweeps.table(sweep), many=True, context=self.context).data


class ScenarioSweepsView(GenericAPIView):
    """Start a sweep of the scenario's current revision: one queued run per cell (at most 48)."""

    serializer_class = SweepSerializer
    queryset = Sweep.objects.none()

    @extend_schema(request=SweepSpecSerializer, responses={202: SweepSerializer})
    def post(self, request, pk):
        scenario = get_object_or_404(Scenario.objects.visible_to(request.user).select_related("team"), pk=pk)
        if not scenario.allows(request.user, Role.EDITOR):
            raise exceptions.PermissionDenied(f"You need the editor role in team {scenario.team.name} to do this.")
        if not isinstance(request.data, dict):
            raise exceptions.ValidationError({"type": ["Send a JSON object with a type: skew or zones."]})
        try:
            spec = request.data.dict() if hasattr(request.data, "dict") else dict(request.data)  # form: one value each
            sweep = sweeps.start(scenario, scenario.head(), spec, request.user)
        except engine.ScenarioInvalid as e:
            return Response({"detail": str(e), "object": e.object, "field": e.field}, status=status.HTTP_400_BAD_REQUEST)
        data = SweepSerializer(sweep, context=self.get_serializer_context()).data
        return Response(data, status=status.HTTP_202_ACCEPTED,
                        headers={"Location": reverse("api:sweep-detail", args=[sweep.pk], request=request)})


class SweepDetailView(GenericAPIView):
    """A sweep and its cells' outcomes so far (poll until finished)."""

    serializer_class = SweepSerializer
    queryset = Sweep.objects.none()

    def get(self, request, sweep_id):
        sweep = get_object_or_404(Sweep.objects.filter(scenario__in=Scenario.objects.visible_to(request.user))
                                  .select_related("revision"), pk=sweep_id)
        return Response(SweepSerializer(sweep, context=self.get_serializer_context()).data)
