"""The plugin as the framework drives it: cluster defaults (System / List) and explain()."""
from __future__ import annotations

import json

import pytest

from scheduler_core.config_args import LIST_DEFAULTING, PodTopologySpreadArgs
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import Code, Status
from scheduler_core.k8s.types import (DO_NOT_SCHEDULE, HONOR, LABEL_HOSTNAME,
                                      LABEL_TOPOLOGY_ZONE, SCHEDULE_ANYWAY, Service,
                                      TopologySpreadConstraint, Workload)
from scheduler_core.plugins.podtopologyspread.filtering import ERR_REASON_CONSTRAINTS_NOT_MATCH
from tests.core.wrappers import make_node, make_pod, selector

from .fakes import filter_all, new_plugin, score_all

OK = Status()
SKIP = Status(Code.Skip)
SKEW = Status(Code.Unschedulable, (ERR_REASON_CONSTRAINTS_NOT_MATCH,))
SYSTEM = PodTopologySpreadArgs()
WEB_SVC = Service("web", selector={"app": "web"})
WEB_RS = Workload("ReplicaSet", "web-rs", selector=selector({"app": "web"}))
HARD_ZONE = (TopologySpreadConstraint(1, LABEL_TOPOLOGY_ZONE, DO_NOT_SCHEDULE),)
LIST_HARD = PodTopologySpreadArgs(HARD_ZONE, LIST_DEFAULTING)


def zone_nodes():
    return [make_node("a").zone("z1").obj(), make_node("b").zone("z2").obj()]


def web_pods(on: str, n: int):
    return [make_pod(f"web-{on}-{i}").label("app", "web").node(on).obj() for i in range(n)]


def soft_keys(pl, pod, feasible=("a", "b")):
    st, _, state = score_all(pl, pod, list(feasible))
    if not st.is_success():
        return st, []
    s = state.read("PreScorePodTopologySpread")
    return st, [(c.topology_key, c.max_skew, str(c.selector), c.origin) for c in s.constraints]


WEB = make_pod("p").label("app", "web")
DEFAULT_CASES = [
    ("System: a pod selected by a Service gets the built-in soft defaults",
     WEB.obj(), SYSTEM, (WEB_SVC,), (),
     (OK, [(LABEL_HOSTNAME, 3, "app=web", "cluster default"),
           (LABEL_TOPOLOGY_ZONE, 5, "app=web", "cluster default")])),
    ("System: a pod with its own constraints gets no defaults",
     make_pod("p").label("app", "web").spread(1, "zone", DO_NOT_SCHEDULE, {"app": "web"}).obj(),
     SYSTEM, (WEB_SVC,), (), (SKIP, [])),
    ("System: a pod nothing selects gets no defaults", WEB.obj(), SYSTEM, (), (), (SKIP, [])),
    ("System: a ReplicaSet owner gives the selector",
     make_pod("p").label("app", "web").owner("ReplicaSet", "web-rs").obj(), SYSTEM, (),
     (WEB_RS,), (OK, [(LABEL_HOSTNAME, 3, "app=web", "cluster default"),
                      (LABEL_TOPOLOGY_ZONE, 5, "app=web", "cluster default")])),
    ("List with no default constraints: nothing", WEB.obj(),
     PodTopologySpreadArgs(defaulting_type=LIST_DEFAULTING), (WEB_SVC,), (), (SKIP, [])),
    ("List: only the ScheduleAnyway defaults score",
     WEB.obj(), PodTopologySpreadArgs(HARD_ZONE + (
         TopologySpreadConstraint(2, "zone", SCHEDULE_ANYWAY),), LIST_DEFAULTING),
     (WEB_SVC,), (), (OK, [("zone", 2, "app=web", "cluster default")])),
]


@pytest.mark.parametrize("name,pod,args,services,workloads,want", DEFAULT_CASES,
                         ids=[c[0] for c in DEFAULT_CASES])
def test_default_constraints_for_scoring(name, pod, args, services, workloads, want) -> None:
    nodes = [make_node("a").zone("z1").label("zone", "z1").obj(),
             make_node("b").zone("z2").label("zone", "z2").obj()]
    pl = new_plugin(nodes, [], args, services=services, workloads=workloads)
    assert soft_keys(pl, pod) == want


def test_system_defaults_never_filter() -> None:
    pl = new_plugin(zone_nodes(), web_pods("a", 5), SYSTEM, services=(WEB_SVC,))
    assert filter_all(pl, WEB.obj()) == (SKIP, {})


def test_list_default_do_not_schedule_filters_with_the_service_selector() -> None:
    pl = new_plugin(zone_nodes(), web_pods("a", 1), LIST_HARD, services=(WEB_SVC,))
    assert filter_all(pl, WEB.obj()) == (OK, {"a": SKEW, "b": OK})


def test_list_default_do_not_schedule_without_a_selecting_object_is_skipped() -> None:
    pl = new_plugin(zone_nodes(), web_pods("a", 1), LIST_HARD)
    assert filter_all(pl, WEB.obj()) == (SKIP, {})


def test_system_defaults_score_nodes_without_a_zone_label() -> None:
    """System defaulting doesn't require every key: zoneless nodes keep hostname spreading."""
    nodes = [make_node("a").obj(), make_node("b").obj()]
    pl = new_plugin(nodes, web_pods("a", 3), SYSTEM, services=(WEB_SVC,))
    st, scores, state = score_all(pl, WEB.obj(), ["a", "b"])
    s = state.read("PreScorePodTopologySpread")
    # a: round(3*log(4) + (3-1)) = 6, b: 2 -> 100*(6+2-6)//6 = 33, 100
    assert (st, s.ignored_nodes, scores) == (OK, set(), {"a": 33, "b": 100})


def test_list_defaults_require_every_key() -> None:
    args = PodTopologySpreadArgs((TopologySpreadConstraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY),
                                  TopologySpreadConstraint(1, LABEL_TOPOLOGY_ZONE,
                                                           SCHEDULE_ANYWAY)), LIST_DEFAULTING)
    nodes = [make_node("a").zone("z1").obj(), make_node("b").obj()]
    pl = new_plugin(nodes, web_pods("a", 3), args, services=(WEB_SVC,))
    st, scores, state = score_all(pl, WEB.obj(), ["a", "b"])
    assert (st, state.read("PreScorePodTopologySpread").ignored_nodes, scores) == (
        OK, {"b"}, {"a": 100, "b": 0})


# --- explain -----------------------------------------------------------------------------

def explained(pl, pod, feasible):
    state = CycleState()
    pl.pre_filter(state, pod, pl.handle.snapshot_shared_lister().list())
    pl.pre_score(state, pod, [pl.handle.snapshot_shared_lister().get(n) for n in feasible])
    return pl.explain(state, pod)


def test_explain_article_skew_per_zone() -> None:
    """Article: app=foo pods 2 in zone1, 0 in zone2: placing in zone1 makes skew 3, zone2 1."""
    nodes = [make_node("n1").label("zone", "zone1").obj(),
             make_node("n2").label("zone", "zone1").obj(),
             make_node("n3").label("zone", "zone2").obj(),
             make_node("n4").label("zone", "zone2").obj()]
    pods = [make_pod(f"f{i}").label("app", "foo").node("n1").obj() for i in range(2)]
    pod = make_pod("new").label("app", "foo").spread(1, "zone", DO_NOT_SCHEDULE,
                                                     {"app": "foo"}).obj()
    got = explained(new_plugin(nodes, pods), pod, ["n1", "n2", "n3", "n4"])
    c = got["constraints"][0]
    assert c["skews"] == {"zone1": 3, "zone2": 1}
    assert (c["domains"], c["globalMinimum"], c["selector"], c["origin"]) == (
        {"zone1": 2, "zone2": 0}, 0, "app=foo", "pod spec")


def test_explain_min_domains_and_ignored_nodes() -> None:
    nodes = [make_node("a").label("zone", "z1").obj(), make_node("b").label("zone", "z2").obj(),
             make_node("t").label("zone", "z3").taint("k").obj(), make_node("x").obj()]
    pods = [make_pod(f"p{n}").label("app", "web").node(n).obj() for n in ("a", "b")]
    pod = make_pod("new").label("app", "web").spread(
        1, "zone", DO_NOT_SCHEDULE, {"app": "web"}, min_domains=3, node_taints_policy=HONOR).obj()
    c = explained(new_plugin(nodes, pods), pod, ["a", "b"])["constraints"][0]
    assert (c["domains"], c["domainCount"], c["minDomains"], c["globalMinimum"],
            c["minDomainsForcedZero"], c["ignored"], c["ignoredByDomain"]) == (
        {"z1": 1, "z2": 1}, 2, 3, 0, True,
        [{"reason": "missing label zone", "count": 1, "nodes": ["x"]},
         {"reason": "taints", "count": 1, "nodes": ["t"]}],
        {"z3": {"taints": 1}})


def test_explain_names_the_objects_behind_a_default_selector() -> None:
    pod = make_pod("p").label("app", "web").owner("ReplicaSet", "web-rs").obj()
    pl = new_plugin(zone_nodes(), web_pods("a", 1), LIST_HARD, services=(WEB_SVC,),
                    workloads=(WEB_RS,))
    c = explained(pl, pod, ["a", "b"])["constraints"][0]
    assert (c["origin"], c["selectorFrom"], c["whenUnsatisfiable"]) == (
        "cluster default", ["Service default/web", "ReplicaSet default/web-rs"], DO_NOT_SCHEDULE)
    # the Service and the ReplicaSet both select app=web: the merged selector says it once
    assert c["selector"] == "app=web"


def test_explain_soft_constraint_counts_and_is_json() -> None:
    nodes = [make_node("a").label("zone", "z1").obj(), make_node("b").label("zone", "z2").obj(),
             make_node("c").label("zone", "z2").obj()]
    pods = web_pods("a", 2) + web_pods("c", 1)
    pod = make_pod("new").label("app", "web").spread(1, "zone", SCHEDULE_ANYWAY,
                                                     {"app": "web"}).obj()
    got = explained(new_plugin(nodes, pods), pod, ["a", "b"])
    json.dumps(got)
    c = got["constraints"][0]
    assert (c["domains"], c["globalMinimum"], c["skews"]) == (
        {"z1": 2, "z2": 1}, 1, {"z1": 2, "z2": 1})


def test_explain_lists_a_bounded_number_of_domains_and_names() -> None:
    """A hostname constraint over 150 nodes: 50 domains and 100 names shown, counts whole."""
    nodes = [make_node(f"n{i:03}").obj() for i in range(150)]
    nodes += [make_node(f"t{i:03}").taint("k").obj() for i in range(120)]
    pod = make_pod("new").label("app", "web").spread(
        1, "kubernetes.io/hostname", DO_NOT_SCHEDULE, {"app": "web"},
        node_taints_policy=HONOR).obj()
    c = explained(new_plugin(nodes), pod, [])["constraints"][0]
    assert (len(c["domains"]), c["domainCount"], c["domainsTruncated"]) == (50, 150, True)
    (taints,) = c["ignored"]
    assert (taints["reason"], taints["count"], len(taints["nodes"]), taints["nodes"][0]) == (
        "taints", 120, 100, "t000")


def test_explain_without_any_state_is_none() -> None:
    pl = new_plugin(zone_nodes())
    assert pl.explain(CycleState(), WEB.obj()) is None
