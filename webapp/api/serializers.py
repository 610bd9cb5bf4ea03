from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse
from webapp.scenarios.manifests import limits
from webapp.scenarios.models import ApiToken, Membership, Revision, Run, Scenario, ShareLink, Team

from .fields import ManifestText


class TeamSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField()

    class Meta:
        model = Team
        fields = ["id", "name", "role"]

    def get_role(self, team) -> str:
        user = self.context["request"].user
        m = team.memberships.filter(user=user).first()
        return m.role if m else ""


class RunSummarySerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = ["id", "url", "status", "created_at", "finished_at"]

    def get_url(self, run) -> str:
        return reverse("api:run-detail", args=[run.pk], request=self.context.get("request"))


class IgnoredObjectsSerializer(serializers.Serializer):
    kind = serializers.CharField()
    reason = serializers.CharField(help_text="Why these objects were left out")
    count = serializers.IntegerField()
    examples = serializers.ListField(child=serializers.CharField(), help_text="The first few, as namespace/name")


class AddedPodsSerializer(serializers.Serializer):
    owner = serializers.CharField(help_text="The workload or DaemonSet, as “Kind namespace/name”")
    pods = serializers.IntegerField(help_text="Pods its controller would create that the text lacks")


class LoadSummarySerializer(serializers.Serializer):
    """What the engine made of a revision's text."""

    file = serializers.CharField()
    read = serializers.DictField(child=serializers.IntegerField(), help_text="Objects read, per kind")
    ignored = IgnoredObjectsSerializer(many=True, help_text="Objects left out, per kind and reason")
    added = AddedPodsSerializer(many=True, help_text="Pods added for replicas and DaemonSet nodes that lack them")
    warnings = serializers.ListField(child=serializers.CharField())


class ScenarioSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:scenario-detail")
    team_name = serializers.CharField(source="team.name", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None, allow_null=True)
    last_run = serializers.SerializerMethodField()

    class Meta:
        model = Scenario
        fields = ["id", "url", "name", "description", "team", "team_name", "current_revision",
                  "created_by", "created_at", "updated_at", "last_run"]
        read_only_fields = ["team", "current_revision", "created_at", "updated_at"]
        extra_kwargs = {"description": {"required": False}}

    @extend_schema_field(RunSummarySerializer(allow_null=True))
    def get_last_run(self, scenario):
        run = scenario.last_run()
        return RunSummarySerializer(run, context=self.context).data if run else None


LINKS = ("revisions", "runs", "manifests", "share-links")


class ScenarioDetailSerializer(ScenarioSerializer):
    manifests = serializers.SerializerMethodField()
    config = serializers.SerializerMethodField()
    links = serializers.SerializerMethodField()
    role = serializers.SerializerMethodField(help_text="Your role in the scenario's team")
    load_summary = serializers.SerializerMethodField(
        help_text="What the engine made of the current revision's text (null if it no longer accepts it)")

    class Meta(ScenarioSerializer.Meta):
        fields = ScenarioSerializer.Meta.fields + ["role", "manifests", "config", "links", "load_summary"]

    def get_role(self, scenario) -> str | None:
        request = self.context.get("request")
        return scenario.role_of(request.user) if request else None

    def head(self, scenario):
        if not hasattr(scenario, "_head"):
            scenario._head = scenario.head()
        return scenario._head

    def get_manifests(self, scenario) -> str:
        return self.head(scenario).manifests

    def get_config(self, scenario) -> str:
        return self.head(scenario).config

    @extend_schema_field(LoadSummarySerializer(allow_null=True))
    def get_load_summary(self, scenario):
        return self.head(scenario).summary["load"]

    @extend_schema_field({
        "type": "object", "description": "URLs of the scenario's collections",
        "properties": {name: {"type": "string", "format": "uri"} for name in LINKS},
        "required": list(LINKS),
    })
    def get_links(self, scenario):
        request = self.context.get("request")
        return {
            name: reverse(f"api:scenario-{name}", args=[scenario.pk], request=request)
            for name in LINKS
        }


class ScenarioCreateSerializer(serializers.Serializer):
    team = serializers.CharField(help_text="Team id or name; you must be an editor in it.")
    name = serializers.CharField(max_length=200)
    manifests = ManifestText(help_text="Kubernetes manifests (YAML or JSON)")
    config = ManifestText(required=False, allow_blank=True, default="")
    message = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)

    def validate_team(self, value):
        user = self.context["request"].user
        teams = Team.objects.filter(memberships__user=user)
        if limits.is_number(value):  # an id (none past MAX_ID), else a name
            team = teams.filter(pk=int(value)).first() if limits.is_id(value) else None
        else:
            team = teams.filter(name=value).first()
        if team is None:
            raise serializers.ValidationError("No team of yours has this id or name.")
        if not Membership.objects.get(team=team, user=user).allows(Membership.Role.EDITOR):
            raise serializers.ValidationError("You need the editor role in this team to create scenarios.")
        return team


class ScenarioRenameSerializer(serializers.ModelSerializer):
    class Meta:
        model = Scenario
        fields = ["name"]


class RevisionSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", read_only=True, default=None, allow_null=True)
    url = serializers.SerializerMethodField()
    load_summary = serializers.SerializerMethodField(
        help_text="What the engine made of the revision's text (null if it no longer accepts it)")

    class Meta:
        model = Revision
        fields = ["number", "url", "author", "created_at", "message", "manifests", "config", "load_summary"]

    @extend_schema_field(LoadSummarySerializer(allow_null=True))
    def get_load_summary(self, revision):
        return revision.summary["load"]

    def get_url(self, revision) -> str:
        return reverse("api:scenario-revision", args=[revision.scenario_id, revision.number],
                       request=self.context.get("request"))


class RevisionSummarySerializer(RevisionSerializer):
    class Meta(RevisionSerializer.Meta):
        fields = ["number", "url", "author", "created_at", "message"]


class RevisionCreateSerializer(serializers.Serializer):
    manifests = ManifestText()
    config = ManifestText(required=False, allow_blank=True, default="")
    message = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)
    revision = serializers.IntegerField(
        required=False, min_value=0,
        help_text="The revision you edited (or send If-Match: \"<n>\"); a stale one gets 409.",
    )


class RunSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    revision = serializers.IntegerField(source="revision.number", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None, allow_null=True)

    class Meta:
        model = Run
        fields = ["id", "url", "scenario", "revision", "kind", "source", "label", "params", "status", "progress", "error",
                  "created_by", "created_at", "started_at", "finished_at", "result"]

    def get_url(self, run) -> str:
        return reverse("api:run-detail", args=[run.pk], request=self.context.get("request"))

    def to_representation(self, run):
        data = super().to_representation(run)
        if isinstance(data.get("params"), dict) and "ahead" in data["params"]:
            # (the name of what a quick edit handed the worker, Run.queued_ahead: nobody's business)
            data["params"] = {k: v for k, v in data["params"].items() if k != "ahead"}
        return data


class RunListSerializer(RunSerializer):
    class Meta(RunSerializer.Meta):
        fields = [f for f in RunSerializer.Meta.fields if f != "result"]


class RunCreateSerializer(serializers.Serializer):
    revision = serializers.IntegerField(required=False, min_value=1, help_text="Defaults to the current revision.")
    seed = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**31 - 1)
    options = serializers.DictField(required=False, default=dict)


class ApiTokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = ["prefix", "created_at", "last_used_at", "revoked_at"]


class NewApiTokenSerializer(ApiTokenSerializer):
    token = serializers.CharField(read_only=True, help_text="Shown once; only its hash is stored.")

    class Meta(ApiTokenSerializer.Meta):
        fields = ApiTokenSerializer.Meta.fields + ["token"]


class ObtainTokenSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(trim_whitespace=False, style={"input_type": "password"})
    name = serializers.CharField(required=False, default="api", max_length=100)


class ShareLinkSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None, allow_null=True)

    class Meta:
        model = ShareLink
        fields = ["id", "prefix", "created_by", "created_at", "revoked_at"]


class NewShareLinkSerializer(ShareLinkSerializer):
    url = serializers.CharField(read_only=True, help_text="The read-only page; shown once.")
    api_url = serializers.CharField(read_only=True)
    token = serializers.CharField(read_only=True, help_text="Shown once: GET /api/shared/{token}/ reads the scenario.")

    class Meta(ShareLinkSerializer.Meta):
        fields = ShareLinkSerializer.Meta.fields + ["url", "api_url", "token"]


class SharedRevisionSerializer(RevisionSerializer):
    class Meta(RevisionSerializer.Meta):
        fields = ["number", "author", "created_at", "message"]


class SharedRunSerializer(RunSerializer):
    """A run read through a share link: its `url` is the share link's."""

    def get_url(self, run) -> str:
        return reverse("api:shared-run", args=[self.context["token"], run.pk], request=self.context.get("request"))


class SharedRunFieldsSerializer(SharedRunSerializer):
    """A shared run without its result (which goes out as stored: api/views.run_with_result)."""

    class Meta(SharedRunSerializer.Meta):
        fields = [f for f in SharedRunSerializer.Meta.fields if f != "result"]


class SharedRunSummarySerializer(SharedRunSerializer):
    class Meta(SharedRunSerializer.Meta):
        fields = ["id", "url", "status", "revision", "created_at", "finished_at"]


class SharedScenarioSerializer(ScenarioDetailSerializer):
    """A scenario read through a share link (context: request, token): URLs are the share link's;
    the latest 50 revisions and runs are listed, newest first."""

    url = serializers.SerializerMethodField()
    revisions = serializers.SerializerMethodField()
    runs = serializers.SerializerMethodField()

    class Meta(ScenarioDetailSerializer.Meta):
        fields = [f for f in ScenarioDetailSerializer.Meta.fields if f != "links"] + ["revisions", "runs"]

    def get_url(self, scenario) -> str:
        return reverse("api:shared-scenario", args=[self.context["token"]], request=self.context.get("request"))

    @extend_schema_field(SharedRunSummarySerializer(allow_null=True))
    def get_last_run(self, scenario):
        run = scenario.last_run()
        return SharedRunSummarySerializer(run, context=self.context).data if run else None

    @extend_schema_field(SharedRevisionSerializer(many=True))
    def get_revisions(self, scenario):
        return SharedRevisionSerializer(scenario.revisions.select_related("author").defer("manifests", "summary")[:50],
                                        many=True).data

    @extend_schema_field(SharedRunSummarySerializer(many=True))
    def get_runs(self, scenario):
        runs = scenario.runs.select_related("revision").defer(
            "result", "manifests", "revision__manifests", "revision__summary")[:50]
        return SharedRunSummarySerializer(runs, many=True, context=self.context).data
