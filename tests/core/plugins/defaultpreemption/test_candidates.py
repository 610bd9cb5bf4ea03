"""Candidate ordering (pickOneNodeForPreemption), victim importance and PDB budgets.

Cases re-expressed from kube-scheduler's preemption_test.go / default_preemption_test.go
("pickOneNodeForPreemption" tables) and utils_test.go; each criterion decides once.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from scheduler_core.framework.types import new_pod_info
from scheduler_core.k8s.types import PodDisruptionBudget, Workload
from scheduler_core.plugins.defaultpreemption.candidates import (
    CRITERION_FIRST, CRITERION_HIGHEST_PRIORITY, CRITERION_NUM_VICTIMS, CRITERION_ONLY,
    CRITERION_PDB_VIOLATIONS, CRITERION_START_TIME, CRITERION_SUM_PRIORITIES, PDB, Candidate,
    Elimination, PodCounts, build_pdbs, computed_disruptions_allowed, earliest_pod_start_time,
    filter_pods_with_pdb_violation, more_important_pod, pick_one_node_for_preemption)
from scheduler_core.k8s import labels as klabels
from tests.core.wrappers import make_pod, selector

MAX = 2 ** 31


def v(name: str, prio: int, start: float | None = None, created: float = 0.0):
    w = make_pod(name).priority(prio).created(created)
    return (w.started(start) if start is not None else w).obj()


def cand(node: str, *victims, pdb: int = 0) -> Candidate:
    return Candidate(node, list(victims), pdb)


@dataclass
class PickCase:
    name: str
    candidates: list[Candidate]
    want_node: str
    want_criterion: str
    want_eliminated: list[Elimination] = field(default_factory=list)


PICK_CASES = [
    PickCase("a single candidate is chosen without comparison",
             [cand("n1", v("a", 5))], "n1", CRITERION_ONLY),
    PickCase("fewest PDB violations wins over lower priorities",
             [cand("n1", v("a", 1), pdb=1), cand("n2", v("b", 100))], "n2",
             CRITERION_PDB_VIOLATIONS, [Elimination("n1", CRITERION_PDB_VIOLATIONS, 1, 0)]),
    PickCase("the lowest highest-priority victim wins",
             [cand("n1", v("a", 10), v("b", 1)), cand("n2", v("c", 5), v("d", 5), v("e", 5))],
             "n2", CRITERION_HIGHEST_PRIORITY,
             [Elimination("n1", CRITERION_HIGHEST_PRIORITY, 10, 5)]),
    PickCase("the smallest sum of priorities breaks a highest-priority tie",
             [cand("n1", v("a", 5), v("b", 4)), cand("n2", v("c", 5), v("d", 3))],
             "n2", CRITERION_SUM_PRIORITIES,
             [Elimination("n1", CRITERION_SUM_PRIORITIES, 9 + 2 * MAX, 8 + 2 * MAX)]),
    PickCase("negative priorities are offset so fewer victims have the smaller sum",
             [cand("n1", v("a", -10), v("b", -10)), cand("n2", v("c", -10))],
             "n2", CRITERION_SUM_PRIORITIES,
             [Elimination("n1", CRITERION_SUM_PRIORITIES, 2 * MAX - 20, MAX - 10)]),
    PickCase("with equal priorities the offset sum already prefers fewer victims",
             [cand("n1", v("a", 0), v("b", 0)), cand("n2", v("c", 0))],
             "n2", CRITERION_SUM_PRIORITIES,
             [Elimination("n1", CRITERION_SUM_PRIORITIES, 2 * MAX, MAX)]),
    # sums only tie across different victim counts when a victim has priority MinInt32
    PickCase("fewest victims decides when the offset priority sums are equal",
             [cand("n1", v("a", 5), v("b", -MAX)), cand("n2", v("c", 5)),
              cand("n3", v("d", 5), v("e", -MAX))],
             "n2", CRITERION_NUM_VICTIMS,
             [Elimination("n1", CRITERION_NUM_VICTIMS, 2, 1),
              Elimination("n3", CRITERION_NUM_VICTIMS, 2, 1)]),
    PickCase("the latest start time of the highest-priority victims wins",
             [cand("n1", v("a", 5, 100), v("b", 1, 300)),
              cand("n2", v("c", 5, 200), v("d", 1, 50))],
             "n2", CRITERION_START_TIME,
             [Elimination("n1", CRITERION_START_TIME, 100, 200)]),
    PickCase("start times, not creation times, decide the latest-start-time criterion",
             [cand("n1", v("a", 5, start=100, created=500)),
              cand("n2", v("b", 5, start=200, created=10))],
             "n2", CRITERION_START_TIME,
             [Elimination("n1", CRITERION_START_TIME, 100, 200)]),
    PickCase("a victim without start time counts as started now and wins the latest start",
             [cand("n1", v("a", 5, start=100)), cand("n2", v("b", 5, created=10))],
             "n2", CRITERION_START_TIME,
             [Elimination("n1", CRITERION_START_TIME, 100, float("inf"))]),
    PickCase("a complete tie picks the first candidate",
             [cand("n1", v("a", 5, 100)), cand("n2", v("b", 5, 100))],
             "n1", CRITERION_FIRST, [Elimination("n2", CRITERION_FIRST, 0, 0)]),
]


@pytest.mark.parametrize("case", PICK_CASES, ids=lambda c: c.name)
def test_pick_one_node_for_preemption(case: PickCase) -> None:
    chosen, criterion, eliminated = pick_one_node_for_preemption(case.candidates)
    assert (chosen.name, criterion, eliminated) == \
        (case.want_node, case.want_criterion, case.want_eliminated)


def test_pick_one_node_without_candidates_returns_none() -> None:
    assert pick_one_node_for_preemption([]) == (None, "", [])


IMPORTANCE_CASES = [
    ("higher priority is more important", v("a", 2, 500), v("b", 1, 100), True),
    ("lower priority is less important", v("a", 1, 100), v("b", 2, 500), False),
    ("equal priority: earlier start is more important", v("a", 1, 100), v("b", 1, 200), True),
    ("equal priority: later start is less important", v("a", 1, 200), v("b", 1, 100), False),
    ("a pod without start time counts as started now", v("a", 1), v("b", 1, 100), False),
    # upstream utils_test.go TestMoreImportantPod reads status.startTime, never the
    # creation time: "equal priority" cases with the two times in opposite orders
    ("equal priority: the start time decides, not the creation time",
     v("a", 1, start=100, created=900), v("b", 1, start=200, created=50), True),
    ("equal priority: created earlier but started later is less important",
     v("a", 1, start=300, created=10), v("b", 1, start=200, created=20), False),
    ("a pod started at the epoch is not 'not started'", v("a", 1, 0), v("b", 1, 100), True),
]


@pytest.mark.parametrize("name,p1,p2,want", IMPORTANCE_CASES, ids=[c[0] for c in IMPORTANCE_CASES])
def test_more_important_pod(name, p1, p2, want) -> None:
    assert more_important_pod(p1, p2) is want


def test_earliest_start_time_only_looks_at_highest_priority_victims() -> None:
    assert earliest_pod_start_time([v("a", 5, 300), v("b", 5, 200), v("c", 1, 10)]) == 200


def budget(min_available=None, max_unavailable=None, allowed=None) -> PodDisruptionBudget:
    return PodDisruptionBudget("pdb", selector=selector({"app": "db"}),
                               min_available=min_available, max_unavailable=max_unavailable,
                               disruptions_allowed=allowed)


DISRUPTION_CASES = [
    ("minAvailable 2 of 3 healthy allows 1", budget(min_available=2), PodCounts(3, 3, 0), 1),
    ("minAvailable 3 of 3 healthy allows 0", budget(min_available=3), PodCounts(3, 3, 0), 0),
    ("minAvailable above healthy never goes negative", budget(min_available=5),
     PodCounts(3, 3, 0), 0),
    ("a terminating pod is selected but not healthy", budget(min_available=2),
     PodCounts(3, 2, 0), 0),
    ("minAvailable 50% of a scale of 3 rounds up to 2 and allows 1",
     budget(min_available="50%"), PodCounts(3, 3, 3), 1),
    ("minAvailable 50% counts the controller's scale, not the pods",
     budget(min_available="50%"), PodCounts(3, 3, 6), 0),
    ("maxUnavailable 1 of a scale of 3 allows 1", budget(max_unavailable=1),
     PodCounts(3, 3, 3), 1),
    ("maxUnavailable 1 with replicas still pending allows nothing", budget(max_unavailable=1),
     PodCounts(3, 3, 5), 0),
    ("maxUnavailable 50% of 3 rounds up to 2", budget(max_unavailable="50%"),
     PodCounts(3, 3, 3), 2),
    ("maxUnavailable 0 allows nothing", budget(max_unavailable=0), PodCounts(3, 3, 3), 0),
    ("no expected pods allow nothing", budget(max_unavailable=1), PodCounts(0, 0, 0), 0),
    ("neither minAvailable nor maxUnavailable allows nothing", budget(), PodCounts(3, 3, 3), 0),
]


@pytest.mark.parametrize("name,pdb,counts,want", DISRUPTION_CASES,
                         ids=[c[0] for c in DISRUPTION_CASES])
def test_computed_disruptions_allowed(name, pdb, counts, want) -> None:
    assert computed_disruptions_allowed(pdb, counts) == want


def db(name: str, ns: str = "default", owner: str = "", terminating: bool = False):
    w = make_pod(name, ns).label("app", "db").node("n1")
    w = w.owner("ReplicaSet", owner) if owner else w
    return (w.terminating() if terminating else w).obj()


def test_build_pdbs_uses_status_when_present_and_counts_selected_bound_pods() -> None:
    bound = [db("d1"), db("d2"), db("d3", terminating=True), db("o1", "other"),
             make_pod("w1").label("app", "web").node("n1").obj()]
    got = build_pdbs([budget(min_available=1), budget(allowed=7)], bound)
    sel = klabels.selector_from_label_selector(selector({"app": "db"}))
    assert got == [PDB("pdb", "default", sel, 1, True), PDB("pdb", "default", sel, 7, False)]


def test_build_pdbs_reads_the_controllers_replicas() -> None:
    """ReplicaSet "rs" wants 5 replicas and 3 run: maxUnavailable 1 leaves nothing to spend;
    the unowned pod is ignored, the pod of an unknown controller counts once."""
    bound = [db("a", owner="rs"), db("b", owner="rs"), db("c", owner="rs"), db("u"),
             db("x", owner="gone")]
    rs = Workload("ReplicaSet", "rs", replicas=5)
    got = build_pdbs([budget(max_unavailable=1), budget(max_unavailable=2)], bound, [rs])
    # expected scale 5 + 1 = 6, healthy 5: desired 5 (allows 0) and 4 (allows 1)
    assert [p.disruptions_allowed for p in got] == [0, 1]


def pdb(name: str, allowed: int, labels: dict | None = None, ns: str = "default") -> PDB:
    sel = klabels.selector_from_label_selector(selector(labels) if labels is not None else None)
    return PDB(name, ns, sel, allowed)


def pi(name: str, labels: dict, ns: str = "default"):
    return new_pod_info(make_pod(name, ns).labels(labels).obj())


VIOLATION_CASES = [
    ("the budget is spent in order, later pods violate",
     [pi("a", {"app": "db"}), pi("b", {"app": "db"})], [pdb("p", 1, {"app": "db"})],
     ["default/b"], {"default/b": ["default/p"]}),
    ("a pod in another namespace does not use the budget",
     [pi("a", {"app": "db"}, "x"), pi("b", {"app": "db"})], [pdb("p", 0, {"app": "db"})],
     ["default/b"], {"default/b": ["default/p"]}),
    ("an empty selector matches nothing",
     [pi("a", {"app": "db"})], [pdb("p", 0, {})], [], {}),
    ("a pod without labels matches no budget",
     [pi("a", {})], [pdb("p", 0, {})], [], {}),
    ("a pod can violate two budgets",
     [pi("a", {"app": "db", "t": "x"})],
     [pdb("p1", 0, {"app": "db"}), pdb("p2", 0, {"t": "x"})],
     ["default/a"], {"default/a": ["default/p1", "default/p2"]}),
]


@pytest.mark.parametrize("name,pods,pdbs,want_violating,want_why", VIOLATION_CASES,
                         ids=[c[0] for c in VIOLATION_CASES])
def test_filter_pods_with_pdb_violation(name, pods, pdbs, want_violating, want_why) -> None:
    violating, non_violating, why = filter_pods_with_pdb_violation(pods, pdbs)
    assert [p.pod.key for p in violating] == want_violating
    assert [p.pod.key for p in non_violating] == \
        [p.pod.key for p in pods if p.pod.key not in want_violating]
    assert why == want_why
