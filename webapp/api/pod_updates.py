"""Proposed updates of a pod's scheduling directives (KEP-3838).

POST /api/scenarios/{id}/pods/{namespace}/{name}/updates/ takes one of:

- `Content-Type: application/merge-patch+json`: a JSON merge patch (RFC 7386) of the Pod;
- `Content-Type: application/json`: a whole Pod object (`"kind": "Pod"`), or a wrapper
  `{"patch": {...}}` (a merge patch) or `{"pod": {...}}` (a whole Pod), with an optional
  `"revision": n`;
- `Content-Type: application/yaml` (or application/x-yaml, text/yaml): a whole Pod.

`If-Match: "<n>"` (or `?revision=n`) guards against a stale base: 409 if r<n> is not the head.
201: accepted, applied as a new revision and a run queued. 422: rejected with the apiserver's
errors; the attempt is stored, nothing else changes.
"""

import yaml
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiTypes, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import BaseParser
from rest_framework.response import Response
from rest_framework.reverse import reverse

from webapp.scenarios import pod_updates
from webapp.scenarios.manifests import documents, limits
from webapp.scenarios.models import Membership, PodUpdateAttempt, Scenario

from .parsers import DepthLimitedJSONParser
from .views import IF_MATCH, REVISION_QUERY, require

Role = Membership.Role


class MergePatchParser(DepthLimitedJSONParser):
    media_type = "application/merge-patch+json"
    require_object = False  # the view explains what a patch must be, naming the "patch" field

    def parse(self, stream, media_type=None, parser_context=None):
        return {"__merge_patch__": super().parse(stream, media_type, parser_context)}


class PodYAMLParser(BaseParser):
    media_type = "application/yaml"

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            text = stream.read().decode((parser_context or {}).get("encoding", "utf-8"))
            docs = documents.parse(text, "request body")
        except limits.TooLarge as e:
            raise exceptions.ParseError(str(e))
        except (UnicodeDecodeError, yaml.YAMLError) as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise exceptions.ParseError(f"YAML parse error{where}: {getattr(e, 'problem', None) or e}")
        if len(docs) != 1 or not isinstance(docs[0], dict):
            raise exceptions.ParseError("The YAML body must be exactly one Pod object.")
        return {"pod": docs[0]}


class PodXYAMLParser(PodYAMLParser):
    media_type = "application/x-yaml"


class PodTextYAMLParser(PodYAMLParser):
    media_type = "text/yaml"


class PodUpdateAttemptSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    pod = serializers.SerializerMethodField()
    base_revision = serializers.IntegerField(source="base_revision.number", read_only=True)
    revision = serializers.IntegerField(source="revision.number", read_only=True, default=None, allow_null=True,
                                        help_text="The revision it created; null when rejected")
    run = serializers.IntegerField(source="run_id", read_only=True, default=None, allow_null=True,
                                   help_text="The run it queued; null when rejected")
    run_url = serializers.SerializerMethodField()
    author = serializers.CharField(source="author.username", read_only=True, default=None, allow_null=True)
    errors = serializers.ListField(child=serializers.DictField(child=serializers.CharField()), read_only=True)
    explanation = serializers.JSONField(read_only=True)

    class Meta:
        model = PodUpdateAttempt
        fields = ["id", "url", "pod", "pod_namespace", "pod_name", "allowed", "base_revision", "revision",
                  "run", "run_url", "errors", "explanation", "patch", "proposed", "author", "created_at"]

    def get_url(self, attempt) -> str:
        return reverse("api:pod-updates", args=[attempt.scenario_id, attempt.pod_namespace, attempt.pod_name],
                       request=self.context.get("request"))

    def get_pod(self, attempt) -> str:
        return f"{attempt.pod_namespace}/{attempt.pod_name}"

    def get_run_url(self, attempt) -> str | None:
        if attempt.run_id is None:
            return None
        return reverse("api:run-detail", args=[attempt.run_id], request=self.context.get("request"))


ProposalBody = inline_serializer("PodUpdateProposal", fields={
    "patch": serializers.DictField(required=False, help_text="A JSON merge patch (RFC 7386) of the Pod."),
    "pod": serializers.DictField(required=False, help_text="The whole new Pod object."),
    "revision": serializers.IntegerField(required=False, help_text="The revision you edited (else If-Match)."),
})


def attempts_of(scenario):
    return scenario.pod_updates.select_related("base_revision", "revision", "author")


def read_base(request, body):
    raw = request.headers.get("If-Match")
    if raw is not None:
        raw = raw.strip().removeprefix("W/").strip('"')
    else:
        raw = request.query_params.get("revision", body.get("revision") if isinstance(body, dict) else None)
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise exceptions.ValidationError({"revision": ['A revision number is expected, e.g. If-Match: "3".']})


def read_proposal(data):
    """(patch, pod) from the parsed body; exactly one is not None."""
    if isinstance(data, dict) and "__merge_patch__" in data:
        patch = data["__merge_patch__"]
        if not isinstance(patch, dict):
            raise exceptions.ValidationError({"patch": ["A merge patch must be a JSON object."]})
        return patch, None
    if not isinstance(data, dict):
        raise exceptions.ValidationError({"pod": ["Send a Pod object, {\"pod\": {...}} or {\"patch\": {...}}."]})
    if data.get("kind") == "Pod":
        return None, dict(data)
    if "patch" in data and "pod" in data:
        raise exceptions.ValidationError({"patch": ["Send either \"patch\" or \"pod\", not both."]})
    if "patch" in data:
        if not isinstance(data["patch"], dict):
            raise exceptions.ValidationError({"patch": ["A merge patch must be a JSON object."]})
        return data["patch"], None
    if "pod" in data:
        if not isinstance(data["pod"], dict) or data["pod"].get("kind") != "Pod":
            raise exceptions.ValidationError({"pod": ["\"pod\" must be a whole Pod object with kind: Pod."]})
        return None, data["pod"]
    raise exceptions.ValidationError({"pod": [
        "Send a whole Pod (kind: Pod), {\"pod\": {...}}, {\"patch\": {...}} or a body with "
        "Content-Type: application/merge-patch+json."]})


class ScenarioMixin:
    def get_scenario(self, pk):
        return get_object_or_404(Scenario.objects.visible_to(self.request.user).select_related("team"), pk=pk)


@extend_schema(parameters=[
    OpenApiParameter("namespace", str, OpenApiParameter.PATH),
    OpenApiParameter("name", str, OpenApiParameter.PATH),
])
class PodUpdatesView(ScenarioMixin, GenericAPIView):
    """Proposed updates of one pod's scheduling directives: list them, or propose one."""

    serializer_class = PodUpdateAttemptSerializer
    queryset = PodUpdateAttempt.objects.none()
    parser_classes = [DepthLimitedJSONParser, MergePatchParser, PodYAMLParser, PodXYAMLParser, PodTextYAMLParser]

    @extend_schema(responses=PodUpdateAttemptSerializer(many=True))
    def get(self, request, pk, namespace, name):
        scenario = self.get_scenario(pk)
        page = self.paginate_queryset(attempts_of(scenario).filter(pod_namespace=namespace, pod_name=name))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        request={"application/json": ProposalBody, "application/merge-patch+json": OpenApiTypes.OBJECT,
                 "application/yaml": OpenApiTypes.STR},
        parameters=[IF_MATCH, REVISION_QUERY],
        responses={201: PodUpdateAttemptSerializer, 422: PodUpdateAttemptSerializer},
    )
    def post(self, request, pk, namespace, name):
        scenario = self.get_scenario(pk)
        require(scenario, request.user, Role.EDITOR)
        data = request.data
        patch, pod = read_proposal(data)
        base = read_base(request, {} if "__merge_patch__" in data else data)
        try:
            attempt = pod_updates.propose(scenario, namespace, name, author=request.user,
                                          patch=patch, pod=pod, base=base)
        except pod_updates.PodNotFound as e:
            raise exceptions.NotFound(str(e))
        except pod_updates.BadProposal as e:
            raise exceptions.ValidationError({e.field: [str(e)]})
        body = self.get_serializer(attempt).data
        if attempt.allowed:
            return Response(body, status=status.HTTP_201_CREATED,
                            headers={"ETag": f'"{attempt.revision.number}"', "Location": body["run_url"]})
        return Response(body, status=status.HTTP_422_UNPROCESSABLE_ENTITY)


class ScenarioPodUpdatesView(ScenarioMixin, GenericAPIView):
    """Every proposed pod update of a scenario, newest first."""

    serializer_class = PodUpdateAttemptSerializer
    queryset = PodUpdateAttempt.objects.none()

    @extend_schema(responses=PodUpdateAttemptSerializer(many=True))
    def get(self, request, pk):
        scenario = self.get_scenario(pk)
        page = self.paginate_queryset(attempts_of(scenario))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)
