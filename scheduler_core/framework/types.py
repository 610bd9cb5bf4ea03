"""NodeInfo, PodInfo and friends: the per-node aggregate the plugins read.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/types.go``. A NodeInfo is updated
incrementally as pods are added or removed (requested resources, ports, pods with
affinity), so nothing is recounted per cycle. Filters read only the NodeInfo they are
given, because preemption hands them edited clones.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Mapping

from ..k8s import labels as klabels
from ..k8s.resource import NON_ZERO_DEFAULTS, pod_requests
from ..k8s.types import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Node, Pod, PodAffinityTerm
from ..k8s.shared_memo import MISS, IdentityMemo


@dataclass(slots=True)
class Resource:
    """framework.Resource: milli_cpu, memory, ephemeral_storage, allowed_pod_number, scalars."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar_resources: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_map(cls, m: Mapping[str, int]) -> "Resource":
        r = cls()
        r.add_map(m)
        return r

    def add_map(self, m: Mapping[str, int], sign: int = 1) -> None:
        for k, v in m.items():
            if k == CPU:
                self.milli_cpu += sign * v
            elif k == MEMORY:
                self.memory += sign * v
            elif k == EPHEMERAL_STORAGE:
                self.ephemeral_storage += sign * v
            elif k == PODS:
                self.allowed_pod_number += sign * v
            else:
                self.scalar_resources[k] = self.scalar_resources.get(k, 0) + sign * v

    def get(self, name: str) -> int:
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar_resources.get(name, 0)

    def clone(self) -> "Resource":
        return Resource(self.milli_cpu, self.memory, self.ephemeral_storage,
                        self.allowed_pod_number, dict(self.scalar_resources))


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """framework.AffinityTerm: a PodAffinityTerm with its selectors compiled.

    ``namespaces`` are the explicit namespaces (the pod's own when both namespaces and
    namespaceSelector are empty); ``namespace_selector`` NOTHING when unset.
    """

    namespaces: frozenset[str]
    selector: klabels.Selector
    topology_key: str
    namespace_selector: klabels.Selector

    def matches(self, pod: Pod, ns_labels: Mapping[str, str] | None) -> bool:
        """AffinityTerm.Matches: namespace (explicit or by selector) and label selector."""
        if pod.namespace in self.namespaces or (
                ns_labels is not None and self.namespace_selector.matches(ns_labels)):
            return self.selector.matches(pod.labels)
        return False


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


def new_affinity_term(pod: Pod, t: PodAffinityTerm) -> AffinityTerm:
    """framework.newAffinityTerm (namespaces defaulting as getNamespacesFromPodAffinityTerm)."""
    namespaces = frozenset(t.namespaces)
    if not namespaces and t.namespace_selector is None:
        namespaces = frozenset((pod.namespace,))
    return AffinityTerm(namespaces, _term_selector(pod, t), t.topology_key,
                        klabels.selector_from_label_selector(t.namespace_selector))


def _term_selector(pod: Pod, t: PodAffinityTerm) -> klabels.Selector:
    """The term's selector with matchLabelKeys (In) and mismatchLabelKeys (NotIn) merged.

    The apiserver folds these keys into labelSelector when the pod is created (v1.34
    pkg/registry/core/pod/strategy.go applyMatchLabelKeysAndMismatchLabelKeys): only when
    labelSelector is set, and only for keys the pod carries. Folding again is harmless.
    """
    sel = klabels.selector_from_label_selector(t.label_selector)
    if t.label_selector is None:
        return sel
    extra = [klabels.Requirement(k, klabels.IN, frozenset((pod.labels[k],)))
             for k in t.match_label_keys if k in pod.labels]
    extra += [klabels.Requirement(k, klabels.NOT_IN, frozenset((pod.labels[k],)))
              for k in t.mismatch_label_keys if k in pod.labels]
    return sel.add(*extra) if extra else sel


@dataclass(slots=True)
class PodInfo:
    """framework.PodInfo: a pod plus what is derived from it once (terms, requests)."""

    pod: Pod
    required_affinity_terms: tuple[AffinityTerm, ...] = ()
    required_anti_affinity_terms: tuple[AffinityTerm, ...] = ()
    preferred_affinity_terms: tuple[WeightedAffinityTerm, ...] = ()
    preferred_anti_affinity_terms: tuple[WeightedAffinityTerm, ...] = ()
    # resourcehelper.PodRequests, and the same with 100m cpu / 200Mi memory for containers
    # that omit them (framework.podInfo.calculateResource)
    requests: Mapping[str, int] = field(default_factory=dict)
    non_zero_requests: Mapping[str, int] = field(default_factory=dict)


# per (containers, init containers, overhead) objects: PodRequests with the non-zero defaults
_NON_ZERO: IdentityMemo[Mapping[str, int]] = IdentityMemo()


def _non_zero_requests(pod: Pod) -> Mapping[str, int]:
    """PodRequests with the non-zero defaults, once per (containers, init containers,
    overhead) object triple: the loader shares them among a workload's pods."""
    value = _NON_ZERO.get(pod.containers, pod.init_containers, pod.overhead)
    if value is MISS:
        value = _NON_ZERO.put(
            pod_requests(pod.containers, pod.init_containers, pod.overhead, NON_ZERO_DEFAULTS),
            pod.containers, pod.init_containers, pod.overhead)
    return value


# per (containers, init containers) objects: the ports NodeInfo accounts
_PORTS: IdentityMemo[tuple] = IdentityMemo()


def pod_used_ports(pod: Pod) -> tuple:
    """NodeInfo.updateUsedPorts' ports: the containers' and the sidecar init containers'
    (once per containers tuple: the loader shares them among a workload's pods)."""
    value = _PORTS.get(pod.containers, pod.init_containers)
    if value is MISS:
        value = _PORTS.put(tuple(
            p for c in (*(c for c in pod.init_containers if c.restart_policy == "Always"),
                        *pod.containers) for p in c.ports), pod.containers, pod.init_containers)
    return value


class PodKind:
    """What NodeInfo accounts of a pod, shared by the pods that have it in common (a workload's,
    on any node): their priority, what their requests and non-zero requests add up to, host
    ports, and whether they have affinity terms (required anti-affinity ones). ``info_for(pod)``
    is the PodInfo such a pod gets, the one new_pod_info gives. Hashed by identity."""

    __slots__ = ("template", "priority", "sums", "scalars", "ports", "affinity", "anti_affinity", "_held")

    def __init__(self, template: PodInfo, held: tuple = ()) -> None:
        pi = self.template = template
        self.priority = pi.pod.priority
        req, nz = pi.requests, pi.non_zero_requests
        # what Resource.add_map adds of requests, and non_zero_requested of the non-zero ones
        self.sums = (req.get(CPU, 0), req.get(MEMORY, 0), req.get(EPHEMERAL_STORAGE, 0), req.get(PODS, 0),
                     nz.get(CPU, 0), nz.get(MEMORY, 0))
        self.scalars = tuple((k, v) for k, v in req.items() if k not in (CPU, MEMORY, EPHEMERAL_STORAGE, PODS))
        self.ports = pod_used_ports(pi.pod)
        self.anti_affinity = bool(pi.required_anti_affinity_terms)
        self.affinity = bool(pi.required_affinity_terms or pi.preferred_affinity_terms or
                             pi.required_anti_affinity_terms or pi.preferred_anti_affinity_terms)
        self._held = held  # (the objects a caller's key holds the ids of: kept alive with it)

    def info_for(self, pod: Pod) -> PodInfo:
        t = self.template
        return PodInfo(pod, t.required_affinity_terms, t.required_anti_affinity_terms,
                       t.preferred_affinity_terms, t.preferred_anti_affinity_terms, t.requests,
                       t.non_zero_requests)


_KIND_PRIORITY, _KIND_SUMS = attrgetter("priority"), attrgetter("sums")
_KIND_AFFINITY, _KIND_PORTS, _KIND_SCALARS = attrgetter("affinity"), attrgetter("ports"), attrgetter("scalars")


def new_pod_info(pod: Pod) -> PodInfo:
    """framework.NewPodInfo."""
    aff = pod.affinity
    pa = aff.pod_affinity if aff else None
    paa = aff.pod_anti_affinity if aff else None
    if pa is None and paa is None:
        return PodInfo(pod=pod, requests=pod.requests, non_zero_requests=_non_zero_requests(pod))
    return PodInfo(pod, *_pod_terms(pod, aff, pa, paa), pod.requests, _non_zero_requests(pod))


# per affinity object: whether its terms read the pod's labels
_READS_LABELS: IdentityMemo[bool] = IdentityMemo()
# per (affinity, and labels when its terms read them) objects and namespace: the four term
# tuples
_TERMS: IdentityMemo[tuple] = IdentityMemo()


def _pod_terms(pod: Pod, aff, pa, paa) -> tuple:
    """NewPodInfo's four term tuples, once per (affinity object, namespace, and the labels
    object when a term has matchLabelKeys or mismatchLabelKeys): the loader shares the
    affinity and labels among a workload's pods, so they share their terms as well."""
    reads = _READS_LABELS.get(aff)
    if reads is MISS:
        terms = [*(pa.required if pa else ()), *(paa.required if paa else ()),
                 *(w.pod_affinity_term for w in (pa.preferred if pa else ())),
                 *(w.pod_affinity_term for w in (paa.preferred if paa else ()))]
        reads = _READS_LABELS.put(
            any(t.match_label_keys or t.mismatch_label_keys for t in terms), aff)
    labels = pod.labels if reads else None
    value = _TERMS.get(aff, labels, extra=pod.namespace)
    if value is not MISS:
        return value
    return _TERMS.put((
        tuple(new_affinity_term(pod, t) for t in (pa.required if pa else ())),
        tuple(new_affinity_term(pod, t) for t in (paa.required if paa else ())),
        tuple(WeightedAffinityTerm(new_affinity_term(pod, w.pod_affinity_term), w.weight)
              for w in (pa.preferred if pa else ())),
        tuple(WeightedAffinityTerm(new_affinity_term(pod, w.pod_affinity_term), w.weight)
              for w in (paa.preferred if paa else ())),
    ), aff, labels, extra=pod.namespace)


_PARSE_ERRORS: dict[int, tuple[object, str | None]] = {}


def pod_info_parse_error(pod: Pod) -> str | None:
    """PodInfo.ParseError's text (framework/types.go PodInfo.Update): the affinity terms
    whose label or namespace selector labels.NewRequirement refuses, as
    ``utilerrors.NewAggregate`` prints them; None when every term parses. Remembered per
    affinity object (a workload's pods share one)."""
    aff = pod.affinity
    if aff is None or (aff.pod_affinity is None and aff.pod_anti_affinity is None):
        return None
    hit = _PARSE_ERRORS.get(id(aff))
    if hit is not None and hit[0] is aff:
        return hit[1]
    pa, paa = aff.pod_affinity, aff.pod_anti_affinity
    groups = (("requiredAffinityTerms", pa.required if pa else ()),
              ("requiredAntiAffinityTerms", paa.required if paa else ()),
              ("preferredAffinityTerms", tuple(w.pod_affinity_term for w in pa.preferred)
               if pa else ()),
              ("preferredAntiAffinityTerms", tuple(w.pod_affinity_term for w in paa.preferred)
               if paa else ()))
    errs = []
    for name, terms in groups:
        err = next((e for e in map(_term_parse_error, terms) if e), None)
        if err:
            errs.append(f"{name}: {err}")
    msg = klabels.aggregate(errs)
    if len(_PARSE_ERRORS) > 4096:
        _PARSE_ERRORS.clear()
    _PARSE_ERRORS[id(aff)] = (aff, msg)
    return msg


def _term_parse_error(t: PodAffinityTerm) -> str | None:
    """newAffinityTerm: LabelSelectorAsSelector of the label selector, then of the
    namespace selector."""
    return (klabels.label_selector_parse_error(t.label_selector)
            or klabels.label_selector_parse_error(t.namespace_selector))


class HostPortInfo:
    """framework.HostPortInfo: ip -> set of (protocol, port); 0.0.0.0 conflicts with all."""

    DEFAULT_IP = "0.0.0.0"

    __slots__ = ("ports",)

    def __init__(self) -> None:
        self.ports: dict[str, set[tuple[str, int]]] = {}

    @staticmethod
    def _norm(ip: str, protocol: str) -> tuple[str, str]:
        return (ip or HostPortInfo.DEFAULT_IP), (protocol or "TCP")

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._norm(ip, protocol)
        self.ports.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._norm(ip, protocol)
        s = self.ports.get(ip)
        if s is not None:
            s.discard((protocol, port))
            if not s:
                del self.ports[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """HostPortInfo.CheckConflict."""
        if port <= 0:
            return False
        ip, protocol = self._norm(ip, protocol)
        pp = (protocol, port)
        if ip == self.DEFAULT_IP:
            return any(pp in s for s in self.ports.values())
        return pp in self.ports.get(ip, ()) or pp in self.ports.get(self.DEFAULT_IP, ())

    def __len__(self) -> int:
        return sum(len(s) for s in self.ports.values())

    def clone(self) -> "HostPortInfo":
        c = HostPortInfo()
        c.ports = {k: set(v) for k, v in self.ports.items()}
        return c


@dataclass(frozen=True, slots=True)
class ImageStateSummary:
    """framework.ImageStateSummary: image size and on how many nodes it is present."""

    size: int
    num_nodes: int


# NodeInfo.lowest_pod_priority of a node without pods: above any pod's (priorities are int32)
NO_PODS_PRIORITY = 1 << 31


class NodeInfo:
    """framework.NodeInfo: a node and the aggregate of the pods on it."""

    __slots__ = ("node", "pods", "pods_with_affinity", "pods_with_required_anti_affinity",
                 "used_ports", "requested", "non_zero_requested", "allocatable",
                 "image_states", "generation", "lowest_priority", "below")

    def __init__(self, node: Node | None = None) -> None:
        self.node = node
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.used_ports = HostPortInfo()
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.allocatable = Resource.from_map(node.allocatable) if node else Resource()
        # image name -> summary; filled by the snapshot builder (ImageLocality reads it)
        self.image_states: dict[str, ImageStateSummary] = {}
        self.generation = 0
        # the lowest priority of the node's pods as preemption last worked it out (it asks it of
        # every node in every failed cycle); None once the pods change
        self.lowest_priority: int | None = None
        # priority -> the node's pods of lower priority, in pod order, for preemption's dry runs
        # (and what the node is left with without them: default_preemption._take_off_below);
        # None once the pods change. A clone shares the mapping until either changes.
        self.below: dict | None = None

    @property
    def name(self) -> str:
        return self.node.name if self.node else ""

    def lowest_pod_priority(self) -> int:
        """The lowest priority of the node's pods (NO_PODS_PRIORITY without pods), kept until
        they change."""
        low = self.lowest_priority
        if low is None:
            low = self.lowest_priority = min((pi.pod.priority for pi in self.pods),
                                             default=NO_PODS_PRIORITY)
        return low

    def add_pod_info(self, pi: PodInfo) -> None:
        """NodeInfo.AddPodInfo: account the pod's requests, ports and affinity."""
        self.pods.append(pi)
        if pi.required_affinity_terms or pi.preferred_affinity_terms or \
                pi.required_anti_affinity_terms or pi.preferred_anti_affinity_terms:
            self.pods_with_affinity.append(pi)
        if pi.required_anti_affinity_terms:
            self.pods_with_required_anti_affinity.append(pi)
        self._update(pi, 1)

    def add_pod(self, pod: Pod) -> PodInfo:
        pi = new_pod_info(pod)
        self.add_pod_info(pi)
        return pi

    def add_pod_infos(self, infos: "Sequence[PodInfo]", kinds: "Sequence[PodKind]") -> None:
        """add_pod_info for each of infos in turn (the cache's bound pods, at the start of a
        run), told each info's PodKind (build_node_infos): the same lists (in pod order), sums,
        ports, generation and lowest priority, each summed over the kinds in one pass (a node's
        pods are mostly of kinds of their own: one per workload). The lowest priority is worked
        out on the way, where it was known (preemption asks it of every node)."""
        low = self.lowest_priority if self.pods else NO_PODS_PRIORITY
        self.pods.extend(infos)
        if low is not None and kinds:
            low = min(low, min(map(_KIND_PRIORITY, kinds)))
        if any(map(_KIND_AFFINITY, kinds)):
            for pi, k in zip(infos, kinds):
                if k.affinity:
                    self.pods_with_affinity.append(pi)
                    if k.anti_affinity:
                        self.pods_with_required_anti_affinity.append(pi)
        if any(map(_KIND_PORTS, kinds)):
            for k in kinds:
                for p in k.ports:
                    self.used_ports.add(p.host_ip, p.protocol, p.host_port)
        if kinds:
            cpu, mem, eph, pods, nz_cpu, nz_mem = map(sum, zip(*map(_KIND_SUMS, kinds)))
            r, nz = self.requested, self.non_zero_requested
            r.milli_cpu += cpu
            r.memory += mem
            r.ephemeral_storage += eph
            r.allowed_pod_number += pods
            if any(map(_KIND_SCALARS, kinds)):  # (in the order of the first pod with each)
                scalars = r.scalar_resources
                for k in kinds:
                    for name, v in k.scalars:
                        scalars[name] = scalars.get(name, 0) + v
            nz.milli_cpu += nz_cpu
            nz.memory += nz_mem
        self.generation += len(infos)
        self.lowest_priority, self.below = low, None

    def remove_pod(self, pod: Pod) -> bool:
        """NodeInfo.RemovePod: by namespace/name (uid when set); False when absent."""
        key = pod.key
        for lst in (self.pods_with_affinity, self.pods_with_required_anti_affinity):
            for i, pi in enumerate(lst):
                if pi.pod.key == key:
                    lst[i] = lst[-1]
                    lst.pop()
                    break
        for i, pi in enumerate(self.pods):
            if pi.pod.key == key:
                self.pods[i] = self.pods[-1]
                self.pods.pop()
                self._update(pi, -1)
                return True
        return False

    def remove_pod_infos(self, infos: "list[PodInfo]") -> "PodInfo | None":
        """remove_pod for each of infos in turn, in one pass over each list (preemption
        takes every lower-priority pod off a node at once): the lists end in the same
        order. Returns the first PodInfo whose pod is absent (nothing removed from then
        on), else None. Infos taken from this node's own list (preemption's are) are found
        by identity; any other by its pod's key, as remove_pod finds it."""
        lists = [(self.pods, True), (self.pods_with_affinity, False),
                 (self.pods_with_required_anti_affinity, False)]
        own = {id(p): i for i, p in enumerate(self.pods)}
        if len(own) == len(self.pods) and all(id(pi) in own for pi in infos):
            ident = id
        else:
            own = None

            def ident(pi):
                return pi.pod.key
        where = [own if own is not None and accounts else
                 {ident(p): i for i, p in enumerate(lst)} if lst else {} for lst, accounts in lists]
        for pi in infos:
            key = ident(pi)
            if key not in where[0]:
                return pi
            for (lst, accounts), pos in zip(lists, where):
                i = pos.pop(key, None)
                if i is None:
                    continue
                removed = lst[i]
                last = lst.pop()  # (remove_pod's swap with the last one)
                if i < len(lst):
                    lst[i] = last
                    pos[ident(last)] = i
                if accounts:
                    self._update(removed, -1)
        return None

    def take_pods_of(self, other: "NodeInfo") -> None:
        """Set this node's pods as other's, a NodeInfo of the same node (its pod lists, requests,
        ports and generation, copied: either may change after)."""
        self.pods, self.pods_with_affinity = list(other.pods), list(other.pods_with_affinity)
        self.pods_with_required_anti_affinity = list(other.pods_with_required_anti_affinity)
        self.requested, self.non_zero_requested = other.requested.clone(), other.non_zero_requested.clone()
        self.used_ports, self.generation = other.used_ports.clone(), other.generation
        self.lowest_priority = self.below = None

    def _update(self, pi: PodInfo, sign: int) -> None:
        self.requested.add_map(pi.requests, sign)
        self.non_zero_requested.milli_cpu += sign * pi.non_zero_requests.get(CPU, 0)
        self.non_zero_requested.memory += sign * pi.non_zero_requests.get(MEMORY, 0)
        for p in pod_used_ports(pi.pod):
            if sign > 0:
                self.used_ports.add(p.host_ip, p.protocol, p.host_port)
            else:
                self.used_ports.remove(p.host_ip, p.protocol, p.host_port)
        self.generation += 1
        self.lowest_priority = self.below = None

    def clone(self) -> "NodeInfo":
        """NodeInfo.Snapshot: pod lists and aggregates copied, pods shared."""
        c = NodeInfo.__new__(NodeInfo)
        c.node = self.node
        c.pods = list(self.pods)
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.used_ports = self.used_ports.clone()
        c.requested = self.requested.clone()
        c.non_zero_requested = self.non_zero_requested.clone()
        c.allocatable = self.allocatable.clone()
        c.image_states = self.image_states
        c.generation = self.generation
        c.lowest_priority = self.lowest_priority
        if self.below is None:
            self.below = {}
        c.below = self.below
        return c

    def copy_for_run(self) -> "NodeInfo":
        """A copy for a run to change (of the scheduler cache's: simulation.scheduler_cache), as a
        NodeInfo built with the same pods is: clone's, with a mapping of lower-priority pods of its
        own (nothing a run works out is shared with the next)."""
        c = self.clone()
        c.below = self.below = None
        return c

    def __repr__(self) -> str:
        return f"NodeInfo({self.name!r}, pods={len(self.pods)})"


@dataclass(slots=True)
class QueuedPodInfo:
    """framework.QueuedPodInfo: a pod in the scheduling queue and its attempt history."""

    pod_info: PodInfo
    timestamp: float = 0.0  # when added to the queue (creationTimestamp here)
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    gated: bool = False

    @property
    def pod(self) -> Pod:
        return self.pod_info.pod
