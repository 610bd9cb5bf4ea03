"""DefaultPreemption.PostFilter: eligibility, messages, candidate search, evictions, explain.

Cases re-expressed from kube-scheduler's default_preemption_test.go (TestPostFilter,
TestPodEligibleToPreemptOthers, TestDryRunPreemption) with NodeResourcesFit as the filter.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from scheduler_core.config_args import DefaultPreemptionArgs
from scheduler_core.framework.interface import (Code, Diagnosis, NominatingInfo,
                                                PostFilterResult, Status)
from scheduler_core.k8s.types import Node, Pod, PodDisruptionBudget
from scheduler_core.plugins.defaultpreemption import DefaultPreemption
from scheduler_core.plugins.noderesources.fit import Fit
from tests.core.plugins.defaultpreemption.fake_handle import FakeHandle, unresolvable
from tests.core.wrappers import make_node, make_pod, selector


def node(name: str, cpu: int = 4000) -> Node:
    return make_node(name).capacity(cpu=cpu).obj()


def bound(name: str, on: str, prio: int, cpu: int, **labels: str) -> Pod:
    return make_pod(name).priority(prio).req(cpu=cpu).labels(labels).node(on).obj()


def high(cpu: int = 2000, **kw) -> Pod:
    w = make_pod("p").priority(10).req(cpu=cpu)
    for k, val in kw.items():
        w = getattr(w, k)(*val) if isinstance(val, tuple) else getattr(w, k)(val)
    return w.obj()


def unschedulable(msg: str) -> Status:
    return Status(Code.Unschedulable, (msg,))


def nominate(n: str) -> PostFilterResult:
    return PostFilterResult(NominatingInfo(n, "Override"))


def post_filter(h: FakeHandle, pod: Pod, args: DefaultPreemptionArgs | None = None,
                overrides: dict[str, Status] | None = None):
    pl = DefaultPreemption(args, h)
    state, d = h.cycle(pod)
    d.node_to_status.update(overrides or {})
    result, status = pl.post_filter(state, pod, d)
    return result, status, pl.explain(state, pod)


@dataclass
class Case:
    name: str
    nodes: list[Node]
    pods: list[Pod]
    pod: Pod
    want_result: PostFilterResult | None
    want_status: Status
    want_evicted: list[str] = field(default_factory=list)
    overrides: dict[str, Status] = field(default_factory=dict)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)


CASES = [
    Case("preemptionPolicy Never is not eligible",
         [node("n1")], [bound("lo", "n1", 1, 4000)], high(preemption_policy="Never"),
         None, unschedulable("preemption: not eligible due to preemptionPolicy=Never.")),
    Case("a lower-priority pod terminating on the nominated node blocks a new preemption",
         [node("n1"), node("n2")],
         [make_pod("t").priority(1).req(cpu=4000).node("n1").preempted().obj(),
          bound("lo", "n2", 1, 4000)], high(nominated="n1"),
         None, unschedulable(
             "preemption: not eligible due to a terminating pod on the nominated node.")),
    # upstream podTerminatingByPreemption: a deletion for another reason (a rollout, say)
    # carries no DisruptionTarget condition and does not hold preemption back
    Case("a pod terminating for another reason on the nominated node does not block",
         [node("n1"), node("n2")],
         [make_pod("t").priority(1).req(cpu=4000).node("n1").terminating().obj(),
          bound("lo", "n2", 1, 4000)], high(nominated="n1"),
         nominate("n1"), Status(), ["default/t"]),
    Case("a DisruptionTarget condition without deletion does not block",
         [node("n1"), node("n2")],
         [make_pod("t").priority(1).req(cpu=4000).node("n1")
          ._set(disruption_target_reason="PreemptionByScheduler").obj(),
          bound("lo", "n2", 1, 4000)], high(nominated="n1"),
         nominate("n1"), Status(), ["default/t"]),
    Case("a terminating pod does not block when the nominated node is unresolvable",
         [node("n1"), node("n2")],
         [make_pod("t").priority(1).req(cpu=4000).node("n1").terminating().obj(),
          bound("lo", "n2", 1, 4000)], high(nominated="n1"),
         nominate("n2"), Status(), ["default/lo"],
         overrides={"n1": unresolvable("node(s) didn't match Pod's node affinity/selector")}),
    Case("a higher-priority pod terminating on the nominated node does not block",
         [node("n1")], [make_pod("t").priority(20).req(cpu=2000).node("n1").terminating().obj(),
                        bound("lo", "n1", 1, 2000)], high(cpu=4000, nominated="n1"),
         nominate(""), unschedulable("preemption: 0/1 nodes are available: 1 Insufficient cpu.")),
    Case("a terminating pod on another node does not block",
         [node("n1"), node("n2")],
         [make_pod("t").priority(1).req(cpu=4000).node("n2").terminating().obj(),
          bound("lo", "n1", 1, 4000)], high(nominated="n1"),
         nominate("n1"), Status(), ["default/lo"]),
    Case("no node where preemption helps clears the nomination",
         [node("n1"), node("n2")], [bound("lo", "n1", 1, 4000)], high(),
         nominate(""), unschedulable(
             "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."),
         overrides={"n1": unresolvable("x"), "n2": unresolvable("x")}),
    Case("the message counts each node's dry-run status",
         [node("n1"), node("n2"), node("n3")],
         [bound("hi", "n1", 20, 4000), bound("hi2", "n2", 20, 3000), bound("lo2", "n2", 1, 1000),
          bound("lo3", "n3", 1, 4000)], high(),
         nominate(""), unschedulable(
             "preemption: 0/3 nodes are available: 1 Insufficient cpu, "
             "1 No preemption victims found for incoming pod, "
             "1 Preemption is not helpful for scheduling."),
         overrides={"n3": unresolvable("x")}),
    Case("the node whose victims have the lowest priority is nominated",
         [node("n1"), node("n2")], [bound("a", "n1", 5, 4000), bound("b", "n2", 1, 4000)], high(),
         nominate("n2"), Status(), ["default/b"]),
    Case("a node whose victims violate a PDB loses",
         [node("n1"), node("n2")],
         [bound("db", "n1", 1, 4000, app="db"), bound("web", "n2", 5, 4000)], high(),
         nominate("n2"), Status(), ["default/web"],
         pdbs=[PodDisruptionBudget("db", selector=selector({"app": "db"}), min_available=1)]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_post_filter(case: Case) -> None:
    h = FakeHandle(case.nodes, case.pods, pdbs=case.pdbs)
    result, status, _ = post_filter(h, case.pod, overrides=case.overrides)
    assert (result, status) == (case.want_result, case.want_status)
    assert [e[0] for e in h.evicted] == case.want_evicted


def three_nodes_with_victims() -> FakeHandle:
    return FakeHandle([node("n1"), node("n2"), node("n3")],
                      [bound("a", "n1", 5, 4000), bound("b", "n2", 3, 4000),
                       bound("c", "n3", 1, 4000)])


def test_candidate_search_stops_at_min_candidate_nodes() -> None:
    h = three_nodes_with_victims()
    args = DefaultPreemptionArgs(min_candidate_nodes_percentage=0, min_candidate_nodes_absolute=1)
    result, _, ex = post_filter(h, high(), args)
    assert (result, ex["evaluated"], ex["numCandidates"]) == (nominate("n1"), ["n1"], 1)


def test_violating_candidates_do_not_stop_the_search() -> None:
    h = FakeHandle([node("n1"), node("n2"), node("n3")],
                   [bound("db", "n1", 1, 4000, app="db"), bound("b", "n2", 3, 4000),
                    bound("c", "n3", 1, 4000)],
                   pdbs=[PodDisruptionBudget("db", selector=selector({"app": "db"}),
                                             disruptions_allowed=0)])
    args = DefaultPreemptionArgs(min_candidate_nodes_percentage=0, min_candidate_nodes_absolute=1)
    result, _, ex = post_filter(h, high(), args)
    assert (result, ex["evaluated"], [c["node"] for c in ex["candidates"]]) == \
        (nominate("n2"), ["n1", "n2"], ["n2", "n1"])


def test_seeded_offset_rotates_the_search_order() -> None:
    h = three_nodes_with_victims()
    h.rng = random.Random(7)
    offset = random.Random(7).randrange(3)
    _, _, ex = post_filter(h, high())
    want = [f"n{(offset + i) % 3 + 1}" for i in range(3)]
    assert (ex["offset"], ex["evaluated"]) == (offset, want)


def test_lower_priority_nominations_on_the_chosen_node_are_cleared() -> None:
    h = FakeHandle([node("n1")], [bound("a", "n1", 1, 4000)],
                   nominated=[make_pod("lo").priority(5).nominated("n1").obj(),
                              make_pod("eq").priority(10).nominated("n1").obj()])
    post_filter(h, high(cpu=1000))
    assert h.cleared == ["default/lo"]


def test_a_victim_already_terminating_is_evicted_and_nominations_cleared() -> None:
    """v1.34 (after the revert of the DeletionTimestamp skip) deletes every victim."""
    h = FakeHandle([node("n1")], [make_pod("t").priority(1).req(cpu=4000).node("n1")
                                  .terminating().obj()],
                   nominated=[make_pod("lo").priority(5).nominated("n1").obj()])
    result, status, ex = post_filter(h, high())
    assert (result, status, h.evicted, ex["evictions"], h.cleared) == \
        (nominate("n1"), Status(), [("default/t", "default/p", "n1")], ["default/t"],
         ["default/lo"])


def test_dry_runs_leave_the_snapshot_untouched() -> None:
    h = three_nodes_with_victims()
    before = {ni.name: ([pi.pod.key for pi in ni.pods], ni.requested.milli_cpu)
              for ni in h.snapshot.list()}
    post_filter(h, high())
    assert {ni.name: ([pi.pod.key for pi in ni.pods], ni.requested.milli_cpu)
            for ni in h.snapshot.list()} == before


def test_explain_lists_candidates_victims_and_why_they_lost() -> None:
    h = three_nodes_with_victims()
    _, _, ex = post_filter(h, high())
    assert ex == {
        "eligible": True, "ineligibleReason": "",
        "potentialNodes": ["n1", "n2", "n3"], "potentialNodeCount": 3, "offset": 0,
        "numCandidates": 3, "pdbs": [], "evaluated": ["n1", "n2", "n3"], "evaluatedCount": 3,
        "rejectedNodes": [],
        "candidates": [
            {"node": "n1", "victims": [{"pod": "default/a", "priority": 5, "startTime": None}],
             "numPDBViolations": 0, "pdbViolations": {}, "chosen": False,
             "lost": {"criterion": "lowest highest-priority victim", "against": "n3",
                      "value": 5, "chosenValue": 1}},
            {"node": "n2", "victims": [{"pod": "default/b", "priority": 3, "startTime": None}],
             "numPDBViolations": 0, "pdbViolations": {}, "chosen": False,
             "lost": {"criterion": "lowest highest-priority victim", "against": "n3",
                      "value": 3, "chosenValue": 1}},
            {"node": "n3", "victims": [{"pod": "default/c", "priority": 1, "startTime": None}],
             "numPDBViolations": 0, "pdbViolations": {}, "chosen": True, "lost": None}],
        "chosen": "n3", "decidedBy": "lowest highest-priority victim",
        "evictions": ["default/c"], "clearedNominations": [],
    }


def test_explain_without_post_filter_is_none() -> None:
    h = three_nodes_with_victims()
    state, _ = h.cycle(high())
    assert DefaultPreemption(None, h).explain(state, high()) is None


def test_no_nodes_is_an_error() -> None:
    h = FakeHandle([], [])
    state, _ = h.cycle(high())
    result, status = DefaultPreemption(None, h).post_filter(state, high(), Diagnosis())
    assert (result, status) == (None, Status(Code.Error, ("preemption: no nodes available",)))


class BrokenExtension:
    """A PreFilter plugin whose RemovePod fails, as a bug in a plugin would."""

    NAME = "Broken"

    def pre_filter(self, state, pod, nodes):
        return None, Status()

    def pre_filter_extensions(self):
        return self

    def add_pod(self, state, pod, pi, ni):
        return Status()

    def remove_pod(self, state, pod, pi, ni):
        return Status(Code.Error, ("boom",))

    def filter(self, state, pod, ni):
        return Status()


def test_an_extension_error_without_candidates_is_an_error_status() -> None:
    h = FakeHandle([node("n1")], [bound("lo", "n1", 1, 4000)])
    h.plugins = [BrokenExtension(), Fit(None, h)]
    result, status, ex = post_filter(h, high())
    assert (result, status) == (None, Status(Code.Error, ("preemption: boom",)))
    assert ex["rejectedNodes"] == [{"code": "Error", "plugin": "", "reasons": ["boom"],
                                    "count": 1, "nodes": ["n1"]}]


NUM_CANDIDATES_CASES = [
    ("all nodes when fewer than the absolute minimum", 10, 100, 50, 50),
    ("the absolute minimum when the percentage is smaller", 10, 100, 500, 100),
    ("the percentage when it is larger than the minimum", 40, 10, 500, 200),
    ("the percentage rounds down", 10, 1, 19, 1),
    ("never more than the nodes", 100, 1000, 7, 7),
]


@pytest.mark.parametrize("name,pct,absolute,num_nodes,want", NUM_CANDIDATES_CASES,
                         ids=[c[0] for c in NUM_CANDIDATES_CASES])
def test_calculate_num_candidates(name, pct, absolute, num_nodes, want) -> None:
    pl = DefaultPreemption(DefaultPreemptionArgs(pct, absolute), FakeHandle([], []))
    assert pl.calculate_num_candidates(num_nodes) == want


def _statuses_json(node_statuses: list[tuple[str, Status]]) -> list[tuple]:
    from scheduler_core.plugins.defaultpreemption.explain import trace_to_json
    from scheduler_core.plugins.defaultpreemption.preemption import PreemptionTrace
    trace = PreemptionTrace()
    trace.node_statuses = dict(node_statuses)
    return [(g["reasons"], g["count"], g["nodes"]) for g in trace_to_json(trace)["rejectedNodes"]]


@pytest.mark.parametrize("node_statuses, want", [
    ([], []),
    # one shared status object
    ([("n1", Status(Code.Unschedulable, ("a",)))], [(["a"], 1, ["n1"])]),
    # equal statuses in distinct objects, interleaved with another: one group, dry-run order
    ([("n1", Status(Code.Unschedulable, ("a",))), ("n2", Status(Code.Unschedulable, ("b",))),
      ("n3", Status(Code.Unschedulable, ("a",))), ("n4", Status(Code.Unschedulable, ("a",)))],
     [(["a"], 3, ["n1", "n3", "n4"]), (["b"], 1, ["n2"])]),
    # same reasons, different codes stay apart
    ([("n1", Status(Code.Unschedulable, ("a",))), ("n2", Status(Code.Error, ("a",)))],
     [(["a"], 1, ["n2"]), (["a"], 1, ["n1"])]),  # (Error sorts before Unschedulable)
])
def test_rejected_nodes_group_equal_verdicts_in_dry_run_order(node_statuses, want) -> None:
    assert _statuses_json(node_statuses) == want


_NONE = Status(Code.UnschedulableAndUnresolvable, ("No preemption victims found for incoming pod",))
_CPU = Status(Code.Unschedulable, ("Insufficient cpu",), "NodeResourcesFit")
_SPREAD = Status(Code.Unschedulable, ("node(s) didn't match pod topology spread constraints",),
                 "PodTopologySpread")


@pytest.mark.parametrize("passed, failed", [
    pytest.param(["n1", "n2", "n3"], {}, id="no node tried"),
    pytest.param(["n3", "n4", "n0", "n1"], {"n4": _CPU, "n1": _SPREAD},
                 id="tried in vain between nodes without victims, wrapped round"),
    pytest.param(["n1", "n2", "n3", "n4"], {"n2": _CPU, "n3": _CPU, "n4": _CPU},
                 id="every lower-priority node rejected alike"),
    pytest.param(["n1", "n2"], {"n2": Status(_NONE.code, _NONE.reasons)},
                 id="a node tried in vain given the no-victims verdict itself"),
    pytest.param(["n1", "n2", "n3"], {"n2": _CPU, "n3": _CPU}, id="a candidate among them"),
])
def test_a_walks_statuses_kept_as_flags_read_as_the_node_by_node_dict(passed, failed) -> None:
    """The statuses a dry run over nodes with lower-priority pods keeps (the nodes passed, flags
    for those without such a pod, the failed tries) read, and explain, exactly as the dict the
    node-by-node walk builds; a candidate (n1 in the last case) has no status."""
    import numpy as np

    from scheduler_core.plugins.defaultpreemption.explain import trace_to_json
    from scheduler_core.plugins.defaultpreemption.preemption import PreemptionTrace, WalkStatuses
    tried = set(failed) | ({"n1"} if len(passed) == 3 and len(failed) == 2 else set())
    flags = np.array([name not in tried for name in passed])
    kept = WalkStatuses(passed, flags, _NONE, dict(failed))
    node_by_node = {name: failed.get(name, _NONE) for name in passed if name not in tried or
                    name in failed}
    assert list(kept.items()) == list(node_by_node.items())
    last = list(node_by_node)[-1]
    assert len(kept) == len(node_by_node) and kept[last] is node_by_node[last]
    as_kept, as_dict = PreemptionTrace(), PreemptionTrace()
    as_kept.node_statuses = WalkStatuses(passed, flags, _NONE, dict(failed))
    as_dict.node_statuses = node_by_node
    assert trace_to_json(as_kept)["rejectedNodes"] == trace_to_json(as_dict)["rejectedNodes"]


def test_rejected_nodes_share_one_verdict_object_across_many_nodes() -> None:
    shared = Status(Code.Unschedulable, ("no victims",))
    other = Status(Code.Unschedulable, ("no victims",))
    rows = [(f"n{i}", shared if i % 3 else other) for i in range(9)]
    assert _statuses_json(rows) == [(["no victims"], 9, [f"n{i}" for i in range(9)])]
