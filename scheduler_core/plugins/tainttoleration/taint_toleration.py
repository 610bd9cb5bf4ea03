"""TaintToleration plugin.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/tainttoleration/
taint_toleration.go``: Filter rejects a node with an untolerated NoSchedule/NoExecute
taint; Score counts the untolerated PreferNoSchedule taints, reversed by NormalizeScore.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...framework.cycle_state import CycleState
from ...framework.interface import (MAX_NODE_SCORE, SUCCESS, Code, NodeScore, Plugin, Status,
                                    new_status)
from ...framework.types import NodeInfo
from ...k8s.taints import (do_not_schedule_taints_filter, find_matching_untolerated_taint,
                           tolerations_tolerate_taint)
from ...k8s.types import PREFER_NO_SCHEDULE, Pod, Taint, Toleration
from ..helper.normalize_score import default_normalize_score
from ..names import TAINT_TOLERATION

PRE_SCORE_STATE_KEY = "PreScore" + TAINT_TOLERATION


def err_reason_untolerated_taint(taint: Taint) -> str:
    """The Filter reason; format from taint_toleration.go Filter (v1.34)."""
    return f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    # the pod's tolerations whose effect is PreferNoSchedule or empty
    tolerations_prefer_no_schedule: tuple[Toleration, ...]


def get_all_toleration_prefer_no_schedule(tolerations: Sequence[Toleration]
                                          ) -> tuple[Toleration, ...]:
    """getAllTolerationPreferNoSchedule: an empty effect matches PreferNoSchedule too."""
    return tuple(t for t in tolerations if not t.effect or t.effect == PREFER_NO_SCHEDULE)


def count_intolerable_taints_prefer_no_schedule(taints: Sequence[Taint],
                                                tolerations: Sequence[Toleration]) -> int:
    """countIntolerableTaintsPreferNoSchedule."""
    return sum(1 for t in taints
               if t.effect == PREFER_NO_SCHEDULE and not tolerations_tolerate_taint(tolerations, t))


class TaintToleration(Plugin):
    """tainttoleration.TaintToleration."""

    NAME = TAINT_TOLERATION

    def __init__(self, args: None = None, handle=None) -> None:
        self.handle = handle

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter: the first untolerated NoSchedule/NoExecute taint rejects the node."""
        taint = find_matching_untolerated_taint(node_info.node.taints, pod.tolerations,
                                                do_not_schedule_taints_filter)
        if taint is None:
            return SUCCESS
        return new_status(Code.UnschedulableAndUnresolvable, err_reason_untolerated_taint(taint))

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """PreScore: keep the tolerations that can tolerate PreferNoSchedule taints."""
        state.write(PRE_SCORE_STATE_KEY,
                    _PreScoreState(get_all_toleration_prefer_no_schedule(pod.tolerations)))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        """Score: the number of untolerated PreferNoSchedule taints (lower is better)."""
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            return 0, new_status(Code.Error, f'failed to read "{PRE_SCORE_STATE_KEY}" from '
                                             "cycleState: not found")
        return count_intolerable_taints_prefer_no_schedule(
            node_info.node.taints, s.tolerations_prefer_no_schedule), SUCCESS

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                    ) -> list[int] | None:
        """Score for all nodes at once (fast path); None: use the per-node Score."""
        try:
            tolerations = state.read(PRE_SCORE_STATE_KEY).tolerations_prefer_no_schedule
        except KeyError:
            return None
        return [count_intolerable_taints_prefer_no_schedule(ni.node.taints, tolerations)
                if ni.node.taints else 0 for ni in nodes]

    def score_extensions(self) -> "TaintToleration":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        """NormalizeScore: DefaultNormalizeScore reversed (fewer taints, higher score)."""
        default_normalize_score(MAX_NODE_SCORE, True, scores)
        return SUCCESS

    def explain(self, state: CycleState, pod: Pod) -> dict | None:
        """The tolerations considered for PreferNoSchedule scoring."""
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            return None
        return {"tolerationsPreferNoSchedule": [
            {"key": t.key, "operator": t.operator, "value": t.value, "effect": t.effect}
            for t in s.tolerations_prefer_no_schedule]}
