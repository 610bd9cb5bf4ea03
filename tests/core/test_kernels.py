"""The compiled loops (columnar/kernels.py) give what the NumPy code of the same plugin gives,
value for value, on arrays chosen to reach their edges: nodes without the topology key, a
second constraint over nodes a first one already failed, no feasible node, the ring walked
round, ignored nodes, every score 0, requests above a node's allocatable and nodes with nothing
allocatable. The whole cycle on both paths is compared in test_columnar.py."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from scheduler_core.columnar import kernels

pytestmark = pytest.mark.skipif(not kernels.available(10**9),  # (compiles them)
                                reason="numba is not installed")

SKEW, LABEL = 7, 9
ints = st.integers(min_value=0, max_value=60)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_spread_filter_folds_a_constraint_as_the_numpy_lookup_does(data) -> None:
    m = data.draw(st.integers(1, 6), "domains")
    slots = np.array(data.draw(st.lists(st.integers(0, m), min_size=1, max_size=40), "slots"), np.int64)
    cnt = np.array(data.draw(st.lists(ints, min_size=m, max_size=m), "counts"), np.int64)
    threshold = data.draw(ints, "threshold")
    # a first constraint may have failed some nodes already (their status is kept)
    before = np.array(data.draw(st.lists(st.sampled_from([0, 0, 3]), min_size=len(slots),
                                         max_size=len(slots)), "status"), np.int32)
    lut = np.append((cnt > threshold) * SKEW, LABEL).astype(np.int32)
    expected = np.where(before == 0, lut[slots], before)
    status, ok = before.copy(), np.empty(len(slots), bool)
    kernels.spread_filter(status, ok, slots, cnt, threshold, SKEW, LABEL)
    assert status.tolist() == expected.tolist()
    assert ok.tolist() == (expected == 0).tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 3), st.integers(-3, 300)), min_size=1, max_size=40))
def test_top_ties_are_the_positions_of_the_highest_total_in_order(totals) -> None:
    # (a few distinct values, so that ties are common; the last node may be the only best)
    t = np.array(totals, np.int64)
    assert kernels.top_ties(t).tolist() == (t == t.max()).nonzero()[0].tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=30), st.data())
def test_first_feasible_walks_the_ring_from_the_start_as_the_numpy_search_does(flags, data) -> None:
    ok = np.array(flags, bool)
    n = len(ok)
    start = data.draw(st.integers(0, n - 1), "start")
    to_find = data.draw(st.integers(0, n + 2), "to_find")
    order = [(start + k) % n for k in range(n)]
    feasible = [p for p in order if ok[p]][:to_find]
    looked = n if len(feasible) < to_find or not to_find else order.index(feasible[-1]) + 1
    if to_find == 0:
        looked = 0
    found, seen = kernels.first_feasible(ok, start, to_find)
    assert (found.tolist(), seen) == (feasible, looked)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(ints, st.booleans()), min_size=1, max_size=30))
def test_spread_normalize_scores_the_kept_nodes_as_upstream(nodes) -> None:
    scores = np.array([s for s, _ in nodes], np.int64)
    ignored = np.array([i for _, i in nodes], bool)
    kept = scores[~ignored]
    if len(kept) == 0:
        expected = np.zeros(len(scores), np.int64)
    else:
        lo, hi = int(kept.min()), max(int(kept.max()), 0)
        expected = np.where(ignored, 0, 100 if hi == 0 else 100 * (hi + lo - scores) // max(hi, 1))
    assert kernels.spread_normalize(scores, ignored).tolist() == expected.tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 16_000), st.integers(0, 16_000), st.integers(0, 64 << 30),
                          st.integers(0, 64 << 30)), min_size=1, max_size=20),
       st.integers(0, 4_000), st.integers(0, 8 << 30), st.integers(1, 3), st.integers(1, 3))
def test_least_allocated_scores_as_upstream_and_zero_where_nothing_is_left(nodes, q_cpu, q_mem, w_cpu, w_mem) -> None:
    alloc_cpu, nz_cpu, alloc_mem, nz_mem = (np.array(col, np.int64) for col in zip(*nodes))
    idx = np.arange(len(nodes), dtype=np.int64)[::-1].copy()

    def least(alloc, requested):  # leastRequestedScore: 0 when nothing is allocatable or it is exceeded
        return [0 if a == 0 or r > a else (a - r) * 100 // a for a, r in zip(alloc.tolist(), requested.tolist())]

    s_cpu, s_mem = least(alloc_cpu[idx], nz_cpu[idx] + q_cpu), least(alloc_mem[idx], nz_mem[idx] + q_mem)
    expected = [(c * w_cpu + m * w_mem) // (w_cpu + w_mem) for c, m in zip(s_cpu, s_mem)]
    got = kernels.least_allocated(alloc_cpu, alloc_mem, nz_cpu, nz_mem, idx, q_cpu, q_mem, w_cpu, w_mem)
    assert got.tolist() == expected


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_feasible_search_walks_as_the_filters_over_every_node_then_the_search(data) -> None:
    """The walk's verdict per node is the node-static filters' flag, fit_ok (or no NodeResourcesFit
    at all) and spread_filter's over two constraints; its search is first_feasible's over them."""
    n = data.draw(st.integers(1, 30), "nodes")
    nodes = st.lists(st.integers(-2, 4), min_size=n, max_size=n)
    static_ok = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n), "static"), bool)
    room = np.array(data.draw(nodes, "room"), np.int64)
    free_cpu = np.array(data.draw(nodes, "free cpu"), np.int64)  # (below 0: an overcommitted node)
    free_mem = np.array(data.draw(nodes, "free memory"), np.int64)
    q_cpu = data.draw(st.integers(-1, 3), "cpu request")  # -1: the cycle has no NodeResourcesFit
    q_mem = data.draw(st.integers(0, 3), "memory request")
    constraints = []
    for name in ("a", "b"):
        m = data.draw(st.integers(1, 4), f"domains {name}")
        slots = np.array(data.draw(st.lists(st.integers(0, m), min_size=n, max_size=n), f"slots {name}"),
                         np.intp)  # (slot m: the node lacks the key)
        cnt = np.array(data.draw(st.lists(st.integers(0, 5), min_size=m, max_size=m), f"counts {name}"),
                       np.int64)
        constraints.append((slots, cnt, data.draw(st.integers(0, 5), f"threshold {name}")))
    expected_ok = static_ok.copy()
    if q_cpu >= 0:
        expected_ok &= kernels.fit_ok(room, free_cpu, free_mem, q_cpu, q_mem)
    status = np.zeros(n, np.int32)
    for slots, cnt, threshold in constraints:
        spread_ok = np.empty(n, bool)
        kernels.spread_filter(status, spread_ok, slots, cnt, threshold, SKEW, LABEL)
    expected_ok &= status == 0
    start = data.draw(st.integers(0, n - 1), "start")
    to_find = data.draw(st.integers(1, n + 2), "to_find")
    args = (static_ok, room, free_cpu, free_mem, q_cpu, q_mem, *constraints[0], *constraints[1])
    found, seen = kernels.feasible_search(*args, start, to_find)
    feasible, looked = kernels.first_feasible(expected_ok, start, to_find)
    assert (found.tolist(), seen) == (feasible.tolist(), looked)
    idx = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=5), "nominated nodes"), np.intp)
    assert kernels.feasible_at(idx, *args) == bool(expected_ok[idx].any())


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_default_totals_sum_the_usual_plugins_as_their_own_kernels_score_them(data) -> None:
    """default_totals against least_allocated, balanced, default_normalize and spread_add_*,
    spread_round and spread_normalize, weighted and summed; each plugin may be left out."""
    n = data.draw(st.integers(1, 25), "nodes")
    per_node = lambda lo, hi, name: np.array(data.draw(  # noqa: E731
        st.lists(st.integers(lo, hi), min_size=n, max_size=n), name), np.int64)
    alloc_cpu, alloc_mem = per_node(0, 8_000, "cpu allocatable"), per_node(1, 64 << 30, "memory allocatable")
    alloc_cpu[alloc_cpu == 0] = 1  # (balanced divides by it: the plugin's compiled case has both everywhere)
    req_cpu, req_mem = per_node(0, 9_000, "cpu requested"), per_node(0, 70 << 30, "memory requested")
    nz_cpu, nz_mem = per_node(0, 9_000, "cpu non-zero"), per_node(0, 70 << 30, "memory non-zero")
    idx = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True), "idx"),
                   np.intp)
    fit = (data.draw(st.integers(0, 4_000)), data.draw(st.integers(0, 8 << 30)), data.draw(st.integers(1, 3)),
           data.draw(st.integers(1, 3)), data.draw(st.integers(0, 3)))
    bal = (data.draw(st.integers(0, 4_000)), data.draw(st.integers(0, 8 << 30)), data.draw(st.integers(0, 3)))
    na_raw, w_na = per_node(0, 300, "node affinity"), data.draw(st.integers(0, 3), "node affinity weight")
    soft, hostname = [], []
    for name in ("a", "b")[:data.draw(st.integers(0, 2), "soft constraints")]:
        m = data.draw(st.integers(1, 4), f"domains {name}")
        hostname.append(data.draw(st.booleans(), f"hostname {name}"))
        if hostname[-1]:
            keys, vals = np.arange(n, dtype=np.intp), per_node(0, 9, f"counts {name}")
        else:
            keys = np.array(data.draw(st.lists(st.integers(0, m), min_size=n, max_size=n)), np.intp)
            vals = np.array(data.draw(st.lists(st.integers(0, 9), min_size=m + 1, max_size=m + 1)), np.int64)
        missing = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n), f"missing {name}"), bool)
        soft.append((keys, vals, missing, data.draw(st.floats(0.5, 3.0), f"weight {name}"),
                     float(data.draw(st.integers(0, 3), f"skew {name}"))))
    ignored = np.array(data.draw(st.lists(st.booleans(), min_size=len(idx), max_size=len(idx))), bool)
    w_spread = data.draw(st.integers(0, 3), "spread weight")
    constant = data.draw(st.integers(0, 300), "constant")

    expected = np.full(len(idx), constant, np.int64)
    if fit[4]:
        expected += kernels.least_allocated(alloc_cpu, alloc_mem, nz_cpu, nz_mem, idx, *fit[:4]) * fit[4]
    if bal[2]:
        expected += kernels.balanced(alloc_cpu, alloc_mem, req_cpu, req_mem, idx, bal[0], bal[1]) * bal[2]
    if w_na:
        expected += kernels.default_normalize(na_raw[idx], False) * w_na
    if w_spread:
        acc = np.zeros(len(idx))
        for (keys, vals, missing, weight, skew), own_node in zip(soft, hostname):
            if own_node:
                kernels.spread_add_hostname(acc, idx, vals, missing, weight, skew, np.empty(len(idx), np.int64))
            else:
                kernels.spread_add_domain(acc, idx, keys, missing, vals, weight, skew)
        expected += kernels.spread_normalize(kernels.spread_round(acc, ignored), ignored) * w_spread
    none = (np.zeros(1, np.intp), np.zeros(1, np.int64), np.zeros(1, bool), 0.0, 0.0)
    a, b = (soft + [none, none])[:2]
    got = kernels.default_totals(idx, alloc_cpu, alloc_mem, nz_cpu, nz_mem, req_cpu, req_mem, *fit, *bal,
                                 na_raw, w_na, *a, *b, len(soft), ignored, w_spread, constant)
    assert got.tolist() == expected.tolist()
