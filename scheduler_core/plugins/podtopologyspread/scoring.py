"""PreScore, Score and NormalizeScore state of PodTopologySpread.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/podtopologyspread/scoring.go``
(preScoreState, initPreScoreState, PreScore, Score, NormalizeScore,
topologyNormalizingWeight, scoreForCount), with Go's float and integer arithmetic.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

from ...framework.interface import MAX_NODE_SCORE, NodeScore
from ...framework.types import NodeInfo
from ...k8s.nodeaffinity import RequiredNodeAffinity
from ...k8s.types import HONOR, LABEL_HOSTNAME, Pod
from .common import Constraint, count_pods_match_selector, node_labels_match_spread_constraints
from .domain_cache import DomainCountCache, hashable_key

INVALID_SCORE = -1


@dataclass(slots=True)
class PreScoreState:
    """preScoreState, written under "PreScorePodTopologySpread"."""

    constraints: list[Constraint] = field(default_factory=list)
    # names of filtered nodes lacking some constraint's topology key (scored 0)
    ignored_nodes: set[str] = field(default_factory=set)
    # one entry per constraint; topology value -> matching pods over all nodes, only for
    # values present among the filtered nodes (hostname constraints stay empty)
    topology_value_to_pod_counts: list[dict[str, int]] = field(default_factory=list)
    # one entry per constraint: log(number of domains among the filtered nodes + 2)
    topology_normalizing_weight: list[float] = field(default_factory=list)
    # for explanations only: the filtered nodes' names, and per constraint the hostname
    # counts Score computed (node name -> matching pods)
    filtered_nodes: list[str] = field(default_factory=list, compare=False)
    hostname_counts: list[dict[str, int]] = field(default_factory=list, compare=False)

    def clone(self) -> "PreScoreState":
        """Clone returns the same state, as upstream (it is never mutated after PreScore)."""
        return self


def topology_normalizing_weight(size: int) -> float:
    """topologyNormalizingWeight: log(size + 2), in <1.09, 8.52> for 1..5000 domains."""
    return math.log(size + 2)


def score_for_count(cnt: int, max_skew: int, tp_weight: float) -> float:
    """scoreForCount: cnt * weight + (maxSkew - 1)."""
    return float(cnt) * tp_weight + float(max_skew - 1)


def go_round(x: float) -> int:
    """math.Round: half away from zero (Python's round() rounds half to even)."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += math.copysign(1, x)
    return int(t)


def init_pre_score_state(s: PreScoreState, filtered_nodes: Sequence[NodeInfo],
                         require_all_topologies: bool) -> None:
    """initPreScoreState (after the constraints are built): ignored nodes, the domains of
    the filtered nodes and the per-constraint normalizing weights."""
    s.topology_value_to_pod_counts = [{} for _ in s.constraints]
    s.hostname_counts = [{} for _ in s.constraints]
    s.filtered_nodes = [ni.node.name for ni in filtered_nodes]
    topo_size = [0] * len(s.constraints)
    for ni in filtered_nodes:
        node = ni.node
        if require_all_topologies and not node_labels_match_spread_constraints(
                node.labels, s.constraints):
            s.ignored_nodes.add(node.name)
            continue
        for i, c in enumerate(s.constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue  # per-node counts are computed in Score
            value = node.labels.get(c.topology_key, "")  # a missing label reads as ""
            if value not in s.topology_value_to_pod_counts[i]:
                s.topology_value_to_pod_counts[i][value] = 0
                topo_size[i] += 1
    for i, c in enumerate(s.constraints):
        sz = topo_size[i]
        if c.topology_key == LABEL_HOSTNAME:
            sz = len(filtered_nodes) - len(s.ignored_nodes)
        s.topology_normalizing_weight.append(topology_normalizing_weight(sz))


def count_all_nodes(s: PreScoreState, pod: Pod, all_nodes: Sequence[NodeInfo],
                    require_all_topologies: bool, cache: DomainCountCache | None = None
                    ) -> None:
    """PreScore's processAllNode: add every node's matching pods to the domains that some
    filtered node belongs to (from the incrementally kept totals when ``cache`` is set)."""
    required = RequiredNodeAffinity.from_pod(pod)
    key = _cache_key(pod, s.constraints, required, require_all_topologies) \
        if cache is not None else None
    if key is not None:
        _counts_from_cache(s, cache.totals(key, len(s.constraints), all_nodes, lambda ni: (
            _node_contribution(s.constraints, pod, ni, required, require_all_topologies))))
        return
    for ni in all_nodes:
        node = ni.node
        if require_all_topologies and not node_labels_match_spread_constraints(
                node.labels, s.constraints):
            continue
        for i, c in enumerate(s.constraints):
            if not c.match_node_inclusion_policies(pod, node, required):
                continue
            counts = s.topology_value_to_pod_counts[i]
            value = node.labels.get(c.topology_key, "")
            if value not in counts:
                continue
            counts[value] += count_pods_match_selector(ni.pods, c.selector, pod.namespace)


def _cache_key(pod: Pod, constraints: Sequence[Constraint], required: RequiredNodeAffinity,
               require_all: bool):
    """What _node_contribution depends on besides the node (None: not cacheable)."""
    tolerations = pod.tolerations if any(c.node_taints_policy == HONOR
                                         for c in constraints) else None
    return hashable_key("score", pod.namespace, tuple(constraints), required, tolerations,
                        require_all)


def _node_contribution(constraints: Sequence[Constraint], pod: Pod, ni: NodeInfo,
                       required: RequiredNodeAffinity, require_all: bool
                       ) -> tuple[tuple[int, str, int], ...]:
    """One node's (constraint index, value, matching pods), as the loop above counts them
    (hostname constraints are counted in Score, not here)."""
    node = ni.node
    if require_all and not node_labels_match_spread_constraints(node.labels, constraints):
        return ()
    return tuple((i, node.labels.get(c.topology_key, ""),
                  count_pods_match_selector(ni.pods, c.selector, pod.namespace))
                 for i, c in enumerate(constraints)
                 if c.topology_key != LABEL_HOSTNAME
                 and c.match_node_inclusion_policies(pod, node, required))


def _counts_from_cache(s: PreScoreState, totals: list[dict[str, int]]) -> None:
    """Fill the filtered nodes' domains from the totals over all nodes."""
    for i, counts in enumerate(s.topology_value_to_pod_counts):
        total = totals[i]
        for value in counts:
            counts[value] = total.get(value, 0)


def raw_score(s: PreScoreState, pod: Pod, node_info: NodeInfo) -> int:
    """Score: sum over constraints of scoreForCount, rounded; 0 for ignored nodes."""
    node = node_info.node
    if node.name in s.ignored_nodes:
        return 0
    score = 0.0
    for i, c in enumerate(s.constraints):
        tp_val = node.labels.get(c.topology_key)
        if tp_val is None:
            continue
        if c.topology_key == LABEL_HOSTNAME:
            cnt = count_pods_match_selector(node_info.pods, c.selector, pod.namespace)
            s.hostname_counts[i][node.name] = cnt
        else:
            cnt = s.topology_value_to_pod_counts[i][tp_val]
        score += score_for_count(cnt, c.max_skew, s.topology_normalizing_weight[i])
    return go_round(score)


def normalize_scores(s: PreScoreState, scores: list[NodeScore]) -> None:
    """NormalizeScore: MaxNodeScore * (max + min - score) / max (Go integer division),
    min/max over non-ignored nodes; ignored nodes get 0; all 100 when max is 0."""
    min_score = 2**63 - 1
    max_score = 0
    for ns in scores:
        if ns.name in s.ignored_nodes:
            ns.score = INVALID_SCORE
            continue
        min_score = min(min_score, ns.score)
        max_score = max(max_score, ns.score)
    for ns in scores:
        if ns.score == INVALID_SCORE:
            ns.score = 0
        elif max_score == 0:
            ns.score = MAX_NODE_SCORE
        else:
            ns.score = MAX_NODE_SCORE * (max_score + min_score - ns.score) // max_score
