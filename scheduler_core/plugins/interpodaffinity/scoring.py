"""InterPodAffinity PreScore state, Score and NormalizeScore.

Mirrors kube-scheduler v1.34
``pkg/scheduler/framework/plugins/interpodaffinity/scoring.go``. PreScore sums, once per
pod, signed term weights per topology pair; Score adds up the node's pairs and
NormalizeScore maps the raw sums linearly onto 0..100.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np

from ...framework.interface import MAX_NODE_SCORE, NodeScore
from ...framework.types import AffinityTerm, NodeInfo, PodInfo, WeightedAffinityTerm
from ...k8s.types import Node, Pod
from .filtering import NO_NAMESPACE_LABELS

PRE_SCORE_STATE_KEY = "PreScoreInterPodAffinity"  # "PreScore" + Name

ScoreMap = dict[str, dict[str, int]]  # scoreMap: topology key -> value -> summed weight


class PreScoreState:
    """preScoreState: the per topology pair sums Score reads."""

    __slots__ = ("_topology_score", "vectors", "pod_info", "namespace_labels")

    def __init__(self, pod_info: PodInfo, namespace_labels: Mapping[str, str]) -> None:
        # topology key -> topology value -> sum of +/- weights (any sign, unbounded)
        self._topology_score: ScoreMap | None = {}
        # The same sums as arrays, when the counts (counts.PodCounts) computed them:
        # topology key -> (value names, sums, which values are in the map); the map is
        # then built from them only if something reads it (the columnar Score reads these)
        self.vectors: dict[str, tuple[list[str], np.ndarray, np.ndarray]] | None = None
        # the incoming pod, preferred terms with namespaceSelector merged into namespaces
        self.pod_info = pod_info
        # the incoming pod's namespace labels (empty when the namespace is unknown)
        self.namespace_labels = namespace_labels

    @property
    def topology_score(self) -> ScoreMap:
        if self._topology_score is None:
            self._topology_score = {
                tk: {names[i]: int(sums[i]) for i in np.flatnonzero(present).tolist()}
                for tk, (names, sums, present) in self.vectors.items()}
        return self._topology_score

    @topology_score.setter
    def topology_score(self, value: ScoreMap) -> None:
        self.vectors, self._topology_score = None, value

    def set_vectors(self, vectors: dict[str, tuple[list[str], np.ndarray, np.ndarray]]
                    ) -> None:
        self.vectors, self._topology_score = vectors, None

    def empty(self) -> bool:
        """No topology pair has a sum (NormalizeScore then does nothing)."""
        return not (self.vectors if self._topology_score is None else self._topology_score)

    def clone(self) -> "PreScoreState":
        """preScoreState.Clone: never updated after PreScore, so shared."""
        return self


def process_term(m: ScoreMap, term: AffinityTerm, weight: int, pod: Pod,
                 ns_labels: Mapping[str, str], node: Node, multiplier: int) -> None:
    """scoreMap.processTerm: add weight*multiplier on node's pair when pod matches term."""
    if term.matches(pod, ns_labels):
        tv = node.labels.get(term.topology_key)
        if tv is not None:
            values = m.setdefault(term.topology_key, {})
            values[tv] = values.get(tv, 0) + weight * multiplier


def process_terms(m: ScoreMap, terms: Sequence[WeightedAffinityTerm], pod: Pod,
                  ns_labels: Mapping[str, str], node: Node, multiplier: int) -> None:
    """scoreMap.processTerms."""
    for wt in terms:
        process_term(m, wt.term, wt.weight, pod, ns_labels, node, multiplier)


def process_existing_pod(m: ScoreMap, s: PreScoreState, existing: PodInfo, node: Node,
                         hard_pod_affinity_weight: int) -> None:
    """InterPodAffinity.processExistingPod: both pods' terms, scored on existing's node."""
    if not node.labels:
        return
    incoming = s.pod_info.pod
    # the incoming pod's preferred terms against the existing pod (+ affinity, - anti)
    process_terms(m, s.pod_info.preferred_affinity_terms, existing.pod,
                  NO_NAMESPACE_LABELS, node, 1)
    process_terms(m, s.pod_info.preferred_anti_affinity_terms, existing.pod,
                  NO_NAMESPACE_LABELS, node, -1)
    # the existing pod's required affinity terms against the incoming pod, at a fixed weight
    if hard_pod_affinity_weight > 0:
        for t in existing.required_affinity_terms:
            process_term(m, t, hard_pod_affinity_weight, incoming, s.namespace_labels, node, 1)
    # the existing pod's preferred terms against the incoming pod
    process_terms(m, existing.preferred_affinity_terms, incoming, s.namespace_labels, node, 1)
    process_terms(m, existing.preferred_anti_affinity_terms, incoming, s.namespace_labels,
                  node, -1)


def _append(into: ScoreMap, other: ScoreMap) -> None:
    """scoreMap.append."""
    for tk, values in other.items():
        dst = into.setdefault(tk, {})
        for tv, n in values.items():
            dst[tv] = dst.get(tv, 0) + n


def build_topology_score(s: PreScoreState, nodes: Iterable[NodeInfo], all_pods: bool,
                         hard_pod_affinity_weight: int) -> bool:
    """PreScore's per-node loop: fill s.topology_score; False when no node contributed
    (upstream then returns Skip). all_pods: the pod has preferred terms, so every pod
    counts, not only those with affinity."""
    contributed = False
    for ni in nodes:
        node_map: ScoreMap = {}
        for existing in (ni.pods if all_pods else ni.pods_with_affinity):
            process_existing_pod(node_map, s, existing, ni.node, hard_pod_affinity_weight)
        if node_map:
            contributed = True
            _append(s.topology_score, node_map)
    return contributed


def score_node(s: PreScoreState, node: Node) -> int:
    """InterPodAffinity.Score: sum over the node's pairs (positive attracts, negative repels)."""
    score = 0
    labels = node.labels
    for tk, values in s.topology_score.items():
        tv = labels.get(tk)
        if tv is not None:
            score += values.get(tv, 0)
    return score


def normalize_scores(s: PreScoreState, scores: list[NodeScore]) -> None:
    """InterPodAffinity.NormalizeScore: 100 * (score - min) / (max - min), truncated, in
    0..100; all zero when max == min. Nothing happens with an empty topology score."""
    if not s.topology_score or not scores:
        return
    min_count = min(ns.score for ns in scores)
    max_count = max(ns.score for ns in scores)
    diff = max_count - min_count
    for ns in scores:
        f = 0.0
        if diff > 0:
            # float64(MaxNodeScore) * (float64(score-min) / float64(diff)); int64() truncates
            f = float(MAX_NODE_SCORE) * (float(ns.score - min_count) / float(diff))
        ns.score = int(f)
