"""Default score normalization and Go integer arithmetic.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/helper/normalize_score.go``
(DefaultNormalizeScore) and ``helper/shape_score.go`` (BuildBrokenLinearFunction). Scores
are int64 in Go; every division here truncates toward zero as Go's does.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

from ...framework.interface import NodeScore


def go_div(a: int, b: int) -> int:
    """Go's int64 ``a / b``: the quotient truncated toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def go_round(x: float) -> int:
    """Go's math.Round: half away from zero (Python's round() is half to even)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> None:
    """DefaultNormalizeScore: scale to [0, max_priority] by the highest score, in place.

    All-zero scores stay 0 (or all become max_priority when reverse).
    """
    max_count = max((s.score for s in scores), default=0)
    max_count = max(max_count, 0)
    if max_count == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return
    for s in scores:
        v = go_div(max_priority * s.score, max_count)
        s.score = max_priority - v if reverse else v


def build_broken_linear_function(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """helper.BuildBrokenLinearFunction over (utilization, score) points sorted by utilization.

    Below the first point: its score; above the last: the last score; linear (truncated)
    in between.
    """
    def f(p: int) -> int:
        for i, (util, score) in enumerate(shape):
            if p <= util:
                if i == 0:
                    return shape[0][1]
                pu, ps = shape[i - 1]
                return ps + go_div((score - ps) * (p - pu), util - pu)
        return shape[-1][1]
    return f
