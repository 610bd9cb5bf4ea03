"""The subset of the Kubernetes API that the scheduler reads, as frozen values.

Mirrors the fields of k8s.io/api/core/v1 (and policy/v1, apps/v1, scheduling/v1) that
kube-scheduler v1.34 consults. Parsing and API defaulting live in ``scenario.py`` and
``k8s/defaults.py``; nothing here parses. Field names are the Go field names in snake case.

Units: every resource amount is an int. ``cpu`` is in millicores (Quantity.MilliValue()),
everything else (memory, ephemeral-storage, pods, extended resources) in base units
(Quantity.Value(), rounded up), as kube-scheduler's ``framework.Resource`` stores them.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Mapping

# Resource names (k8s.io/api/core/v1 ResourceName constants).
CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

# Label keys kube-scheduler knows by name (k8s.io/api/core/v1 well_known_labels.go).
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"

# Taint effects.
NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"

# whenUnsatisfiable values.
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"

# NodeInclusionPolicy values.
HONOR = "Honor"
IGNORE = "Ignore"

# preemptionPolicy values.
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPT_NEVER = "Never"

DEFAULT_SCHEDULER_NAME = "default-scheduler"


@dataclass(frozen=True, slots=True)
class LabelSelectorRequirement:
    """metav1.LabelSelectorRequirement; operator is In, NotIn, Exists or DoesNotExist."""

    key: str
    operator: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """metav1.LabelSelector as written; compile it with ``k8s.labels`` before matching."""

    match_labels: Mapping[str, str] = field(default_factory=dict)
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeSelectorRequirement:
    """v1.NodeSelectorRequirement; operator is In, NotIn, Exists, DoesNotExist, Gt or Lt."""

    key: str
    operator: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """v1.NodeSelectorTerm: requirements are ANDed; match_fields only supports metadata.name."""

    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """v1.NodeSelector: terms are ORed."""

    node_selector_terms: tuple[NodeSelectorTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerm:
    weight: int
    preference: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class NodeAffinity:
    required: NodeSelector | None = None  # requiredDuringSchedulingIgnoredDuringExecution
    preferred: tuple[PreferredSchedulingTerm, ...] = ()  # preferredDuringScheduling...


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    """v1.PodAffinityTerm as written (namespaces empty + selector None = the pod's namespace)."""

    topology_key: str
    label_selector: LabelSelector | None = None
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    pod_affinity_term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class PodAffinity:
    """Used for both podAffinity and podAntiAffinity."""

    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class Affinity:
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str = ""
    effect: str = NO_SCHEDULE


@dataclass(frozen=True, slots=True)
class Toleration:
    """v1.Toleration; operator Equal (default) or Exists; effect "" matches every effect."""

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    """v1.TopologySpreadConstraint after API defaulting.

    node_affinity_policy / node_taints_policy are None when unset (the plugin treats
    None as Honor / Ignore respectively, as kube-scheduler does).
    """

    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ContainerPort:
    container_port: int
    host_port: int = 0
    protocol: str = "TCP"
    host_ip: str = ""


@dataclass(frozen=True, slots=True)
class Container:
    """A container's scheduling-relevant fields. requests/limits use the module's units."""

    name: str
    image: str = ""
    requests: Mapping[str, int] = field(default_factory=dict)
    limits: Mapping[str, int] = field(default_factory=dict)
    ports: tuple[ContainerPort, ...] = ()
    restart_policy: str | None = None  # init containers only: "Always" marks a sidecar


@dataclass(frozen=True, slots=True)
class OwnerReference:
    api_version: str
    kind: str
    name: str
    uid: str = ""
    controller: bool = False


@dataclass(frozen=True, slots=True)
class Pod:
    """A Pod, bound (node_name set) or pending.

    ``requests`` is the pod's effective request (resourcehelper.PodRequests: the larger of
    the containers' sum and each init container's, sidecars included, plus overhead).
    ``file_index`` is the position in the scenario, the last queue tie-breaker.
    """

    name: str
    namespace: str = "default"
    uid: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    owner_references: tuple[OwnerReference, ...] = ()
    creation_timestamp: float = 0.0  # seconds since the epoch; 0 when absent
    deletion_timestamp: str | None = None  # set: the pod is terminating
    node_name: str = ""
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    priority: int = 0
    priority_class_name: str = ""
    preemption_policy: str = PREEMPT_LOWER_PRIORITY
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: Affinity | None = None
    tolerations: tuple[Toleration, ...] = ()
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    scheduling_gates: tuple[str, ...] = ()
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    overhead: Mapping[str, int] = field(default_factory=dict)
    requests: Mapping[str, int] = field(default_factory=dict)
    nominated_node_name: str = ""
    phase: str = "Pending"
    file_index: int = 0
    start_time: float | None = None  # status.startTime in epoch seconds; None when unset
    # status.conditions: the reason of the first DisruptionTarget condition when it is True
    disruption_target_reason: str = ""
    volumes: tuple = ()  # spec.volumes as k8s.storage.Volume values
    # namespace/name, the identity used everywhere in the output: worked out once, as the pod is made (a scheduling
    # cycle asks for it a dozen times; formatted each time, it was 2% of a run)
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _set_key(self, f"{self.namespace}/{self.name}")


_POD_FIELDS = tuple(Pod.__slots__)
_set_key = Pod.__dict__["key"].__set__


def _pod_copier():
    """A function copying a Pod field by field through its slots' descriptors (frozen: no
    __setattr__), written out once: a loop over 28 fields took 7 µs a copy, this 1.5 µs."""
    names = {f"set_{i}": Pod.__dict__[name].__set__ for i, name in enumerate(_POD_FIELDS)}
    body = "".join(f"    set_{i}(new, pod.{name})\n" for i, name in enumerate(_POD_FIELDS))
    namespace = {"new_pod": object.__new__, "Pod": Pod, **names}
    exec(f"def copy_pod(pod):\n    new = new_pod(Pod)\n{body}    return new\n", namespace)
    return namespace["copy_pod"]


_copy_pod = _pod_copier()
_POD_SETTERS = {name: Pod.__dict__[name].__set__ for name in _POD_FIELDS}


_OTHERS: dict[tuple[type, tuple[str, ...]], operator.attrgetter] = {}


def same_but(old, new, fields: tuple[str, ...]) -> bool:
    """old and new (frozen dataclasses with slots, of one type) are equal in every field but ``fields``."""
    others = _OTHERS.get((type(old), fields))
    if others is None:
        others = _OTHERS[type(old), fields] = operator.attrgetter(*(n for n in old.__slots__ if n not in fields))
    return others(old) == others(new)


def replace_pod(pod: Pod, **changes) -> Pod:
    """dataclasses.replace for a Pod, without re-running __init__ (the scheduling loop
    makes one per bind and per nomination)."""
    new = _copy_pod(pod)
    for name, value in changes.items():
        _POD_SETTERS[name](new, value)
    if "name" in changes or "namespace" in changes:
        _set_key(new, f"{new.namespace}/{new.name}")
    return new


@dataclass(frozen=True, slots=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int = 0


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: Mapping[str, int] = field(default_factory=dict)
    images: tuple[ContainerImage, ...] = ()
    file_index: int = 0


@dataclass(frozen=True, slots=True)
class Service:
    name: str
    namespace: str = "default"
    selector: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Workload:
    """A ReplicationController, ReplicaSet or StatefulSet (kind says which).

    ``selector`` is the compiled-form LabelSelector (an RC's map selector becomes
    match_labels). ``template`` is the pod template as a Pod value (name empty) or None.
    """

    kind: str
    name: str
    namespace: str = "default"
    uid: str = ""
    selector: LabelSelector | None = None
    replicas: int | None = None
    template: Pod | None = None
    volume_claim_templates: tuple = ()  # StatefulSet: k8s.storage.PersistentVolumeClaim


@dataclass(frozen=True, slots=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = PREEMPT_LOWER_PRIORITY


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    """policy/v1 PodDisruptionBudget. min_available / max_unavailable keep int or "N%" form.

    ``disruptions_allowed`` is status.disruptionsAllowed when the manifest carries a status,
    else None (the engine then derives it from the spec and the healthy pods it selects).
    """

    name: str
    namespace: str = "default"
    selector: LabelSelector | None = None
    min_available: int | str | None = None
    max_unavailable: int | str | None = None
    disruptions_allowed: int | None = None


def _plain_pickling(cls: type) -> None:
    """A frozen slots dataclass pickled as the tuple of its fields. The state functions
    dataclasses gives such a class look its fields up again for every object: 60 µs a Pod,
    most of the second it took to keep a loaded 5,000-node cluster for the workers."""
    names = tuple(cls.__slots__)
    setters = tuple(cls.__dict__[name].__set__ for name in names)
    values = operator.attrgetter(*names) if len(names) > 1 else (
        lambda obj, name=names[0]: (getattr(obj, name),))

    def __getstate__(self):  # noqa: N807 - the pickle protocol's name
        return values(self)

    def __setstate__(self, state):  # noqa: N807
        for put, value in zip(setters, state):
            put(self, value)

    cls.__getstate__, cls.__setstate__ = __getstate__, __setstate__


for _cls in (LabelSelectorRequirement, LabelSelector, NodeSelectorRequirement, NodeSelectorTerm,
             NodeSelector, PreferredSchedulingTerm, NodeAffinity, PodAffinityTerm,
             WeightedPodAffinityTerm, PodAffinity, Affinity, Taint, Toleration,
             TopologySpreadConstraint, ContainerPort, Container, OwnerReference, Pod,
             ContainerImage, Node, Service, Workload, PriorityClass, PodDisruptionBudget):
    _plain_pickling(_cls)
