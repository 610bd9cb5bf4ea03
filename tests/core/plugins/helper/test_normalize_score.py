"""DefaultNormalizeScore, Go division and rounding, BuildBrokenLinearFunction.

Cases re-expressed from upstream helper/normalize_score_test.go and shape_score_test.go.
"""
from dataclasses import dataclass

import pytest
from hypothesis import given, strategies as st

from scheduler_core.framework.interface import NodeScore
from scheduler_core.plugins.helper.normalize_score import (build_broken_linear_function,
                                                           default_normalize_score, go_div,
                                                           go_round)


@dataclass
class Case:
    name: str
    reverse: bool
    scores: list
    want: list


CASES = [
    Case("scales by the highest score with truncation", False, [1, 2, 3, 4, 5],
         [20, 40, 60, 80, 100]),
    Case("reverse subtracts from max priority", True, [1, 2, 3, 4, 5], [80, 60, 40, 20, 0]),
    Case("truncates toward zero", False, [1, 2, 3], [33, 66, 100]),
    Case("all zero stays zero", False, [0, 0, 0], [0, 0, 0]),
    Case("all zero reversed becomes max", True, [0, 0, 0], [100, 100, 100]),
    Case("large values keep integer precision", False, [1000, 10, 20, 30, 40, 50],
         [100, 1, 2, 3, 4, 5]),
    Case("empty list is fine", False, [], []),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_default_normalize_score(case):
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(case.scores)]
    default_normalize_score(100, case.reverse, scores)
    assert [s.score for s in scores] == case.want


@pytest.mark.parametrize("a,b,want", [(7, 2, 3), (-7, 2, -3), (7, -2, -3), (-7, -2, 3), (0, 5, 0)])
def test_go_div_truncates_toward_zero(a, b, want):
    assert go_div(a, b) == want


@pytest.mark.parametrize("x,want", [(62.5, 63), (2.5, 3), (-2.5, -3), (2.4999, 2), (0.0, 0)])
def test_go_round_is_half_away_from_zero(x, want):
    assert go_round(x) == want


def test_broken_linear_function():
    f = build_broken_linear_function([(10, 1), (15, 2), (20, 3), (25, 4), (30, 5)])
    got = [f(p) for p in (-10, 0, 10, 12, 15, 17, 30, 100)]
    assert got == [1, 1, 1, 1, 2, 2, 5, 5]


def test_broken_linear_function_descending_truncates_like_go():
    f = build_broken_linear_function([(0, 100), (30, 0)])
    # 100 + (-100 * 10) / 30 = 100 - 33 in Go (Python floor division would give 66)
    assert f(10) == 67


@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6).filter(lambda b: b != 0))
def test_go_div_matches_truncated_true_division(a, b):
    assert go_div(a, b) == int(a / b)


@given(st.lists(st.integers(0, 10**9), max_size=20), st.booleans())
def test_normalized_scores_stay_in_range_and_keep_order(raw, reverse):
    scores = [NodeScore(str(i), s) for i, s in enumerate(raw)]
    default_normalize_score(100, reverse, scores)
    got = [s.score for s in scores]
    assert all(0 <= g <= 100 for g in got)
    for (a, ga) in zip(raw, got):
        for (b, gb) in zip(raw, got):
            if a <= b:
                assert (ga >= gb) if reverse else (ga <= gb)
