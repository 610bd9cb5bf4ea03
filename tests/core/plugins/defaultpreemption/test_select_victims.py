"""SelectVictimsOnNode: remove every lower-priority pod, check the fit, reprieve.

Cases re-expressed from kube-scheduler's default_preemption_test.go (TestSelectNodesForPreemption,
TestDryRunPreemption) with NodeResourcesFit as the only filter.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from scheduler_core.framework.interface import Code, Status
from scheduler_core.k8s.types import Pod, PodDisruptionBudget
from scheduler_core.plugins.defaultpreemption import DefaultPreemption
from scheduler_core.plugins.defaultpreemption.candidates import build_pdbs
from scheduler_core.plugins.noderesources.fit import Fit
from scheduler_core.plugins.podtopologyspread import PodTopologySpread
from tests.core.plugins.defaultpreemption.fake_handle import FakeHandle
from tests.core.wrappers import make_node, make_pod, selector

NO_VICTIMS = Status(Code.UnschedulableAndUnresolvable,
                    ("No preemption victims found for incoming pod",))
INSUFFICIENT_CPU = Status(Code.Unschedulable, ("Insufficient cpu",), "NodeResourcesFit")
OK = Status()


def bound(name: str, prio: int, cpu: int, start: float | None = None, created: float = 0.0,
          **labels: str) -> Pod:
    w = make_pod(name).priority(prio).req(cpu=cpu).created(created).labels(labels).node("n1")
    return (w.started(start) if start is not None else w).obj()


def preemptor(cpu: int = 2000, prio: int = 10) -> Pod:
    return make_pod("p").priority(prio).req(cpu=cpu).obj()


def db_pdb(allowed: int) -> PodDisruptionBudget:
    return PodDisruptionBudget("db", selector=selector({"app": "db"}), disruptions_allowed=allowed)


@dataclass
class Case:
    name: str
    pods: list[Pod]
    want_victims: list[str]
    want_status: Status = OK
    want_pdb_violations: int = 0
    pod: Pod = field(default_factory=preemptor)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    nominated: list[Pod] = field(default_factory=list)


CASES = [
    Case("a node without lower-priority pods has no victims",
         [bound("a", 10, 3000), bound("b", 20, 1000)], [], NO_VICTIMS),
    Case("a pod that does not fit without all lower-priority pods gets the filter status",
         [bound("hi", 20, 3000), bound("lo", 1, 500)], [], INSUFFICIENT_CPU),
    Case("the more important pod is reprieved and the least important is the victim",
         [bound("a", 1, 2000), bound("b", 2, 2000)], ["default/a"]),
    Case("only as many victims as needed",
         [bound("a", 1, 1000), bound("b", 2, 1000), bound("c", 3, 1000), bound("d", 4, 1000)],
         ["default/b", "default/a"]),
    Case("with equal priority the pod started later is the victim",
         [bound("old", 1, 2000, start=100), bound("new", 1, 2000, start=200)], ["default/new"]),
    # upstream SelectVictimsOnNode sorts by MoreImportantPod (status.startTime)
    Case("with equal priority the start time picks the victim, not the creation time",
         [bound("old", 1, 2000, start=100, created=900),
          bound("new", 1, 2000, start=200, created=10)], ["default/new"]),
    Case("a pod that has not started counts as started now and is the victim",
         [bound("running", 1, 2000, start=100, created=900),
          bound("starting", 1, 2000, created=10)], ["default/starting"]),
    Case("equal-priority pods are never victims",
         [bound("a", 10, 2000), bound("b", 1, 1000), bound("c", 1, 1000)],
         ["default/b", "default/c"]),
    Case("a PDB-protected pod is reprieved before a more important unprotected one",
         [bound("db", 1, 2000, app="db"), bound("web", 2, 2000)], ["default/web"],
         pdbs=[db_pdb(0)]),
    Case("a PDB-protected pod that must go counts as a violation, victims sorted by importance",
         [bound("db", 1, 2000, app="db"), bound("web", 2, 2000)], ["default/web", "default/db"],
         pod=preemptor(cpu=4000), pdbs=[db_pdb(0)], want_pdb_violations=1),
    Case("a PDB with disruptions left is not a violation",
         [bound("db", 1, 2000, app="db"), bound("web", 2, 2000)], ["default/db"],
         pdbs=[db_pdb(1)]),
    Case("a nominated pod of higher priority keeps its room, so more victims are needed",
         [bound("a", 1, 1000), bound("b", 2, 1000), bound("c", 3, 1000)],
         ["default/b", "default/a"], pod=preemptor(cpu=1000),
         nominated=[make_pod("nom").priority(20).req(cpu=2000).nominated("n1").obj()]),
    Case("a nominated pod of lower priority is ignored",
         [bound("a", 1, 1000), bound("b", 2, 1000), bound("c", 3, 2000)],
         ["default/a"], pod=preemptor(cpu=1000),
         nominated=[make_pod("nom").priority(5).req(cpu=2000).nominated("n1").obj()]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_select_victims_on_node(case: Case) -> None:
    h = FakeHandle([make_node("n1").obj()], case.pods, nominated=case.nominated)
    pl = DefaultPreemption(None, h)
    state, _ = h.cycle(case.pod)
    ni = h.snapshot.get("n1").clone()
    pdbs = build_pdbs(case.pdbs, case.pods)
    victims, n_pdb, status, _ = pl.select_victims_on_node(state.clone(), case.pod, ni, pdbs)
    assert ([p.key for p in victims], n_pdb, status) == \
        (case.want_victims, case.want_pdb_violations, case.want_status)


def test_select_victims_reports_which_pdb_a_victim_violates() -> None:
    pods = [bound("db", 1, 2000, app="db"), bound("web", 2, 2000)]
    h = FakeHandle([make_node("n1").obj()], pods)
    pl = DefaultPreemption(None, h)
    pod = preemptor(cpu=4000)
    state, _ = h.cycle(pod)
    *_, why = pl.select_victims_on_node(state, pod, h.snapshot.get("n1").clone(),
                                        build_pdbs([db_pdb(0)], pods))
    assert why == {"default/db": ["default/db"]}


def test_victim_removal_updates_pre_filter_state_through_extensions() -> None:
    """PodTopologySpread's RemovePod/AddPod keep its zone counts in step with the clone."""
    nodes = [make_node("n1").zone("a").obj(), make_node("n2").zone("b").capacity(cpu=1000).obj()]
    pods = [make_pod("w1").label("app", "web").priority(1).req(cpu=100).node("n1").obj(),
            make_pod("w2").label("app", "web").priority(1).req(cpu=100).node("n1").obj(),
            make_pod("big").priority(20).req(cpu=1000).node("n2").obj()]
    pod = (make_pod("p").label("app", "web").priority(10).req(cpu=500)
           .spread(1, "topology.kubernetes.io/zone", "DoNotSchedule", {"app": "web"}).obj())
    h = FakeHandle(nodes, pods)
    h.plugins = [PodTopologySpread(None, h), Fit(None, h)]
    pl = DefaultPreemption(None, h)
    state, d = h.cycle(pod)
    assert d.node_to_status["n1"].plugin == "PodTopologySpread"
    victims, n_pdb, status, _ = pl.select_victims_on_node(
        state.clone(), pod, h.snapshot.get("n1").clone(), [])
    assert ([p.key for p in victims], n_pdb, status) == (["default/w1", "default/w2"], 0, OK)


def test_which_nodes_hold_a_lower_priority_pod_follows_each_nodes_pods_as_they_change():
    """nodes_with_lower_priority keeps each node's lowest priority until its pods change: a pod taken
    off a node, or put on a clone of it, is seen at the next question, and the clone's change is not
    the original's."""
    from tests.core.wrappers import node_infos

    high = make_pod("high").node("n1").priority(100).obj()
    low = make_pod("low").node("n1").priority(1).obj()
    ni = node_infos([make_node("n1").obj()], [high, low])[0]
    plugin = DefaultPreemption(None, None)
    preemptor = make_pod("p").priority(50).obj()

    def lower(*nodes):
        return plugin.nodes_with_lower_priority(preemptor, nodes)[0]

    assert lower(ni) == [True]
    clone = ni.clone()
    assert ni.remove_pod(low)
    assert lower(ni, clone) == [False, True]
    clone.remove_pod(low)
    clone.add_pod(make_pod("lowest").node("n1").priority(0).obj())
    assert lower(ni, clone) == [False, True]
    assert plugin.no_victims_status(preemptor, ni) is not None
    assert plugin.no_victims_status(preemptor, clone) is None


def test_victims_follow_the_nodes_pods_across_dry_runs() -> None:
    """A node tried again (a clone each time) picks its victims from the pods it holds then: a
    lower-priority pod bound since the last try is one, an evicted one is not, and what a dry run
    does to its clone (taking pods off, reprieving them) leaves the next try alone."""
    pods = [bound("a", 1, 2000), bound("b", 2, 1000)]
    h = FakeHandle([make_node("n1").capacity(cpu=4000).obj()], pods)
    pl = DefaultPreemption(None, h)
    pod = preemptor(cpu=3500)
    node = h.snapshot.get("n1")

    def victims() -> list[str]:
        state, _ = h.cycle(pod)
        found, _, status, _ = pl.select_victims_on_node(state, pod, node.clone(), [])
        return [p.key for p in found] if status.is_success() else [status.reasons[0]]

    for _ in range(3):  # (a try after the first sets the node without its lower-priority pods again)
        assert victims() == ["default/b", "default/a"]  # (most important first)
    assert node.remove_pod(pods[0])
    assert victims() == ["default/b"]
    node.add_pod(bound("c", 3, 1500))
    assert victims() == ["default/c", "default/b"]


def test_a_node_tried_again_reprieves_the_same_pods() -> None:
    """The node as a dry run leaves it without its lower-priority pods is kept for the next try of
    the same preemptor priority; reprieving pods on one try's clone does not change what the next
    try starts from."""
    pods = [bound("a", 1, 1000), bound("b", 2, 1000), bound("c", 3, 1000)]
    h = FakeHandle([make_node("n1").capacity(cpu=4000).obj()], pods)
    pl = DefaultPreemption(None, h)
    node = h.snapshot.get("n1")
    for cpu, want in [(2000, ["default/a"]), (2000, ["default/a"]), (3000, ["default/b", "default/a"]),
                      (2000, ["default/a"]), (4000, ["default/c", "default/b", "default/a"])]:
        pod = preemptor(cpu=cpu)
        state, _ = h.cycle(pod)
        found, _, status, _ = pl.select_victims_on_node(state, pod, node.clone(), [])
        assert (status, [p.key for p in found]) == (OK, want), cpu
