"""Framework run methods with stub plugins (framework_test.go cases, re-expressed)."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from scheduler_core.config import Profile
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (SUCCESS, Code, NodeScore, PreFilterResult,
                                                Status)
from scheduler_core.framework.runtime import Framework, HandleData
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.types import NodeInfo, new_pod_info
from scheduler_core.plugins import registry as reg
from tests.core.wrappers import make_node, make_pod


@dataclass
class Stub:
    """A plugin whose every extension point returns what it was told to."""

    NAME: str
    pre_filter_result: tuple = (None, SUCCESS)
    filter_status: Status = SUCCESS
    score_value: int = 0
    normalize_to: int | None = None
    calls: list | None = None

    def pre_filter(self, state, pod, nodes):
        return self.pre_filter_result

    def pre_filter_extensions(self):
        return None

    def filter(self, state, pod, node_info):
        if self.calls is not None:
            self.calls.append((self.NAME, node_info.name, len(node_info.pods)))
        return self.filter_status

    def score(self, state, pod, node_info):
        return self.score_value, SUCCESS

    def score_extensions(self):
        return self if self.normalize_to is not None else None

    def normalize_score(self, state, pod, scores: list[NodeScore]):
        for s in scores:
            s.score = self.normalize_to
        return SUCCESS


def framework(points: dict[str, list[Stub]], weights=None) -> Framework:
    fwk = Framework.__new__(Framework)
    fwk.profile = Profile(weights=weights or {})
    fwk.data = HandleData(None)
    fwk.objects, fwk.rng = None, fwk.data.rng
    fwk.plugins = {p.NAME: p for ps in points.values() for p in ps}
    fwk.points = {pt: list(points.get(pt, [])) for pt in reg.EXTENSION_POINTS}
    nodes = [NodeInfo(make_node(n).obj()) for n in ("a", "b", "c")]
    fwk.set_snapshot(Snapshot(nodes))
    return fwk


UU = Code.UnschedulableAndUnresolvable
PRE_FILTER_CASES = [
    ("results are intersected", [Stub("A", (PreFilterResult(frozenset("ab")), SUCCESS)),
                                 Stub("B", (PreFilterResult(frozenset("bc")), SUCCESS))],
     PreFilterResult(frozenset("b")), SUCCESS),
    ("an empty intersection rejects every node",
     [Stub("A", (PreFilterResult(frozenset("a")), SUCCESS)),
      Stub("B", (PreFilterResult(frozenset("c")), SUCCESS))],
     PreFilterResult(frozenset()),
     Status(UU, ("node(s) didn't satisfy plugin(s) [A B] simultaneously",))),
    ("unresolvable stops at once", [Stub("A", (None, Status(UU, ("no",)))),
                                    Stub("B", (None, Status(Code.Unschedulable, ("x",))))],
     None, Status(UU, ("no",), "A")),
    ("unschedulable lets the others run", [Stub("A", (None, Status(Code.Unschedulable, ("x",)))),
                                           Stub("B", (PreFilterResult(frozenset("a")), SUCCESS))],
     PreFilterResult(frozenset("a")), Status(Code.Unschedulable, ("x",), "A")),
]


@pytest.mark.parametrize("plugins,want_result,want_status", [c[1:] for c in PRE_FILTER_CASES],
                         ids=[c[0] for c in PRE_FILTER_CASES])
def test_run_pre_filter_plugins(plugins, want_result, want_status) -> None:
    fwk = framework({reg.PRE_FILTER: plugins})
    result, status, _ = fwk.run_pre_filter_plugins(CycleState(), make_pod("p").obj())
    assert (result, status) == (want_result, want_status)


def test_skip_in_pre_filter_skips_that_plugins_filter() -> None:
    calls: list = []
    a = Stub("A", (None, Status(Code.Skip)), Status(UU, ("never",)), calls=calls)
    fwk = framework({reg.PRE_FILTER: [a], reg.FILTER: [a]})
    state = CycleState()
    fwk.run_pre_filter_plugins(state, make_pod("p").obj())
    assert fwk.run_filter_plugins(state, make_pod("p").obj(), fwk.snapshot_shared_lister().get("a")) == SUCCESS
    assert calls == []


def test_first_rejecting_filter_wins_and_is_stamped() -> None:
    fwk = framework({reg.FILTER: [Stub("A"), Stub("B", filter_status=Status(Code.Unschedulable, ("b",))),
                                  Stub("C", filter_status=Status(UU, ("c",)))]})
    st = fwk.run_filter_plugins(CycleState(), make_pod("p").obj(), fwk.snapshot_shared_lister().get("a"))
    assert st == Status(Code.Unschedulable, ("b",), "B")


def test_filters_run_twice_when_nominated_pods_are_added() -> None:
    calls: list = []
    fwk = framework({reg.FILTER: [Stub("A", calls=calls)]})
    nominated = make_pod("n").priority(10).obj()
    fwk.data.nominator.add(new_pod_info(nominated), "a")
    fwk.run_filter_plugins_with_nominated_pods(CycleState(), make_pod("p").priority(5).obj(),
                                               fwk.snapshot_shared_lister().get("a"))
    assert calls == [("A", "a", 1), ("A", "a", 0)]


def test_lower_priority_nominated_pods_are_not_added() -> None:
    calls: list = []
    fwk = framework({reg.FILTER: [Stub("A", calls=calls)]})
    fwk.data.nominator.add(new_pod_info(make_pod("n").priority(1).obj()), "a")
    fwk.run_filter_plugins_with_nominated_pods(CycleState(), make_pod("p").priority(5).obj(),
                                               fwk.snapshot_shared_lister().get("a"))
    assert calls == [("A", "a", 0)]


def test_scores_are_normalized_weighted_and_summed() -> None:
    fwk = framework({reg.SCORE: [Stub("A", score_value=7), Stub("B", score_value=50,
                                                                normalize_to=100)]},
                    weights={"A": 2, "B": 3})
    nodes = fwk.snapshot_shared_lister().list()[:1]
    scores, st = fwk.run_score_plugins(CycleState(), make_pod("p").obj(), nodes)
    assert st == SUCCESS
    assert (scores[0].plugins, scores[0].total) == ({"A": 7, "B": 100}, 314)


def test_score_out_of_range_after_normalize_is_an_error() -> None:
    fwk = framework({reg.SCORE: [Stub("A", score_value=101)]}, weights={"A": 1})
    _, st = fwk.run_score_plugins(CycleState(), make_pod("p").obj(),
                                  fwk.snapshot_shared_lister().list())
    assert st.code == Code.Error and st.reasons == (
        'applying score defaultWeights on Score plugins: plugin "A" returns an invalid score '
        "101, it should in the range of [0, 100] after normalizing",)


def test_plugin_exception_becomes_error_status() -> None:
    class Boom(Stub):
        def filter(self, state, pod, node_info):
            raise ValueError("bad")
    fwk = framework({reg.FILTER: [Boom("X")]})
    st = fwk.run_filter_plugins(CycleState(), make_pod("p").obj(), fwk.snapshot_shared_lister().get("a"))
    assert st == Status(Code.Error, ('running "X" filter plugin: ValueError: bad',), "X")
