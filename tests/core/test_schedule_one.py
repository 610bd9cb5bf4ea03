"""One cycle: FitError message, numFeasibleNodesToFind, nominated node, selectHost."""
from __future__ import annotations

import random

import pytest

from scheduler_core.config import default_configuration
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.fit_error import FitError, fit_error_message
from scheduler_core.framework.interface import Code, Diagnosis, Status
from scheduler_core.framework.runtime import Framework, HandleData, NodePluginScores
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.types import new_pod_info
from scheduler_core.scenario import Scenario
from scheduler_core.schedule_one import CycleRecord, Scheduler, num_feasible_nodes_to_find
from scheduler_core.simulation import build_node_infos
from tests.core.wrappers import make_node, make_pod

U, UU = Code.Unschedulable, Code.UnschedulableAndUnresolvable


def diag(statuses: dict[str, Status], **kw) -> Diagnosis:
    return Diagnosis(node_to_status=statuses, **kw)


FIT_ERRORS = [
    ("counts are grouped and sorted as strings", 12, diag(
        {f"n{i}": Status(U, ("Insufficient cpu",)) for i in range(10)}
        | {"a": Status(UU, ("node(s) had untolerated taint {k: v}",)),
           "b": Status(UU, ("node(s) had untolerated taint {k: v}",))}),
     "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) had untolerated taint {k: v}."),
    ("a node with two reasons counts both", 1, diag(
        {"a": Status(U, ("Insufficient cpu", "Insufficient memory"))}),
     "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."),
    ("absent nodes take the absent status", 3, diag(
        {"a": Status(U, ("Insufficient cpu",))},
        absent_nodes_status=Status(UU, ("node(s) didn't satisfy plugin(s) [NodeAffinity]",))),
     "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
     "[NodeAffinity]."),
    ("a PreFilter rejection replaces the histogram", 3, diag(
        {}, pre_filter_msg="node(s) didn't match pod affinity rules",
        absent_nodes_status=Status(UU, ("node(s) didn't match pod affinity rules",))),
     "0/3 nodes are available: node(s) didn't match pod affinity rules."),
    ("the PostFilter message is appended", 2, diag(
        {"a": Status(U, ("Insufficient cpu",)), "b": Status(U, ("Insufficient cpu",))},
        post_filter_msg="preemption: 0/2 nodes are available: 2 No preemption victims found "
                        "for incoming pod."),
     "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No "
     "preemption victims found for incoming pod."),
]


@pytest.mark.parametrize("n,d,want", [c[1:] for c in FIT_ERRORS], ids=[c[0] for c in FIT_ERRORS])
def test_fit_error_message(n, d, want) -> None:
    assert fit_error_message(n, d) == want
    assert str(FitError(make_pod("p").obj(), n, d)) == want


@pytest.mark.parametrize("pct,nodes,want", [
    (None, 50, 50), (None, 100, 100), (None, 1000, 420), (None, 5000, 500), (None, 6000, 300),
    (100, 5000, 5000), (10, 500, 100), (30, 1000, 300), (0, 99, 99),
], ids=["small cluster evaluates all", "100 nodes adaptive floor of 100",
        "1000 nodes adaptive 42 percent", "5000 nodes adaptive 10 percent",
        "6000 nodes adaptive floor 5 percent", "100 percent is every node",
        "explicit percent with floor of 100 nodes", "explicit 30 percent", "zero is adaptive"])
def test_num_feasible_nodes_to_find(pct, nodes, want) -> None:
    assert num_feasible_nodes_to_find(pct, nodes) == want


def cluster(nodes, pods=(), pct=None):
    scenario = Scenario(nodes=tuple(nodes), pods=tuple(pods))
    profile = default_configuration().profiles["default-scheduler"]
    if pct is not None:
        profile = type(profile)(profile.scheduler_name, profile.plugins, profile.weights,
                                profile.args, pct)
    data = HandleData(scenario)
    fwk = Framework(profile, data)
    snapshot = Snapshot(build_node_infos(scenario).values())
    return fwk, snapshot, data


def test_nominated_node_that_fits_is_the_only_node_evaluated() -> None:
    nodes = [make_node(f"n{i}").obj() for i in range(5)]
    fwk, snapshot, _ = cluster(nodes)
    pod = make_pod("p").req(cpu=100).nominated("n3").obj()
    record = CycleRecord()
    result = Scheduler().schedule_pod(fwk, CycleState(), pod, snapshot, record)
    assert (result.suggested_host, result.evaluated_nodes, record.nodes_evaluated,
            record.nominated_node_tried, record.nominated_node_fit) == ("n3", 1, 1, "n3", True)


def test_nominated_node_that_does_not_fit_falls_back_to_all_nodes() -> None:
    nodes = [make_node("small").capacity(cpu=100).obj()] + [make_node(f"n{i}").obj()
                                                            for i in range(3)]
    fwk, snapshot, _ = cluster(nodes)
    pod = make_pod("p").req(cpu=500).nominated("small").obj()
    record = CycleRecord()
    result = Scheduler().schedule_pod(fwk, CycleState(), pod, snapshot, record)
    assert result.suggested_host != "small"
    assert (record.nominated_node_fit, record.nodes_evaluated) == (False, 4)
    # more than the node can ever offer: Unresolvable (fit.go)
    assert record.filter["small"] == Status(UU, ("Insufficient cpu",), "NodeResourcesFit")


def test_nominated_pods_of_higher_priority_hold_their_room() -> None:
    nodes = [make_node("n1").capacity(cpu=1000).obj()]
    fwk, snapshot, data = cluster(nodes)
    big = make_pod("big").priority(10).req(cpu=800).nominated("n1").obj()
    data.nominator.add(new_pod_info(big), "n1")
    low = make_pod("low").priority(1).req(cpu=500).obj()
    with pytest.raises(FitError) as e:
        Scheduler().schedule_pod(fwk, CycleState(), low, snapshot)
    assert str(e.value) == "0/1 nodes are available: 1 Insufficient cpu."


def test_percentage_limits_nodes_and_rotates_start_index() -> None:
    nodes = [make_node(f"n{i:03}").obj() for i in range(200)]
    fwk, snapshot, _ = cluster(nodes, pct=50)
    sched = Scheduler()
    rec1, rec2 = CycleRecord(), CycleRecord()
    sched.schedule_pod(fwk, CycleState(), make_pod("a").obj(), snapshot, rec1)
    assert (rec1.nodes_evaluated, sched.next_start_node_index) == (100, 100)
    sched.schedule_pod(fwk, CycleState(), make_pod("b").obj(), snapshot, rec2)
    assert sorted(rec2.filter)[0] == "n100" and sched.next_start_node_index == 0


def test_no_feasible_node_raises_fit_error_with_plugin_reasons() -> None:
    nodes = [make_node("a").unschedulable().obj(), make_node("b").capacity(cpu=10).obj()]
    fwk, snapshot, _ = cluster(nodes)
    with pytest.raises(FitError) as e:
        Scheduler().schedule_pod(fwk, CycleState(), make_pod("p").req(cpu=100).obj(), snapshot)
    assert str(e.value) == ("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were "
                            "unschedulable.")
    assert e.value.diagnosis.unschedulable_plugins == {"NodeUnschedulable", "NodeResourcesFit"}


def scores(*totals: int) -> list[NodePluginScores]:
    return [NodePluginScores(f"n{i}", {}, t) for i, t in enumerate(totals)]


def test_select_host_takes_the_highest_total() -> None:
    assert Scheduler(rng=random.Random(1)).select_host(scores(5, 9, 7)) == "n1"


def test_select_host_breaks_ties_with_the_seeded_generator() -> None:
    picks = {Scheduler(rng=random.Random(seed)).select_host(scores(9, 3, 9, 9))
             for seed in range(40)}
    assert picks == {"n0", "n2", "n3"}
    assert Scheduler(rng=random.Random(7)).select_host(scores(9, 9)) == \
        Scheduler(rng=random.Random(7)).select_host(scores(9, 9))
