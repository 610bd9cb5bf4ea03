"""Decoder.interned: a manifest value decoded once is reused only for an equal value.

The pods of a workload repeat their containers, tolerations and affinity; each distinct
value is decoded once per load. Two values that decode differently must never share.
"""
from __future__ import annotations

import copy
import datetime

import pytest

from scheduler_core.k8s.decode import Decoder

NAN, INF = float("nan"), float("inf")


def _decodes(values: list) -> list[int]:
    """Which decode each value got (the number of the call that decoded it)."""
    d = Decoder("f.yaml", "Pod default/p", memo={})
    calls: list = []
    return [d.interned("k", v, lambda: calls.append(1) or len(calls)) for v in values]


@pytest.mark.parametrize("a, b", [
    ([1], [1.0]), ([1], [True]), ([0], [False]), ([1.0], [True]),
    ({"a": None}, {"a": NAN}), ({"a": None}, {"a": INF}), ({"a": INF}, {"a": -INF}), ({"a": NAN}, {"a": INF}),
    ({1: "x"}, {"1": "x"}), ({True: "x"}, {"true": "x"}),
    (["2026-01-01T00:00:00"], [datetime.datetime(2026, 1, 1)]),
    ([2 ** 70], [float(2 ** 70)]), ([2 ** 64], [2 ** 64 + 1]),
    ({"a": 1, "b": 2}, {"a": 1, "b": 3}), (["x"], ["x "]), ("null", None), ([-0.0], [0.0]),
    (["\ud800"], ["\ud801"]),
], ids=lambda v: repr(v)[:30])
def test_values_that_differ_are_decoded_each(a, b) -> None:
    assert _decodes([a, b, a, b]) == [1, 2, 1, 2]


@pytest.mark.parametrize("value", [
    [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}], {"a": None, "b": [1, 2.5, True]},
    {"a": NAN}, {1: [INF]}, [2 ** 70], [datetime.datetime(2026, 1, 1)], "x", 5,
], ids=lambda v: repr(v)[:30])
def test_an_equal_value_reuses_the_first_decode(value) -> None:
    again = copy.deepcopy(value)
    assert _decodes([value, again]) == [1, 1]
