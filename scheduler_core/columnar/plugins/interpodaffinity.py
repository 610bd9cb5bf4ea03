"""InterPodAffinity over node arrays, on the reference plugin's PreFilter and PreScore state.

kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/interpodaffinity/`` skips
PreFilter when the pod has no required (anti-)affinity terms and no existing pod's
required anti-affinity matches it, and PreScore when nothing can contribute a score. The
node table counts the bound pods with (anti-)affinity terms, so those Skips are decided
without looking at any node; otherwise the reference plugin's PreFilter and PreScore fill
their counts per topology pair, and Filter, Score and NormalizeScore read them for all
nodes at once: a count per value of each topology key, looked up through the node table's
label columns (``filtering.filter_node``, ``scoring.score_node`` and
``scoring.normalize_scores`` do the same node by node).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interface import MAX_NODE_SCORE, SKIP, Code, Status, new_status
from ...framework.types import PodInfo
from ...k8s.types import Pod
from ...plugins.interpodaffinity import filtering, scoring
from ...plugins.interpodaffinity.plugin import INTER_POD_AFFINITY
from .. import kernels
from . import ColumnarPlugin


_FAILURES = (  # filter_node's statuses, in its order
    (Code.UnschedulableAndUnresolvable, filtering.ERR_REASON_AFFINITY_RULES_NOT_MATCH),
    (Code.Unschedulable, filtering.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH),
    (Code.Unschedulable, filtering.ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH),
)


def _terms(pod: Pod):
    aff = pod.affinity
    pa = aff.pod_affinity if aff else None
    paa = aff.pod_anti_affinity if aff else None
    return pa, paa


class _Picked(Sequence):
    """The NodeInfos of node indices idx, looked up when read (the reference PreScore reads the
    snapshot's nodes, not these: a list of thousands made every cycle went unread)."""

    def __init__(self, infos: Sequence, idx: np.ndarray) -> None:
        self.infos, self.idx = infos, idx

    def __len__(self) -> int:
        return len(self.idx)

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, slice):
            return [self.infos[i] for i in self.idx[k].tolist()]
        return self.infos[int(self.idx[k])]


class InterPodAffinity(ColumnarPlugin):
    NAME = INTER_POD_AFFINITY
    SCORES_IN_RANGE = False  # the reference NormalizeScore

    def __init__(self, ref, ctx) -> None:
        super().__init__(ref, ctx)
        # topology key -> (the counts' value names, their column value ids): _value_slots
        self._slots: dict[str, tuple[list[str], np.ndarray]] = {}
        # the last PreFilter state's verdicts: Filter, then the statuses of a failed cycle, read
        # the same state (a PreFilter writes a new one; AddPod and RemovePod change clones only)
        self._last: tuple[filtering.PreFilterState | None, np.ndarray] = (None, np.zeros(0, np.int8))

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence):
        pa, paa = _terms(pod)
        if not (pa and pa.required) and not (paa and paa.required) and \
                self.ctx.table.anti_affinity_pods == 0:
            return None, SKIP
        return self.ref.pre_filter(state, pod, nodes)

    def _status(self, st: Status) -> int:
        return 0 if st.is_success() else self.ctx.statuses.intern(st.with_plugin(self.NAME))

    def _by_node(self, tk: str, s: filtering.PreFilterState, name: str) -> np.ndarray:
        """The state's count map ``name`` (existing, affinity or anti) for topology key tk, per
        node (0 where the node lacks tk): from the vectors it is summed from while it is not
        built (counts.SummedCounts), else from the map."""
        col = self.ctx.table.column(tk)
        per_value = np.zeros(len(col) + 1, np.int64)
        summed = s.summed(name)
        if summed is not None:
            found = summed.by_key.get(tk)
            if found is not None:  # (values no node has go to the last slot, zeroed below)
                names, sums = found
                per_value[self._value_slots(tk, names)[:len(sums)]] = sums[:len(names)]
                per_value[len(col)] = 0
            return per_value[col.slots]
        counts = {"existing": s.existing_anti_affinity_counts, "affinity": s.affinity_counts,
                  "anti": s.anti_affinity_counts}[name]
        for (key, tv), n in counts.items():
            if key == tk:
                vid = col.index.get(tv)
                if vid is not None:
                    per_value[vid] = n
        return per_value[col.slots]

    def _verdicts(self, s: filtering.PreFilterState) -> np.ndarray:
        """Per node: 0 passes, else 1 + which check fails first (filter_node's order:
        the pod's affinity, its anti-affinity, existing pods' anti-affinity). Not to be changed."""
        if self._last[0] is s:
            return self._last[1]
        out = self._work_out_verdicts(s)
        self._last = (s, out)
        return out

    def _work_out_verdicts(self, s: filtering.PreFilterState) -> np.ndarray:
        table = self.ctx.table
        out = np.zeros(table.n, np.int8)
        terms = s.pod_info.required_affinity_terms
        if terms:
            has_keys = np.ones(table.n, bool)
            exist = np.ones(table.n, bool)
            for t in terms:
                has_keys &= ~table.column(t.topology_key).missing
                exist &= self._by_node(t.topology_key, s, "affinity") > 0
            if not s.has_counts("affinity") and filtering.pod_matches_all_affinity_terms(
                    terms, s.pod_info.pod):
                exist[:] = True  # the first pod of a series that matches its own terms
            out[~(has_keys & exist)] = 1
        if s.has_counts("anti"):
            repelled = np.zeros(table.n, bool)
            for t in s.pod_info.required_anti_affinity_terms:
                repelled |= self._by_node(t.topology_key, s, "anti") > 0
            out[(out == 0) & repelled] = 2
        if s.has_counts("existing"):
            repelled = np.zeros(table.n, bool)
            summed = s.summed("existing")
            keys = summed.by_key if summed is not None else \
                {k for k, _ in s.existing_anti_affinity_counts}
            for tk in keys:
                repelled |= self._by_node(tk, s, "existing") > 0
            out[(out == 0) & repelled] = 3
        return out

    def filter_ok(self, state: CycleState, pod: Pod) -> np.ndarray:
        return self._verdicts(state.read(filtering.PRE_FILTER_STATE_KEY)) == 0

    def filter_status(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        verdicts = self._verdicts(state.read(filtering.PRE_FILTER_STATE_KEY))[idx]
        ids = np.zeros(4, np.int32)
        for v, (code, reason) in enumerate(_FAILURES, start=1):
            if (verdicts == v).any():
                ids[v] = self._status(new_status(code, reason))
        return ids[verdicts]

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
            return SKIP
        return self.ref.pre_score(state, pod, _Picked(self.ctx.node_infos, idx))

    def _value_slots(self, tk: str, names: list[str]) -> np.ndarray:
        """The column value id of each of names (the counts' values of topology key tk, in
        their id order), len(column) for a value no node has; extended as names grow."""
        col = self.ctx.table.column(tk)
        known = self._slots.get(tk)
        if known is None or known[0] is not names:
            known = (names, np.zeros(0, np.intp))
        if len(known[1]) < len(names):
            more = [col.index.get(v, len(col)) for v in names[len(known[1]):]]
            known = (names, np.concatenate((known[1], np.array(more, np.intp))))
        self._slots[tk] = known
        return known[1]

    def score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        s = state.read(scoring.PRE_SCORE_STATE_KEY)
        table = self.ctx.table
        out = np.zeros(len(idx), np.int64)
        if s.vectors is not None:  # (the counts' sums, as arrays)
            for tk, (names, sums, _) in s.vectors.items():
                col = table.column(tk)
                per_value = np.zeros(len(col) + 1, np.int64)
                per_value[self._value_slots(tk, names)[:len(sums)]] = sums
                per_value[len(col)] = 0  # (values no node has, and nodes without tk)
                out += per_value[col.slots[idx]]
            return out
        for tk, values in s.topology_score.items():
            col = table.column(tk)
            per_value = np.zeros(len(col) + 1, np.int64)
            for tv, n in values.items():
                vid = col.index.get(tv)
                if vid is not None:
                    per_value[vid] = n
            out += per_value[col.slots[idx]]
        return out

    def normalize(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        s = state.read(scoring.PRE_SCORE_STATE_KEY)
        if s.empty() or len(scores) == 0:
            return scores
        if kernels.numba is not None and len(scores) >= 64:
            return kernels.interpod_normalize(scores)
        low, high = int(scores.min()), int(scores.max())
        if high == low:
            return np.zeros(len(scores), np.int64)
        # float64(MaxNodeScore) * (float64(score-min) / float64(max-min)), truncated
        return (float(MAX_NODE_SCORE) * ((scores - low).astype(np.float64) / float(high - low))
                ).astype(np.int64)
