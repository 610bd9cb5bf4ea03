"""Types of the run result endpoints, for the schema only.

The views return the dicts webapp.front.results builds for the pages; these serializers
describe them field by field, so a generated client gets typed objects. The schema tests
check real responses against them.
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers as s

from webapp.scenarios.models import Run

OUTCOMES = ["Scheduled", "Unschedulable", "Gated"]


def names(**kwargs):
    return s.ListField(child=s.CharField(), **kwargs)


def text(**kwargs):
    return s.CharField(allow_blank=True, **kwargs)


def maybe_text(**kwargs):
    return s.CharField(allow_blank=True, allow_null=True, **kwargs)


class PodOutcomeSerializer(s.Serializer):
    pod = s.CharField(help_text="namespace/name")
    outcome = s.ChoiceField(choices=OUTCOMES)
    node = maybe_text(help_text="The node it was bound to; null while pending")
    nominatedNode = maybe_text(required=False, help_text="Nominated by preemption, not bound yet")
    message = text(required=False, help_text="The FailedScheduling message of a pending pod")
    evicted = s.BooleanField(required=False)


class RunPodsSerializer(s.Serializer):
    status = s.ChoiceField(choices=Run.Status.choices)
    pods = PodOutcomeSerializer(many=True, help_text="One per pod pending at the start; empty until the run succeeds")
    evicted = names(help_text="Pods evicted as preemption victims")


class PodChipSerializer(s.Serializer):
    pod = s.CharField()
    namespace = s.CharField()
    name = s.CharField()
    workload = s.CharField(help_text="Its controller owner, else its app label, else the pod")
    colour = s.CharField()
    status = s.CharField(help_text="placed, or the outcome of a pending pod")


class PendingChipSerializer(PodChipSerializer):
    nominated = text(help_text="The node nominated for it, or empty")


class TopologyNodeSerializer(s.Serializer):
    name = s.CharField()
    cordoned = s.BooleanField()
    tainted = s.BooleanField()
    nominated = names(help_text="Pods nominated to this node")
    chips = PodChipSerializer(many=True)


class TopologyDomainSerializer(s.Serializer):
    name = s.CharField(help_text='The label value, or "(no label)"')
    nodes = TopologyNodeSerializer(many=True)
    count = s.IntegerField(help_text="Pods in the domain")
    missing = s.BooleanField(help_text="The nodes without the key")
    hidden = s.IntegerField(help_text="Nodes not drawn (large domains)")
    hidden_pods = s.IntegerField()


class LegendEntrySerializer(s.Serializer):
    workload = s.CharField()
    colour = s.CharField()


class SpreadDomainSerializer(s.Serializer):
    name = s.CharField()
    count = s.IntegerField()
    skew = s.IntegerField()
    fits = s.BooleanField()
    eligible = s.BooleanField()
    why = names()
    in_band = s.BooleanField()
    pct = s.IntegerField()


class IgnoredNodesSerializer(s.Serializer):
    node = text(help_text="The first names, and how many more")
    reason = text()
    count = s.IntegerField()


class SpreadConstraintSerializer(s.Serializer):
    key = text()
    short_key = text()
    maxSkew = s.IntegerField()
    minDomains = s.IntegerField(allow_null=True)
    whenUnsatisfiable = maybe_text()
    selector = text()
    selfMatch = s.IntegerField()
    globalMinimum = s.IntegerField()
    band_max = s.IntegerField()
    band_pct = s.IntegerField()
    domains = SpreadDomainSerializer(many=True)
    ignored = IgnoredNodesSerializer(many=True)
    domain_count = s.IntegerField()
    domains_truncated = s.BooleanField()
    min_domains_sentence = text()
    origin = text(help_text='"pod spec" or "cluster default"')


class TopologySpreadSerializer(s.Serializer):
    pod = maybe_text(help_text="The pod whose constraints these are")
    cycle = s.IntegerField(allow_null=True)
    status = s.CharField(help_text="ready, or queued/running/failed while a worker explains the pod")
    constraints = SpreadConstraintSerializer(many=True)


class TopologySerializer(s.Serializer):
    key = s.CharField()
    short_key = s.CharField()
    step = s.IntegerField(allow_null=True)
    domains = TopologyDomainSerializer(many=True)
    pending = PendingChipSerializer(many=True)
    legend = LegendEntrySerializer(many=True)
    pending_total = s.IntegerField()
    capped = s.BooleanField()
    keys = names(help_text="Node label keys, usual topology keys first")
    spread = TopologySpreadSerializer()


class CycleSerializer(s.Serializer):
    cycle = s.IntegerField()
    pod = maybe_text()
    attempt = s.IntegerField(allow_null=True)
    result = maybe_text()
    node = maybe_text()
    message = text()


class EventSerializer(s.Serializer):
    seq = s.IntegerField()
    cycle = s.IntegerField()
    type = s.CharField()
    reason = s.CharField(help_text="Scheduled, FailedScheduling, Nominated, Preempted…")
    pod = s.CharField()
    node = maybe_text(required=False)
    message = text(required=False)


class CycleOutcomeSerializer(s.Serializer):
    cycle = s.IntegerField()
    pod = maybe_text()
    result = maybe_text()


class TimelineSerializer(s.Serializer):
    step = s.IntegerField()
    first = s.IntegerField()
    last = s.IntegerField()
    total = s.IntegerField()
    index = s.IntegerField(required=False, help_text="1-based position of the step (absent without cycles)")
    prev = s.IntegerField(allow_null=True)
    next = s.IntegerField(allow_null=True)
    cycle = CycleSerializer(allow_null=True)
    events = EventSerializer(many=True)
    outcomes = CycleOutcomeSerializer(many=True)


class ResourceBarSerializer(s.Serializer):
    resource = s.ChoiceField(choices=["cpu", "memory", "pods"])
    requested = s.CharField()
    allocatable = s.CharField()
    pct = s.IntegerField()
    raw_pct = s.IntegerField()
    level = s.ChoiceField(choices=["ok", "high", "full"])


class NodeSerializer(s.Serializer):
    name = s.CharField()
    labels = s.ListField(child=s.ListField(child=s.CharField(allow_blank=True), min_length=2, max_length=2),
                         help_text="[key, value] pairs, sorted")
    taints = names(help_text="key=value:Effect")
    cordoned = s.BooleanField()
    bars = ResourceBarSerializer(many=True)
    chips = PodChipSerializer(many=True)
    nominated = names()
    evicted_here = names()
    allocatable = s.DictField(child=s.IntegerField(), help_text="cpu in millicores, memory in bytes, pods")
    requested = s.DictField(child=s.IntegerField())


class FilterCellSerializer(s.Serializer):
    verdict = maybe_text(help_text='"pass", the rejecting code, or empty')
    reason = text()
    ok = s.BooleanField()


class FilterRowSerializer(s.Serializer):
    node = s.CharField()
    passed = s.BooleanField()
    code = maybe_text()
    cells = FilterCellSerializer(many=True, help_text="One per plugin of `plugins`")
    reasons = text()


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}]})
class ScoreField(s.Field):
    """A plugin's score, or "" where the plugin did not score the node."""


class ScoreRowSerializer(s.Serializer):
    node = s.CharField()
    total = s.IntegerField(allow_null=True)
    plugins = s.ListField(child=ScoreField(), help_text="One score per plugin of `score_plugins` (empty if none)")


class RejectedGroupSerializer(s.Serializer):
    code = maybe_text()
    plugin = maybe_text()
    reasons = text()
    count = s.IntegerField()
    nodes = text()


class EliminationSerializer(s.Serializer):
    criterion = s.CharField(help_text="The tie-break it lost on, e.g. lowest highest-priority victim")
    against = s.CharField(help_text="The chosen node")
    value = s.FloatField(required=False, allow_null=True, help_text="Its value (absent for the first-node rule)")
    chosenValue = s.FloatField(required=False, allow_null=True, help_text="The chosen node's value")


class CandidateSerializer(s.Serializer):
    node = s.CharField()
    chosen = s.BooleanField(allow_null=True)
    victims = names()
    lost = EliminationSerializer(allow_null=True, help_text="Why it lost to the chosen node (null for that node)")


class NominationSerializer(s.Serializer):
    pod = s.CharField()
    node = s.CharField()
    cycle = s.IntegerField()
    victims = names()
    decidedBy = text()
    before = names(help_text="The node's pods before the preemption")
    after = names()
    candidates = CandidateSerializer(many=True)


class AttemptSerializer(s.Serializer):
    cycle = s.IntegerField()
    attempt = s.IntegerField(allow_null=True)
    result = maybe_text()
    node = maybe_text()
    message = text()


class ExplanationSerializer(s.Serializer):
    pod = s.CharField()
    outcome = text()
    node = maybe_text()
    nominatedNode = maybe_text()
    message = text()
    cycle = s.IntegerField(allow_null=True)
    attempts = s.IntegerField()
    plugins = names(help_text="Filter plugins that rejected a node")
    filter = FilterRowSerializer(many=True)
    score_plugins = names()
    scores = ScoreRowSerializer(many=True)
    groups = RejectedGroupSerializer(many=True)
    nodes_total = s.IntegerField(allow_null=True)
    evaluated = s.IntegerField(allow_null=True)
    feasible = s.IntegerField(allow_null=True)
    scored = s.IntegerField()
    filter_partial = s.BooleanField()
    sentences = names()
    nomination = NominationSerializer(allow_null=True)
    history = AttemptSerializer(many=True)
    status = s.CharField(help_text='"ready", or queued/running while a worker computes it (then 202)')
    detail = s.CharField(required=False, help_text="With 202: ask again in a moment")
