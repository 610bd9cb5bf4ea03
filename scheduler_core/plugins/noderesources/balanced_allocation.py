"""NodeResourcesBalancedAllocation plugin.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/noderesources/
balanced_allocation.go``: score = int((1 - std) * 100), std the standard deviation of the
requested/allocatable fractions (each capped at 1) over the configured resources, with
the real (not non-zero) requests. Range 0..100; no normalization.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ...config_args import NodeResourcesBalancedAllocationArgs
from ...framework.cycle_state import CycleState
from ...framework.interface import MAX_NODE_SCORE, SKIP, SUCCESS, Plugin, Status
from ...framework.types import NodeInfo
from ...k8s.types import Pod
from ..names import NODE_RESOURCES_BALANCED_ALLOCATION
from .resource_allocation import ResourceAllocationScorer, score_all_from_state

PRE_SCORE_STATE_KEY = "PreScore" + NODE_RESOURCES_BALANCED_ALLOCATION


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    pod_requests: tuple[int, ...]  # one entry per args.resources, same order


def balanced_resource_scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """balancedResourceScorer: float64 arithmetic as in Go, truncated to int."""
    fractions: list[float] = []
    total = 0.0
    for req, alloc in zip(requested, allocatable):
        if alloc == 0:
            continue
        f = min(float(req) / float(alloc), 1.0)
        total += f
        fractions.append(f)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        acc = 0.0
        for f in fractions:
            acc = acc + (f - mean) * (f - mean)
        std = math.sqrt(acc / len(fractions))
    return int((1 - std) * float(MAX_NODE_SCORE))


class BalancedAllocation(Plugin):
    """noderesources.BalancedAllocation."""

    NAME = NODE_RESOURCES_BALANCED_ALLOCATION

    def __init__(self, args: NodeResourcesBalancedAllocationArgs | None, handle=None) -> None:
        args = args if args is not None else NodeResourcesBalancedAllocationArgs()
        self.handle = handle
        self.scorer = ResourceAllocationScorer(NODE_RESOURCES_BALANCED_ALLOCATION,
                                               balanced_resource_scorer, tuple(args.resources),
                                               use_requested=True)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """PreScore: the pod's requests; Skip for a pod requesting none of the resources."""
        reqs = self.scorer.calculate_pod_resource_request_list(pod)
        if self.scorer.is_best_effort_pod(reqs):
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(reqs))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        """Score: how evenly the node's resources would be used with the pod, 0..100."""
        try:
            reqs = state.read(PRE_SCORE_STATE_KEY).pod_requests
        except KeyError:
            reqs = self.scorer.calculate_pod_resource_request_list(pod)
            if self.scorer.is_best_effort_pod(reqs):
                return 0, SUCCESS
        return self.scorer.score(node_info, reqs)

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                    ) -> list[int] | None:
        """Score for all nodes at once (fast path); None: use the per-node Score."""
        return score_all_from_state(state, PRE_SCORE_STATE_KEY, self.scorer, nodes)

    def score_extensions(self) -> None:
        return None
