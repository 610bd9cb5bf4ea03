"""TaintToleration's PreScore and Score over node arrays.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/tainttoleration/
taint_toleration.go``: Score counts the PreferNoSchedule taints the pod does not tolerate
(reference ``count_intolerable_taints_prefer_no_schedule``, once per taint set and
toleration set), NormalizeScore reverses DefaultNormalizeScore. Its Filter is one of the
node-static filters (``static.py``).
"""
from __future__ import annotations

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interface import SUCCESS, Status
from ...k8s.types import Pod
from ...plugins.tainttoleration import taint_toleration as tt
from ..node_groups import TemplateCache, broadcast, group_nodes
from . import ColumnarPlugin, default_normalize


class TaintToleration(ColumnarPlugin):
    NAME = tt.TAINT_TOLERATION

    def __init__(self, ref, ctx) -> None:
        super().__init__(ref, ctx)
        self._counts = TemplateCache()

    def pre_score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> Status:
        state.write(tt.PRE_SCORE_STATE_KEY, self.ctx.template(self.name("pre_score"), (pod.tolerations,), lambda:
                    tt._PreScoreState(tt.get_all_toleration_prefer_no_schedule(
                        pod.tolerations))))
        return SUCCESS

    def _intolerable(self, tolerations) -> np.ndarray:
        nodes = self.ctx.table.nodes
        return broadcast(self.ctx.table, group_nodes(self.ctx.table, (), taints=True),
                         lambda i: tt.count_intolerable_taints_prefer_no_schedule(
                             nodes[i].taints, tolerations), np.int64)

    def _template(self, state: CycleState, pod: Pod) -> tuple[np.ndarray, bool]:
        """(untolerated PreferNoSchedule taints per node, whether none anywhere)."""
        tolerations = state.read(tt.PRE_SCORE_STATE_KEY).tolerations_prefer_no_schedule

        def compute():
            counts = self._counts.get(tolerations, lambda: self._intolerable(tolerations))
            return counts, not counts.any()
        return self.ctx.template(self.name("score"), (pod.tolerations,), compute)

    def constant_score(self, state: CycleState, pod: Pod) -> int | None:
        """No node has an untolerated PreferNoSchedule taint: all 100 after reversal."""
        return 100 if self._template(state, pod)[1] else None

    def constant_raw(self, state: CycleState, pod: Pod, normalized: int) -> int:
        """No untolerated PreferNoSchedule taint anywhere: every raw count is 0."""
        return 0

    def score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        return self._template(state, pod)[0][idx]

    def normalize(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        return default_normalize(scores, reverse=True)
