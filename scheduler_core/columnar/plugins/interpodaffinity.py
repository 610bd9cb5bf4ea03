"""InterPodAffinity through the reference plugin, node by node, only when it has work.

kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/interpodaffinity/`` skips
PreFilter when the pod has no required (anti-)affinity terms and no existing pod's
required anti-affinity matches it, and PreScore when nothing can contribute a score. The
node table counts the bound pods with (anti-)affinity terms, so those Skips are decided
without looking at any node; otherwise the reference plugin runs on the NodeInfos (its
counts per topology pair are cheap to look up, the per-node loop is the cost).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interface import Code, NodeScore, Status
from ...framework.types import PodInfo
from ...k8s.types import Pod
from ...plugins.interpodaffinity import filtering, scoring
from ...plugins.interpodaffinity.plugin import INTER_POD_AFFINITY
from . import ColumnarPlugin


def _terms(pod: Pod):
    aff = pod.affinity
    pa = aff.pod_affinity if aff else None
    paa = aff.pod_anti_affinity if aff else None
    return pa, paa


class InterPodAffinity(ColumnarPlugin):
    NAME = INTER_POD_AFFINITY
    SCORES_IN_RANGE = False  # the reference NormalizeScore

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence):
        pa, paa = _terms(pod)
        if not (pa and pa.required) and not (paa and paa.required) and \
                self.ctx.table.anti_affinity_pods == 0:
            return None, Status(Code.Skip)
        return self.ref.pre_filter(state, pod, nodes)

    def _status(self, st: Status) -> int:
        return 0 if st.is_success() else self.ctx.statuses.intern(st.with_plugin(self.NAME))

    def filter_ok(self, state: CycleState, pod: Pod) -> np.ndarray:
        s = state.read(filtering.PRE_FILTER_STATE_KEY)
        return np.array([filtering.filter_node(s, node).is_success()
                         for node in self.ctx.table.nodes], bool)

    def filter_status(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        s = state.read(filtering.PRE_FILTER_STATE_KEY)
        nodes = self.ctx.table.nodes
        return np.array([self._status(filtering.filter_node(s, nodes[i])) for i in idx],
                        np.int32)

    def filter_status_with(self, state: CycleState, pod: Pod, idx: np.ndarray,
                           added: Sequence[Sequence[PodInfo]], key=None) -> np.ndarray:
        out = np.zeros(len(idx), np.int32)
        for k, i in enumerate(idx):
            ni = self.ctx.node_infos[i].clone()
            st2 = state.clone()
            for pi in added[k]:
                ni.add_pod_info(pi)
                self.ref.add_pod(st2, pod, pi, ni)
            out[k] = self._status(self.ref.filter(st2, pod, ni))
        return out

    def pre_score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> Status:
        pa, paa = _terms(pod)
        preferred = bool((pa and pa.preferred) or (paa and paa.preferred))
        if not preferred and (self.ref.args.ignore_preferred_terms_of_existing_pods
                              or self.ctx.table.affinity_pods == 0):
            return Status(Code.Skip)
        infos = self.ctx.node_infos
        return self.ref.pre_score(state, pod, [infos[i] for i in idx])

    def score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        s = state.read(scoring.PRE_SCORE_STATE_KEY)
        nodes = self.ctx.table.nodes
        return np.array([scoring.score_node(s, nodes[i]) for i in idx], np.int64)

    def normalize(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        names = self.ctx.table.names
        ns = [NodeScore(names[0] if names else "", int(v)) for v in scores]
        self.ref.normalize_score(state, pod, ns)
        return np.array([s.score for s in ns], np.int64)
