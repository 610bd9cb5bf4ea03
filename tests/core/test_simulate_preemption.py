"""End-to-end preemption and nominated nodes through ``simulate``.

Scenarios are manifests built by the small helpers below; every node has 2 cpu, so a
pod asking for 2 cpu needs a whole node.
"""
from __future__ import annotations

import pytest

from scheduler_core.api import simulate
from scheduler_core.scenario import load_scenario


def node(name: str, cpu: str = "2") -> str:
    return f"""apiVersion: v1
kind: Node
metadata: {{name: {name}}}
status: {{allocatable: {{cpu: "{cpu}", memory: 4Gi, pods: "10"}}}}
"""


def pod(name: str, cpu: str, priority: int | None = None, on: str = "", nominated: str = "",
        labels: dict | None = None, priority_class: str = "", terminating: bool = False,
        preempted: bool = False, started: str = "", created: str = "") -> str:
    """``terminating``: deleted; ``preempted``: deleted by the scheduler's preemption (the
    DisruptionTarget condition); ``started``/``created``: status.startTime and
    metadata.creationTimestamp."""
    meta = f"name: {name}"
    if labels:
        meta += ", labels: {" + ", ".join(f"{k}: {v}" for k, v in labels.items()) + "}"
    if terminating or preempted:
        meta += ', deletionTimestamp: "2026-01-01T00:00:00Z"'
    if created:
        meta += f', creationTimestamp: "{created}"'
    spec = [f"  containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]"]
    if priority is not None:
        spec.append(f"  priority: {priority}")
    if priority_class:
        spec.append(f"  priorityClassName: {priority_class}")
    if on:
        spec.append(f"  nodeName: {on}")
    doc = f"apiVersion: v1\nkind: Pod\nmetadata: {{{meta}}}\nspec:\n" + "\n".join(spec) + "\n"
    status = []
    if nominated:
        status.append(f"nominatedNodeName: {nominated}")
    if started:
        status.append(f'startTime: "{started}"')
    if preempted:
        status.append("conditions: [{type: DisruptionTarget, status: 'True', "
                      "reason: PreemptionByScheduler}]")
    if status:
        doc += "status: {" + ", ".join(status) + "}\n"
    return doc


def priority_class(name: str, value: int, policy: str = "PreemptLowerPriority") -> str:
    return f"""apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {{name: {name}}}
value: {value}
preemptionPolicy: {policy}
"""


def pdb(name: str, app: str, min_available: int) -> str:
    return f"""apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: {name}}}
spec:
  minAvailable: {min_available}
  selector: {{matchLabels: {{app: {app}}}}}
"""


def run(*docs: str, seed: int = 0) -> dict:
    return simulate(load_scenario("---\n".join(docs)), seed)


def outcome(result: dict, key: str) -> dict:
    return next(p for p in result["pods"] if p["pod"] == f"default/{key}")


def cycles_of(result: dict, key: str) -> list[dict]:
    return [c for c in result["cycles"] if c["pod"] == f"default/{key}"]


def preemption(result: dict, key: str) -> dict:
    """The pod's latest preemption attempt, as its explanation keeps it."""
    return result["preemptions"][f"default/{key}"]


def reasons(result: dict) -> list[tuple[str, str, str | None]]:
    return [(e["reason"], e["pod"], e.get("node")) for e in result["events"]]


def test_a_high_priority_pod_preempts_and_lands_on_its_nominated_node() -> None:
    r = run(node("n1"), node("n2"), pod("low1", "2", 1, on="n1"), pod("low5", "2", 5, on="n2"),
            pod("hi", "2", 1000))
    assert (outcome(r, "hi"), r["evicted"]) == \
        ({"pod": "default/hi", "outcome": "Scheduled", "node": "n1"}, ["default/low1"])
    first, second = cycles_of(r, "hi")
    ex = preemption(r, "hi")
    assert (ex["cycle"], ex["chosen"], ex["decidedBy"]) == (
        first["cycle"], "n1", "lowest highest-priority victim")
    assert (second["nominatedNodeTried"], second["nominatedNodeFit"],
            second["nodesEvaluated"]) == ("n1", True, 1)
    ev = reasons(r)
    assert ev[0] == ("FailedScheduling", "default/hi", None)
    assert ev[-1] == ("Scheduled", "default/hi", "n1")
    assert sorted(ev[1:-1]) == [("Nominated", "default/hi", "n1"),
                                ("Preempted", "default/low1", "n1")]


def test_a_pod_starting_with_a_fitting_nominated_node_is_bound_there_alone() -> None:
    r = run(node("n1"), node("n2"), node("n3"), pod("p", "1", nominated="n3"))
    (cyc,) = cycles_of(r, "p")
    assert outcome(r, "p")["node"] == "n3"
    assert (cyc["nominatedNodeTried"], cyc["nominatedNodeFit"], cyc["nodesEvaluated"]) == \
        ("n3", True, 1)


def test_a_nominated_node_that_stops_fitting_sends_the_pod_elsewhere() -> None:
    r = run(node("n1"), node("n2"), pod("big", "2", 50, on="n1"),
            pod("p", "1", 10, nominated="n1"))
    (cyc,) = cycles_of(r, "p")
    assert outcome(r, "p") == {"pod": "default/p", "outcome": "Scheduled", "node": "n2"}
    assert (cyc["nominatedNodeTried"], cyc["nominatedNodeFit"], r["evicted"]) == ("n1", False, [])


def test_a_higher_priority_pod_takes_the_freed_room_and_the_preemptor_goes_elsewhere() -> None:
    """KEP-4832's "pod2 is higher priority than pod1": "top" cannot preempt (Never) but
    takes n1 once "hi"'s victim is gone; hi's nominated n1 no longer fits, so hi preempts
    again on n2 and lands there."""
    r = run(priority_class("top", 1000, "Never"), node("n1"), node("n2"),
            pod("low1", "2", 1, on="n1"), pod("low50", "2", 50, on="n2"),
            pod("top", "2", priority_class="top"), pod("hi", "2", 100))
    assert [(c["pod"], c["result"], c["node"], c["nominatedNodeTried"], c["nominatedNodeFit"])
            for c in r["cycles"]] == [
        ("default/top", "Unschedulable", None, None, None),
        ("default/hi", "Unschedulable", None, None, None),
        ("default/top", "Scheduled", "n1", None, None),
        ("default/hi", "Unschedulable", None, "n1", False),
        ("default/hi", "Scheduled", "n2", "n2", True)]
    assert r["evicted"] == ["default/low1", "default/low50"]


def test_nodes_rejected_as_unresolvable_are_not_preemption_candidates() -> None:
    ssd = node("n1").replace("metadata: {name: n1}", "metadata: {name: n1, labels: {disk: ssd}}")
    hi = pod("hi", "2", 100).replace("  priority: 100",
                                     "  priority: 100\n  nodeSelector: {disk: ssd}")
    r = run(ssd, node("n2"), pod("low5", "2", 5, on="n1"), pod("low1", "2", 1, on="n2"), hi)
    first = cycles_of(r, "hi")[0]
    assert first["message"] == ("0/2 nodes are available: 1 Insufficient cpu, "
                                "1 node(s) didn't match Pod's node affinity/selector.")
    assert preemption(r, "hi")["potentialNodes"] == ["n1"]
    assert (outcome(r, "hi")["node"], r["evicted"]) == ("n1", ["default/low5"])


# n1 has 2 cpu, 1 held by a terminating low-priority pod; "hi" (2 cpu) is nominated there and
# waits for it, so "mid" (1 cpu, lower priority) must not take the free cpu.
WAITING_FOR_TERMINATION = (node("n1"), node("n2"), pod("busy", "2", 500, on="n2"),
                           pod("t", "1", 1, on="n1", preempted=True))


@pytest.mark.parametrize("preemptor,want_mid", [
    ((pod("hi", "2", 100, nominated="n1"),),
     {"pod": "default/mid", "outcome": "Unschedulable", "node": None, "nominatedNode": None,
      "message": "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are "
                 "available: 1 Insufficient cpu, 1 No preemption victims found for "
                 "incoming pod."}),
    ((), {"pod": "default/mid", "outcome": "Scheduled", "node": "n1"}),
], ids=["a lower-priority pod cannot take the nominated room",
        "without the nominated pod the room is free"])
def test_a_pending_lower_priority_pod_cannot_take_the_nominated_room(preemptor, want_mid) -> None:
    r = run(*WAITING_FOR_TERMINATION, *preemptor, pod("mid", "1", 10))
    assert outcome(r, "mid") == want_mid


def test_a_victim_already_terminating_is_deleted_by_the_preemption() -> None:
    """Without a nomination the preemptor is eligible; v1.34 deletes terminating victims too."""
    r = run(*WAITING_FOR_TERMINATION, pod("hi", "2", 100))
    ex = preemption(r, "hi")
    assert (ex["chosen"], ex["evictions"], r["evicted"], outcome(r, "hi")["node"]) == \
        ("n1", ["default/t"], ["default/t"], "n1")


def test_a_preemptor_waits_while_a_victim_terminates_on_its_nominated_node() -> None:
    r = run(*WAITING_FOR_TERMINATION, pod("hi", "2", 100, nominated="n1"))
    assert outcome(r, "hi") == {
        "pod": "default/hi", "outcome": "Unschedulable", "node": None, "nominatedNode": "n1",
        "message": "0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible "
                   "due to a terminating pod on the nominated node."}
    assert r["evicted"] == []


def test_a_pod_deleted_for_another_reason_does_not_hold_preemption_back() -> None:
    # upstream podTerminatingByPreemption needs the DisruptionTarget condition
    r = run(node("n1"), node("n2"), pod("busy", "2", 500, on="n2"),
            pod("t", "1", 1, on="n1", terminating=True), pod("hi", "2", 100, nominated="n1"))
    assert (outcome(r, "hi")["node"], r["evicted"]) == ("n1", ["default/t"])


def test_the_latest_start_time_not_the_creation_time_picks_the_node() -> None:
    # equal victims but for their times: v1 was created first and started last
    r = run(node("n1"), node("n2"),
            pod("v1", "2", 1, on="n1", created="2026-11-01T00:00:00Z",
                started="2026-11-20T00:00:00Z"),
            pod("v2", "2", 1, on="n2", created="2026-11-10T00:00:00Z",
                started="2026-11-05T00:00:00Z"),
            pod("hi", "2", 100))
    ex = preemption(r, "hi")
    assert (ex["chosen"], ex["decidedBy"], r["evicted"]) == \
        ("n1", "latest start time of the highest-priority victims", ["default/v1"])


def test_preemption_policy_never_does_not_preempt() -> None:
    r = run(priority_class("never", 1000, "Never"), node("n1"), pod("low", "2", 1, on="n1"),
            pod("hi", "2", priority_class="never"))
    assert (outcome(r, "hi"), r["evicted"]) == ({
        "pod": "default/hi", "outcome": "Unschedulable", "node": None, "nominatedNode": None,
        "message": "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible "
                   "due to preemptionPolicy=Never."}, [])


@pytest.mark.parametrize("budgets,want_node,want_evicted,want_decided", [
    ((), "n1", ["default/db"], "lowest highest-priority victim"),
    ((pdb("db", "db", 1),), "n2", ["default/web"], "fewest PDB violations"),
], ids=["without a PDB the lowest-priority victim goes", "a PDB steers preemption away"])
def test_a_pdb_steers_the_choice_of_node(budgets, want_node, want_evicted, want_decided) -> None:
    r = run(*budgets, node("n1"), node("n2"), pod("db", "2", 1, on="n1", labels={"app": "db"}),
            pod("web", "2", 5, on="n2", labels={"app": "web"}), pod("hi", "2", 100))
    ex = preemption(r, "hi")
    assert (outcome(r, "hi")["node"], r["evicted"], ex["decidedBy"]) == \
        (want_node, want_evicted, want_decided)


def test_the_pdb_violation_is_explained() -> None:
    r = run(pdb("db", "db", 1), node("n1"), node("n2"),
            pod("db", "2", 1, on="n1", labels={"app": "db"}), pod("web", "2", 5, on="n2"),
            pod("hi", "2", 100))
    ex = preemption(r, "hi")
    n1 = next(c for c in ex["candidates"] if c["node"] == "n1")
    assert ex["pdbs"] == [{"pdb": "default/db", "disruptionsAllowed": 0, "computed": True}]
    assert (n1["numPDBViolations"], n1["pdbViolations"], n1["lost"]) == (
        1, {"default/db": ["default/db"]},
        {"criterion": "fewest PDB violations", "against": "n2", "value": 1, "chosenValue": 0})


def test_preemption_clears_lower_priority_nominations_on_the_chosen_node() -> None:
    r = run(node("n1"), pod("low", "2", 1, on="n1"), pod("mid", "2", 10, nominated="n1"),
            pod("hi", "2", 100))
    first = preemption(r, "hi")
    assert (first["clearedNominations"], outcome(r, "hi")["node"]) == (["default/mid"], "n1")
    assert outcome(r, "mid")["nominatedNode"] is None


def test_no_node_where_preemption_helps_is_reported() -> None:
    r = run(node("n1"), pod("big", "2", 100, on="n1"), pod("p", "1", 10))
    assert outcome(r, "p")["message"] == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
        "1 No preemption victims found for incoming pod.")


@pytest.mark.parametrize("fast", [True, False], ids=["columnar", "reference"])
def test_a_scenario_run_again_starts_from_the_pods_it_loaded_not_where_the_run_before_left_them(fast) -> None:
    # (the second run's nodes are copies of the cluster as loaded, kept for the scenario's next runs: were the
    # first run's binds and evictions left in them, hi would find low1 gone and n1 taken by itself)
    scenario = load_scenario("---\n".join([node("n1"), node("n2"), pod("low1", "2", 1, on="n1"),
                                           pod("low5", "2", 5, on="n2"), pod("hi", "2", 1000)]))
    first = simulate(scenario, 0, fast=fast)
    for again in (simulate(scenario, 0, fast=fast), simulate(scenario, 0, fast=not fast)):
        assert again == first
    assert (outcome(first, "hi")["node"], first["evicted"]) == ("n1", ["default/low1"])
