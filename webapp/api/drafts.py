"""REST API of drafts: the text, structured edits, run and save."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from webapp.scenarios import drafts, engine, services
from webapp.scenarios.models import Draft, Membership, Scenario

from .fields import ManifestText
from .serializers import RevisionSerializer, RunListSerializer
from .views import IF_MATCH, base_revision, raw_yaml

Role = Membership.Role


def editable_scenario(request, pk):
    scenario = get_object_or_404(Scenario.objects.visible_to(request.user).select_related("team"), pk=pk)
    if not scenario.allows(request.user, Role.EDITOR):
        raise exceptions.PermissionDenied(f"You need the editor role in team {scenario.team.name} to do this.")
    return scenario


def invalid(e, status_code=status.HTTP_400_BAD_REQUEST):
    return Response({"detail": str(e), "object": e.object, "field": e.field, "input": e.input}, status=status_code)


class DraftSerializer(serializers.ModelSerializer):
    base_revision = serializers.IntegerField(source="base_revision.number", read_only=True)
    check = serializers.SerializerMethodField()
    draft_run = serializers.SerializerMethodField()
    saved_run = serializers.SerializerMethodField()
    edits = serializers.SerializerMethodField()
    history = serializers.SerializerMethodField()
    can_undo = serializers.SerializerMethodField()
    can_redo = serializers.SerializerMethodField()

    class Meta:
        model = Draft
        fields = ["base_revision", "manifests", "config", "edits", "history", "can_undo", "can_redo", "updated_at",
                  "check", "draft_run", "saved_run"]
        read_only_fields = ["updated_at"]

    @extend_schema_field(serializers.ListField(child=serializers.DictField(), help_text=(
        "the edits applied to the base revision, in order (a text edit's text is the draft's manifests)")))
    def get_edits(self, draft):
        return [{"op": "text"} if e.get("op") == "text" else e for e in draft.edits]

    @extend_schema_field(serializers.ListField(child=serializers.DictField(), help_text=(
        "n, text (the edit in words), undone: the edits, then those undone (the next redo first)")))
    def get_history(self, draft):
        return drafts.history(draft)

    def get_can_undo(self, draft) -> bool:
        return bool(draft.edits)

    def get_can_redo(self, draft) -> bool:
        return bool(draft.undone)

    @extend_schema_field(serializers.DictField(help_text="ok, message, object, field, warnings, pods, pending…"))
    def get_check(self, draft):
        return drafts.summary(draft.manifests, draft.config)

    @extend_schema_field(RunListSerializer(allow_null=True))
    def get_draft_run(self, draft):
        run = drafts.latest_runs(draft)[0]
        return RunListSerializer(run, context=self.context).data if run else None

    @extend_schema_field(RunListSerializer(allow_null=True))
    def get_saved_run(self, draft):
        run = drafts.latest_runs(draft)[1]
        return RunListSerializer(run, context=self.context).data if run else None


class DraftTextSerializer(serializers.Serializer):
    manifests = ManifestText()
    config = ManifestText(required=False, allow_blank=True)


EditSerializer = inline_serializer("DraftEdit", fields={
    "op": serializers.CharField(help_text="set_max_skew, set_min_domains, set_when_unsatisfiable, set_topology_key, "
                                          "set_spread, add_spread, remove_spread, set_replicas, add_node, remove_node, "
                                          "remove_zone, cordon, uncordon, add_taint, remove_taint, set_priority, "
                                          "add_gate, remove_gate"),
    "workload": serializers.CharField(required=False, help_text="Kind/namespace/name, Pod/namespace/name, or a pod "
                                                                "group app=web (spread ops, set_replicas)"),
    "target": serializers.CharField(required=False, help_text="Pod/ns/name, Kind/ns/name or app=web "
                                                              "(set_priority, add_gate, remove_gate)"),
    "index": serializers.IntegerField(required=False, help_text="which topologySpreadConstraints entry (default 0)"),
    "value": serializers.CharField(required=False, help_text="the new value of a set_<field> op"),
    "maxSkew": serializers.IntegerField(required=False),
    "minDomains": serializers.CharField(required=False, help_text="a number, or unset"),
    "whenUnsatisfiable": serializers.CharField(required=False, help_text="DoNotSchedule or ScheduleAnyway"),
    "topologyKey": serializers.CharField(required=False),
    "replicas": serializers.IntegerField(required=False),
    "priority": serializers.IntegerField(required=False, help_text="set_priority: spec.priority (an int32)"),
    "priorityClassName": serializers.CharField(required=False, help_text="set_priority: a PriorityClass of the "
                                                                         "scenario, or system-cluster-critical / "
                                                                         "system-node-critical"),
    "node": serializers.CharField(required=False),
    "name": serializers.CharField(required=False, help_text="add_node: the new node; add_gate / remove_gate: "
                                                            "the gate"),
    "zone": serializers.CharField(required=False),
    "key": serializers.CharField(required=False, help_text="taint key; remove_zone: the zone label key"),
    "effect": serializers.CharField(required=False, help_text="NoSchedule, PreferNoSchedule or NoExecute"),
})
SaveSerializer = inline_serializer("DraftSave", fields={"message": serializers.CharField(required=False)})


class DraftView(GenericAPIView):
    """Your draft of a scenario (started from the current revision on first GET); PUT replaces its text."""

    serializer_class = DraftSerializer
    queryset = Draft.objects.none()

    def get(self, request, pk):
        draft = drafts.get_or_start(editable_scenario(request, pk), request.user)
        return Response(DraftSerializer(draft, context=self.get_serializer_context()).data)

    @extend_schema(request=raw_yaml(DraftTextSerializer), responses=DraftSerializer)
    def put(self, request, pk):
        draft = drafts.get_or_start(editable_scenario(request, pk), request.user)
        text = DraftTextSerializer(data=request.data)
        text.is_valid(raise_exception=True)
        drafts.set_text(draft, text.validated_data["manifests"], text.validated_data.get("config"))
        return Response(DraftSerializer(draft, context=self.get_serializer_context()).data)

    @extend_schema(responses={204: None})
    def delete(self, request, pk):
        Draft.objects.filter(scenario=editable_scenario(request, pk), author=request.user).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class DraftEditView(GenericAPIView):
    """Apply one structured edit; a refused edit is 400 naming the object and field, the draft unchanged. An edit that
    leaves the text as it is (a node cordoned already) is 200 with the draft as it was: its edits gain no entry."""

    serializer_class = DraftSerializer
    queryset = Draft.objects.none()

    @extend_schema(request=EditSerializer, responses={200: DraftSerializer})
    def post(self, request, pk):
        draft = drafts.get_or_start(editable_scenario(request, pk), request.user)
        if not isinstance(request.data, dict):
            raise exceptions.ValidationError({"op": ["Send a JSON object such as {\"op\": \"cordon\", \"node\": \"n1\"}."]})
        try:
            # A form body is a QueryDict: take one value per field, not lists.
            drafts.apply(draft, request.data.dict() if hasattr(request.data, "dict") else dict(request.data))
        except drafts.Unchanged:
            pass  # (an edit that leaves the text as it is: the draft as it was, with no entry for it in its edits)
        except engine.ScenarioInvalid as e:
            return invalid(e)
        return Response(DraftSerializer(draft, context=self.get_serializer_context()).data)


class DraftUndoView(GenericAPIView):
    """Take the draft's latest edit back (redo applies it again); 409 when there is none."""

    serializer_class = DraftSerializer
    queryset = Draft.objects.none()
    step = staticmethod(drafts.undo)
    nothing = "There is no edit to undo."

    @extend_schema(request=None, responses={200: DraftSerializer, 409: None})
    def post(self, request, pk):
        draft = drafts.get_or_start(editable_scenario(request, pk), request.user)
        try:
            done = self.step(draft)
        except engine.ScenarioInvalid as e:  # a later edit no longer applies to the base
            return invalid(e, status.HTTP_409_CONFLICT)
        if done is None:
            return Response({"detail": self.nothing}, status=status.HTTP_409_CONFLICT)
        return Response(DraftSerializer(draft, context=self.get_serializer_context()).data)


class DraftRedoView(DraftUndoView):
    """Apply the latest undone edit again; 409 when there is none."""

    step = staticmethod(drafts.redo)
    nothing = "There is no undone edit to redo."


class DraftRunView(GenericAPIView):
    """Queue a run of the draft's text (label "draft"); 202 with the run."""

    serializer_class = RunListSerializer
    queryset = Draft.objects.none()

    @extend_schema(request=None, responses={202: RunListSerializer})
    def post(self, request, pk):
        draft = drafts.get_or_start(editable_scenario(request, pk), request.user)
        try:
            run = drafts.run(draft, request.user)
        except engine.ScenarioInvalid as e:
            return invalid(e)
        body = RunListSerializer(run, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})


class DraftSaveView(GenericAPIView):
    """Save the draft as revision n+1 if its base is still current (else 409), then delete it."""

    serializer_class = RevisionSerializer
    queryset = Draft.objects.none()

    @extend_schema(request=SaveSerializer, parameters=[IF_MATCH], responses={201: RevisionSerializer})
    def post(self, request, pk):
        scenario = editable_scenario(request, pk)
        draft = drafts.find(scenario, request.user)
        if draft is None:
            raise exceptions.NotFound("You have no draft of this scenario.")
        seen = base_revision(request, required=False) if "If-Match" in request.headers else None
        if seen is not None and seen != scenario.current_revision:
            raise services.StaleRevision(scenario.current_revision)  # the caller saw an older head
        try:
            revision = drafts.save(draft, request.user, str(request.data.get("message", "") or ""))
        except services.StaleRevision:
            raise
        except engine.ScenarioInvalid as e:
            return invalid(e)
        body = RevisionSerializer(revision, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED,
                        headers={"Location": body["url"], "ETag": f'"{revision.number}"'})
