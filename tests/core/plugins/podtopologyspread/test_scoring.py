"""PreScore/Score/NormalizeScore, re-expressing upstream scoring_test.go
(TestPodTopologySpreadScore, TestPreScoreStateEmptyNodes, TestPreScoreSkip) for v1.34."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest

from scheduler_core.config_args import LIST_DEFAULTING, PodTopologySpreadArgs
from scheduler_core.framework.interface import Code, NodeScore, Status
from scheduler_core.k8s import labels as klabels
from scheduler_core.k8s.types import (DO_NOT_SCHEDULE, IGNORE, HONOR, LABEL_HOSTNAME,
                                      LABEL_TOPOLOGY_ZONE, SCHEDULE_ANYWAY, Node, Pod, Service,
                                      Workload, TopologySpreadConstraint)
from scheduler_core.plugins.podtopologyspread.common import Constraint, ORIGIN_CLUSTER_DEFAULT
from scheduler_core.plugins.podtopologyspread.scoring import (PreScoreState, go_round,
                                                              normalize_scores,
                                                              topology_normalizing_weight)
from tests.core.wrappers import make_node, make_pod, selector

from .fakes import new_plugin, score_all

HOST = LABEL_HOSTNAME
FOO = selector(None, ("foo", "Exists"))
BAR = selector(None, ("bar", "Exists"))
SYSTEM = PodTopologySpreadArgs()  # upstream's score tests run with System defaulting


def pods(node: str, n: int, ns: str = "default", **labels: str) -> list[Pod]:
    """n bound pods on node carrying labels (value "" when given as True)."""
    lab = {k: ("" if v is True else v) for k, v in labels.items()}
    return [make_pod(f"p-{node}-{ns}-{'-'.join(lab)}-{i}", ns).labels(lab).node(node).obj()
            for i in range(n)]


def foo_pods(spread: dict[str, int]) -> list[Pod]:
    return [p for node, n in spread.items() for p in pods(node, n, foo=True)]


def hosts(*names: str) -> list[Node]:
    return [make_node(n).obj() for n in names]


def zoned(**zones: str) -> list[Node]:
    """zoned(node_a="zone1") -> node "node-a" with zone=zone1."""
    return [make_node(n.replace("_", "-")).label("zone", z).obj() for n, z in zones.items()]


def spread_pod(*constraints: tuple, labels: tuple[str, ...] = ("foo",), **kw) -> Pod:
    w = make_pod("p").labels({k: "" for k in labels})
    for c in constraints:
        w = w.spread(*c)
    for k, v in kw.items():
        w = getattr(w, k)(*v) if isinstance(v, tuple) else getattr(w, k)(v)
    return w.obj()


@dataclass
class Case:
    name: str
    pod: Pod
    nodes: list[Node]
    existing: list[Pod]
    want: dict[str, int]
    failed: list[Node] = field(default_factory=list)
    services: tuple[Service, ...] = ()


ON_HOST = (1, HOST, SCHEDULE_ANYWAY, FOO)
ON_ZONE = (1, "zone", SCHEDULE_ANYWAY, FOO)
TWO_SEL = (ON_ZONE, (1, HOST, SCHEDULE_ANYWAY, BAR))
FOUR_ZONED = zoned(node_a="zone1", node_b="zone1", node_x="zone2", node_y="zone2")
ABC_NODE = [make_node(n).label("node", n).obj() for n in ("node-a", "node-b", "node-c")]
ABC_FOO = [make_node(n).label("node", n).label("foo", "").obj() for n in ("node-a", "node-b")] \
    + [make_node("node-c").label("node", "node-c").obj()]
ABC_TAINTED = ABC_NODE[:2] + [make_node("node-c").label("node", "node-c")
                              .taint("node.kubernetes.io/unreachable").obj()]
DIFF_SEL_PODS = pods("node-a", 1, foo=True) + pods("node-b", 1, foo=True, bar=True) + \
    pods("node-y", 1, foo=True) + pods("node-y", 1, bar=True)

CASES = [
    Case("one constraint on node, no existing pods", spread_pod(ON_HOST),
         hosts("node-a", "node-b"), [], {"node-a": 100, "node-b": 100}),
    Case("one constraint on node, only one node is candidate", spread_pod(ON_HOST),
         hosts("node-a"), foo_pods({"node-a": 2, "node-b": 1}), {"node-a": 100},
         failed=hosts("node-b")),
    Case("one constraint on node, all nodes have the same number of matching pods",
         spread_pod(ON_HOST), hosts("node-a", "node-b"), foo_pods({"node-a": 1, "node-b": 1}),
         {"node-a": 100, "node-b": 100}),
    Case("one constraint on node, all 4 nodes are candidates (2/1/0/3)", spread_pod(ON_HOST),
         hosts("node-a", "node-b", "node-c", "node-d"),
         foo_pods({"node-a": 2, "node-b": 1, "node-d": 3}),
         {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0}),
    Case("one constraint on node, null selector", spread_pod((1, HOST, SCHEDULE_ANYWAY, None)),
         hosts("node-a", "node-b", "node-c", "node-d"),
         foo_pods({"node-a": 2, "node-b": 1, "node-d": 3}),
         {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100}),
    Case("one constraint on node, maxSkew=2", spread_pod((2, HOST, SCHEDULE_ANYWAY, FOO)),
         hosts("node-a", "node-b", "node-c", "node-d"),
         foo_pods({"node-a": 2, "node-b": 1, "node-d": 3}),
         {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16}),
    Case("one constraint on node, maxSkew=3 (4/3/2/1)", spread_pod((3, HOST, SCHEDULE_ANYWAY, FOO)),
         hosts("node-a", "node-b", "node-c", "node-d"),
         foo_pods({"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}),
         {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}),
    Case("system defaulting, nodes don't have zone, pods match service", spread_pod(),
         hosts("node-a", "node-b", "node-c", "node-d"),
         foo_pods({"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}),
         {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
         services=(Service("svc", selector={"foo": ""}),)),
    Case("one constraint on node, 3 out of 4 nodes are candidates", spread_pod(ON_HOST),
         hosts("node-a", "node-b", "node-x"),
         foo_pods({"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}),
         {"node-a": 33, "node-b": 83, "node-x": 100}, failed=hosts("node-y")),
    Case("one node doesn't match topology key: ignored, scored 0", spread_pod(ON_HOST),
         [make_node("node-a").obj(), make_node("node-b").without_label(HOST)
          .label("n", "node-b").obj(), make_node("node-x").obj()],
         foo_pods({"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}),
         {"node-a": 16, "node-b": 0, "node-x": 100}, failed=hosts("node-y")),
    Case("one constraint on zone, 3 out of 4 nodes are candidates", spread_pod(ON_ZONE),
         FOUR_ZONED[:3], foo_pods({"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}),
         {"node-a": 75, "node-b": 75, "node-x": 100}, failed=FOUR_ZONED[3:]),
    Case("two constraints on zone and node, 2 out of 4 nodes are candidates",
         spread_pod(ON_ZONE, ON_HOST), [FOUR_ZONED[0], FOUR_ZONED[2]],
         foo_pods({"node-a": 2, "node-b": 1, "node-x": 2, "node-y": 4}),
         {"node-a": 100, "node-x": 63}, failed=[FOUR_ZONED[1], FOUR_ZONED[3]]),
    Case("two constraints on zone and node, with different labelSelectors",
         spread_pod(*TWO_SEL, labels=("foo", "bar")), FOUR_ZONED, DIFF_SEL_PODS,
         {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60}),
    Case("two constraints with different labelSelectors, some nodes have 0 pods",
         spread_pod(*TWO_SEL, labels=("foo", "bar")), FOUR_ZONED,
         pods("node-b", 1, bar=True) + pods("node-x", 1, foo=True)
         + pods("node-y", 1, foo=True, bar=True),
         {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0}),
    Case("two constraints with different labelSelectors, 3 out of 4 nodes are candidates",
         spread_pod(*TWO_SEL, labels=("foo", "bar")), FOUR_ZONED[:3], DIFF_SEL_PODS,
         {"node-a": 50, "node-b": 25, "node-x": 100}, failed=FOUR_ZONED[3:]),
    Case("existing pods in a different namespace do not count", spread_pod(ON_HOST),
         hosts("node-a", "node-b"),
         pods("node-a", 1, "ns1", foo=True) + foo_pods({"node-a": 1, "node-b": 2}),
         {"node-a": 100, "node-b": 33}),
    Case("terminating pods are excluded", spread_pod(ON_HOST), hosts("node-a", "node-b"),
         [make_pod("p-a").label("foo", "").node("node-a").terminating().obj(),
          make_pod("p-b").label("foo", "").node("node-b").obj()],
         {"node-a": 100, "node-b": 0}),
    Case("minDomains has no effect when ScheduleAnyway",
         spread_pod((2, "node", SCHEDULE_ANYWAY, FOO, 10)), ABC_NODE,
         foo_pods({"node-a": 2, "node-b": 2, "node-c": 1}),
         {"node-a": 75, "node-b": 75, "node-c": 100}),
    Case("nodeAffinityPolicy Honor with nodeSelector: node-c's pods don't count",
         spread_pod((1, "node", SCHEDULE_ANYWAY, FOO), node_selector={"foo": ""}), ABC_FOO,
         foo_pods({"node-a": 2, "node-b": 1, "node-c": 1}),
         {"node-a": 0, "node-b": 33, "node-c": 100}),
    Case("nodeAffinityPolicy Ignore with nodeSelector: every node counts",
         spread_pod((1, "node", SCHEDULE_ANYWAY, FOO, None, IGNORE), node_selector={"foo": ""}),
         ABC_FOO, foo_pods({"node-a": 2, "node-b": 1, "node-c": 1}),
         {"node-a": 66, "node-b": 100, "node-c": 100}),
    Case("nodeAffinityPolicy Honor with required node affinity",
         spread_pod((1, "node", SCHEDULE_ANYWAY, FOO), node_affinity_in=("foo", [""])), ABC_FOO,
         foo_pods({"node-a": 2, "node-b": 1, "node-c": 1}),
         {"node-a": 0, "node-b": 33, "node-c": 100}),
    Case("nodeAffinityPolicy Ignore with required node affinity",
         spread_pod((1, "node", SCHEDULE_ANYWAY, FOO, None, IGNORE),
                    node_affinity_in=("foo", [""])), ABC_FOO,
         foo_pods({"node-a": 2, "node-b": 1, "node-c": 1}),
         {"node-a": 66, "node-b": 100, "node-c": 100}),
    Case("nodeTaintsPolicy Honor: the tainted node's pods don't count",
         spread_pod((1, "node", SCHEDULE_ANYWAY, FOO, None, None, HONOR)), ABC_TAINTED,
         foo_pods({"node-a": 2, "node-b": 1, "node-c": 1}),
         {"node-a": 0, "node-b": 33, "node-c": 100}),
    Case("nodeTaintsPolicy Ignore (default): the tainted node's pods count",
         spread_pod((1, "node", SCHEDULE_ANYWAY, FOO)), ABC_TAINTED,
         foo_pods({"node-a": 2, "node-b": 1, "node-c": 1}),
         {"node-a": 66, "node-b": 100, "node-c": 100}),
    Case("matchLabelKeys ANDed with an empty labelSelector",
         spread_pod((1, "zone", SCHEDULE_ANYWAY, selector(), None, None, None, ("foo",)),
                    (1, HOST, SCHEDULE_ANYWAY, selector(), None, None, None, ("bar",)),
                    labels=("foo", "bar")),
         zoned(node_a="zone1", node_b="zone1", node_c="zone2", node_d="zone2"),
         pods("node-a", 1, foo=True) + pods("node-b", 1, foo=True, bar=True)
         + pods("node-c", 1, foo=True) + pods("node-c", 1, bar=True),
         {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100}),
    Case("matchLabelKeys ANDed with a non-empty labelSelector",
         spread_pod(ON_ZONE, (1, HOST, SCHEDULE_ANYWAY, BAR, None, None, None, ("baz",)),
                    labels=("foo", "bar", "baz")),
         zoned(node_a="zone1", node_b="zone1", node_c="zone2", node_d="zone2"),
         pods("node-a", 1, foo=True) + pods("node-b", 1, foo=True, bar=True, baz=True)
         + pods("node-c", 1, foo=True) + pods("node-c", 1, bar=True)
         + pods("node-c", 1, bar=True, baz=True),
         {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100}),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_score(case: Case) -> None:
    pl = new_plugin(case.nodes + case.failed, case.existing, SYSTEM, services=case.services)
    st, got, _ = score_all(pl, case.pod, [n.name for n in case.nodes])
    assert (st, got) == (Status(), case.want)


SKIP_CASES = [
    ("the pod has no soft constraints", spread_pod((1, "zone", DO_NOT_SCHEDULE, FOO)),
     PodTopologySpreadArgs(defaulting_type=LIST_DEFAULTING), ()),
    ("no constraints and no defaults", spread_pod(),
     PodTopologySpreadArgs(defaulting_type=LIST_DEFAULTING), ()),
    ("default constraints and a ReplicaSet that doesn't exist",
     make_pod("p").label("foo", "bar").owner("ReplicaSet", "rs2").obj(),
     PodTopologySpreadArgs((TopologySpreadConstraint(2, "planet", SCHEDULE_ANYWAY),),
                           LIST_DEFAULTING),
     (Workload("ReplicaSet", "rs1", selector=selector(None, ("tar", "Exists"))),)),
    ("system defaults but nothing selects the pod", spread_pod(), SYSTEM, ()),
]


@pytest.mark.parametrize("name,pod,args,workloads", SKIP_CASES, ids=[c[0] for c in SKIP_CASES])
def test_pre_score_skip(name, pod, args, workloads) -> None:
    pl = new_plugin([make_node("node-a").label("planet", "mars").obj()], [], args,
                    workloads=workloads)
    st, _, state = score_all(pl, pod, ["node-a"])
    assert st == Status(Code.Skip)


def test_pre_score_skips_without_nodes() -> None:
    pl = new_plugin([], [])
    st, _, _ = score_all(pl, spread_pod(ON_HOST), [])
    assert st == Status(Code.Skip)


def _sel(ls):
    return klabels.selector_from_label_selector(ls)


def test_pre_score_state_system_defaults_treat_missing_zone_as_a_domain() -> None:
    """Nodes without a zone label are not excluded under System defaulting: "" is a zone."""
    rs = Workload("ReplicaSet", "rs1", selector=FOO)
    nodes = [make_node("node-a").zone("mars").obj(), make_node("node-b").zone("mars").obj(),
             make_node("node-c").obj(), make_node("node-d").obj()]
    pod = make_pod("p").label("foo", "tar").label("baz", "sup").owner("ReplicaSet", "rs1").obj()
    pl = new_plugin(nodes, [], SYSTEM, workloads=(rs,))
    _, _, state = score_all(pl, pod, [n.name for n in nodes])
    got = state.read("PreScorePodTopologySpread")
    src = ("ReplicaSet default/rs1",)
    want = PreScoreState(
        [Constraint(3, HOST, _sel(FOO), when_unsatisfiable=SCHEDULE_ANYWAY,
                    origin=ORIGIN_CLUSTER_DEFAULT, selector_sources=src),
         Constraint(5, LABEL_TOPOLOGY_ZONE, _sel(FOO), when_unsatisfiable=SCHEDULE_ANYWAY,
                    origin=ORIGIN_CLUSTER_DEFAULT, selector_sources=src)],
        set(), [{}, {"mars": 0, "": 0}],
        [topology_normalizing_weight(4), topology_normalizing_weight(2)])
    assert got == want


def test_pre_score_state_ignores_nodes_lacking_keys() -> None:
    nodes = [make_node("node-a").label("zone", "zone1").obj(),
             make_node("node-b").label("zone", "zone1").obj(), make_node("node-x").obj()]
    pod = spread_pod(ON_ZONE, (1, HOST, SCHEDULE_ANYWAY, BAR))
    _, _, state = score_all(new_plugin(nodes), pod, ["node-a", "node-b", "node-x"])
    got = state.read("PreScorePodTopologySpread")
    assert (got.ignored_nodes, got.topology_value_to_pod_counts,
            got.topology_normalizing_weight) == (
        {"node-x"}, [{"zone1": 0}, {}],
        [topology_normalizing_weight(1), topology_normalizing_weight(2)])


def test_pre_score_state_list_defaults_keep_only_schedule_anyway() -> None:
    defaults = (TopologySpreadConstraint(1, HOST, SCHEDULE_ANYWAY),
                TopologySpreadConstraint(2, "rack", DO_NOT_SCHEDULE),
                TopologySpreadConstraint(2, "planet", SCHEDULE_ANYWAY))
    rs = Workload("ReplicaSet", "rs1", selector=FOO)
    node = make_node("node-a").label("rack", "rack1").label("planet", "mars").obj()
    pod = make_pod("p").label("foo", "tar").owner("ReplicaSet", "rs1").obj()
    pl = new_plugin([node], [], PodTopologySpreadArgs(defaults, LIST_DEFAULTING), workloads=(rs,))
    _, _, state = score_all(pl, pod, ["node-a"])
    got = state.read("PreScorePodTopologySpread")
    assert ([(c.max_skew, c.topology_key) for c in got.constraints],
            got.topology_value_to_pod_counts) == ([(1, HOST), (2, "planet")], [{}, {"mars": 0}])


NORMALIZE_CASES = [
    ("ignored nodes get 0 and don't take part in min/max",
     {"a": 10, "b": 4, "c": 7}, {"c"}, {"a": 40, "b": 100, "c": 0}),
    ("all scores 0 give 100", {"a": 0, "b": 0}, set(), {"a": 100, "b": 100}),
    ("integer division truncates", {"a": 3, "b": 2, "c": 0}, set(),
     {"a": 0, "b": 33, "c": 100}),
    ("every node ignored", {"a": 5}, {"a"}, {"a": 0}),
]


@pytest.mark.parametrize("name,raw,ignored,want", NORMALIZE_CASES,
                         ids=[c[0] for c in NORMALIZE_CASES])
def test_normalize_score(name, raw, ignored, want) -> None:
    scores = [NodeScore(n, s) for n, s in raw.items()]
    normalize_scores(PreScoreState(ignored_nodes=set(ignored)), scores)
    assert {s.name: s.score for s in scores} == want


@pytest.mark.parametrize("x,want", [(0.5, 1), (1.5, 2), (2.5, 3), (2.4999, 2), (-0.5, -1),
                                    (3.0, 3), (math.log(5) * 2, 3)])
def test_go_round_rounds_half_away_from_zero(x, want) -> None:
    assert go_round(x) == want
