"""Compiled loops (numba) for the hottest parts of a columnar cycle on large clusters.

Each kernel is one plugin's (or the search's) array arithmetic written as a loop, with
the same integer and float64 operations in the same order as the NumPy code it replaces,
so the results are equal bit for bit (numba compiles without fast-math: no reassociation,
no fused multiply-add). They pay where a cycle's NumPy calls are many and small: on
thousands of nodes, one compiled pass replaces a dozen array operations and their
per-call cost. Below ``MIN_NODES`` nodes, or without numba, the NumPy code runs.

The loops over nodes avoid branches on a node's values where they can (a table looked
up, a count added, ``min``/``max``): in a run, where each call comes between other work,
such a branch per node cost far more than in calls repeated on the same arrays
(PodTopologySpread's Filter at 5,000 nodes: 14 us a call with it, 4 us without).

Compiled code is cached on disk next to this module (``cache=True``), so only the first
run on a machine compiles.
"""
from __future__ import annotations

import os

import numpy as np

numba = None  # imported on the first large cluster (it costs a third of a second)
_tried = False

# Clusters this large use the kernels (WHATIF_KERNEL_MIN_NODES overrides; tests set 0).
MIN_NODES = int(os.environ.get("WHATIF_KERNEL_MIN_NODES", "1000"))
KERNELS = ("least_allocated", "balanced", "default_normalize", "interpod_normalize", "spread_add_domain",
           "spread_add_hostname", "spread_round", "spread_normalize", "fit_ok",
           "first_feasible", "present_min", "spread_filter", "fit_keys", "feasible_search",
           "feasible_at", "default_totals", "top_ties")


def available(n: int) -> bool:
    """Whether a cluster of n nodes runs the kernels (numba importable, n large enough)."""
    if n < MIN_NODES:
        return False
    if not _tried:
        _compile()
    return numba is not None


def _compile() -> None:
    """Import numba and replace each kernel below by its compiled form (lazily, per call
    signature; cached on disk)."""
    global numba, _tried
    _tried = True
    try:
        import numba as nb
    except ImportError:  # the NumPy code paths give the same answers
        return
    numba = nb
    module = globals()
    for name in KERNELS:
        module[name] = nb.njit(cache=True, nogil=True)(module[name])


def least_allocated(alloc_cpu, alloc_mem, nz_cpu, nz_mem, idx, q_cpu, q_mem, w_cpu, w_mem):
    """NodeResourcesFit LeastAllocated on cpu and memory (both allocatable everywhere)."""
    out = np.empty(len(idx), np.int64)
    for k in range(len(idx)):
        i = idx[k]
        # (more requested than allocatable scores 0, and so does nothing allocatable, as upstream)
        a = alloc_cpu[i]
        s_cpu = max(a - nz_cpu[i] - q_cpu, 0) * 100 // max(a, 1)
        a = alloc_mem[i]
        s_mem = max(a - nz_mem[i] - q_mem, 0) * 100 // max(a, 1)
        out[k] = (s_cpu * w_cpu + s_mem * w_mem) // (w_cpu + w_mem)
    return out


def balanced(alloc_cpu, alloc_mem, req_cpu, req_mem, idx, q_cpu, q_mem):
    """NodeResourcesBalancedAllocation on cpu and memory: int((1 - |f_cpu - f_mem| / 2) * 100)."""
    out = np.empty(len(idx), np.int64)
    for k in range(len(idx)):
        i = idx[k]
        f_cpu = min((req_cpu[i] + q_cpu) / alloc_cpu[i], 1.0)
        f_mem = min((req_mem[i] + q_mem) / alloc_mem[i], 1.0)
        out[k] = np.int64((1 - abs((f_cpu - f_mem) / 2)) * 100.0)
    return out


def default_normalize(scores, reverse):
    """helper.DefaultNormalizeScore(100, reverse) for scores >= 0."""
    top = 0
    for v in scores:
        if v > top:
            top = v
    out = np.empty(len(scores), np.int64)
    for k in range(len(scores)):
        if top == 0:
            out[k] = 100 if reverse else scores[k]
        else:
            v = 100 * scores[k] // top
            out[k] = 100 - v if reverse else v
    return out


def interpod_normalize(scores):
    """InterPodAffinity's NormalizeScore: int(100.0 * ((s - min) / (max - min))), zeros when
    every score is the same."""
    out = np.zeros(len(scores), np.int64)
    if len(scores) == 0:
        return out
    low = scores[0]
    high = scores[0]
    for v in scores:
        if v < low:
            low = v
        if v > high:
            high = v
    if high == low:
        return out
    diff = float(high - low)
    for k in range(len(scores)):
        out[k] = np.int64(100.0 * (float(scores[k] - low) / diff))
    return out


def spread_add_domain(acc, idx, slots, missing, lookup, weight, skew):
    """acc += count(domain) * weight + (maxSkew - 1), for nodes that have the key."""
    for k in range(len(idx)):
        i = idx[k]
        if not missing[i]:
            acc[k] = acc[k] + (lookup[slots[i]] * weight + skew)


def spread_add_hostname(acc, idx, counts, missing, weight, skew, out_counts):
    """The same with the node's own matching pods as the count (kept for explanations)."""
    for k in range(len(idx)):
        i = idx[k]
        c = counts[i]
        out_counts[k] = c
        if not missing[i]:
            acc[k] = acc[k] + (c * weight + skew)


def spread_round(acc, ignored):
    """math.Round of the sums (>= 0); ignored nodes 0."""
    out = np.empty(len(acc), np.int64)
    for k in range(len(acc)):
        if ignored[k]:
            out[k] = 0
        else:
            t = np.floor(acc[k])
            out[k] = np.int64(t) + (1 if acc[k] - t >= 0.5 else 0)
    return out


def spread_normalize(scores, ignored):
    """PodTopologySpread NormalizeScore: 100 * (max + min - s) / max over kept nodes."""
    top = np.int64(2 ** 62)
    lo = top
    hi = np.int64(0)
    kept = 0
    for k in range(len(scores)):
        s = scores[k]
        keep = not ignored[k]
        kept += keep
        lo = min(lo, s if keep else top)
        hi = max(hi, s if keep else 0)
    out = np.zeros(len(scores), np.int64)
    if kept == 0:
        return out
    if hi == 0:
        for k in range(len(scores)):
            out[k] = 0 if ignored[k] else 100
        return out
    for k in range(len(scores)):
        v = 100 * (hi + lo - scores[k]) // hi
        out[k] = 0 if ignored[k] else v
    return out


def fit_ok(room_pods, free_cpu, free_mem, q_cpu, q_mem):
    """NodeResourcesFit Filter passes: room for one more pod, cpu and memory (requests > 0)."""
    n = len(room_pods)
    out = np.empty(n, np.bool_)
    for i in range(n):
        out[i] = (room_pods[i] >= 1 and (q_cpu <= 0 or free_cpu[i] >= q_cpu)
                  and (q_mem <= 0 or free_mem[i] >= q_mem))
    return out


def fit_keys(room_pods, free_cpu, free_mem, alloc_cpu, alloc_mem, idx, add_count, add_cpu, add_mem,
             q_cpu, q_mem):
    """NodeResourcesFit's verdict on nodes idx as Fit._statuses keys them (cpu and memory
    requests only), with the k-th node's nominated pods added (add_count[k] more pods, add_cpu[k]
    and add_mem[k] more requested; zeros without): bit 1 too many pods, then one bit per
    requested resource in the order cpu, memory (the next bit up for each) set when it is short,
    and bit 0 when a short resource is above the node's whole allocatable."""
    out = np.empty(len(idx), np.int64)
    for k in range(len(idx)):
        i = idx[k]
        key = 2 if room_pods[i] - add_count[k] < 1 else 0
        bit = 2
        if q_cpu > 0:
            if free_cpu[i] - add_cpu[k] < q_cpu:
                key |= 1 << bit
                if alloc_cpu[i] < q_cpu:
                    key |= 1
            bit += 1
        if q_mem > 0:
            if free_mem[i] - add_mem[k] < q_mem:
                key |= 1 << bit
                if alloc_mem[i] < q_mem:
                    key |= 1
        out[k] = key
    return out


def present_min(cnt, present):
    """The smallest count among the domains present (present is not empty)."""
    lo = cnt[present[0]]
    for k in range(1, len(present)):
        v = cnt[present[k]]
        if v < lo:
            lo = v
    return lo


def spread_filter(status, ok, slots, cnt, threshold, skew_id, label_id):
    """PodTopologySpread Filter, one constraint folded into ``status`` (0: passing so
    far; a failed node keeps its first status): a node without the key (slot len(cnt))
    gets label_id, one whose domain count is over threshold (maxSkew - selfMatch +
    minMatch) skew_id; ``ok`` is status == 0 after it."""
    m = len(cnt)
    verdict = np.empty(m + 1, np.int32)  # per slot: 0, skew_id, or label_id for the missing key
    for v in range(m):
        verdict[v] = skew_id if cnt[v] > threshold else 0
    verdict[m] = label_id
    for i in range(len(slots)):
        s = status[i]
        s = s if s != 0 else verdict[slots[i]]
        status[i] = s
        ok[i] = s == 0


def first_feasible(ok, start, to_find):
    """From ``start``, wrapping, the first ``to_find`` positions where ok (in that order)
    and how many positions were looked at (all of them when fewer are feasible)."""
    n = len(ok)
    found = np.empty(min(to_find, n) + 1, np.int64)  # (one more: each position is written, kept if ok)
    f = 0
    seen = 0
    while seen < n and f < to_find:
        p = start + seen
        if p >= n:
            p -= n
        found[f] = p
        f += ok[p]
        seen += 1
    return found[:f], seen


def feasible_search(static_ok, room_pods, free_cpu, free_mem, q_cpu, q_mem, slots_a, cnt_a, thr_a,
                    slots_b, cnt_b, thr_b, start, to_find):
    """first_feasible over the verdicts of the static filters, NodeResourcesFit (``q_cpu`` < 0:
    not in the cycle) and two PodTopologySpread constraints (a domain's count not over its
    threshold; a slot past the counts, the key missing, fails; each ``cnt`` has at least one
    domain; a constraint the pod does not have is given as one that passes), each node's
    worked out when the walk reaches it (upstream's findNodesThatPassFilters): nodes past the
    point where it stops are not looked at. The ring walk is first_feasible's; the verdict is
    combined without a branch on the node's values (a branch per check: 10% slower in a run)
    and written out here and in feasible_at (in a helper numba inlines, the loop took 54 us
    instead of 3 us over 750 nodes)."""
    n = len(static_ok)
    no_fit = q_cpu < 0
    any_cpu, any_mem = q_cpu <= 0, q_mem <= 0
    last_a, last_b = len(cnt_a) - 1, len(cnt_b) - 1
    found = np.empty(min(to_find, n) + 1, np.int64)
    f = 0
    seen = 0
    while seen < n and f < to_find:
        p = start + seen
        if p >= n:
            p -= n
        found[f] = p
        fits = (room_pods[p] >= 1) & (any_cpu | (free_cpu[p] >= q_cpu)) & (any_mem | (free_mem[p] >= q_mem))
        va, vb = slots_a[p], slots_b[p]
        good = static_ok[p] & (no_fit | fits) & (va <= last_a) & (cnt_a[min(va, last_a)] <= thr_a) \
            & (vb <= last_b) & (cnt_b[min(vb, last_b)] <= thr_b)
        f += good
        seen += 1
    return found[:f], seen


def feasible_at(idx, static_ok, room_pods, free_cpu, free_mem, q_cpu, q_mem, slots_a, cnt_a, thr_a,
                slots_b, cnt_b, thr_b):
    """Whether any of nodes idx passes, by feasible_search's verdict."""
    no_fit = q_cpu < 0
    any_cpu, any_mem = q_cpu <= 0, q_mem <= 0
    last_a, last_b = len(cnt_a) - 1, len(cnt_b) - 1
    for k in range(len(idx)):
        p = idx[k]
        fits = (room_pods[p] >= 1) & (any_cpu | (free_cpu[p] >= q_cpu)) & (any_mem | (free_mem[p] >= q_mem))
        va, vb = slots_a[p], slots_b[p]
        if static_ok[p] & (no_fit | fits) & (va <= last_a) & (cnt_a[min(va, last_a)] <= thr_a) \
                & (vb <= last_b) & (cnt_b[min(vb, last_b)] <= thr_b):
            return True
    return False


def default_totals(idx, alloc_cpu, alloc_mem, nz_cpu, nz_mem, req_cpu, req_mem,
                   fit_cpu, fit_mem, fit_w_cpu, fit_w_mem, w_fit, bal_cpu, bal_mem, w_bal,
                   na_raw, w_na, keys_a, vals_a, missing_a, mult_a, skew_a,
                   keys_b, vals_b, missing_b, mult_b, skew_b, soft, ignored, w_spread, constant):
    """The weighted total of each of nodes idx over the usual Score plugins, each normalized
    as its own kernel does it: NodeResourcesFit's least_allocated, BalancedAllocation's
    balanced, NodeAffinity's preferred-term sums (``na_raw``, per node) through
    default_normalize, and PodTopologySpread's up to two ScheduleAnyway constraints (``soft``
    of them; a count looked up as ``vals[keys[node]]``) through spread_add_*, spread_round
    and spread_normalize; ``constant`` the weighted sum of the plugins that score every node
    alike. A weight of 0 leaves a plugin out (a PreScore Skip)."""
    m = len(idx)
    total = np.empty(m, np.int64)
    spread = np.zeros(m, np.int64)
    na_top = 0
    for k in range(m):
        i = idx[k]
        t = constant
        if w_fit:
            a = alloc_cpu[i]
            s_cpu = max(a - nz_cpu[i] - fit_cpu, 0) * 100 // max(a, 1)
            a = alloc_mem[i]
            s_mem = max(a - nz_mem[i] - fit_mem, 0) * 100 // max(a, 1)
            t += (s_cpu * fit_w_cpu + s_mem * fit_w_mem) // (fit_w_cpu + fit_w_mem) * w_fit
        if w_bal:
            f_cpu = min((req_cpu[i] + bal_cpu) / alloc_cpu[i], 1.0)
            f_mem = min((req_mem[i] + bal_mem) / alloc_mem[i], 1.0)
            t += np.int64((1 - abs((f_cpu - f_mem) / 2)) * 100.0) * w_bal
        if w_na:
            na_top = max(na_top, na_raw[i])
        if w_spread:
            acc = 0.0
            if soft >= 1 and not missing_a[i]:
                acc = acc + (vals_a[keys_a[i]] * mult_a + skew_a)
            if soft >= 2 and not missing_b[i]:
                acc = acc + (vals_b[keys_b[i]] * mult_b + skew_b)
            if not ignored[k]:
                fl = np.floor(acc)
                spread[k] = np.int64(fl) + (1 if acc - fl >= 0.5 else 0)
        total[k] = t
    if w_na:
        for k in range(m):
            raw = na_raw[idx[k]]
            total[k] += (raw if na_top == 0 else 100 * raw // na_top) * w_na
    if w_spread:
        top = np.int64(2 ** 62)
        lo = top
        hi = np.int64(0)
        kept = 0
        for k in range(m):
            keep = not ignored[k]
            kept += keep
            lo = min(lo, spread[k] if keep else top)
            hi = max(hi, spread[k] if keep else 0)
        if kept:
            for k in range(m):
                if not ignored[k]:
                    total[k] += (100 if hi == 0 else 100 * (hi + lo - spread[k]) // hi) * w_spread
    return total


def top_ties(totals):
    """selectHost's candidates: the positions of the highest total, in order (numpy's
    ``(totals == totals.max()).nonzero()[0]``, three calls on a few hundred nodes)."""
    best = totals[0]
    for v in totals:
        best = max(best, v)
    ties = np.empty(len(totals), np.int64)
    k = 0
    for i in range(len(totals)):
        ties[k] = i
        k += totals[i] == best
    return ties[:k]


def warm() -> None:
    """Compile (or load from the disk cache) every kernel for the argument types a
    simulation uses, so that a large run does not pay for it on its first cycle. The
    loader calls this for large scenarios: preparing the engine is part of loading."""
    if not available(MIN_NODES):
        return
    i64 = np.zeros(2, np.int64)
    idx = np.zeros(1, np.int64)
    ok = np.ones(2, np.bool_)
    acc = np.zeros(1)
    least_allocated(i64 + 1, i64 + 1, i64, i64, idx, 1, 1, 1, 1)
    balanced(i64 + 1, i64 + 1, i64, i64, idx, 1, 1)
    default_normalize(i64, True)
    interpod_normalize(i64)
    spread_add_domain(acc, idx, i64, ok, i64, 1.0, 0.0)
    spread_add_hostname(acc, idx, i64, ok, 1.0, 0.0, np.zeros(1, np.int64))
    spread_round(acc, ok[:1])
    spread_normalize(i64, ok)
    fit_ok(i64, i64, i64, 1, 1)
    first_feasible(ok, 0, 1)
    present_min(i64, idx)
    spread_filter(np.zeros(2, np.int32), ok.copy(), np.zeros(2, np.intp), i64, 1, 1, 2)
    fit_keys(i64, i64, i64, i64, i64, np.zeros(1, np.intp), i64, i64, i64, 1, 1)
    slots = np.zeros(2, np.intp)
    feasible_search(ok, i64, i64, i64, 1, 1, slots, i64, 1, slots, i64, 1, 0, 1)
    feasible_at(idx, ok, i64, i64, i64, 1, 1, slots, i64, 1, slots, i64, 1)
    top_ties(i64)
    default_totals(idx, i64 + 1, i64 + 1, i64, i64, i64, i64, 1, 1, 1, 1, 1, 1, 1, 1, i64, 1,
                   slots, i64, ok, 1.0, 0.0, slots, i64, ok, 1.0, 0.0, 2, ok, 1, 0)
