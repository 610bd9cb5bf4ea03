"""REST API: teams and their members, forks, activity, and run results as JSON or CSV.

Outsiders get 404 for a team they are not in (as for its scenarios); members without the
role an operation needs get 403; a rule of the team (e.g. its last owner stays) is a 400
naming the field.
"""

import csv
import io

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from webapp.scenarios import activity, teams
from webapp.scenarios.models import Activity, Membership, Run, Scenario, Team

from .results import finished_run
from .serializers import ScenarioDetailSerializer

Role = Membership.Role

Detail = inline_serializer("TeamsErrorDetail", fields={"detail": serializers.CharField()})
FieldErrors = OpenApiResponse(
    inline_serializer("TeamsFieldErrors", fields={
        "non_field_errors": serializers.ListField(child=serializers.CharField(), required=False)}),
    description="Bad input, or a rule of the team: field name -> messages.",
)
DENIED = {401: Detail, 403: Detail, 404: Detail}


def team_error(e):
    return exceptions.ValidationError({e.field: [str(e)]})


class MemberSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Membership
        fields = ["username", "role"]


class TeamDetailSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField(help_text="Your role in this team")
    members = serializers.SerializerMethodField()

    class Meta:
        model = Team
        fields = ["id", "name", "role", "members"]

    def get_role(self, team) -> str:
        m = team.memberships.filter(user=self.context["request"].user).first()
        return m.role if m else ""

    def get_members(self, team) -> list[dict]:
        rows = team.memberships.select_related("user").order_by("user__username")
        return MemberSerializer(rows, many=True).data


class TeamCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)


class MemberAddSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=Role.choices, default=Role.VIEWER)


class MemberRoleSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Role.choices)


class TransferSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150, help_text="The member who becomes an owner; you become an editor.")


class ActivitySerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor.username", read_only=True, default=None)
    action = serializers.CharField(source="get_verb_display", read_only=True)
    scenario_name = serializers.CharField(source="scenario.name", read_only=True, default=None)

    class Meta:
        model = Activity
        fields = ["id", "actor", "verb", "action", "object", "team", "scenario", "scenario_name", "data", "created_at"]


class ForkSerializer(serializers.Serializer):
    team = serializers.CharField(help_text="Team id or name; you must be an editor in it.")
    name = serializers.CharField(max_length=200, required=False, help_text="Default: the source's name + “(fork)”.")

    def validate_team(self, value):
        mine = teams.editable_teams(self.context["request"].user)
        team = mine.filter(pk=int(value)).first() if value.isdigit() else mine.filter(name=value).first()
        if team is None:
            raise serializers.ValidationError("You are not an editor or owner of a team with this id or name.")
        return team


def member_role(team, user):
    m = team.memberships.filter(user=user).first()
    return m.role if m else None


class TeamViewSet(viewsets.GenericViewSet):
    """Teams you belong to: create one, manage its members (owners), leave it, read its activity."""

    queryset = Team.objects.none()
    serializer_class = TeamDetailSerializer
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        return Team.objects.filter(memberships__user=self.request.user)

    def require(self, team, role):
        mine = member_role(team, self.request.user)
        if mine is None or Membership.RANK[mine] < Membership.RANK[role]:
            raise exceptions.PermissionDenied(f"You need the {role} role in team {team.name} to do this.")

    def team_response(self, team, code=status.HTTP_200_OK):
        return Response(TeamDetailSerializer(team, context=self.get_serializer_context()).data, status=code)

    @extend_schema(responses={200: TeamDetailSerializer(many=True), 401: Detail, 403: Detail})
    def list(self, request):
        page = self.paginate_queryset(self.get_queryset().order_by("name"))
        return self.get_paginated_response(TeamDetailSerializer(page, many=True, context=self.get_serializer_context()).data)

    @extend_schema(request=TeamCreateSerializer, responses={201: TeamDetailSerializer, 400: FieldErrors, 401: Detail, 403: Detail})
    def create(self, request):
        data = TeamCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            team = teams.create_team(data.validated_data["name"], request.user)
        except teams.TeamError as e:
            raise team_error(e)
        return self.team_response(team, status.HTTP_201_CREATED)

    @extend_schema(responses={200: TeamDetailSerializer, **DENIED})
    def retrieve(self, request, pk=None):
        return self.team_response(self.get_object())

    @extend_schema(methods=["GET"], responses={200: MemberSerializer(many=True), **DENIED})
    @extend_schema(methods=["POST"], request=MemberAddSerializer,
                   responses={201: MemberSerializer, 400: FieldErrors, **DENIED})
    @action(detail=True, methods=["get", "post"], url_path="members", url_name="members")
    def members(self, request, pk=None):
        team = self.get_object()
        if request.method == "GET":
            page = self.paginate_queryset(team.memberships.select_related("user").order_by("user__username"))
            return self.get_paginated_response(MemberSerializer(page, many=True).data)
        self.require(team, Role.OWNER)
        data = MemberAddSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            m = teams.add_member(team, data.validated_data["username"], data.validated_data["role"], by=request.user)
        except teams.TeamError as e:
            raise team_error(e)
        return Response(MemberSerializer(m).data, status=status.HTTP_201_CREATED)

    @extend_schema(methods=["PATCH"], request=MemberRoleSerializer,
                   responses={200: MemberSerializer, 400: FieldErrors, **DENIED})
    @extend_schema(methods=["DELETE"], request=None, responses={204: None, 400: FieldErrors, **DENIED},
                   description="Owners remove any member; any member removes themselves (leaves).")
    @action(detail=True, methods=["patch", "delete"], url_path=r"members/(?P<username>[^/]+)", url_name="member")
    def member(self, request, pk=None, username=None):
        team = self.get_object()
        leaving = request.method == "DELETE" and username == request.user.username
        if not leaving:
            self.require(team, Role.OWNER)
        get_object_or_404(Membership, team=team, user__username=username)
        try:
            if request.method == "DELETE":
                teams.remove_member(team, username, by=request.user)
                return Response(status=status.HTTP_204_NO_CONTENT)
            data = MemberRoleSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            m = teams.change_role(team, username, data.validated_data["role"], by=request.user)
        except teams.TeamError as e:
            raise team_error(e)
        return Response(MemberSerializer(m).data)

    @extend_schema(request=None, responses={204: None, 400: FieldErrors, **DENIED})
    @action(detail=True, methods=["post"], url_path="leave", url_name="leave")
    def leave(self, request, pk=None):
        team = self.get_object()
        try:
            teams.remove_member(team, request.user.username, by=request.user)
        except teams.TeamError as e:
            raise team_error(e)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=TransferSerializer, responses={200: TeamDetailSerializer, 400: FieldErrors, **DENIED})
    @action(detail=True, methods=["post"], url_path="transfer", url_name="transfer")
    def transfer(self, request, pk=None):
        team = self.get_object()
        self.require(team, Role.OWNER)
        data = TransferSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            teams.transfer_ownership(team, data.validated_data["username"], by=request.user)
        except teams.TeamError as e:
            raise team_error(e)
        return self.team_response(team)

    @extend_schema(responses={200: ActivitySerializer(many=True), **DENIED})
    @action(detail=True, methods=["get"], url_path="activity", url_name="activity")
    def activity(self, request, pk=None):
        team = self.get_object()
        page = self.paginate_queryset(activity.of_team(team))
        return self.get_paginated_response(ActivitySerializer(page, many=True).data)


class ForkSerializerOut(ScenarioDetailSerializer):
    forked_from = serializers.IntegerField(source="forked_from_id", read_only=True, help_text="The source scenario's id")
    forked_from_revision = serializers.IntegerField(read_only=True, help_text="The source's revision copied")

    class Meta(ScenarioDetailSerializer.Meta):
        fields = ScenarioDetailSerializer.Meta.fields + ["forked_from", "forked_from_revision"]


class ScenarioMixin:
    def get_scenario(self, pk):
        return get_object_or_404(Scenario.objects.visible_to(self.request.user).select_related("team"), pk=pk)


class ScenarioActivityView(ScenarioMixin, GenericAPIView):
    """Who saved, ran, proposed, shared or revoked what in a scenario, newest first."""

    queryset = Activity.objects.none()
    serializer_class = ActivitySerializer

    @extend_schema(responses={200: ActivitySerializer(many=True), **DENIED})
    def get(self, request, pk):
        page = self.paginate_queryset(activity.of_scenario(self.get_scenario(pk)))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class ScenarioForkView(ScenarioMixin, GenericAPIView):
    """Copy the scenario's current revision into a team you can edit; the copy links back to it."""

    queryset = Scenario.objects.none()
    serializer_class = ForkSerializer

    @extend_schema(request=ForkSerializer, responses={201: ForkSerializerOut, 400: FieldErrors, **DENIED})
    def post(self, request, pk):
        source = self.get_scenario(pk)
        data = self.get_serializer(data=request.data)
        data.is_valid(raise_exception=True)
        name = data.validated_data.get("name") or f"{source.name} (fork)"
        copy = teams.fork_scenario(source, team=data.validated_data["team"], name=name[:200], author=request.user)
        body = ForkSerializerOut(copy, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": body["url"]})


# The export's columns, one row per pod that was pending at the start of the run (the engine's `pods`).
EXPORT_COLUMNS = ["pod", "outcome", "node", "nominated_node", "message"]


def export_rows(result):
    return [{"pod": p.get("pod"), "outcome": p.get("outcome"), "node": p.get("node") or None,
             "nominated_node": p.get("nominatedNode") or None, "message": p.get("message") or ""}
            for p in result.get("pods", [])]


ExportRow = inline_serializer("RunExportPod", many=True, fields={
    "pod": serializers.CharField(), "outcome": serializers.CharField(),
    "node": serializers.CharField(allow_null=True), "nominated_node": serializers.CharField(allow_null=True),
    "message": serializers.CharField(),
})
ExportBody = inline_serializer("RunExport", fields={
    "run": serializers.IntegerField(), "scenario": serializers.IntegerField(),
    "revision": serializers.IntegerField(), "seed": serializers.IntegerField(),
    "pods": ExportRow, "evicted": serializers.ListField(child=serializers.CharField()),
})


class RunExportJSONView(GenericAPIView):
    """A finished run's outcome per pod (outcome, node, nominated node, message) as JSON."""

    queryset = Run.objects.none()
    serializer_class = None

    @extend_schema(responses={200: ExportBody, **DENIED}, operation_id="runs_export_json")
    def get(self, request, run_id):
        run, result = finished_run(request, run_id)
        return Response({"run": run.pk, "scenario": run.scenario_id, "revision": run.revision.number,
                         "seed": run.seed, "pods": export_rows(result), "evicted": result.get("evicted", [])})


class RunExportCSVView(GenericAPIView):
    """The same rows as CSV: pod, outcome, node, nominated_node, message."""

    queryset = Run.objects.none()
    serializer_class = None

    @extend_schema(responses={(200, "text/csv"): str, **DENIED}, operation_id="runs_export_csv")
    def get(self, request, run_id):
        run, result = finished_run(request, run_id)
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=EXPORT_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in export_rows(result):
            writer.writerow({k: "" if v is None else v for k, v in row.items()})
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}.csv"'
        return response

