"""TaintToleration Filter and Score.

Cases from the "Taints and Tolerations" page and re-expressed from upstream
tainttoleration/taint_toleration_test.go.
"""
from dataclasses import dataclass, field

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import SUCCESS, Code, NodeScore, Status
from scheduler_core.plugins.tainttoleration import TaintToleration
from tests.core.wrappers import make_node, make_pod, node_infos


def untolerated(reason: str) -> Status:
    return Status(Code.UnschedulableAndUnresolvable, (reason,))


@dataclass
class FilterCase:
    name: str
    pod: object
    node: object
    want: Status


FILTER_CASES = [
    FilterCase("a node without taints admits any pod", make_pod("p").obj(),
               make_node("n").obj(), SUCCESS),
    FilterCase("an untolerated NoSchedule taint rejects with key and value",
               make_pod("p").obj(), make_node("n").taint("dedicated", "user1").obj(),
               untolerated("node(s) had untolerated taint {dedicated: user1}")),
    FilterCase("an empty value prints as an empty string", make_pod("p").obj(),
               make_node("n").taint("gpu", "", "NoExecute").obj(),
               untolerated("node(s) had untolerated taint {gpu: }")),
    FilterCase("an Equal toleration with the same value admits",
               make_pod("p").toleration("dedicated", "user1", "NoSchedule").obj(),
               make_node("n").taint("dedicated", "user1").obj(), SUCCESS),
    FilterCase("an Equal toleration with another value rejects",
               make_pod("p").toleration("dedicated", "user2", "NoSchedule").obj(),
               make_node("n").taint("dedicated", "user1").obj(),
               untolerated("node(s) had untolerated taint {dedicated: user1}")),
    FilterCase("Exists tolerates any value of the key",
               make_pod("p").toleration("dedicated", operator="Exists").obj(),
               make_node("n").taint("dedicated", "user1", "NoExecute").obj(), SUCCESS),
    FilterCase("a NoSchedule toleration does not cover NoExecute",
               make_pod("p").toleration("k", "v", "NoSchedule").obj(),
               make_node("n").taint("k", "v", "NoExecute").obj(),
               untolerated("node(s) had untolerated taint {k: v}")),
    FilterCase("PreferNoSchedule taints never reject", make_pod("p").obj(),
               make_node("n").taint("soft", "x", "PreferNoSchedule").obj(), SUCCESS),
    FilterCase("the first untolerated hard taint is reported",
               make_pod("p").toleration("a", "1").obj(),
               make_node("n").taint("a", "1").taint("b", "2").taint("c", "3").obj(),
               untolerated("node(s) had untolerated taint {b: 2}")),
    FilterCase("an empty-key Exists toleration tolerates every taint",
               make_pod("p").toleration(operator="Exists").obj(),
               make_node("n").taint("a", "1").taint("b", "2", "NoExecute").obj(), SUCCESS),
]


@pytest.mark.parametrize("case", FILTER_CASES, ids=lambda c: c.name)
def test_filter(case):
    pl = TaintToleration(None, None)
    [ni] = node_infos([case.node])
    assert pl.filter(CycleState(), case.pod, ni) == case.want


def run_scores(pl, pod, nodes):
    infos = node_infos(nodes)
    state = CycleState()
    assert pl.pre_score(state, pod, infos) == SUCCESS
    scores = []
    for ni in infos:
        s, st = pl.score(state, pod, ni)
        assert st == SUCCESS
        scores.append(NodeScore(ni.name, s))
    assert pl.score_extensions().normalize_score(state, pod, scores) == SUCCESS
    return [(s.name, s.score) for s in scores]


@dataclass
class ScoreCase:
    name: str
    pod: object
    nodes: list
    want: list = field(default_factory=list)


SCORE_CASES = [
    ScoreCase("a tolerated PreferNoSchedule taint scores like no taint",
              make_pod("p").toleration("foo", "bar", "PreferNoSchedule").obj(),
              [make_node("a").taint("foo", "bar", "PreferNoSchedule").obj(),
               make_node("b").taint("foo", "blah", "PreferNoSchedule").obj()],
              [("a", 100), ("b", 0)]),
    ScoreCase("fewer intolerable taints score higher",
              make_pod("p").toleration("cpu-type", "arm64", "PreferNoSchedule").obj(),
              [make_node("a").obj(),
               make_node("b").taint("cpu-type", "arm64", "PreferNoSchedule").obj(),
               make_node("c").taint("foo", "bar", "PreferNoSchedule")
               .taint("cpu-type", "x", "PreferNoSchedule").obj()],
              [("a", 100), ("b", 100), ("c", 0)]),
    ScoreCase("counts are scaled by the largest count",
              make_pod("p").obj(),
              [make_node("a").obj(),
               make_node("b").taint("x", "", "PreferNoSchedule").obj(),
               make_node("c").taint("x", "", "PreferNoSchedule")
               .taint("y", "", "PreferNoSchedule").taint("z", "", "PreferNoSchedule").obj()],
              [("a", 100), ("b", 67), ("c", 0)]),
    ScoreCase("hard taints do not count in scoring", make_pod("p").obj(),
              [make_node("a").taint("x", "", "NoSchedule").obj(), make_node("b").obj()],
              [("a", 100), ("b", 100)]),
    ScoreCase("a NoSchedule-only toleration does not tolerate PreferNoSchedule",
              make_pod("p").toleration("x", "", "NoSchedule").obj(),
              [make_node("a").taint("x", "", "PreferNoSchedule").obj(), make_node("b").obj()],
              [("a", 0), ("b", 100)]),
    ScoreCase("an empty-effect toleration tolerates PreferNoSchedule",
              make_pod("p").toleration("x", "").obj(),
              [make_node("a").taint("x", "", "PreferNoSchedule").obj(), make_node("b").obj()],
              [("a", 100), ("b", 100)]),
]


@pytest.mark.parametrize("case", SCORE_CASES, ids=lambda c: c.name)
def test_score(case):
    assert run_scores(TaintToleration(None, None), case.pod, case.nodes) == case.want


def test_explain_lists_the_prefer_no_schedule_tolerations():
    pl = TaintToleration(None, None)
    pod = (make_pod("p").toleration("a", "1", "NoSchedule").toleration("b", "2")
           .toleration("c", operator="Exists", effect="PreferNoSchedule").obj())
    state = CycleState()
    pl.pre_score(state, pod, [])
    assert pl.explain(state, pod) == {"tolerationsPreferNoSchedule": [
        {"key": "b", "operator": "Equal", "value": "2", "effect": ""},
        {"key": "c", "operator": "Exists", "value": "", "effect": "PreferNoSchedule"}]}
    assert pl.explain(CycleState(), pod) is None


def test_score_without_pre_score_is_an_error():
    [ni] = node_infos([make_node("n").obj()])
    _, st = TaintToleration(None, None).score(CycleState(), make_pod("p").obj(), ni)
    assert st.code == Code.Error
