"""PreFilter/Filter: the worked examples of the seeds (KEP-3022, the PodTopologySpread
article) and table tests for each counting rule of upstream filtering.go / common.go."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import Code, Status
from scheduler_core.framework.types import new_pod_info
from scheduler_core.k8s.types import (DO_NOT_SCHEDULE, HONOR, IGNORE, LABEL_HOSTNAME,
                                      SCHEDULE_ANYWAY, Node, Pod)
from scheduler_core.plugins.podtopologyspread.filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, CriticalPaths,
    PreFilterState)
from tests.core.wrappers import make_node, make_pod, selector

from .fakes import filter_all, new_plugin, score_all

OK = Status()
SKEW = Status(Code.Unschedulable, (ERR_REASON_CONSTRAINTS_NOT_MATCH,))
MISSING = Status(Code.UnschedulableAndUnresolvable, (ERR_REASON_NODE_LABEL_NOT_MATCH,))
FOO_BAR = {"foo": "bar"}
HOST = LABEL_HOSTNAME


def test_reason_strings_are_upstreams() -> None:
    """plugin.go ErrReasonConstraintsNotMatch / ErrReasonNodeLabelNotMatch, verbatim."""
    assert (ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH) == (
        "node(s) didn't match pod topology spread constraints",
        "node(s) didn't match pod topology spread constraints (missing required label)")


def node(name: str, **labels: str) -> Node:
    w = make_node(name)
    for k, v in labels.items():
        w = w.label(k, v)
    return w.obj()


def bound(spread: dict[str, int], labels=FOO_BAR, ns: str = "default") -> list[Pod]:
    """Bound pods: node name -> how many pods carrying labels."""
    return [make_pod(f"{n}-{ns}-{i}", ns).labels(labels).node(n).obj()
            for n, k in spread.items() for i in range(k)]


def article_nodes() -> list[Node]:
    """The article's 4-node cluster: node1, node2 in zoneA; node3, node4 in zoneB."""
    return [node("node1", node="node1", zone="zoneA"), node("node2", node="node2", zone="zoneA"),
            node("node3", node="node3", zone="zoneB"), node("node4", node="node4", zone="zoneB")]


def my_pod(*constraints: tuple, labels=FOO_BAR, name: str = "mypod", **kw) -> Pod:
    w = make_pod(name).labels(labels)
    for c in constraints:
        w = w.spread(*c)
    for k, v in kw.items():
        w = getattr(w, k)(*v) if isinstance(v, tuple) else getattr(w, k)(v)
    return w.obj()


def three_zones(per_zone: int = 1) -> list[Node]:
    return [node(f"z{z}-n{i}", zone=f"zone{z}") for z in (1, 2, 3) for i in range(per_zone)]


@dataclass
class Case:
    name: str
    pod: Pod
    nodes: list[Node]
    existing: list[Pod]
    want: dict[str, Status]
    extra: dict = field(default_factory=dict)


ZONE1 = (1, "zone", DO_NOT_SCHEDULE, FOO_BAR)
ARTICLE_PODS = bound({"node1": 1, "node2": 1, "node3": 1})
# The article's two-constraint example: zone1 = nodeA (0), nodeB (3); zone2 = nodeX (2), nodeY (0)
TWO_NODES = [node("nodeA", zone="zone1"), node("nodeB", zone="zone1"),
             node("nodeX", zone="zone2"), node("nodeY", zone="zone2")]
TWO_PODS = bound({"nodeB": 3, "nodeX": 2})
# The article's infeasible-zone example: 3/3/0 over three zones
INFEASIBLE_NODES = [node("zone1-a", zone="zone1"), node("zone2-a", zone="zone2"),
                    make_node("zone3-a").label("zone", "zone3").taint("dedicated", "x").obj()]
INFEASIBLE_PODS = bound({"zone1-a": 3, "zone2-a": 3})
# The Kubernetes docs' node affinity example: zoneA 2, zoneB 1, zoneC 0 (zoneC excluded)
ABC_NODES = [node("n1", zone="zoneA"), node("n2", zone="zoneA"), node("n3", zone="zoneB"),
             node("n4", zone="zoneB"), node("n5", zone="zoneC")]
ABC_PODS = bound({"n1": 1, "n2": 1, "n3": 1})
NOT_C = ("zone", ["zoneC"], "NotIn")

SEED_CASES = [
    Case("article: maxSkew 1 over zones sends the 4th pod to zoneB", my_pod(ZONE1),
         article_nodes(), ARTICLE_PODS,
         {"node1": SKEW, "node2": SKEW, "node3": OK, "node4": OK}),
    Case("article: maxSkew 2 lets the pod go to zoneA too", my_pod((2, "zone", DO_NOT_SCHEDULE,
                                                                    FOO_BAR)),
         article_nodes(), ARTICLE_PODS, {"node1": OK, "node2": OK, "node3": OK, "node4": OK}),
    Case("article: topologyKey node with maxSkew 1 allows only node4",
         my_pod((1, "node", DO_NOT_SCHEDULE, FOO_BAR)), article_nodes(), ARTICLE_PODS,
         {"node1": SKEW, "node2": SKEW, "node3": SKEW, "node4": OK}),
    Case("article: two constraints intersect to nodeY",
         my_pod(ZONE1, (1, HOST, DO_NOT_SCHEDULE, FOO_BAR)), TWO_NODES, TWO_PODS,
         {"nodeA": SKEW, "nodeB": SKEW, "nodeX": SKEW, "nodeY": OK}),
    Case("article: infeasible zone3 still counts, so DoNotSchedule rejects zone1 and zone2",
         my_pod(ZONE1), INFEASIBLE_NODES, INFEASIBLE_PODS,
         {"zone1-a": SKEW, "zone2-a": SKEW, "zone3-a": OK}),
    Case("infeasible zone3 with nodeTaintsPolicy Honor is not a domain: min is 3",
         my_pod((1, "zone", DO_NOT_SCHEDULE, FOO_BAR, None, None, HONOR)), INFEASIBLE_NODES,
         INFEASIBLE_PODS, {"zone1-a": OK, "zone2-a": OK, "zone3-a": OK}),
    Case("article/docs: node affinity excludes zoneC, so the pod goes to zoneB",
         my_pod(ZONE1, node_affinity_in=NOT_C), ABC_NODES, ABC_PODS,
         {"n1": SKEW, "n2": SKEW, "n3": OK, "n4": OK, "n5": OK}),
    Case("nodeAffinityPolicy Ignore counts zoneC (0), so only zoneC passes the skew check",
         my_pod((1, "zone", DO_NOT_SCHEDULE, FOO_BAR, None, IGNORE), node_affinity_in=NOT_C),
         ABC_NODES, ABC_PODS, {"n1": SKEW, "n2": SKEW, "n3": SKEW, "n4": SKEW, "n5": OK}),
    Case("article: env=qa nodeSelector restricts the domains to the qa nodes",
         my_pod(ZONE1, node_selector={"env": "qa"}),
         [node("prod1", zone="zone1", env="prod"), node("qa1", zone="zone1", env="qa"),
          node("qa2", zone="zone2", env="qa"), node("staging2", zone="zone2", env="staging")],
         # staging2's own pods don't count, and its domain zone2 has 0 qa pods: the skew
         # check passes there (NodeAffinity is what rejects staging2)
         bound({"qa1": 1, "staging2": 3}), {"prod1": SKEW, "qa1": SKEW, "qa2": OK,
                                            "staging2": OK}),
    Case("KEP-3022: 2/2/2 over 3 zones with maxSkew 2, minDomains 5: min is 0, all rejected",
         my_pod((2, "zone", DO_NOT_SCHEDULE, FOO_BAR, 5)), three_zones(),
         bound({"z1-n0": 2, "z2-n0": 2, "z3-n0": 2}),
         {"z1-n0": SKEW, "z2-n0": SKEW, "z3-n0": SKEW}),
    Case("KEP-3022: 2/2/2 without minDomains: min is 2, all fit",
         my_pod((2, "zone", DO_NOT_SCHEDULE, FOO_BAR)), three_zones(),
         bound({"z1-n0": 2, "z2-n0": 2, "z3-n0": 2}),
         {"z1-n0": OK, "z2-n0": OK, "z3-n0": OK}),
    Case("KEP-3022: 2/2/1 over 3 nodes, maxSkew 1, minDomains 4: unschedulable",
         my_pod((1, HOST, DO_NOT_SCHEDULE, FOO_BAR, 4)), [node("a"), node("b"), node("c")],
         bound({"a": 2, "b": 2, "c": 1}), {"a": SKEW, "b": SKEW, "c": SKEW}),
    Case("minDomains equal to the domain count has no effect",
         my_pod((1, HOST, DO_NOT_SCHEDULE, FOO_BAR, 3)), [node("a"), node("b"), node("c")],
         bound({"a": 2, "b": 2, "c": 1}), {"a": SKEW, "b": SKEW, "c": OK}),
]

RULE_CASES = [
    Case("pods in another namespace don't count", my_pod(ZONE1), article_nodes(),
         bound({"node1": 1}) + bound({"node3": 2}, ns="other"),
         {"node1": SKEW, "node2": SKEW, "node3": OK, "node4": OK}),
    Case("terminating pods don't count", my_pod(ZONE1), article_nodes(),
         bound({"node1": 1}) + [make_pod("t", "default").labels(FOO_BAR).node("node3")
                                .terminating().obj()],
         {"node1": SKEW, "node2": SKEW, "node3": OK, "node4": OK}),
    Case("pods not matching the selector don't count", my_pod(ZONE1), article_nodes(),
         bound({"node1": 1}) + bound({"node3": 2}, labels={"foo": "baz"}),
         {"node1": SKEW, "node2": SKEW, "node3": OK, "node4": OK}),
    Case("a node without the key is UnschedulableAndUnresolvable, others by skew",
         my_pod(ZONE1), article_nodes()[:3] + [make_node("node4").obj()], ARTICLE_PODS,
         {"node1": SKEW, "node2": SKEW, "node3": OK, "node4": MISSING}),
    Case("nodes lacking any constraint's key are left out of every constraint's counts",
         my_pod((1, HOST, DO_NOT_SCHEDULE, FOO_BAR), ZONE1),
         [node("a", zone="z1"), node("b", zone="z2"), make_node("c").obj()],
         bound({"a": 1, "b": 1, "c": 5}), {"a": OK, "b": OK, "c": MISSING}),
    Case("constraints are checked in order: skew on the first beats a missing second key",
         my_pod(ZONE1, (1, "rack", DO_NOT_SCHEDULE, FOO_BAR)),
         [node("a", zone="z1", rack="r1"), node("b", zone="z2", rack="r2"), node("c", zone="z1")],
         bound({"a": 1}), {"a": SKEW, "b": OK, "c": SKEW}),
    Case("constraints are checked in order: a missing first key beats skew on the second",
         my_pod((1, "rack", DO_NOT_SCHEDULE, FOO_BAR), ZONE1),
         [node("a", zone="z1", rack="r1"), node("b", zone="z2", rack="r2"), node("c", zone="z1")],
         bound({"a": 1}), {"a": SKEW, "b": OK, "c": MISSING}),
    Case("a pod not matching its own selector adds no self-match",
         my_pod(ZONE1, labels={"app": "other"}), article_nodes(),
         bound({"node1": 1, "node2": 1, "node3": 1}),
         {"node1": OK, "node2": OK, "node3": OK, "node4": OK}),
    Case("matchLabelKeys: only pods with the pod's value count",
         my_pod((1, HOST, DO_NOT_SCHEDULE, FOO_BAR, None, None, None, ("hash",)),
                labels={**FOO_BAR, "hash": "v2"}), [node("a"), node("b")],
         bound({"a": 3}, labels={**FOO_BAR, "hash": "v1"})
         + bound({"b": 1}, labels={**FOO_BAR, "hash": "v2"}),
         {"a": OK, "b": SKEW}),
    Case("matchLabelKeys the pod lacks are ignored",
         my_pod((1, HOST, DO_NOT_SCHEDULE, FOO_BAR, None, None, None, ("hash",))),
         [node("a"), node("b")], bound({"a": 1}, labels={**FOO_BAR, "hash": "v1"}),
         {"a": SKEW, "b": OK}),
    Case("nodeTaintsPolicy Ignore (default) counts a tainted node's empty domain",
         my_pod((1, HOST, DO_NOT_SCHEDULE, FOO_BAR)),
         [node("a"), make_node("t").taint("k", "v").obj()], bound({"a": 1}),
         {"a": SKEW, "t": OK}),
    Case("nodeTaintsPolicy Honor leaves out a node whose taint isn't tolerated",
         my_pod((1, HOST, DO_NOT_SCHEDULE, FOO_BAR, None, None, HONOR)),
         [node("a"), make_node("t").taint("k", "v").obj()], bound({"a": 1}),
         {"a": OK, "t": OK}),
    Case("nodeTaintsPolicy Honor keeps a node whose taint is tolerated",
         my_pod((1, HOST, DO_NOT_SCHEDULE, FOO_BAR, None, None, HONOR),
                toleration=("k", "v", "NoSchedule")),
         [node("a"), make_node("t").taint("k", "v").obj()], bound({"a": 1}),
         {"a": SKEW, "t": OK}),
    Case("nodeTaintsPolicy Honor ignores PreferNoSchedule taints",
         my_pod((1, HOST, DO_NOT_SCHEDULE, FOO_BAR, None, None, HONOR)),
         [node("a"), make_node("t").taint("k", "v", "PreferNoSchedule").obj()], bound({"a": 1}),
         {"a": SKEW, "t": OK}),
    Case("an empty labelSelector counts no pod at all in v1.34",
         my_pod((1, HOST, DO_NOT_SCHEDULE, selector())), [node("a"), node("b")],
         bound({"a": 5}), {"a": OK, "b": OK}),
    Case("a null labelSelector matches nothing, not even the pod itself",
         my_pod((1, HOST, DO_NOT_SCHEDULE, None)), [node("a"), node("b")],
         bound({"a": 5}), {"a": OK, "b": OK}),
    Case("ScheduleAnyway constraints are not filters",
         my_pod((1, HOST, DO_NOT_SCHEDULE, FOO_BAR), (1, "zone", SCHEDULE_ANYWAY, FOO_BAR)),
         [node("a", zone="z1"), node("b")], bound({"a": 1}), {"a": SKEW, "b": OK}),
]


@pytest.mark.parametrize("case", SEED_CASES + RULE_CASES, ids=lambda c: c.name)
def test_filter(case: Case) -> None:
    st, got = filter_all(new_plugin(case.nodes, case.existing), case.pod)
    assert (st, got) == (OK, case.want)


def test_pre_filter_skips_without_hard_constraints() -> None:
    pl = new_plugin([node("a")])
    st, got = filter_all(pl, my_pod((1, HOST, SCHEDULE_ANYWAY, FOO_BAR)))
    assert (st, got) == (Status(Code.Skip), {})


def test_infeasible_zone_schedule_anyway_scores_zone1_and_zone2_alike() -> None:
    """Article: with ScheduleAnyway the minimum is taken over feasible nodes (3), so the
    pod goes to zone1 or zone2 with the same score."""
    pod = my_pod((1, "zone", SCHEDULE_ANYWAY, FOO_BAR))
    pl = new_plugin(INFEASIBLE_NODES, INFEASIBLE_PODS)
    st, scores, _ = score_all(pl, pod, ["zone1-a", "zone2-a"])
    assert (st, scores) == (OK, {"zone1-a": 100, "zone2-a": 100})


def test_article_schedule_anyway_prefers_zone_b() -> None:
    pod = my_pod((1, "zone", SCHEDULE_ANYWAY, FOO_BAR))
    pl = new_plugin(article_nodes(), ARTICLE_PODS)
    st, scores, _ = score_all(pl, pod, ["node1", "node2", "node3", "node4"])
    assert (st, scores) == (OK, {"node1": 33, "node2": 33, "node3": 100, "node4": 100})


def schedule_one_by_one(nodes: list[Node], pod_of, count: int, existing: list[Pod] = ()
                        ) -> list[str | None]:
    """Place count replicas in turn on the first node the plugin accepts, binding each by
    adding it to the NodeInfo (None when no node fits)."""
    pl = new_plugin(nodes, existing)
    infos = pl.handle.snapshot_shared_lister().list()
    placed: list[str | None] = []
    for i in range(count):
        pod = pod_of(i)
        _, statuses = filter_all(pl, pod)
        fit = next((n for n, s in statuses.items() if s.is_success()), None)
        if fit is not None:
            next(ni for ni in infos if ni.name == fit).add_pod(
                make_pod(pod.name).labels(pod.labels).node(fit).obj())
        placed.append(fit)
    return placed


def kep_replica(i: int) -> Pod:
    return my_pod((2, HOST, DO_NOT_SCHEDULE, FOO_BAR, 5), name=f"nginx-{i}")


def test_kep_3022_ten_replicas_over_three_nodes() -> None:
    """KEP-3022 user story: maxSkew 2, minDomains 5, 3 nodes: 6 fit, the other 4 don't."""
    placed = schedule_one_by_one([node("a"), node("b"), node("c")], kep_replica, 10)
    assert placed == ["a", "a", "b", "b", "c", "c", None, None, None, None]


def test_kep_3022_the_rest_fit_when_two_more_nodes_join() -> None:
    """KEP-3022: the remaining 4 replicas schedule once 2 more nodes join (5 domains)."""
    nodes = [node("a"), node("b"), node("c"), node("d"), node("e")]
    placed = schedule_one_by_one(nodes, lambda i: kep_replica(6 + i), 4,
                                 bound({"a": 2, "b": 2, "c": 2}))
    # first fit: d and e fill up until the global minimum (now real, 5 domains) rises to 1
    assert placed == ["d", "d", "e", "a"]


def pre_filter_state(pod: Pod, nodes: list[Node], existing: list[Pod]) -> PreFilterState:
    pl = new_plugin(nodes, existing)
    state = CycleState()
    pl.pre_filter(state, pod, pl.handle.snapshot_shared_lister().list())
    return state.read("PreFilterPodTopologySpread")


def summary(s: PreFilterState) -> list[tuple[dict, int]]:
    """Per constraint: the domain counts and the critical minimum."""
    return [(m, p.paths[0].match_num) for m, p in zip(s.tp_value_to_match_num, s.critical_paths)]


def test_pre_filter_state_counts_and_minimum() -> None:
    s = pre_filter_state(my_pod(ZONE1, (1, HOST, DO_NOT_SCHEDULE, FOO_BAR)), TWO_NODES, TWO_PODS)
    assert summary(s) == [({"zone1": 3, "zone2": 2}, 2),
                          ({"nodeA": 0, "nodeB": 3, "nodeX": 2, "nodeY": 0}, 0)]


def test_min_match_num_is_zero_below_min_domains() -> None:
    s = pre_filter_state(my_pod((2, "zone", DO_NOT_SCHEDULE, FOO_BAR, 5)), three_zones(),
                         bound({"z1-n0": 2, "z2-n0": 2, "z3-n0": 2}))
    assert (s.min_match_num(0, 5), s.min_match_num(0, 3)) == (0, 2)


@pytest.mark.parametrize("updates,want_min", [
    ([("a", 5)], 2), ([("b", 1)], 1), ([("b", 1), ("b", 0)], 0), ([("c", 3), ("b", 4)], 3),
])
def test_critical_paths_keep_the_minimum_first(updates, want_min) -> None:
    p = CriticalPaths()
    for v, n in [("a", 3), ("b", 2), ("c", 4)] + updates:
        p.update(v, n)
    assert p.paths[0].match_num == want_min


ADD_CASES = [
    ("a matching pod on an eligible node is counted", make_pod("new").labels(FOO_BAR).obj(),
     "nodeY", ({"zone1": 3, "zone2": 3}, 3)),
    ("a pod in another namespace is not counted",
     make_pod("new", "other").labels(FOO_BAR).obj(), "nodeY", ({"zone1": 3, "zone2": 2}, 2)),
    ("a pod not matching the selector is not counted", make_pod("new").obj(), "nodeY",
     ({"zone1": 3, "zone2": 2}, 2)),
]


@pytest.mark.parametrize("name,added,on,want", ADD_CASES, ids=[c[0] for c in ADD_CASES])
def test_add_pod_updates_a_clone_only(name, added, on, want) -> None:
    pod = my_pod(ZONE1)
    pl = new_plugin(TWO_NODES, TWO_PODS)
    state = CycleState()
    pl.pre_filter(state, pod, pl.handle.snapshot_shared_lister().list())
    clone = state.clone()
    st = pl.add_pod(clone, pod, new_pod_info(added), pl.handle.snapshot_shared_lister().get(on))
    got = clone.read("PreFilterPodTopologySpread")
    assert (st, summary(got)[0]) == (OK, want)
    assert summary(state.read("PreFilterPodTopologySpread"))[0] == ({"zone1": 3, "zone2": 2}, 2)


def test_remove_pod_lets_the_preemptor_fit() -> None:
    """Preemption removes a victim from zone1: the skew check then passes there."""
    pod = my_pod(ZONE1)
    pl = new_plugin(TWO_NODES, TWO_PODS)
    state = CycleState()
    pl.pre_filter(state, pod, pl.handle.snapshot_shared_lister().list())
    node_b = pl.handle.snapshot_shared_lister().get("nodeB")
    before = pl.filter(state, pod, node_b)
    for victim in TWO_PODS[:2]:
        pl.remove_pod(state, pod, new_pod_info(victim), node_b)
    assert (before, pl.filter(state, pod, node_b)) == (SKEW, OK)


def test_add_pod_on_a_node_failing_node_affinity_is_not_counted() -> None:
    pod = my_pod(ZONE1, node_affinity_in=("zone", ["zone1"]))
    pl = new_plugin(TWO_NODES, TWO_PODS)
    state = CycleState()
    pl.pre_filter(state, pod, pl.handle.snapshot_shared_lister().list())
    pl.add_pod(state, pod, new_pod_info(make_pod("n").labels(FOO_BAR).obj()),
               pl.handle.snapshot_shared_lister().get("nodeX"))
    assert summary(state.read("PreFilterPodTopologySpread"))[0] == ({"zone1": 3}, 3)


# Upstream filtering_test.go TestMultipleConstraints, re-expressed: zone1 = node-a, node-b;
# zone2 = node-x, node-y; both constraints use maxSkew 1.
def abxy(x_has_node_label: bool = True) -> list[Node]:
    out = []
    for name, zone in (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"),
                       ("node-y", "zone2")):
        labels = {"zone": zone} if name == "node-x" and not x_has_node_label else \
            {"zone": zone, "node": name}
        out.append(node(name, **labels))
    return out


EX = selector(None, ("foo", "Exists"))
EXB = selector(None, ("bar", "Exists"))
ZONE_FOO = (1, "zone", DO_NOT_SCHEDULE, EX)
NODE_FOO = (1, "node", DO_NOT_SCHEDULE, EX)
NODE_BAR = (1, "node", DO_NOT_SCHEDULE, EXB)


def spread_pods(**per_node: list[dict]) -> list[Pod]:
    """node_a=[{"foo": ""}, ...] -> pods bound to node-a with those labels."""
    return [make_pod(f"{n}-{i}").labels(lab).node(n.replace("_", "-")).obj()
            for n, labs in per_node.items() for i, lab in enumerate(labs)]


F, B, FB = {"foo": ""}, {"bar": ""}, {"foo": "", "bar": ""}
MULTI_CASES = [
    Case("two constraints on zone and node, spreads [3/3, 2/1/0/3]",
         my_pod(ZONE_FOO, NODE_FOO, labels=F), abxy(),
         spread_pods(node_a=[F, F], node_b=[F], node_y=[F, F, F]),
         {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": SKEW}),
    Case("two constraints on zone and node, spreads [3/4, 2/1/0/4]: no node",
         my_pod(ZONE_FOO, NODE_FOO, labels=F), abxy(),
         spread_pods(node_a=[F, F], node_b=[F], node_y=[F, F, F, F]),
         {"node-a": SKEW, "node-b": SKEW, "node-x": SKEW, "node-y": SKEW}),
    Case("different labelSelectors, spreads [1/0, 1/0/0/1]",
         my_pod(ZONE_FOO, NODE_BAR, labels=FB), abxy(),
         spread_pods(node_a=[F], node_y=[B]),
         {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": SKEW}),
    Case("different labelSelectors, spreads [1/0, 0/0/1/1]: no node",
         my_pod(ZONE_FOO, NODE_BAR, labels=FB), abxy(),
         spread_pods(node_a=[F], node_x=[B], node_y=[B]),
         {"node-a": SKEW, "node-b": SKEW, "node-x": SKEW, "node-y": SKEW}),
    Case("different labelSelectors, spreads [2/3, 1/0/0/1]",
         my_pod(ZONE_FOO, NODE_BAR, labels=FB), abxy(),
         spread_pods(node_a=[F, FB], node_y=[F, FB, F]),
         {"node-a": SKEW, "node-b": OK, "node-x": SKEW, "node-y": SKEW}),
    Case("the pod doesn't match itself on the zone constraint",
         my_pod(ZONE_FOO, NODE_BAR, labels=B), abxy(),
         spread_pods(node_a=[F], node_x=[B], node_y=[B]),
         {"node-a": OK, "node-b": OK, "node-x": SKEW, "node-y": SKEW}),
    Case("absence of label 'node' on node-x, spreads [1/1, 1/0/0/1]",
         my_pod(ZONE_FOO, NODE_FOO, labels=F), abxy(x_has_node_label=False),
         spread_pods(node_a=[F], node_y=[F]),
         {"node-a": SKEW, "node-b": OK, "node-x": MISSING, "node-y": SKEW}),
]


@pytest.mark.parametrize("case", MULTI_CASES, ids=lambda c: c.name)
def test_multiple_constraints(case: Case) -> None:
    st, got = filter_all(new_plugin(case.nodes, case.existing), case.pod)
    assert (st, got) == (OK, case.want)


MIN_DOMAINS_CASES = [
    Case("2/2/1 over nodes, maxSkew 2, fewer domains than minDomains: the third node fits",
         my_pod((2, HOST, DO_NOT_SCHEDULE, FOO_BAR, 4)), [node("a"), node("b"), node("c")],
         bound({"a": 2, "b": 2, "c": 1}), {"a": SKEW, "b": SKEW, "c": OK}),
    Case("2/1 over zones, maxSkew 2, fewer zones than minDomains: only zone2 fits",
         my_pod((2, "zone", DO_NOT_SCHEDULE, FOO_BAR, 3)),
         [node("a", zone="z1"), node("b", zone="z1"), node("x", zone="z2"),
          node("y", zone="z2")], bound({"a": 1, "b": 1, "x": 1}),
         {"a": SKEW, "b": SKEW, "x": OK, "y": OK}),
    Case("minDomains counts eligible domains only: an affinity-excluded zone doesn't count",
         my_pod((1, "zone", DO_NOT_SCHEDULE, FOO_BAR, 3), node_affinity_in=NOT_C),
         ABC_NODES, bound({"n1": 1, "n3": 1}),
         {"n1": SKEW, "n2": SKEW, "n3": SKEW, "n4": SKEW, "n5": OK}),
]


@pytest.mark.parametrize("case", MIN_DOMAINS_CASES, ids=lambda c: c.name)
def test_min_domains(case: Case) -> None:
    st, got = filter_all(new_plugin(case.nodes, case.existing), case.pod)
    assert (st, got) == (OK, case.want)


def test_filter_without_pre_filter_state_is_an_error() -> None:
    pl = new_plugin([node("a")])
    ni = pl.handle.snapshot_shared_lister().get("a")
    assert pl.filter(CycleState(), my_pod(ZONE1), ni) == Status(
        Code.Error, ('reading "PreFilterPodTopologySpread" from cycleState: not found',))
    assert pl.score(CycleState(), my_pod(ZONE1), ni) == (0, Status(
        Code.Error, ('error reading "PreScorePodTopologySpread" from cycleState: not found',)))


def _removals(case: Case) -> list[tuple[str, list[Pod]]]:
    """(node, pods taken off it): all of each node's pods, and every other one of them."""
    out = []
    for n in case.nodes:
        on = [p for p in case.existing if p.node_name == n.name]
        out += [(n.name, on), (n.name, on[::2])] if on else [(n.name, [])]
    return out


@pytest.mark.parametrize("case", SEED_CASES + MULTI_CASES + MIN_DOMAINS_CASES,
                         ids=lambda c: c.name)
def test_filter_without_pods_answers_as_remove_pod_then_filter(case: Case) -> None:
    """Preemption asks whether a node stays rejected once pods are taken off it without
    changing the state: the answer is Filter's after RemovePod of each, on every node, whether
    the pods taken off match the selectors or not; the state is left as it was."""
    pl = new_plugin(case.nodes, case.existing)
    state = CycleState()
    pl.pre_filter(state, case.pod, pl.handle.snapshot_shared_lister().list())
    before = summary(state.read("PreFilterPodTopologySpread"))
    for name, taken in _removals(case):
        ni = pl.handle.snapshot_shared_lister().get(name)
        infos = [pi for pi in ni.pods if pi.pod in taken]
        left = ni.clone()
        assert left.remove_pod_infos(infos) is None
        removed = state.clone()
        for pi in infos:
            pl.remove_pod(removed, case.pod, pi, left)
        want = pl.filter(removed, case.pod, left)
        assert (name, pl.filter_without_pods(state, case.pod, left, infos, {})) == (name, want)
    assert summary(state.read("PreFilterPodTopologySpread")) == before
