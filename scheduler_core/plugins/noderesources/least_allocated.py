"""LeastAllocated scoring strategy.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/noderesources/
least_allocated.go``: the weighted mean over resources of (capacity - requested) * 100 /
capacity, integer arithmetic, range 0..100.
"""
from __future__ import annotations

from typing import Sequence

from ...config_args import ResourceSpec
from ...framework.interface import MAX_NODE_SCORE
from ..helper.normalize_score import go_div


def least_requested_score(requested: int, capacity: int) -> int:
    """leastRequestedScore: 0 when capacity is 0 or over-requested."""
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * MAX_NODE_SCORE, capacity)


def least_resource_scorer(resources: Sequence[ResourceSpec]):
    """leastResourceScorer: resources with allocatable 0 are left out of the mean."""
    def scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, req in enumerate(requested):
            if allocatable[i] == 0:
                continue
            w = resources[i].weight
            node_score += least_requested_score(req, allocatable[i]) * w
            weight_sum += w
        return go_div(node_score, weight_sum) if weight_sum else 0
    return scorer
