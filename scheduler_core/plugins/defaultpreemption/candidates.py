"""Preemption candidates: victim importance, PodDisruptionBudgets and the choice of node.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/util/utils.go`` (MoreImportantPod,
GetPodStartTime, GetEarliestPodStartTime), ``pkg/scheduler/framework/preemption/
preemption.go`` (Candidate, pickOneNodeForPreemption) and, for PDBs without a status,
``pkg/controller/disruption/disruption.go`` (getExpectedPodCount, updatePdbStatus).

A pod's start time is its ``status.startTime``; a pod without one (not started yet, or
bound during the simulation) counts as started "now", the latest possible time, as
GetPodStartTime does. ``metadata.creationTimestamp`` plays no part here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from ...framework.types import PodInfo
from ...k8s import labels as klabels
from ...k8s.types import Pod, PodDisruptionBudget, Workload

# pickOneNodeForPreemption criteria, in order (preemption.go); names used in explanations.
CRITERION_PDB_VIOLATIONS = "fewest PDB violations"
CRITERION_HIGHEST_PRIORITY = "lowest highest-priority victim"
CRITERION_SUM_PRIORITIES = "smallest sum of victim priorities"
CRITERION_NUM_VICTIMS = "fewest victims"
CRITERION_START_TIME = "latest start time of the highest-priority victims"
CRITERION_FIRST = "first candidate in evaluation order"
CRITERION_ONLY = "only candidate"

_MAX_INT32_PLUS_1 = 2 ** 31


def pod_start_time(pod: Pod) -> float:
    """util.GetPodStartTime: status.startTime; absent counts as now (+inf)."""
    return pod.start_time if pod.start_time is not None else math.inf


def importance_key(pod: Pod) -> tuple[int, float]:
    """Sort key equivalent to util.MoreImportantPod: higher priority, then earlier start."""
    return (-pod.priority, pod_start_time(pod))


def more_important_pod(p1: Pod, p2: Pod) -> bool:
    """util.MoreImportantPod: p1 has higher priority, or equal priority and started earlier."""
    if p1.priority != p2.priority:
        return p1.priority > p2.priority
    return pod_start_time(p1) < pod_start_time(p2)


def earliest_pod_start_time(victims: Sequence[Pod]) -> float | None:
    """util.GetEarliestPodStartTime: earliest start among the highest-priority victims."""
    if not victims:
        return None
    max_priority = max(p.priority for p in victims)
    return min(pod_start_time(p) for p in victims if p.priority == max_priority)


# --- PodDisruptionBudgets -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PDB:
    """A PodDisruptionBudget with its selector compiled and its disruptionsAllowed known."""

    name: str
    namespace: str
    selector: klabels.Selector
    disruptions_allowed: int
    computed: bool = False  # True when derived from the spec (the manifest had no status)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def _scaled_value(v: int | str, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent with roundUp: "N%" of total, rounded up."""
    if isinstance(v, str):
        s = v.strip()
        if s.endswith("%"):
            return math.ceil(int(s[:-1]) * total / 100)
        return int(s)
    return int(v)


@dataclass(frozen=True, slots=True)
class PodCounts:
    """What the disruption controller counts for one budget (bound pods only: the
    simulation's pending pods are not ready, so they never count as healthy)."""

    selected: int  # pods the budget selects (getPodsForPdb)
    healthy: int  # of those, not terminating (countHealthyPods)
    expected_scale: int  # getExpectedScale: the replicas of their controllers


def computed_disruptions_allowed(pdb: PodDisruptionBudget, counts: PodCounts) -> int:
    """disruption.go getExpectedPodCount + updatePdbStatus: healthy - desired, at least 0
    (0 also when nothing is expected, or when neither minAvailable nor maxUnavailable is set)."""
    if pdb.max_unavailable is not None:
        expected = counts.expected_scale
        desired = max(0, expected - _scaled_value(pdb.max_unavailable, expected))
    elif isinstance(pdb.min_available, int):
        expected, desired = counts.selected, pdb.min_available
    elif pdb.min_available is not None:
        expected = counts.expected_scale
        desired = _scaled_value(pdb.min_available, expected)
    else:
        expected, desired = 0, 0
    allowed = counts.healthy - desired
    return 0 if expected <= 0 or allowed <= 0 else allowed


def _expected_scale(pods: Sequence[Pod], scales: Mapping[tuple[str, str, str], int]) -> int:
    """getExpectedScale: the summed replicas of the pods' distinct controllers; pods without
    a controller are ignored. A controller absent from the scenario counts one per pod
    (upstream would report NoControllers and leave the budget at 0 allowed)."""
    found: dict[tuple[str, str, str], int] = {}
    missing = 0
    for p in pods:
        ref = next((r for r in p.owner_references if r.controller), None)
        if ref is None:
            continue
        key = (ref.kind, p.namespace, ref.name)
        if key in scales:
            found[key] = scales[key]
        else:
            missing += 1
    return sum(found.values()) + missing


def _pod_counts(pdb_ns: str, sel: klabels.Selector, bound_pods: Sequence[Pod],
                scales: Mapping[tuple[str, str, str], int]) -> PodCounts:
    pods = [p for p in bound_pods if p.namespace == pdb_ns and sel.matches(p.labels)]
    healthy = sum(1 for p in pods if p.deletion_timestamp is None)
    return PodCounts(len(pods), healthy, _expected_scale(pods, scales))


def build_pdbs(pdbs: Iterable[PodDisruptionBudget], bound_pods: Sequence[Pod],
               workloads: Iterable[Workload] = ()) -> list[PDB]:
    """getPodDisruptionBudgets, with status.disruptionsAllowed derived when it is absent
    (workloads give the controllers' replicas; spec.replicas defaults to 1)."""
    scales = {(w.kind, w.namespace, w.name): (1 if w.replicas is None else w.replicas)
              for w in workloads}
    out = []
    for pdb in pdbs:
        sel = klabels.selector_from_label_selector(pdb.selector)
        allowed, computed = pdb.disruptions_allowed, False
        if allowed is None:
            counts = _pod_counts(pdb.namespace, sel, bound_pods, scales)
            allowed, computed = computed_disruptions_allowed(pdb, counts), True
        out.append(PDB(pdb.name, pdb.namespace, sel, allowed, computed))
    return out


def filter_pods_with_pdb_violation(pod_infos: Sequence[PodInfo], pdbs: Sequence[PDB]
                                   ) -> tuple[list[PodInfo], list[PodInfo], dict[str, list[str]]]:
    """default_preemption.go filterPodsWithPDBViolation: (violating, non-violating, why).

    Stable: both groups keep the input order. ``why`` maps a violating pod's key to the
    budgets it would exhaust. A budget with an empty selector matches nothing here.
    """
    allowed = [p.disruptions_allowed for p in pdbs]
    violating, non_violating, why = [], [], {}
    for pi in pod_infos:
        pod, hit = pi.pod, []
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace or pdb.selector.empty() \
                        or not pdb.selector.matches(pod.labels):
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    hit.append(pdb.key)
        if hit:
            violating.append(pi)
            why[pod.key] = hit
        else:
            non_violating.append(pi)
    return violating, non_violating, why


# --- Candidates and the choice among them ---------------------------------------------------


@dataclass(slots=True)
class Candidate:
    """preemption.candidate: a node and its victims, most important first."""

    name: str
    victims: list[Pod]
    num_pdb_violations: int = 0
    # victim key -> PDB keys it violates (explanations only)
    pdb_violations: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Elimination:
    """Why a candidate lost: the criterion that dropped it, the candidate's value for it
    and the value the winners had (the criterion's own units, see ``_criteria``)."""

    node: str
    criterion: str
    value: float
    best: float


def _criteria(c: Candidate) -> list[tuple[str, float, float]]:
    """pickOneNodeForPreemption's default score functions as (name, score, value).

    Higher scores win. Values: PDB violations, the highest victim priority, the sum of
    victim priorities each offset by 2^31 (so all terms are positive), the number of
    victims, the earliest start time among the highest-priority victims (+inf: now).
    """
    v = c.victims
    offset_sum = sum(p.priority + _MAX_INT32_PLUS_1 for p in v)
    start = earliest_pod_start_time(v)
    return [
        (CRITERION_PDB_VIOLATIONS, -c.num_pdb_violations, c.num_pdb_violations),
        (CRITERION_HIGHEST_PRIORITY, -v[0].priority, v[0].priority),
        (CRITERION_SUM_PRIORITIES, -offset_sum, offset_sum),
        (CRITERION_NUM_VICTIMS, -len(v), len(v)),
        (CRITERION_START_TIME, start, start),
    ]


def pick_one_node_for_preemption(candidates: Sequence[Candidate]
                                 ) -> tuple[Candidate | None, str, list[Elimination]]:
    """preemption.go pickOneNodeForPreemption: (chosen, deciding criterion, eliminations).

    Each criterion keeps the candidates with the best score; the first criterion that
    leaves one candidate decides, else the first remaining candidate (in evaluation
    order; upstream iterates a map) is picked.
    """
    if not candidates:
        return None, "", []
    if len(candidates) == 1:
        return candidates[0], CRITERION_ONLY, []
    crit = {c.name: _criteria(c) for c in candidates}
    remaining, eliminated = list(candidates), []
    for i in range(len(crit[candidates[0].name])):
        criterion = crit[candidates[0].name][i][0]
        best = max(crit[c.name][i][1] for c in remaining)
        keep = [c for c in remaining if crit[c.name][i][1] == best]
        best_value = crit[keep[0].name][i][2]
        eliminated += [Elimination(c.name, criterion, crit[c.name][i][2], best_value)
                       for c in remaining if crit[c.name][i][1] != best]
        remaining = keep
        if len(remaining) == 1:
            return remaining[0], criterion, eliminated
    eliminated += [Elimination(c.name, CRITERION_FIRST, 0, 0) for c in remaining[1:]]
    return remaining[0], CRITERION_FIRST, eliminated


def sort_by_importance(items: list, pod_of: Callable = lambda x: x) -> None:
    """Sort in place, most important first (sort.Slice with MoreImportantPod)."""
    items.sort(key=lambda x: importance_key(pod_of(x)))
