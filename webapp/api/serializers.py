from rest_framework import serializers
from rest_framework.reverse import reverse

from webapp.scenarios import limits
from webapp.scenarios.models import ApiToken, Membership, Revision, Run, Scenario, ShareLink, Team


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


class ScenarioSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:scenario-detail")
    team_name = serializers.CharField(source="team.name", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)
    last_run = serializers.SerializerMethodField()

    class Meta:
        model = Scenario
        fields = ["id", "url", "name", "team", "team_name", "current_revision",
                  "created_by", "created_at", "updated_at", "last_run"]
        read_only_fields = ["team", "current_revision", "created_at", "updated_at"]

    def get_last_run(self, scenario) -> dict | None:
        run = scenario.last_run()
        return RunSummarySerializer(run, context=self.context).data if run else None


class ScenarioDetailSerializer(ScenarioSerializer):
    manifests = serializers.SerializerMethodField()
    config = serializers.SerializerMethodField()
    links = serializers.SerializerMethodField()
    role = serializers.SerializerMethodField(help_text="Your role in the scenario's team")

    class Meta(ScenarioSerializer.Meta):
        fields = ScenarioSerializer.Meta.fields + ["role", "manifests", "config", "links"]

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

    def get_links(self, scenario) -> dict:
        request = self.context.get("request")
        return {
            name: reverse(f"api:scenario-{name}", args=[scenario.pk], request=request)
            for name in ("revisions", "runs", "manifests", "share-links")
        }


class ScenarioCreateSerializer(serializers.Serializer):
    team = serializers.CharField(help_text="Team id or name; you must be an editor in it.")
    name = serializers.CharField(max_length=200)
    manifests = serializers.CharField(trim_whitespace=False, help_text="Kubernetes manifests (YAML or JSON)")
    config = serializers.CharField(required=False, allow_blank=True, default="", trim_whitespace=False)
    message = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)

    def validate_team(self, value):
        user = self.context["request"].user
        teams = Team.objects.filter(memberships__user=user)
        team = teams.filter(pk=int(value)).first() if limits.is_number(value) else teams.filter(name=value).first()
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
    author = serializers.CharField(source="author.username", read_only=True, default=None)
    url = serializers.SerializerMethodField()

    class Meta:
        model = Revision
        fields = ["number", "url", "author", "created_at", "message", "manifests", "config"]

    def get_url(self, revision) -> str:
        return reverse("api:scenario-revision", args=[revision.scenario_id, revision.number],
                       request=self.context.get("request"))


class RevisionSummarySerializer(RevisionSerializer):
    class Meta(RevisionSerializer.Meta):
        fields = ["number", "url", "author", "created_at", "message"]


class RevisionCreateSerializer(serializers.Serializer):
    manifests = serializers.CharField(trim_whitespace=False)
    config = serializers.CharField(required=False, allow_blank=True, default="", trim_whitespace=False)
    message = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)
    revision = serializers.IntegerField(
        required=False, min_value=0,
        help_text="The revision you edited (or send If-Match: \"<n>\"); a stale one gets 409.",
    )


class RunSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    revision = serializers.IntegerField(source="revision.number", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)

    class Meta:
        model = Run
        fields = ["id", "url", "scenario", "revision", "kind", "params", "status", "error",
                  "created_by", "created_at", "started_at", "finished_at", "result"]

    def get_url(self, run) -> str:
        return reverse("api:run-detail", args=[run.pk], request=self.context.get("request"))


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
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)

    class Meta:
        model = ShareLink
        fields = ["id", "prefix", "created_by", "created_at", "revoked_at"]


class NewShareLinkSerializer(ShareLinkSerializer):
    url = serializers.CharField(read_only=True, help_text="The read-only page; shown once.")
    api_url = serializers.CharField(read_only=True)

    class Meta(ShareLinkSerializer.Meta):
        fields = ShareLinkSerializer.Meta.fields + ["url", "api_url"]
