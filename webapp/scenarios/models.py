import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

from . import texts
from .large_json import LargeJSONEncoder
from .texts import StoredTextField


def new_secret():
    """A random token and its SHA-256; only the hash is stored."""
    token = secrets.token_urlsafe(32)
    return token, hash_secret(token)


def hash_secret(token):
    return hashlib.sha256(token.encode()).hexdigest()


class Text(models.Model):
    """A manifest text, stored once by the SHA-256 of its content, zlib-compressed (texts.py)."""

    key = models.CharField(max_length=64, primary_key=True)
    data = models.BinaryField()
    size = models.PositiveBigIntegerField()  # bytes before compression

    def __str__(self):
        return f"text {self.key[:12]} ({self.size} bytes)"


class TextFact(models.Model):
    """What a page worked out from a manifest text alone (the quick-edit outline, the engine's verdict), kept
    by the text's key so that no page parses a large text again (texts.fact). `name` says what and under which
    version of the code that worked it out; a text's facts never change."""

    key = models.CharField(max_length=64)  # the SHA-256 of the text, as Text.key (no foreign key: a fact of a
    name = models.CharField(max_length=200)  # text stays true whether or not the text is stored)
    value = models.JSONField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key", "name"], name="one_fact_per_text_and_name")]

    def __str__(self):
        return f"{self.name} of text {self.key[:12]}"


class Team(models.Model):
    name = models.CharField(max_length=100, unique=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="teams"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        VIEWER = "viewer"
        EDITOR = "editor"
        OWNER = "owner"

    RANK = {Role.VIEWER: 0, Role.EDITOR: 1, Role.OWNER: 2}

    team = models.ForeignKey(Team, models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.VIEWER)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="one_membership_per_user")]

    def allows(self, role):
        return self.RANK[self.role] >= self.RANK[role]


class ScenarioQuerySet(models.QuerySet):
    def alive(self):
        return self.filter(deleted_at__isnull=True)

    def visible_to(self, user):
        return self.alive().filter(team__memberships__user=user)


class Scenario(models.Model):
    team = models.ForeignKey(Team, models.PROTECT, related_name="scenarios")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")  # what it shows and what to try first
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    # Number of the newest Revision; saves bump it with a conditional UPDATE.
    current_revision = models.PositiveIntegerField(default=0)
    deleted_at = models.DateTimeField(null=True, blank=True)
    # A fork remembers where it came from (the source may later be deleted or out of reach).
    forked_from = models.ForeignKey("self", models.SET_NULL, null=True, blank=True, related_name="forks")
    forked_from_revision = models.PositiveIntegerField(null=True, blank=True)

    objects = ScenarioQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self):
        return self.name

    @property
    def is_deleted(self):
        return self.deleted_at is not None

    def role_of(self, user):
        if not user.is_authenticated:
            return None
        m = Membership.objects.filter(team_id=self.team_id, user=user).first()
        return m.role if m else None

    def allows(self, user, role):
        mine = self.role_of(user)
        return mine is not None and Membership.RANK[mine] >= Membership.RANK[role]

    def head(self):
        """The current revision, its manifests read when first asked for (a page that shows a large text's head
        and size reads neither whole: limits.in_browser_stored)."""
        return self.revisions.defer("manifests").get(number=self.current_revision)

    def last_run(self):
        return self.runs.order_by("-created_at", "-id").first()


class Revision(models.Model):
    """Immutable content of a scenario: every save adds number n+1."""

    scenario = models.ForeignKey(Scenario, models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    manifests = StoredTextField()  # stored once, compressed (texts.py)
    config = models.TextField(blank=True, default="")
    message = models.CharField(max_length=500, blank=True, default="")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    # What pages show of the text (its node table, objects per kind), worked out when it is saved,
    # so that no page parses a large text again; filled on first view for older revisions.
    summary = models.JSONField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(fields=["scenario", "number"], name="one_revision_per_number")
        ]

    def __str__(self):
        return f"{self.scenario} r{self.number}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("revisions are immutable")
        super().save(*args, **kwargs)


def _text_source(instance, config):
    """(stored key, config, reader) of instance's manifests, or None when it has no text."""
    if "manifests" in instance.get_deferred_fields():
        key = texts.stored_key(instance, "manifests")
    else:
        key = texts.key_of(instance.manifests) if instance.manifests else ""
    return (key, config, lambda: instance.manifests) if key else None


class Run(models.Model):
    class Kind(models.TextChoices):
        SIMULATE = "simulate"

    class Source(models.TextChoices):
        """What the run simulates: a saved revision, a draft's text, or one cell of a sweep."""
        REVISION = "revision"
        DRAFT = "draft"
        SWEEP_CELL = "sweep_cell"
        ANALYSIS = "analysis"  # the run that checks an analysis's answer (its text: the revision's plus nodes)

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    FINISHED = (Status.SUCCEEDED, Status.FAILED)

    scenario = models.ForeignKey(Scenario, models.CASCADE, related_name="runs")
    # The saved revision run, or the base of the draft / sweep variant whose text is below.
    revision = models.ForeignKey(Revision, models.PROTECT, related_name="runs")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.SIMULATE)
    source = models.CharField(max_length=20, choices=Source.choices, default=Source.REVISION)
    # Non-empty for a draft or sweep-variant run: the text simulated instead of the revision's.
    manifests = StoredTextField(blank=True, default="")  # stored once, compressed (texts.py)
    config = models.TextField(blank=True, default="")
    label = models.CharField(max_length=200, blank=True, default="")  # "draft", "maxSkew=2 ..."
    sweep = models.ForeignKey("Sweep", models.CASCADE, null=True, blank=True, related_name="runs")
    variant = models.JSONField(default=dict, blank=True)  # a sweep cell's parameters
    # A sweep cell queued without its text: the quick edits (manifests/edits.py) the worker that runs it applies
    # to its revision's text, storing the result in manifests before simulating it (None: nothing to apply)
    edits = models.JSONField(null=True, blank=True, editable=False)
    params = models.JSONField(default=dict, blank=True)  # {"seed": int, "options": {...}}
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    result = models.JSONField(null=True, blank=True, encoder=LargeJSONEncoder)  # whatever the engine returned
    # A sweep cell's row (pods scheduled and pending, max skew per constraint), worked out once it succeeded
    summary = models.JSONField(null=True, blank=True, editable=False)
    error = models.TextField(blank=True, default="")
    # while it runs, the step the worker is at: {"step": "loading" | "simulating" | "storing", "cycles", "bound",
    # "pending"} (the engine's figures, told now and then)
    progress = models.JSONField(null=True, blank=True, editable=False)
    attempts = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "started_at"])]

    def __str__(self):
        return f"run {self.pk} ({self.status})"

    @property
    def is_finished(self):
        return self.status in self.FINISHED

    @property
    def counts_stored(self):
        """The engine's counts of this run (``summary``) and the facts a comparison reads are stored: it
        succeeded, or it is storing its result after them (the worker writes them first: tasks._counts_first)."""
        return self.status == self.Status.SUCCEEDED or (self.status == self.Status.RUNNING and
                                                        self.summary is not None)

    @property
    def seed(self):
        return self.params.get("seed", 0)

    @property
    def awaits_text(self):
        """A sweep cell whose text its worker has not written yet (from its revision's and its edits)."""
        return self.edits is not None and not self.manifests

    @property
    def queued_ahead(self):
        """A draft's run queued by a quick edit before the edit's request wrote the text (``params["ahead"]`` names
        what it handed the worker: engine.scenario_ahead); the request writes the text, or deletes the run."""
        return self.source == self.Source.DRAFT and bool(self.params.get("ahead"))

    def scenario_text(self):
        """(manifests, config) this run simulates: its own text, else its revision's."""
        if self.manifests:
            return self.manifests, self.config
        return self.revision.manifests, self.revision.config

    def scenario_source(self):
        """(the stored key of the text scenario_text gives, its config, a function that reads the text): where
        the text is not loaded yet (a deferred field), its key is read from the row and the text is not."""
        return _text_source(self, self.config) or _text_source(self.revision, self.revision.config) or (
            "", self.revision.config, lambda: "")

    @property
    def duration(self):
        if self.started_at and self.finished_at:
            return self.finished_at - self.started_at
        return None


class ShareLink(models.Model):
    """A read-only link to a scenario; the token is shown once, only its hash is kept."""

    scenario = models.ForeignKey(Scenario, models.CASCADE, related_name="share_links")
    token_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    @classmethod
    def create(cls, scenario, user):
        token, digest = new_secret()
        link = cls.objects.create(scenario=scenario, token_hash=digest, prefix=token[:8], created_by=user)
        return link, token

    @classmethod
    def find(cls, token):
        return (
            cls.objects.select_related("scenario")
            .filter(token_hash=hash_secret(token), revoked_at__isnull=True, scenario__deleted_at__isnull=True)
            .first()
        )


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    @classmethod
    def create(cls, user, name):
        key, digest = new_secret()
        token = cls.objects.create(user=user, name=name, key_hash=digest, prefix=key[:8])
        return token, key

    @property
    def is_active(self):
        return self.revoked_at is None


class Draft(models.Model):
    """One user's unsaved edits of a scenario; Save turns it into a new revision."""

    scenario = models.ForeignKey(Scenario, models.CASCADE, related_name="drafts")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="+")
    base_revision = models.ForeignKey(Revision, models.CASCADE, related_name="+")
    manifests = StoredTextField()  # stored once, compressed (texts.py)
    config = models.TextField(blank=True, default="")
    edits = models.JSONField(default=list, blank=True)  # the edits applied to the base, in order (text ones hold it)
    undone = models.JSONField(default=list, blank=True)  # edits undone, the latest last (redo takes it back)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scenario", "author"], name="one_draft_per_author")]


class Sweep(models.Model):
    """A grid of variants of one revision, each simulated as its own Run."""

    scenario = models.ForeignKey(Scenario, models.CASCADE, related_name="sweeps")
    revision = models.ForeignKey(Revision, models.PROTECT, related_name="sweeps")
    spec = models.JSONField(default=dict)  # the axes as the user asked for them
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]


class Analysis(models.Model):
    """An answer beyond one run (capacity, failure tolerance, tuning), worked out from parts run in parallel
    on the workers (AnalysisPart), combined by the engine once the last part is in."""

    class Kind(models.TextChoices):
        CAPACITY = "capacity", "Nodes to add"
        REPLICAS = "replicas", "Replicas that fit"
        ZONES = "zones", "Losing a zone"
        DRAIN = "drain", "Draining nodes"
        TUNING = "tuning", "Scoring configurations"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        CANCELLED = "cancelled"

    FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    scenario = models.ForeignKey(Scenario, models.CASCADE, related_name="analyses")
    revision = models.ForeignKey(Revision, models.PROTECT, related_name="analyses")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    spec = models.JSONField(default=dict, blank=True)  # as asked: templates, zones, pod, nodes, candidates
    seed = models.PositiveIntegerField(default=0)  # every part runs with it: the same answer again
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    answer = models.JSONField(null=True, blank=True)  # the engine's combined answer, with its "sentence"
    error = models.TextField(blank=True, default="")
    verifying_run = models.ForeignKey(Run, models.SET_NULL, null=True, blank=True, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "analyses"

    def __str__(self):
        return f"analysis {self.pk} ({self.kind}, {self.status})"

    @property
    def is_finished(self):
        return self.status in self.FINISHED


class AnalysisPart(models.Model):
    """One independent part of an analysis (a template's search, a zone's drain, a candidate's run)."""

    analysis = models.ForeignKey(Analysis, models.CASCADE, related_name="parts")
    index = models.PositiveIntegerField()
    label = models.CharField(max_length=300, blank=True, default="")
    part = models.JSONField(default=dict)  # what the engine's plan said to run
    status = models.CharField(max_length=10, choices=Analysis.Status.choices, default=Analysis.Status.QUEUED)
    outcome = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["index"]
        constraints = [models.UniqueConstraint(fields=["analysis", "index"], name="one_part_per_index")]


class PodUpdateAttempt(models.Model):
    """A proposed update of one pod's scheduling directives (KEP-3838), allowed or not.

    Rejected attempts change nothing but are kept with the apiserver's errors.
    """

    scenario = models.ForeignKey(Scenario, models.CASCADE, related_name="pod_updates")
    pod_namespace = models.CharField(max_length=253)
    pod_name = models.CharField(max_length=253)
    base_revision = models.ForeignKey(Revision, models.PROTECT, related_name="+")
    patch = models.JSONField(null=True, blank=True)  # the merge patch as sent, if one was
    proposed = models.JSONField()  # the whole new Pod object
    allowed = models.BooleanField()
    errors = models.JSONField(default=list, blank=True)  # [{"field", "type", "detail"}]
    explanation = models.JSONField(default=list, blank=True)  # term-by-term affinity changes
    revision = models.ForeignKey(Revision, models.SET_NULL, null=True, blank=True, related_name="+")
    run = models.ForeignKey(Run, models.SET_NULL, null=True, blank=True, related_name="+")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["scenario", "pod_namespace", "pod_name"])]


class RunPage(models.Model):
    """What the worker laid out for a finished run's page from its result, stored in the same write as the
    result (a page reads these rows, a fraction of the result; webapp/front/run_page.py)."""

    run = models.OneToOneField(Run, models.CASCADE, primary_key=True, related_name="page")
    data = models.JSONField(encoder=LargeJSONEncoder)
    # a large result as the API sends it, deflated by the worker once stored (results_cache.keep_deflated): the raw
    # deflate stream of '{"result":' and the result's JSON text, flushed to a byte boundary and not finished, with
    # the CRC-32 and length of what it holds, and the run's finish time it was made for
    deflated = models.BinaryField(null=True, editable=False)
    deflated_crc = models.BigIntegerField(null=True, editable=False)
    deflated_length = models.BigIntegerField(null=True, editable=False)
    deflated_for = models.DateTimeField(null=True, editable=False)


class PodExplanation(models.Model):
    """One pod's explanation of a finished run, computed on demand.

    Runs keep explanations only for the pods their simulation left pending (the engine's
    detail="failed"); the page of any other pod asks a worker to simulate the same
    revision and seed again, explaining that pod's latest cycle, and keeps the answer here.
    """

    run = models.ForeignKey(Run, models.CASCADE, related_name="pod_explanations")
    pod = models.CharField(max_length=512)  # namespace/name
    status = models.CharField(max_length=10, choices=Run.Status.choices, default=Run.Status.QUEUED)
    # {"explanation": {...} or None (never tried), "preemption": {...} or None}
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "pod"], name="one_explanation_per_pod")]

    def __str__(self):
        return f"{self.pod} in run {self.run_id} ({self.status})"


class Activity(models.Model):
    """Who did what, when, in a team or a scenario: the activity lists read these rows only."""

    class Verb(models.TextChoices):
        SCENARIO_CREATED = "scenario.created", "created the scenario"
        SCENARIO_FORKED = "scenario.forked", "forked the scenario"
        SCENARIO_RENAMED = "scenario.renamed", "renamed the scenario"
        SCENARIO_DELETED = "scenario.deleted", "deleted the scenario"
        REVISION_SAVED = "revision.saved", "saved a revision"
        RUN_QUEUED = "run.queued", "ran"
        SWEEP_STARTED = "sweep.started", "started a sweep"
        POD_UPDATE_PROPOSED = "pod_update.proposed", "proposed a pod update"
        SHARE_LINK_CREATED = "share_link.created", "created a share link"
        SHARE_LINK_REVOKED = "share_link.revoked", "revoked a share link"
        TEAM_CREATED = "team.created", "created the team"
        MEMBER_ADDED = "member.added", "added a member"
        MEMBER_ROLE_CHANGED = "member.role_changed", "changed a role"
        MEMBER_REMOVED = "member.removed", "removed a member"
        MEMBER_LEFT = "member.left", "left the team"

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, models.SET_NULL, null=True, related_name="+")
    verb = models.CharField(max_length=30, choices=Verb.choices)
    team = models.ForeignKey(Team, models.CASCADE, related_name="activity")
    scenario = models.ForeignKey(Scenario, models.CASCADE, null=True, blank=True, related_name="activity")
    # What the verb acted on, as a page shows it ("revision 3", "run 12", "member ed as editor")
    object = models.CharField(max_length=300, blank=True, default="")
    data = models.JSONField(default=dict, blank=True)  # ids for links: {"revision": 3, "run": 12, ...}
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "activity"


class ScenarioVisit(models.Model):
    """When a user last opened a scenario: the scenario list shows what changed since."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="+")
    scenario = models.ForeignKey(Scenario, models.CASCADE, related_name="visits")
    seen_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "scenario"], name="one_visit_per_user")]
