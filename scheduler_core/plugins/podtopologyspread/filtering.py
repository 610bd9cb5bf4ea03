"""PreFilter, Filter and PreFilterExtensions state of PodTopologySpread.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/podtopologyspread/filtering.go``
(preFilterState, criticalPaths, calPreFilterState, updateWithPod, Filter).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from ...framework.interface import SUCCESS, Code, Status, new_status
from ...framework.types import NodeInfo, PodInfo
from ...k8s.labels import Selector
from ...k8s.nodeaffinity import RequiredNodeAffinity
from ...k8s.types import HONOR, Node, Pod
from .common import Constraint, count_pods_match_selector, node_labels_match_spread_constraints
from .domain_cache import DomainCountCache, hashable_key

# pkg/scheduler/framework/plugins/podtopologyspread/plugin.go (v1.34)
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

MAX_INT32 = 2**31 - 1  # math.MaxInt32, the "no domain yet" match number


@dataclass(slots=True)
class CriticalPath:
    topology_value: str = ""
    match_num: int = MAX_INT32


class CriticalPaths:
    """criticalPaths: two (value, count) entries; paths[0].match_num is always the minimum,
    paths[1] is >= it but not necessarily the second minimum."""

    __slots__ = ("paths",)

    def __init__(self, paths: list[CriticalPath] | None = None) -> None:
        self.paths = paths or [CriticalPath(), CriticalPath()]

    def update(self, tp_val: str, num: int) -> None:
        """criticalPaths.update, the same branches as upstream."""
        p = self.paths
        i = 0 if tp_val == p[0].topology_value else 1 if tp_val == p[1].topology_value else -1
        if i >= 0:
            p[i].match_num = num
            if p[0].match_num > p[1].match_num:
                p[0], p[1] = p[1], p[0]
        elif num < p[0].match_num:
            p[1] = p[0]
            p[0] = CriticalPath(tp_val, num)
        elif num < p[1].match_num:
            p[1] = CriticalPath(tp_val, num)

    def clone(self) -> "CriticalPaths":
        return CriticalPaths([CriticalPath(x.topology_value, x.match_num) for x in self.paths])


@dataclass(slots=True)
class PreFilterState:
    """preFilterState, written under "PreFilterPodTopologySpread"."""

    constraints: list[Constraint] = field(default_factory=list)
    # one entry per constraint (same index)
    critical_paths: list[CriticalPaths] = field(default_factory=list)
    # one entry per constraint; topology value -> number of matching pods in that domain
    tp_value_to_match_num: list[dict[str, int]] = field(default_factory=list)
    # the counts are shared with clones until one of them changes a count (preemption
    # clones the state once per node it tries; most never change it)
    shared: bool = False

    def min_match_num(self, i: int, min_domains: int) -> int:
        """minMatchNum: the global minimum, 0 when fewer domains than minDomains."""
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0
        return self.critical_paths[i].paths[0].match_num

    def clone(self) -> "PreFilterState":
        """Clone: constraints shared, paths copied, counts copied on their first change."""
        self.shared = True
        return PreFilterState(self.constraints, [p.clone() for p in self.critical_paths],
                              self.tp_value_to_match_num, True)

    def own_counts(self) -> list[dict[str, int]]:
        """The counts, to change: copied first while a clone shares them."""
        if self.shared:
            self.tp_value_to_match_num = [dict(m) for m in self.tp_value_to_match_num]
            self.shared = False
        return self.tp_value_to_match_num


def node_topology_counts(pod: Pod, node_info: NodeInfo, constraints: Sequence[Constraint],
                         required: RequiredNodeAffinity, counted: Sequence[Sequence[int]] | None = None,
                         j: int = 0) -> list[tuple[int, str, int]]:
    """processNode: (constraint index, topology value, matching pods) for one node; ``counted[i][j]``,
    when given, is how many of its pods constraint i's selector matches (this node being node j)."""
    node = node_info.node
    if node is None or not node_labels_match_spread_constraints(node.labels, constraints):
        return []
    out = []
    for i, c in enumerate(constraints):
        if not c.match_node_inclusion_policies(pod, node, required):
            continue
        count = counted[i][j] if counted is not None else \
            count_pods_match_selector(node_info.pods, c.selector, pod.namespace)
        out.append((i, node.labels[c.topology_key], count))
    return out


def cal_pre_filter_state(pod: Pod, constraints: list[Constraint],
                         all_nodes: Sequence[NodeInfo],
                         cache: DomainCountCache | None = None,
                         matching: Callable[[Selector, str], Sequence[int]] | None = None
                         ) -> PreFilterState:
    """calPreFilterState: per-domain matching counts over eligible nodes and critical paths.

    With ``cache`` (the fast path) the counts come from the incrementally kept totals,
    equal to the recount below. ``matching(selector, namespace)``, when given, says how many
    pods of each of all_nodes countPodsMatchSelector counts (kept by the caller) instead."""
    s = PreFilterState(constraints, [], [{} for _ in constraints])
    if not constraints:
        return s
    required = RequiredNodeAffinity.from_pod(pod)
    key = _cache_key(pod, constraints, required) if cache is not None else None
    if key is not None:
        s.tp_value_to_match_num = cache.totals(
            key, len(constraints), all_nodes,
            lambda ni: tuple(node_topology_counts(pod, ni, constraints, required)))
    else:
        counted = [matching(c.selector, pod.namespace) for c in constraints] \
            if matching is not None else None
        for j, ni in enumerate(all_nodes):
            for i, value, count in node_topology_counts(pod, ni, constraints, required, counted, j):
                m = s.tp_value_to_match_num[i]
                m[value] = m.get(value, 0) + count
    for m in s.tp_value_to_match_num:
        paths = CriticalPaths()
        for value, num in m.items():
            paths.update(value, num)
        s.critical_paths.append(paths)
    return s


def _cache_key(pod: Pod, constraints: Sequence[Constraint], required: RequiredNodeAffinity):
    """What node_topology_counts depends on besides the node (None: not cacheable)."""
    tolerations = pod.tolerations if any(c.node_taints_policy == HONOR
                                         for c in constraints) else None
    return hashable_key("filter", pod.namespace, tuple(constraints), required, tolerations)


def update_with_pod(s: PreFilterState, updated_pod: Pod, preemptor: Pod, node: Node | None,
                    delta: int) -> None:
    """updateWithPod: AddPod/RemovePod, used when preemption adds or removes a pod."""
    if updated_pod.namespace != preemptor.namespace or node is None:
        return
    if not node_labels_match_spread_constraints(node.labels, s.constraints):
        return
    required = RequiredNodeAffinity.from_pod(preemptor)
    for i, c in enumerate(s.constraints):
        if not c.selector.matches(updated_pod.labels):
            continue
        if not c.match_node_inclusion_policies(preemptor, node, required):
            continue
        v = node.labels[c.topology_key]
        m = s.own_counts()[i]
        m[v] = m.get(v, 0) + delta
        s.critical_paths[i].update(v, m[v])


def filter_node_without(s: PreFilterState, pod: Pod, node: Node, removed: Sequence[PodInfo],
                        memo: dict) -> Status:
    """filter_node once update_with_pod had taken each of removed (pods of node) off, told
    without changing s: a count only falls, so the domain's count falls by the removed pods
    that update_with_pod counts and the global minimum becomes the lower of the two
    (criticalPaths keeps its minimum first under falling counts). ``memo`` keeps, per
    (namespace, selector), how many of removed a constraint counts; it lives as long as
    removed does."""
    constraints = s.constraints
    taken = [0] * len(constraints)
    if node_labels_match_spread_constraints(node.labels, constraints):
        required = None
        for i, c in enumerate(constraints):
            key = (pod.namespace, c.selector)
            k = memo.get(key)
            if k is None:
                k = memo[key] = sum(1 for pi in removed if pi.pod.namespace == pod.namespace
                                    and c.selector.matches(pi.pod.labels))
            if k:
                if required is None:
                    required = RequiredNodeAffinity.from_pod(pod)
                if c.match_node_inclusion_policies(pod, node, required):
                    taken[i] = k
    for i, c in enumerate(constraints):
        tp_val = node.labels.get(c.topology_key)
        if tp_val is None:
            return new_status(Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)
        m = s.tp_value_to_match_num[i]
        match_num = m.get(tp_val, 0) - taken[i]
        if taken[i]:
            domains = len(m) + (tp_val not in m)
            min_match_num = 0 if domains < c.min_domains else \
                min(s.critical_paths[i].paths[0].match_num, match_num)
        else:
            min_match_num = s.min_match_num(i, c.min_domains)
        if match_num + self_match_num(c, pod) - min_match_num > c.max_skew:
            return new_status(Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH)
    return SUCCESS


def self_match_num(c: Constraint, pod: Pod) -> int:
    """1 when the incoming pod matches the constraint's own selector, else 0."""
    return 1 if c.selector.matches(pod.labels) else 0


def filter_node(s: PreFilterState, pod: Pod, node: Node) -> Status:
    """Filter: constraints in order; a missing key is UnschedulableAndUnresolvable, a skew
    matchNum + selfMatchNum - minMatchNum > maxSkew is Unschedulable."""
    for i, c in enumerate(s.constraints):
        tp_val = node.labels.get(c.topology_key)
        if tp_val is None:
            return new_status(Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)
        min_match_num = s.min_match_num(i, c.min_domains)
        match_num = s.tp_value_to_match_num[i].get(tp_val, 0)
        if match_num + self_match_num(c, pod) - min_match_num > c.max_skew:
            return new_status(Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH)
    return SUCCESS
