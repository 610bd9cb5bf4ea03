"""NodeAffinity's PreFilter, PreScore and Score, once per pod template.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/nodeaffinity/
node_affinity.go``. PreFilter and PreScore are the reference plugin's, cached per
(nodeSelector, node affinity); Score is the sum of the matching preferred terms' weights
(the pod's and the profile's addedAffinity), computed once per node group and template;
NormalizeScore is DefaultNormalizeScore. Its Filter is one of the node-static filters.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interface import Code, Status
from ...k8s.types import Pod
from ...plugins.nodeaffinity import node_affinity as na
from ..node_groups import TemplateCache, broadcast, group_nodes
from . import ColumnarPlugin, default_normalize


def _affinity(pod: Pod):
    return pod.affinity.node_affinity if pod.affinity else None


def _key(pod: Pod):
    """What the reference PreFilter reads."""
    return (tuple(sorted(pod.node_selector.items())), _affinity(pod))


def _preferred(pod: Pod):
    """What the reference PreScore reads."""
    aff = _affinity(pod)
    return aff.preferred if aff is not None else ()


class NodeAffinity(ColumnarPlugin):
    NAME = na.NODE_AFFINITY

    def __init__(self, ref, ctx) -> None:
        super().__init__(ref, ctx)
        self._pre_filter = TemplateCache()
        self._pre_score = TemplateCache()
        self._scores = TemplateCache()

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence):
        """The reference PreFilter (it reads no node), replayed per template."""

        def run():
            scratch = CycleState()
            result, status = self.ref.pre_filter(scratch, pod, nodes)
            try:
                written = scratch.read(na.PRE_FILTER_STATE_KEY)
            except KeyError:
                written = None
            return result, status, written
        result, status, written = self.ctx.template(self.name("pre_filter"), (pod.node_selector, pod.affinity), lambda:
                                                   self._pre_filter.get(_key(pod), run))
        if written is not None:
            state.write(na.PRE_FILTER_STATE_KEY, written)
        return result, status

    def pre_score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> Status:

        def run():
            scratch = CycleState()
            status = self.ref.pre_score(scratch, pod, ())
            try:
                return status, scratch.read(na.PRE_SCORE_STATE_KEY)
            except KeyError:
                return status, None
        status, written = self.ctx.template(self.name("pre_score"), (pod.affinity,), lambda: self._pre_score.get(
            _preferred(pod), run))
        if written is not None:
            state.write(na.PRE_SCORE_STATE_KEY, written)
        return status

    def _weights(self, pref) -> np.ndarray:
        added = self.ref.added_pref_sched_terms
        terms = [t for t, _ in (pref.terms if pref is not None else ())]
        terms += [t for t, _ in (added.terms if added is not None else ())]
        keys = {r.key for t in terms for r in t.match_labels}
        fields = any(t.match_fields for t in terms)
        nodes = self.ctx.table.nodes

        def answer(i: int) -> int:
            total = added.score(nodes[i]) if added is not None else 0
            return total + (pref.score(nodes[i]) if pref is not None else 0)
        return broadcast(self.ctx.table, group_nodes(self.ctx.table, keys, names=fields),
                         answer, np.int64)

    def raw_scores(self, state: CycleState, pod: Pod) -> np.ndarray:
        """Score for every node (the preferred terms' weights that match it)."""
        pref = state.read(na.PRE_SCORE_STATE_KEY).preferred_node_affinity
        return self.ctx.template(self.name("score"), (pod.affinity,), lambda: self._scores.get(
            pref, lambda: self._weights(pref)))

    def score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        return self.raw_scores(state, pod)[idx]

    def normalize(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        return default_normalize(scores, reverse=False)


__all__ = ["NodeAffinity", "Code"]
