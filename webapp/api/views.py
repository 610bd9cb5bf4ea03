from django.conf import settings
from django.contrib.auth import authenticate
from django.db.models import TextField
from django.db.models.functions import Cast
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.reverse import reverse

from webapp.front import auth
from webapp.scenarios import results_cache, services
from webapp.scenarios.manifests import limits
from webapp.scenarios.models import ApiToken, Membership, Revision, Run, Scenario, ShareLink, Team

from . import result_types
from .parsers import TextYAMLRenderer, YAMLTextRenderer
from . import serializers as s

Role = Membership.Role


def require(scenario, user, role):
    if not scenario.allows(user, role):
        raise exceptions.PermissionDenied(f"You need the {role} role in team {scenario.team.name} to do this.")


def base_revision(request, required=True):
    """The revision the client edited: If-Match: "<n>", else a `revision` field or query param."""
    raw = request.headers.get("If-Match")
    if raw is not None:
        raw = raw.strip().removeprefix("W/").strip('"')
    else:
        raw = request.data.get("revision", request.query_params.get("revision"))
    if raw in (None, ""):
        if required:
            raise PreconditionRequired()
        return None
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise exceptions.ValidationError({"revision": ["A revision number is expected, e.g. If-Match: \"3\"."]})


class PreconditionRequired(exceptions.APIException):
    status_code = 428
    default_detail = 'Say which revision you edited: send If-Match: "<n>" or a "revision" field; a stale one gets 409.'
    default_code = "precondition_required"


def yaml_response(text, filename, media_type="application/yaml"):
    response = HttpResponse(text, content_type=f"{media_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def slug(name):
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-") or "scenario"


IF_MATCH = OpenApiParameter(
    "If-Match", str, OpenApiParameter.HEADER,
    description='The revision you edited, quoted: "3" (the ETag you read); 409 if it is no longer the current one.')
REVISION_QUERY = OpenApiParameter("revision", int, description="The revision you edited, if not sent as If-Match.")
YAML_TEXT = {"application/yaml": OpenApiTypes.STR}


def raw_yaml(serializer):
    """A JSON body, or the manifests as a raw YAML body (the other fields then come as query parameters)."""
    return {"application/json": serializer, **YAML_TEXT}


@extend_schema_view(list=extend_schema(parameters=[
    OpenApiParameter("team", str, description="Team id or name"),
    OpenApiParameter("search", str, description="Part of the scenario name"),
]))
class ScenarioViewSet(viewsets.ModelViewSet):
    """Scenarios of the teams you belong to; others' scenarios answer 404."""

    queryset = Scenario.objects.none()  # for the schema; get_queryset does the real work
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        qs = Scenario.objects.visible_to(self.request.user).select_related("team", "created_by")
        team = self.request.query_params.get("team")
        if team:
            if limits.is_number(team):  # an id (none past MAX_ID), else a name
                qs = qs.filter(team_id=int(team)) if limits.is_id(team) else qs.none()
            else:
                qs = qs.filter(team__name=team)
        search = self.request.query_params.get("search")
        if search:
            qs = qs.filter(name__icontains=search)
        return qs

    def get_serializer_class(self):
        return {
            "list": s.ScenarioSerializer,
            "create": s.ScenarioCreateSerializer,
            "update": s.ScenarioRenameSerializer,
            "partial_update": s.ScenarioRenameSerializer,
        }.get(self.action, s.ScenarioDetailSerializer)

    def detail_response(self, scenario, status_code=status.HTTP_200_OK, headers=None):
        data = s.ScenarioDetailSerializer(scenario, context=self.get_serializer_context()).data
        return Response(data, status=status_code, headers={"ETag": f'"{scenario.current_revision}"', **(headers or {})})

    def retrieve(self, request, *args, **kwargs):
        return self.detail_response(self.get_object())

    @extend_schema(
        request=raw_yaml(s.ScenarioCreateSerializer),
        parameters=[OpenApiParameter(name, str, description=f"The {name} field, with a raw YAML body")
                    for name in ("team", "name", "message")],
        responses={201: s.ScenarioDetailSerializer},
    )
    def create(self, request, *args, **kwargs):
        data = request.data.copy() if hasattr(request.data, "copy") else dict(request.data)
        for field in ("team", "name", "message"):
            if field not in data and field in request.query_params:
                data[field] = request.query_params[field]
        serializer = s.ScenarioCreateSerializer(data=data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        scenario = services.create_scenario(author=request.user, **serializer.validated_data)
        location = reverse("api:scenario-detail", args=[scenario.pk], request=request)
        return self.detail_response(scenario, status.HTTP_201_CREATED, {"Location": location})

    @extend_schema(request=s.ScenarioRenameSerializer, responses=s.ScenarioDetailSerializer)
    def partial_update(self, request, *args, **kwargs):
        return super().partial_update(request, *args, **kwargs)

    @extend_schema(request=s.ScenarioRenameSerializer, responses=s.ScenarioDetailSerializer)
    def update(self, request, *args, **kwargs):
        scenario = self.get_object()
        require(scenario, request.user, Role.EDITOR)
        serializer = s.ScenarioRenameSerializer(scenario, data=request.data, partial=kwargs.get("partial", False))
        serializer.is_valid(raise_exception=True)
        if "name" in serializer.validated_data:
            services.rename_scenario(scenario, serializer.validated_data["name"], by=request.user)
        return self.detail_response(scenario)

    def destroy(self, request, *args, **kwargs):
        scenario = self.get_object()
        require(scenario, request.user, Role.OWNER)
        services.delete_scenario(scenario, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(methods=["GET"], responses=s.RevisionSummarySerializer(many=True))
    @extend_schema(methods=["POST"], request=raw_yaml(s.RevisionCreateSerializer),
                   parameters=[IF_MATCH, REVISION_QUERY,
                               OpenApiParameter("message", str, description="The message, with a raw YAML body")],
                   responses={201: s.RevisionSerializer})
    @action(detail=True, methods=["get", "post"], url_path="revisions", url_name="revisions")
    def revisions(self, request, pk=None):
        scenario = self.get_object()
        if request.method == "GET":
            page = self.paginate_queryset(scenario.revisions.select_related("author").defer("manifests", "summary"))
            data = s.RevisionSummarySerializer(page, many=True, context=self.get_serializer_context()).data
            return self.get_paginated_response(data)
        require(scenario, request.user, Role.EDITOR)
        data = request.data.copy() if hasattr(request.data, "copy") else dict(request.data)
        if "message" not in data and "message" in request.query_params:
            data["message"] = request.query_params["message"]
        serializer = s.RevisionCreateSerializer(data=data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        revision = services.save_revision(
            scenario, manifests=data["manifests"], config=data["config"], message=data["message"],
            author=request.user, base=base_revision(request),
        )
        return self.revision_created(revision)

    def revision_created(self, revision):
        body = s.RevisionSerializer(revision, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED,
                        headers={"Location": body["url"], "ETag": f'"{revision.number}"'})

    def get_revision(self, number):
        return get_object_or_404(Revision.objects.select_related("author"), scenario=self.get_object(), number=number)

    @extend_schema(responses=s.RevisionSerializer)
    @action(detail=True, methods=["get"], url_path=r"revisions/(?P<number>[0-9]+)", url_name="revision")
    def revision(self, request, pk=None, number=None):
        return Response(s.RevisionSerializer(self.get_revision(number), context=self.get_serializer_context()).data)

    @extend_schema(request=None, parameters=[IF_MATCH, REVISION_QUERY], responses={201: s.RevisionSerializer})
    @action(detail=True, methods=["post"], url_path=r"revisions/(?P<number>[0-9]+)/restore", url_name="restore")
    def restore(self, request, pk=None, number=None):
        old = self.get_revision(number)
        require(old.scenario, request.user, Role.EDITOR)
        revision = services.restore_revision(old.scenario, old, author=request.user,
                                             base=base_revision(request, required=False))
        return self.revision_created(revision)

    @extend_schema(
        parameters=[OpenApiParameter("against", int, description="Older revision (default: the previous one)")],
        responses={(200, "text/x-diff"): str},
    )
    @action(detail=True, methods=["get"], url_path=r"revisions/(?P<number>[0-9]+)/diff", url_name="diff")
    def diff(self, request, pk=None, number=None):
        new = self.get_revision(number)
        against = request.query_params.get("against", str(int(number) - 1))
        if not limits.is_number(against):
            raise exceptions.ValidationError({"against": ["A revision number is expected."]})
        old = self.get_revision(against)
        return HttpResponse(services.diff_revisions(old, new), content_type="text/x-diff; charset=utf-8")

    @extend_schema(
        parameters=[OpenApiParameter("revision", int, description="Default: the current revision")],
        # text/yaml when asked for (Accept: text/yaml): clients that only read text/* types take that one
        responses={(200, "application/yaml"): str, (200, "text/yaml"): str},
    )
    @action(detail=True, methods=["get"], url_path="manifests", url_name="manifests",
            renderer_classes=[JSONRenderer, YAMLTextRenderer, TextYAMLRenderer])
    def manifests(self, request, pk=None):
        scenario = self.get_object()
        number = request.query_params.get("revision", str(scenario.current_revision))
        if not limits.is_number(number):
            raise exceptions.ValidationError({"revision": ["A revision number is expected."]})
        revision = self.get_revision(number)
        media_type = "text/yaml" if request.accepted_media_type == "text/yaml" else "application/yaml"
        return yaml_response(revision.manifests, f"{slug(scenario.name)}-r{revision.number}.yaml", media_type)

    @extend_schema(methods=["GET"], responses=s.RunListSerializer(many=True))
    @extend_schema(methods=["POST"], request=s.RunCreateSerializer, responses={202: s.RunSerializer})
    @action(detail=True, methods=["get", "post"], url_path="runs", url_name="runs")
    def runs(self, request, pk=None):
        scenario = self.get_object()
        if request.method == "GET":
            page = self.paginate_queryset(scenario.runs.select_related("revision", "created_by").defer(
                "result", "manifests", "revision__manifests", "revision__summary"))
            data = s.RunListSerializer(page, many=True, context=self.get_serializer_context()).data
            return self.get_paginated_response(data)
        require(scenario, request.user, Role.EDITOR)
        serializer = s.RunCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        revision = self.get_revision(data.get("revision", scenario.current_revision))
        run = services.queue_run(scenario, revision, user=request.user, seed=data["seed"], options=data["options"])
        body = s.RunSerializer(run, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})

    @extend_schema(methods=["GET"], responses=s.ShareLinkSerializer(many=True))
    @extend_schema(methods=["POST"], request=None, responses={201: s.NewShareLinkSerializer})
    @action(detail=True, methods=["get", "post"], url_path="share-links", url_name="share-links",
            pagination_class=None)  # a scenario has few links: a plain list
    def share_links(self, request, pk=None):
        scenario = self.get_object()
        require(scenario, request.user, Role.OWNER)
        if request.method == "GET":
            return Response(s.ShareLinkSerializer(scenario.share_links.all(), many=True).data)
        link, token = services.create_share_link(scenario, request.user)
        link.url = request.build_absolute_uri(f"/s/{token}/")
        link.api_url = reverse("api:shared-scenario", args=[token], request=request)
        link.token = token
        return Response(s.NewShareLinkSerializer(link).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["delete"], url_path=r"share-links/(?P<link_id>[0-9]+)", url_name="share-link")
    def revoke_share_link(self, request, pk=None, link_id=None):
        scenario = self.get_object()
        require(scenario, request.user, Role.OWNER)
        link = get_object_or_404(ShareLink, scenario=scenario, pk=link_id)
        services.revoke_share_link(link, request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def run_with_result(request, run, fields):
    """A run's JSON: its result as the database stores it, never parsed here (a 5,000-node result is 136 MB of
    JSON, which took 6.7 s to read, parse and write out again), then the run's other ``fields`` (its serializer's
    data without the result). To a client that accepts gzip, a large result goes as the worker kept it deflated."""
    fields = JSONRenderer().render(fields)
    rest = b"," + fields[1:]  # (the run's other fields, after its result: '{"result":...,"id":...}')
    if run.status == Run.Status.SUCCEEDED and "gzip" in request.META.get("HTTP_ACCEPT_ENCODING", ""):
        body = results_cache.deflated_body(run, rest)
        if body is not None:
            response = HttpResponse(body, content_type="application/json")
            response["Content-Encoding"] = "gzip"
            patch_vary_headers(response, ["Accept-Encoding"])
            return response
    stored = Run.objects.filter(pk=run.pk).annotate(text=Cast("result", TextField())) \
        .values_list("text", flat=True).first()
    body = b"".join((results_cache.DEFLATED_HEAD, (stored or "null").encode("utf-8"), rest))
    response = HttpResponse(body, content_type="application/json")
    patch_vary_headers(response, ["Accept-Encoding"])
    return response


# what a run's page of the API reads of it besides its result (read as stored: run_with_result)
RUN_DEFERRED = ("result", "manifests", "revision__manifests", "revision__summary")


class RunViewSet(viewsets.ReadOnlyModelViewSet):
    """Runs of scenarios you can see. Poll a run until its status is succeeded or failed."""

    serializer_class = s.RunSerializer
    queryset = Run.objects.none()
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        visible = Scenario.objects.visible_to(self.request.user)
        runs = Run.objects.filter(scenario__in=visible).select_related("revision", "created_by")
        # (a run's text is never shown here; its result is read as stored by retrieve)
        return runs.defer("manifests", "revision__manifests", "revision__summary",
                          *(["result"] if self.action == "retrieve" else []))

    def retrieve(self, request, *args, **kwargs):
        """A run with its result (run_with_result)."""
        if not isinstance(request.accepted_renderer, JSONRenderer):  # (the browsable API)
            return super().retrieve(request, *args, **kwargs)
        run = self.get_object()
        return run_with_result(request, run, s.RunListSerializer(run, context=self.get_serializer_context()).data)

    @extend_schema(responses=result_types.RunPodsSerializer)
    @action(detail=True, methods=["get"], url_path="pods", url_name="pods")
    def pods(self, request, pk=None):
        """Per-pod outcome, node, nominated node and FailedScheduling message."""
        run = self.get_object()
        pods = (run.result or {}).get("pods", []) if run.status == Run.Status.SUCCEEDED else []
        return Response({"status": run.status, "pods": pods, "evicted": (run.result or {}).get("evicted", [])})


class TeamViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = s.TeamSerializer
    queryset = Team.objects.none()
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        return Team.objects.filter(memberships__user=self.request.user)


class ApiTokenViewSet(mixins.ListModelMixin, mixins.CreateModelMixin, mixins.DestroyModelMixin,
                      viewsets.GenericViewSet):
    """Your API tokens. A new token's key is shown once; DELETE revokes."""

    serializer_class = s.ApiTokenSerializer
    queryset = ApiToken.objects.none()
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        return ApiToken.objects.filter(user=self.request.user)

    @extend_schema(responses={201: s.NewApiTokenSerializer})
    def create(self, request, *args, **kwargs):
        serializer = s.ApiTokenSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token, key = ApiToken.create(request.user, serializer.validated_data["name"])
        token.token = key
        return Response(s.NewApiTokenSerializer(token).data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance):
        ApiToken.objects.filter(pk=instance.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


class TokenEndpointThrottle(ScopedRateThrottle):
    """Per client address; a cache outage lets requests through rather than failing them."""

    def get_ident(self, request):
        # REMOTE_ADDR, as the login lockout counts: X-Forwarded-For is whatever the client sends
        # (a new value per request made every guess a first one).
        return auth.client_address(request)

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except Exception:
            return True


class ObtainTokenView(GenericAPIView):
    """Exchange a username and password for a new API token (throttled per client address)."""

    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_classes = [TokenEndpointThrottle]
    throttle_scope = "auth-token"
    serializer_class = s.ObtainTokenSerializer

    @extend_schema(responses={201: s.NewApiTokenSerializer})
    def post(self, request):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        # The login page's lockout holds here too: the same counters, so neither is a way around the other.
        address = auth.client_address(request)
        if auth.is_locked(data["username"], address):
            raise exceptions.Throttled(wait=settings.LOGIN_LOCKOUT_SECONDS, detail=(
                "Too many failed log-ins for this account. "
                f"Wait {max(1, settings.LOGIN_LOCKOUT_SECONDS // 60)} minutes and try again."))
        user = authenticate(request, username=data["username"], password=data["password"])
        if user is None:
            auth.record_failure(data["username"], address)
            raise exceptions.ValidationError({"non_field_errors": ["Unable to log in with the provided credentials."]})
        auth.reset_failures(data["username"], address)
        token, key = ApiToken.create(user, data["name"])
        token.token = key
        return Response(s.NewApiTokenSerializer(token).data, status=status.HTTP_201_CREATED)


class SharedScenarioView(GenericAPIView):
    """Read-only access through a share link: the scenario, its revisions and runs."""

    permission_classes = [AllowAny]
    authentication_classes = []
    serializer_class = s.SharedScenarioSerializer

    def get_link(self, token):
        link = ShareLink.find(token)
        if link is None:
            raise exceptions.NotFound("This share link does not exist or was revoked.")
        return link

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "token": self.kwargs["token"]}

    def get(self, request, token):
        return Response(self.get_serializer(self.get_link(token).scenario).data)


class SharedRunView(SharedScenarioView):
    serializer_class = s.SharedRunSerializer

    def get(self, request, token, run_id):
        scenario = self.get_link(token).scenario
        if not isinstance(request.accepted_renderer, JSONRenderer):  # (the browsable API)
            run = get_object_or_404(Run.objects.select_related("revision"), scenario=scenario, pk=run_id)
            return Response(self.get_serializer(run).data)
        run = get_object_or_404(Run.objects.select_related("revision").defer(*RUN_DEFERRED), scenario=scenario,
                                pk=run_id)
        fields = s.SharedRunFieldsSerializer(run, context=self.get_serializer_context()).data
        return run_with_result(request, run, fields)
