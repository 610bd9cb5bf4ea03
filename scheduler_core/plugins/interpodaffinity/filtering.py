"""InterPodAffinity PreFilter state, its incremental updates, and the Filter checks.

Mirrors kube-scheduler v1.34
``pkg/scheduler/framework/plugins/interpodaffinity/filtering.go``. PreFilter counts, once
per pod, the topology pairs (topology key, node's value for it) holding matching pods;
Filter then only looks the node's pairs up in those counts.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from ...framework.interface import Code, Status, new_status
from ...framework.types import AffinityTerm, NodeInfo, PodInfo
from ...k8s.types import Node, Pod

PRE_FILTER_STATE_KEY = "PreFilterInterPodAffinity"  # "PreFilter" + Name

# Reason strings, copied from v1.34 pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = \
    "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

# Go passes a nil labels.Set where the namespace labels don't matter (the incoming pod's
# namespaceSelector was merged into its namespaces); a nil Set matches like an empty one.
NO_NAMESPACE_LABELS: Mapping[str, str] = {}

TopologyPair = tuple[str, str]  # (topology key, the node's value for it)
TopologyCounts = dict[TopologyPair, int]  # topologyToMatchedTermCount; entries never 0


def _update(m: TopologyCounts, node: Node, tk: str, value: int) -> None:
    """topologyToMatchedTermCount.update: count on the node's pair, if it has the key."""
    tv = node.labels.get(tk)
    if tv is None:
        return
    pair = (tk, tv)
    n = m.get(pair, 0) + value
    if n == 0:
        m.pop(pair, None)
    else:
        m[pair] = n


def pod_matches_all_affinity_terms(terms: Sequence[AffinityTerm], pod: Pod) -> bool:
    """podMatchesAllAffinityTerms: False for no terms (terms already namespace-merged)."""
    if not terms:
        return False
    return all(t.matches(pod, NO_NAMESPACE_LABELS) for t in terms)


def update_with_affinity_terms(m: TopologyCounts, terms: Sequence[AffinityTerm], pod: Pod,
                               node: Node, value: int) -> None:
    """updateWithAffinityTerms: each term's pair counts when pod matches ALL terms."""
    if pod_matches_all_affinity_terms(terms, pod):
        for t in terms:
            _update(m, node, t.topology_key, value)


def update_with_anti_affinity_terms(m: TopologyCounts, terms: Sequence[AffinityTerm], pod: Pod,
                                    ns_labels: Mapping[str, str], node: Node,
                                    value: int) -> None:
    """updateWithAntiAffinityTerms: each term's pair counts when pod matches that term."""
    for t in terms:
        if t.matches(pod, ns_labels):
            _update(m, node, t.topology_key, value)


class PreFilterState:
    """preFilterState: the counts Filter reads; AddPod/RemovePod update them.

    A count map may be handed over as the vectors it is summed from (``set_summed``, when
    ``counts.PodCounts`` computed it): the map is then built from them only if something
    reads it (the columnar Filter and the explanation read the vectors; a reference Filter,
    AddPod or RemovePod reads the map)."""

    __slots__ = ("_existing", "_affinity", "_anti", "_summed", "pod_info", "namespace_labels")

    def __init__(self, pod_info: PodInfo, namespace_labels: Mapping[str, str]) -> None:
        # topology pair -> number of existing pods whose required anti-affinity terms match
        # the incoming pod (one per matching term)
        self._existing: TopologyCounts | None = {}
        # topology pair -> number of existing pods matching ALL the incoming pod's required
        # affinity terms (counted on each term's pair)
        self._affinity: TopologyCounts | None = {}
        # topology pair -> number of existing pods matching each of the incoming pod's
        # required anti-affinity terms
        self._anti: TopologyCounts | None = {}
        # the maps not built yet: their slot's name -> what they are summed from (an object
        # with ``counts()``, the map, and ``empty()``)
        self._summed: dict | None = None
        # the incoming pod, its required terms with namespaceSelector merged into namespaces
        self.pod_info = pod_info
        # the incoming pod's namespace labels (empty when the namespace is unknown)
        self.namespace_labels = namespace_labels

    def _built(self, slot: str) -> TopologyCounts:
        m = getattr(self, slot)
        if m is None:
            m = self._summed.pop(slot).counts()
            setattr(self, slot, m)
        return m

    def _put(self, slot: str, value: TopologyCounts) -> None:
        if self._summed:
            self._summed.pop(slot, None)
        setattr(self, slot, value)

    existing_anti_affinity_counts = property(
        lambda self: self._built("_existing"), lambda self, v: self._put("_existing", v))
    affinity_counts = property(
        lambda self: self._built("_affinity"), lambda self, v: self._put("_affinity", v))
    anti_affinity_counts = property(
        lambda self: self._built("_anti"), lambda self, v: self._put("_anti", v))

    def set_summed(self, existing=None, affinity=None, anti=None) -> None:
        """Hand over maps as what they are summed from (None: leave that map as it is)."""
        for slot, source in (("_existing", existing), ("_affinity", affinity), ("_anti", anti)):
            if source is not None:
                if self._summed is None:
                    self._summed = {}
                self._summed[slot] = source
                setattr(self, slot, None)

    def summed(self, name: str):
        """What the map ``name`` (existing, affinity or anti) is summed from while it is not
        built; None once it is (or when it was given as a map)."""
        return self._summed.get("_" + name) if self._summed else None

    def has_counts(self, name: str) -> bool:
        """Whether the map ``name`` (existing, affinity or anti) has an entry, without
        building it."""
        source = self.summed(name)
        return not source.empty() if source is not None else bool(getattr(self, "_" + name))

    def clone(self) -> "PreFilterState":
        """preFilterState.Clone: counts copied, pod info and namespace labels shared (maps not
        built yet are shared as what they are summed from, which never changes)."""
        c = PreFilterState(self.pod_info, self.namespace_labels)
        c._summed = dict(self._summed) if self._summed else None
        for slot in ("_existing", "_affinity", "_anti"):
            m = getattr(self, slot)
            setattr(c, slot, None if m is None else dict(m))
        return c

    def update_with_pod(self, pi: PodInfo, node: Node, multiplier: int) -> None:
        """preFilterState.updateWithPod: account pi (+1) or its removal (-1) on node."""
        incoming = self.pod_info
        update_with_anti_affinity_terms(self.existing_anti_affinity_counts,
                                        pi.required_anti_affinity_terms, incoming.pod,
                                        self.namespace_labels, node, multiplier)
        update_with_affinity_terms(self.affinity_counts, incoming.required_affinity_terms,
                                   pi.pod, node, multiplier)
        update_with_anti_affinity_terms(self.anti_affinity_counts,
                                        incoming.required_anti_affinity_terms, pi.pod,
                                        NO_NAMESPACE_LABELS, node, multiplier)


def _merge(into: TopologyCounts, part: TopologyCounts) -> None:
    for pair, n in part.items():
        into[pair] = into.get(pair, 0) + n


def get_existing_anti_affinity_counts(pod: Pod, ns_labels: Mapping[str, str],
                                      nodes: Iterable[NodeInfo]) -> TopologyCounts:
    """getExistingAntiAffinityCounts: over nodes hosting pods with required anti-affinity."""
    result: TopologyCounts = {}
    for ni in nodes:
        node_counts: TopologyCounts = {}
        for existing in ni.pods_with_required_anti_affinity:
            update_with_anti_affinity_terms(node_counts, existing.required_anti_affinity_terms,
                                            pod, ns_labels, ni.node, 1)
        _merge(result, node_counts)
    return result


def get_incoming_affinity_anti_affinity_counts(pod_info: PodInfo, nodes: Iterable[NodeInfo]
                                               ) -> tuple[TopologyCounts, TopologyCounts]:
    """getIncomingAffinityAntiAffinityCounts: existing pods against the pod's required terms."""
    affinity: TopologyCounts = {}
    anti_affinity: TopologyCounts = {}
    aff_terms = pod_info.required_affinity_terms
    anti_terms = pod_info.required_anti_affinity_terms
    if not aff_terms and not anti_terms:
        return affinity, anti_affinity
    for ni in nodes:
        node_aff: TopologyCounts = {}
        node_anti: TopologyCounts = {}
        for existing in ni.pods:
            update_with_affinity_terms(node_aff, aff_terms, existing.pod, ni.node, 1)
            update_with_anti_affinity_terms(node_anti, anti_terms, existing.pod,
                                            NO_NAMESPACE_LABELS, ni.node, 1)
        _merge(affinity, node_aff)
        _merge(anti_affinity, node_anti)
    return affinity, anti_affinity


def needs_filtering(s: PreFilterState) -> bool:
    """False where PreFilter returns Skip: nothing existing repels the pod and it has no
    required terms of its own."""
    return bool(s.has_counts("existing") or s.pod_info.required_affinity_terms
                or s.pod_info.required_anti_affinity_terms)


def satisfy_existing_pods_anti_affinity(s: PreFilterState, node: Node) -> bool:
    """satisfyExistingPodsAntiAffinity: no counted pair among the node's labels."""
    counts = s.existing_anti_affinity_counts
    if counts:
        for kv in node.labels.items():
            if counts.get(kv, 0) > 0:
                return False
    return True


def satisfy_pod_anti_affinity(s: PreFilterState, node: Node) -> bool:
    """satisfyPodAntiAffinity: no matching pod in the node's domain of any term."""
    counts = s.anti_affinity_counts
    if counts:
        for t in s.pod_info.required_anti_affinity_terms:
            tv = node.labels.get(t.topology_key)
            if tv is not None and counts.get((t.topology_key, tv), 0) > 0:
                return False
    return True


def satisfy_pod_affinity(s: PreFilterState, node: Node) -> bool:
    """satisfyPodAffinity: every term's key on the node and a matching pod in its domain;
    or, when no pod matches anywhere, the pod matches its own terms (first of a series)."""
    pods_exist = True
    for t in s.pod_info.required_affinity_terms:
        tv = node.labels.get(t.topology_key)
        if tv is None:
            return False  # all topology labels must exist on the node
        if s.affinity_counts.get((t.topology_key, tv), 0) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    return not s.affinity_counts and pod_matches_all_affinity_terms(
        s.pod_info.required_affinity_terms, s.pod_info.pod)


def filter_node(s: PreFilterState, node: Node) -> Status:
    """InterPodAffinity.Filter: the pod's affinity, its anti-affinity, then existing pods'
    anti-affinity, in upstream order."""
    if not satisfy_pod_affinity(s, node):
        return new_status(Code.UnschedulableAndUnresolvable, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
    if not satisfy_pod_anti_affinity(s, node):
        return new_status(Code.Unschedulable, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
    if not satisfy_existing_pods_anti_affinity(s, node):
        return new_status(Code.Unschedulable, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
    return Status()
