"""NodeResourcesFit and NodeResourcesBalancedAllocation over node arrays.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/noderesources/``:
``fit.go`` (fitsRequest: pods, cpu, memory, ephemeral-storage, then scalar resources by
name; Unschedulable, or UnschedulableAndUnresolvable when a request exceeds the whole
allocatable), ``resource_allocation.go`` (requested incl. the pod vs allocatable per
configured resource), ``least_allocated.go``, ``most_allocated.go`` and
``balanced_allocation.go`` in integer / float64 arithmetic equal to the reference
modules'. RequestedToCapacityRatio calls the reference scorer node by node.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...config_args import LEAST_ALLOCATED, MOST_ALLOCATED
from ...framework.cycle_state import CycleState
from ...framework.interface import SKIP, SUCCESS, Code, Status
from ...framework.types import PodInfo, Resource
from ...k8s.shared_memo import MISS, IdentityMemo
from ...k8s.types import CPU, EPHEMERAL_STORAGE, MEMORY, Pod
from ...plugins.noderesources import balanced_allocation as ba
from ...plugins.noderesources import fit
from ...plugins.noderesources.resource_allocation import (ResourceAllocationScorer,
                                                          is_scalar_resource_name)
from ..node_groups import TemplateCache
from .. import kernels
from . import ColumnarPlugin

INT = np.int64


class Fit(ColumnarPlugin):
    """noderesources.Fit (NodeResourcesFit)."""

    NAME = fit.NODE_RESOURCES_FIT

    def __init__(self, ref, ctx) -> None:
        super().__init__(ref, ctx)
        self._requests = TemplateCache()
        self._score_requests = TemplateCache()
        self._added_key = None
        self._added: tuple = ()
        # per list of nominated PodInfos, its _pod_sums: the lists stay the same while the
        # nominations do, and each cycle passes those of the nodes it still has to try
        self._sums_of: IdentityMemo[tuple] = IdentityMemo()

    # --- PreFilter / Filter ----------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence):
        """PreFilter: the pod's requests (computePodResourceRequest), once per request set."""
        s = self.ctx.template(self.name("pre_filter"), (pod.requests,), lambda: self._requests.get(
            tuple(sorted(pod.requests.items())),
            lambda: fit._PreFilterState(fit.compute_pod_resource_request(pod))))
        state.write(fit.PRE_FILTER_STATE_KEY, s)
        return None, SUCCESS

    def _request(self, state: CycleState) -> Resource:
        return state.read(fit.PRE_FILTER_STATE_KEY).request

    def _scalars(self, r: Resource) -> list[tuple[str, int]]:
        """Scalar requests fitsRequest checks, by name: non-zero and not ignored."""
        return [(name, want) for name, want in sorted(r.scalar_resources.items())
                if want and not fit._ignored(name, self.ref.ignored_resources,
                                             self.ref.ignored_resource_groups)]

    def filter_ok(self, state: CycleState, pod: Pod) -> np.ndarray:
        """Filter: enough room for one more pod and for every requested resource."""
        t, r = self.ctx.table, self._request(state)
        if kernels.available(t.n) and not (r.ephemeral_storage or r.scalar_resources):
            return kernels.fit_ok(t.room_pods, t.free_cpu, t.free_mem, r.milli_cpu, r.memory)
        ok = t.room_pods >= 1
        if r.milli_cpu > 0:
            ok &= t.free_cpu >= r.milli_cpu
        if r.memory > 0:
            ok &= t.free_mem >= r.memory
        if r.ephemeral_storage > 0:
            ok &= t.alloc_eph - t.req_eph >= r.ephemeral_storage
        for name, want in self._scalars(r):
            ok &= t.scalar_allocatable(name) - t.scalar_requested(name) >= want
        return ok

    def walk_request(self, state: CycleState) -> tuple[int, int] | None:
        """(cpu, memory) requested, for the node walk (kernels.feasible_search), when the pod
        asks for nothing else (filter_ok's compiled case); else None."""
        r = self._request(state)
        if r.ephemeral_storage or r.scalar_resources:
            return None
        return r.milli_cpu, r.memory

    def filter_status(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        t, r = self.ctx.table, self._request(state)
        if kernels.available(t.n) and not (r.ephemeral_storage or r.scalar_resources):
            idx = np.asarray(idx, np.intp)
            none = np.zeros(len(idx), INT)
            keys = kernels.fit_keys(t.room_pods, t.free_cpu, t.free_mem, t.alloc_cpu, t.alloc_mem,
                                    idx, none, none, none, r.milli_cpu, r.memory)
            return self._interned(keys, self._reasons(r))
        return self._statuses(state, idx, t.room_pods[idx], t.free_cpu[idx], t.free_mem[idx],
                              (t.alloc_eph - t.req_eph)[idx], {})

    def filter_status_with(self, state: CycleState, pod: Pod, idx: np.ndarray,
                           added: Sequence[Sequence[PodInfo]], key=None) -> np.ndarray:
        """The verdicts with the nominated pods' requests added on their nodes."""
        t = self.ctx.table
        if key is None or self._added_key != key:
            self._added_key, self._added = key, _added_requests(added, self._sums_of)
        count, cpu, mem, eph, scalar = self._added
        r = self._request(state)
        if kernels.available(t.n) and not (r.ephemeral_storage or r.scalar_resources):
            return self._interned(kernels.fit_keys(
                t.room_pods, t.free_cpu, t.free_mem, t.alloc_cpu, t.alloc_mem, np.asarray(idx, np.intp),
                count, cpu, mem, r.milli_cpu, r.memory), self._reasons(r))
        return self._statuses(state, idx, t.room_pods[idx] - count, t.free_cpu[idx] - cpu,
                              t.free_mem[idx] - mem, (t.alloc_eph - t.req_eph)[idx] - eph,
                              scalar)

    @staticmethod
    def _reasons(r: Resource) -> list[str]:
        """kernels.fit_keys' reasons, bit by bit: too many pods, then cpu and memory where requested."""
        return [fit.ERR_REASON_TOO_MANY_PODS] + [
            fit.ERR_REASON_INSUFFICIENT.format(name)
            for name, want in ((CPU, r.milli_cpu), (MEMORY, r.memory)) if want > 0]

    def _statuses(self, state: CycleState, idx: np.ndarray, room, free_cpu, free_mem,
                  free_eph, extra_scalar: dict) -> np.ndarray:
        """fitsRequest for nodes idx given their free room: one interned Status per
        distinct combination of insufficient resources."""
        t, r = self.ctx.table, self._request(state)
        reasons = [fit.ERR_REASON_TOO_MANY_PODS]
        short = [room < 1]
        beyond = [np.zeros(len(idx), bool)]  # a request above the whole allocatable
        if r.milli_cpu or r.memory or r.ephemeral_storage or r.scalar_resources:
            for name, want, free, alloc in (
                    (CPU, r.milli_cpu, free_cpu, t.alloc_cpu),
                    (MEMORY, r.memory, free_mem, t.alloc_mem),
                    (EPHEMERAL_STORAGE, r.ephemeral_storage, free_eph, t.alloc_eph)):
                if want > 0:
                    reasons.append(fit.ERR_REASON_INSUFFICIENT.format(name))
                    short.append(free < want)
                    beyond.append(alloc[idx] < want)
            for name, want in self._scalars(r):
                alloc = t.scalar_allocatable(name)[idx]
                used = t.scalar_requested(name)[idx] + extra_scalar.get(name, 0)
                reasons.append(fit.ERR_REASON_INSUFFICIENT.format(name))
                short.append(alloc - used < want)
                beyond.append(alloc < want)
        key = np.zeros(len(idx), INT)
        for bit, (s, b) in enumerate(zip(short, beyond)):
            key |= s.astype(INT) << (bit + 1)
            key |= (s & b).astype(INT)
        return self._interned(key, reasons)

    def _interned(self, key: np.ndarray, reasons: list[str]) -> np.ndarray:
        """The status id of each key (_statuses' bits over reasons)."""
        present = (np.bincount(key)).nonzero()[0] if len(key) else ()
        lut = np.zeros(int(present[-1]) + 1 if len(present) else 1, np.int32)
        for k in present:
            if k == 0:
                continue
            why = tuple(reasons[bit] for bit in range(len(reasons)) if k >> (bit + 1) & 1)
            code = Code.UnschedulableAndUnresolvable if k & 1 else Code.Unschedulable
            lut[k] = self.ctx.statuses.intern(Status(code, why, self.NAME))
        return lut[key]

    # --- PreScore / Score --------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> Status:
        """PreScore: the pod's (non-zero) request per scoring resource."""
        s = self.ctx.template(self.name("pre_score"), (pod.containers, pod.init_containers,
                                                   pod.overhead), lambda: self._score_requests.get(
            _pod_key(pod), lambda: fit._PreScoreState(
                self.ref.scorer.calculate_pod_resource_request_list(pod))))
        state.write(fit.PRE_SCORE_STATE_KEY, s)
        return SUCCESS

    def totals_arguments(self, state: CycleState) -> tuple[int, int, int, int] | None:
        """(cpu, memory requested, cpu, memory weight) for kernels.default_totals when score()
        takes its compiled LeastAllocated case; else None."""
        weights = _cpu_memory_weights(self.ref.scorer, self.ctx.table)
        if weights is None or self.ref.scorer.name != LEAST_ALLOCATED:
            return None
        reqs = state.read(fit.PRE_SCORE_STATE_KEY).pod_requests
        return reqs[0], reqs[1], weights[0], weights[1]

    def score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        reqs = state.read(fit.PRE_SCORE_STATE_KEY).pod_requests
        t = self.ctx.table
        weights = _cpu_memory_weights(self.ref.scorer, t)
        if weights is None or self.ref.scorer.name != LEAST_ALLOCATED:
            return strategy_scores(self.ref.scorer, t, idx, reqs)
        # the default: LeastAllocated on cpu and memory, every node has both
        if kernels.available(t.n):
            return kernels.least_allocated(t.alloc_cpu, t.alloc_mem, t.nz_cpu, t.nz_mem, idx,
                                           reqs[0], reqs[1], weights[0], weights[1])
        a_c, a_m = t.alloc_cpu[idx], t.alloc_mem[idx]
        s_c = np.maximum(a_c - t.nz_cpu[idx] - reqs[0], 0) * 100 // a_c
        s_m = np.maximum(a_m - t.nz_mem[idx] - reqs[1], 0) * 100 // a_m
        w_c, w_m = weights
        return (s_c * w_c + s_m * w_m) // (w_c + w_m)


class BalancedAllocation(ColumnarPlugin):
    """noderesources.BalancedAllocation."""

    NAME = ba.NODE_RESOURCES_BALANCED_ALLOCATION

    def __init__(self, ref, ctx) -> None:
        super().__init__(ref, ctx)
        self._requests = TemplateCache()

    def pre_score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> Status:
        """PreScore: the pod's requests; Skip for a pod requesting none of the resources."""
        found = self.ctx.template(self.name("pre_score"), (pod.requests,), lambda: self._requests.get(
            tuple(sorted(pod.requests.items())), lambda: self._pre_score_state(pod)))
        if found is None:
            return SKIP
        state.write(ba.PRE_SCORE_STATE_KEY, found)
        return SUCCESS

    def _pre_score_state(self, pod: Pod):
        """The state PreScore writes for the pod's requests (the same object for every pod
        requesting the same: nothing changes it), None for a best-effort pod."""
        reqs = self.ref.scorer.calculate_pod_resource_request_list(pod)
        return None if self.ref.scorer.is_best_effort_pod(reqs) else ba._PreScoreState(reqs)

    def totals_arguments(self, state: CycleState) -> tuple[int, int] | None:
        """(cpu, memory requested) for kernels.default_totals when score() takes its compiled
        case (cpu and memory, every node has both); else None."""
        if _cpu_memory_weights(self.ref.scorer, self.ctx.table) is None:
            return None
        reqs = state.read(ba.PRE_SCORE_STATE_KEY).pod_requests
        return reqs[0], reqs[1]

    def score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        reqs = state.read(ba.PRE_SCORE_STATE_KEY).pod_requests
        t = self.ctx.table
        if _cpu_memory_weights(self.ref.scorer, t) is None:
            allocs, requested = requested_and_allocatable(self.ref.scorer, t, idx, reqs)
            return balanced_scores(allocs, requested)
        # the default: cpu and memory, every node has both
        if kernels.available(t.n):
            return kernels.balanced(t.alloc_cpu, t.alloc_mem, t.req_cpu, t.req_mem, idx,
                                    reqs[0], reqs[1])
        f_c = np.minimum((t.req_cpu[idx] + reqs[0]) / t.alloc_cpu[idx], 1.0)
        f_m = np.minimum((t.req_mem[idx] + reqs[1]) / t.alloc_mem[idx], 1.0)
        return ((1 - np.abs((f_c - f_m) / 2)) * 100.0).astype(INT)


def _cpu_memory_weights(scorer: ResourceAllocationScorer, t) -> tuple[int, int] | None:
    """(cpu weight, memory weight) when the scorer uses exactly cpu then memory and every
    node has both allocatable (nothing is left out of the mean); else None."""
    res = scorer.resources
    if len(res) != 2 or res[0].name != CPU or res[1].name != MEMORY or not t.cpu_memory_everywhere:
        return None
    return res[0].weight, res[1].weight


def _added_requests(added: Sequence[Sequence[PodInfo]], memo: IdentityMemo | None = None) -> tuple:
    """Per node: how many nominated pods, and their cpu, memory, ephemeral storage and
    scalar requests (name -> array). ``memo`` keeps each list's sums by its identity."""
    k = len(added)
    rows = []
    for pods in added:
        sums = memo.get(pods) if memo is not None else MISS
        if sums is MISS:
            sums = _pod_sums(pods)
            if memo is not None:
                memo.put(sums, pods)
        rows.append(sums)
    count, cpu, mem, eph = np.array([r[:4] for r in rows], INT).reshape(k, 4).T.copy()
    scalar: dict[str, np.ndarray] = {}
    for j, r in enumerate(rows):
        for name, v in r[4]:
            scalar.setdefault(name, np.zeros(k, INT))[j] += v
    return count, cpu, mem, eph, scalar

def _pod_sums(pods: Sequence[PodInfo]) -> tuple:
    """How many pods, their cpu, memory and ephemeral storage requests, and their scalar
    requests as (name, amount) pairs."""
    cpu = mem = eph = 0
    scalars: dict[str, int] = {}
    for pi in pods:
        req = pi.requests
        cpu += req.get(CPU, 0)
        mem += req.get(MEMORY, 0)
        eph += req.get(EPHEMERAL_STORAGE, 0)
        for name, v in req.items():
            if is_scalar_resource_name(name):
                scalars[name] = scalars.get(name, 0) + v
    return len(pods), cpu, mem, eph, tuple(scalars.items())


def _pod_key(pod: Pod):
    """What the non-zero requests of a pod depend on (containers' requests, which init
    containers are sidecars, the overhead)."""
    def containers(cs):
        return tuple((tuple(sorted(c.requests.items())), c.restart_policy) for c in cs)
    return (containers(pod.containers), containers(pod.init_containers),
            tuple(sorted(pod.overhead.items())))


def requested_and_allocatable(scorer: ResourceAllocationScorer, t, idx: np.ndarray,
                              pod_requests: Sequence[int]
                              ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """calculateResourceAllocatableRequest for each configured resource over nodes idx:
    (allocatable, requested including the pod); allocatable 0 means "left out"."""
    allocs, reqs = [], []
    zero = np.zeros(len(idx), INT)
    for spec, q in zip(scorer.resources, pod_requests):
        name = spec.name
        if q == 0 and is_scalar_resource_name(name):
            allocs.append(zero)
            reqs.append(zero)
        elif name == CPU:
            allocs.append(t.alloc_cpu[idx])
            reqs.append((t.req_cpu if scorer.use_requested else t.nz_cpu)[idx] + q)
        elif name == MEMORY:
            allocs.append(t.alloc_mem[idx])
            reqs.append((t.req_mem if scorer.use_requested else t.nz_mem)[idx] + q)
        elif name == EPHEMERAL_STORAGE:
            allocs.append(t.alloc_eph[idx])
            reqs.append(t.req_eph[idx] + q)
        elif name in t.alloc_scalar:
            allocs.append(t.alloc_scalar[name][idx])
            reqs.append(t.scalar_requested(name)[idx] + q)
        else:
            allocs.append(zero)
            reqs.append(zero)
    return allocs, reqs


def strategy_scores(scorer: ResourceAllocationScorer, t, idx: np.ndarray,
                    pod_requests: Sequence[int]) -> np.ndarray:
    """resourceAllocationScorer.score with the configured strategy, for nodes idx."""
    allocs, reqs = requested_and_allocatable(scorer, t, idx, pod_requests)
    if scorer.name not in (LEAST_ALLOCATED, MOST_ALLOCATED):
        return np.array([scorer.scorer([int(r[k]) for r in reqs], [int(a[k]) for a in allocs])
                         for k in range(len(idx))], INT)
    total = np.zeros(len(idx), INT)
    weights = np.zeros(len(idx), INT)
    for spec, a, r in zip(scorer.resources, allocs, reqs):
        valid = a != 0
        safe = np.where(valid, a, 1)
        if scorer.name == LEAST_ALLOCATED:  # 0 when over-requested
            s = np.where(r > a, 0, (a - r) * 100 // safe)
        else:  # MostAllocated: requested capped at capacity
            s = np.minimum(r, a) * 100 // safe
        total += np.where(valid, s * spec.weight, 0)
        weights += np.where(valid, spec.weight, 0)
    return np.where(weights > 0, total // np.where(weights > 0, weights, 1), 0)


def balanced_scores(allocs: list[np.ndarray], reqs: list[np.ndarray]) -> np.ndarray:
    """balancedResourceScorer per node: int((1 - std) * 100), std of the used fractions
    (capped at 1) of the resources with allocatable, in the reference's float order."""
    k = len(allocs[0]) if allocs else 0
    valid = np.array([a != 0 for a in allocs]).reshape(len(allocs), k)
    if valid.all():  # every node has every resource: one pattern
        return _balanced(allocs, reqs, slice(None), k)
    out = np.zeros(k, INT)
    patterns, inverse = np.unique(valid.T, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    for p, pattern in enumerate(patterns):
        sel = inverse == p
        rows = [i for i, v in enumerate(pattern) if v]
        out[sel] = _balanced([allocs[i] for i in rows], [reqs[i] for i in rows], sel,
                             int(sel.sum()))
    return out


def _balanced(allocs: list[np.ndarray], reqs: list[np.ndarray], sel, k: int) -> np.ndarray:
    """balancedResourceScorer for nodes sel, all of which have these resources."""
    fr = [np.minimum(r[sel] / a[sel], 1.0) for a, r in zip(allocs, reqs)]
    std = np.zeros(k)
    if len(fr) == 2:
        std = np.abs((fr[0] - fr[1]) / 2)
    elif len(fr) > 2:
        total = np.zeros_like(std)
        for f in fr:
            total = total + f
        mean = total / len(fr)
        acc = np.zeros_like(std)
        for f in fr:
            acc = acc + (f - mean) * (f - mean)
        std = np.sqrt(acc / len(fr))
    return ((1 - std) * 100.0).astype(INT)
