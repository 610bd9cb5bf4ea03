"""RequestedToCapacityRatio scoring strategy.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/noderesources/
requested_to_capacity_ratio.go``: a broken-line function of utilization (0..100) whose
shape scores (0..10, MaxCustomPriorityScore) are scaled by 10 to 0..100; the weighted mean
counts only resources scoring above 0 and is rounded half away from zero.
"""
from __future__ import annotations

from typing import Sequence

from ...config_args import ResourceSpec, UtilizationShapePoint
from ...framework.interface import MAX_NODE_SCORE
from ..helper.normalize_score import build_broken_linear_function, go_div, go_round

MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10  # config.MaxCustomPriorityScore


def requested_to_capacity_ratio_scorer(resources: Sequence[ResourceSpec],
                                       shape: Sequence[UtilizationShapePoint]):
    """requestedToCapacityRatioScorer: scale the shape, then build the scorer."""
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    points = [(p.utilization, p.score * scale) for p in shape]
    return _build_scorer(points, resources)


def _build_scorer(points: list[tuple[int, int]], resources: Sequence[ResourceSpec]):
    """buildRequestedToCapacityRatioScorerFunction."""
    raw = build_broken_linear_function(points)

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(go_div(requested * MAX_UTILIZATION, capacity))

    def scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, req in enumerate(requested):
            if allocatable[i] == 0:
                continue
            w = resources[i].weight
            s = resource_score(req, allocatable[i])
            if s > 0:
                node_score += s * w
                weight_sum += w
        return go_round(node_score / weight_sum) if weight_sum else 0
    return scorer
