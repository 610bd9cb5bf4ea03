"""The InterPodAffinity plugin: required and preferred pod (anti-)affinity.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/interpodaffinity/plugin.go``
(New, mergeAffinityTermNamespacesIfNotEmpty, GetNamespaceLabelsSnapshot) and the
extension-point methods of ``filtering.go`` and ``scoring.go``, whose logic lives in the
sibling modules.
"""
from __future__ import annotations

import dataclasses
from typing import Mapping, Sequence

from ...config_args import InterPodAffinityArgs
from ...framework.cycle_state import CycleState
from ...framework.interface import (SKIP, SUCCESS, Code, NodeScore, Plugin, PreFilterResult,
                                    Status, new_status)
from ...framework.types import (AffinityTerm, NodeInfo, PodInfo, new_pod_info,
                                pod_info_parse_error)
from ...k8s import labels as klabels
from ...k8s.shared_memo import MISS, IdentityMemo
from ...k8s.types import Pod
from ...trace import MAX_NODE_NAMES
from ..names import INTER_POD_AFFINITY
from . import filtering, scoring
from .counts import PodCounts
from .filtering import NO_NAMESPACE_LABELS, PRE_FILTER_STATE_KEY, PreFilterState
from .scoring import PRE_SCORE_STATE_KEY, PreScoreState

# pkg/scheduler/apis/config/validation/validation_pluginargs.go ValidateInterPodAffinityArgs
MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100


def merge_affinity_term_namespaces(term: AffinityTerm,
                                   namespaces: Mapping[str, Mapping[str, str]]) -> AffinityTerm:
    """mergeAffinityTermNamespacesIfNotEmpty: namespaces selected by a non-empty
    namespaceSelector join the explicit ones and the selector becomes Nothing. An empty
    selector ({}) is left as it is: it matches every namespace."""
    sel = term.namespace_selector
    if sel.empty():
        return term
    selected = {name for name, lbls in namespaces.items() if sel.matches(lbls)}
    return dataclasses.replace(term, namespaces=term.namespaces | selected,
                               namespace_selector=klabels.NOTHING)


def namespace_labels_snapshot(ns: str, namespaces: Mapping[str, Mapping[str, str]]
                              ) -> Mapping[str, str]:
    """GetNamespaceLabelsSnapshot: a copy of the namespace's labels; empty when unknown
    (upstream logs and returns a nil set)."""
    lbls = namespaces.get(ns)
    return dict(lbls) if lbls is not None else NO_NAMESPACE_LABELS


def _state_not_found(key: str) -> Status:
    return new_status(Code.Error, f'error reading "{key}" from cycleState: not found')


class InterPodAffinity(Plugin):
    """interpodaffinity.InterPodAffinity: PreFilter, Filter, PreScore, Score, NormalizeScore."""

    NAME = INTER_POD_AFFINITY

    def __init__(self, args: InterPodAffinityArgs | None, handle) -> None:
        self.args = args if args is not None else InterPodAffinityArgs()
        w = self.args.hard_pod_affinity_weight
        if not MIN_HARD_POD_AFFINITY_WEIGHT <= w <= MAX_HARD_POD_AFFINITY_WEIGHT:
            raise ValueError(f"hardPodAffinityWeight: Invalid value: {w}: not in valid range "
                             f"[{MIN_HARD_POD_AFFINITY_WEIGHT}-{MAX_HARD_POD_AFFINITY_WEIGHT}]")
        self.handle = handle
        # fast path: pod counts per topology pair kept across cycles (None: recount each cycle)
        self.counts = PodCounts() if getattr(handle, "fast", False) else None
        self._merged_memo: IdentityMemo[tuple] = IdentityMemo()  # _merged_once

    # --- helpers ---------------------------------------------------------------------

    def _namespaces(self) -> Mapping[str, Mapping[str, str]]:
        """namespace name -> labels (the plugin's nsLister)."""
        objects = getattr(self.handle, "objects", None)
        return getattr(objects, "namespaces", None) or {}

    def _merged(self, terms: Sequence[AffinityTerm]) -> tuple[AffinityTerm, ...]:
        ns = self._namespaces()
        return self._merged_once(terms, ns, lambda: tuple(
            merge_affinity_term_namespaces(t, ns) for t in terms))

    def _merged_weighted(self, terms) -> tuple:
        ns = self._namespaces()
        return self._merged_once(terms, ns, lambda: tuple(
            dataclasses.replace(wt, term=merge_affinity_term_namespaces(wt.term, ns)) for wt in terms))

    def _merged_once(self, terms: tuple, ns: Mapping[str, Mapping[str, str]], merge) -> tuple:
        """merge(), once per terms tuple and namespaces: a workload's pods share their terms
        tuples, so they share the merged ones too (PodCounts' PreScore plan is kept per
        those)."""
        if not terms:
            return ()
        ns = ns or None  # (an empty mapping: the same as none)
        hit = self._merged_memo.get(terms, ns)
        return hit if hit is not MISS else self._merged_memo.put(merge(), terms, ns)

    # --- PreFilter / PreFilterExtensions / Filter (filtering.go) ---------------------

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status]:
        """PreFilter: count matching pods per topology pair; Skip when nothing to check.
        A pod whose terms do not parse is UnschedulableAndUnresolvable (filtering.go)."""
        err = pod_info_parse_error(pod)
        if err:
            return None, Status(Code.UnschedulableAndUnresolvable, (f"parsing pod: {err}",))
        pi = new_pod_info(pod)
        pi = PodInfo(pi.pod, self._merged(pi.required_affinity_terms),  # (dataclasses.replace: 4 µs)
                     self._merged(pi.required_anti_affinity_terms), pi.preferred_affinity_terms,
                     pi.preferred_anti_affinity_terms, pi.requests, pi.non_zero_requests)
        s = PreFilterState(pi, namespace_labels_snapshot(pod.namespace, self._namespaces()))
        snapshot = self.handle.snapshot_shared_lister()
        if self.counts is not None:
            self.counts.refresh(snapshot.list(), getattr(snapshot, "changed", None))
            s.set_summed(existing=self.counts.existing_anti_affinity_summed(
                pod, s.namespace_labels))
        else:
            s.existing_anti_affinity_counts = filtering.get_existing_anti_affinity_counts(
                pod, s.namespace_labels, snapshot.have_pods_with_required_anti_affinity_list())
        if not filtering.needs_filtering(s):
            return None, SKIP
        if self.counts is not None and len(nodes) == len(snapshot.list()):  # (all of them)
            affinity, anti = self.counts.incoming_summed(pi)
            s.set_summed(affinity=affinity, anti=anti)
        else:
            s.affinity_counts, s.anti_affinity_counts = \
                filtering.get_incoming_affinity_anti_affinity_counts(pi, nodes)
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, SUCCESS

    def pre_filter_extensions(self) -> "InterPodAffinity":
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status:
        """AddPod: count a pod preemption puts back (or a nominated pod) on node_info."""
        return self._update(state, pod_info_to_add, node_info, 1)

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status:
        """RemovePod: uncount a pod preemption evicts from node_info."""
        return self._update(state, pod_info_to_remove, node_info, -1)

    def _update(self, state: CycleState, pi: PodInfo, node_info: NodeInfo, m: int) -> Status:
        try:
            s: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return _state_not_found(PRE_FILTER_STATE_KEY)
        s.update_with_pod(pi, node_info.node, m)
        return SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter: the node's topology pairs against the PreFilter counts."""
        try:
            s: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return _state_not_found(PRE_FILTER_STATE_KEY)
        return filtering.filter_node(s, node_info.node)

    # --- PreScore / Score / NormalizeScore (scoring.go) ------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """PreScore: weights per topology pair; Skip when no pod contributes, or when
        existing pods' preferences are ignored and the pod has no preferred terms."""
        pi = new_pod_info(pod)
        has_constraints = bool(pi.preferred_affinity_terms or pi.preferred_anti_affinity_terms)
        if self.args.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return SKIP
        err = pod_info_parse_error(pod)
        if err:  # scoring.go: "Ideally we never reach here" (PreFilter caught it)
            return Status(Code.Error, (f"failed to parse pod: {err}",))
        snapshot = self.handle.snapshot_shared_lister()
        all_nodes = snapshot.list() if has_constraints else snapshot.have_pods_with_affinity_list()
        pi = PodInfo(pi.pod, pi.required_affinity_terms, pi.required_anti_affinity_terms,
                     self._merged_weighted(pi.preferred_affinity_terms),
                     self._merged_weighted(pi.preferred_anti_affinity_terms), pi.requests, pi.non_zero_requests)
        s = PreScoreState(pi, namespace_labels_snapshot(pod.namespace, self._namespaces()))
        if self.counts is not None:
            self.counts.refresh(snapshot.list(), getattr(snapshot, "changed", None))
            contributed = self.counts.topology_score(s, has_constraints,
                                                     self.args.hard_pod_affinity_weight)
        else:
            contributed = scoring.build_topology_score(s, all_nodes, has_constraints,
                                                       self.args.hard_pod_affinity_weight)
        if not contributed:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, s)
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        """Score: the raw signed sum for the node, normalized later."""
        try:
            s: PreScoreState = state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            return 0, _state_not_found(PRE_SCORE_STATE_KEY)
        return scoring.score_node(s, node_info.node), SUCCESS

    def score_extensions(self) -> "InterPodAffinity":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        """NormalizeScore: scores mapped onto 0..100 in place."""
        try:
            s: PreScoreState = state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            return _state_not_found(PRE_SCORE_STATE_KEY)
        scoring.normalize_scores(s, scores)
        return SUCCESS

    # --- dashboard ---------------------------------------------------------------------

    def explain(self, state: CycleState, pod: Pod) -> dict | None:
        """What this cycle's PreFilter counted and PreScore summed, for the dashboard;
        None when both were skipped."""
        out: dict = {}
        try:
            out["filter"] = _explain_filter(state.read(PRE_FILTER_STATE_KEY))
        except KeyError:
            pass
        try:
            out["score"] = _explain_score(state.read(PRE_SCORE_STATE_KEY))
        except KeyError:
            pass
        return out or None


def _term_json(t: AffinityTerm) -> dict:
    return {"topologyKey": t.topology_key, "labelSelector": str(t.selector),
            "namespaces": sorted(t.namespaces),
            "namespaceSelector": None if t.namespace_selector.nothing
            else str(t.namespace_selector)}


def _counts_json(counts: filtering.TopologyCounts) -> list[dict]:
    """The first MAX_NODE_NAMES pairs in (key, value) order: a term over hostnames has a
    pair per node, and each pending pod's explanation would otherwise list thousands."""
    return [{"topologyKey": k, "topologyValue": v, "count": counts[(k, v)]}
            for k, v in sorted(counts)[:MAX_NODE_NAMES]]


def _explain_filter(s: PreFilterState) -> dict:
    """Required terms (namespace-merged) and the per topology pair counts Filter reads
    (each list bounded; its ``...PairCount`` says how many pairs there are)."""
    return {
        "requiredAffinityTerms": [_term_json(t) for t in s.pod_info.required_affinity_terms],
        "requiredAntiAffinityTerms": [_term_json(t)
                                      for t in s.pod_info.required_anti_affinity_terms],
        **_counts_of(s, "affinity", "affinity"), **_counts_of(s, "anti", "antiAffinity"),
        **_counts_of(s, "existing", "existingAntiAffinity"),
    }


def _counts_of(s: PreFilterState, name: str, prefix: str) -> dict:
    """The state's count map ``name`` as the explanation lists it (``prefix``Counts, the first
    pairs, and ``prefix``PairCount), from the vectors it is summed from while it is not built."""
    summed = s.summed(name)
    if summed is not None:
        pairs, total = summed.first_pairs(MAX_NODE_NAMES)
        listed = [{"topologyKey": k, "topologyValue": v, "count": n} for k, v, n in pairs]
    else:
        counts = {"affinity": s.affinity_counts, "anti": s.anti_affinity_counts,
                  "existing": s.existing_anti_affinity_counts}[name]
        listed, total = _counts_json(counts), len(counts)
    return {f"{prefix}Counts": listed, f"{prefix}PairCount": total}


def _explain_score(s: PreScoreState) -> dict:
    """The summed signed weights per topology pair Score reads (the first MAX_NODE_NAMES
    pairs; ``topologyScorePairCount`` says how many there are)."""
    pairs = [(k, v) for k in sorted(s.topology_score) for v in sorted(s.topology_score[k])]
    return {"topologyScore": [{"topologyKey": k, "topologyValue": v,
                               "score": s.topology_score[k][v]}
                              for k, v in pairs[:MAX_NODE_NAMES]],
            "topologyScorePairCount": len(pairs)}
