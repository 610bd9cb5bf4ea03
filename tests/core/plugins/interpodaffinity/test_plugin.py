"""InterPodAffinity as a whole: extension-point wiring and the dashboard explanation."""
from __future__ import annotations

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import Code, Status
from scheduler_core.k8s.types import PodAffinityTerm
from scheduler_core.plugins.interpodaffinity import InterPodAffinity
from scheduler_core.plugins.names import INTER_POD_AFFINITY
from tests.core.wrappers import make_pod, selector

from .fake_handle import TEAM_NAMESPACES, FakeHandle, node, sel_in


def cluster() -> FakeHandle:
    nodes = [node("n1", zone="z1"), node("n2", zone="z1"), node("n3", zone="z2")]
    pods = [make_pod("db", "subteam1.team1").label("app", "db").node("n1").obj(),
            make_pod("web", "subteam1.team1").label("app", "web").node("n3")
            .pod_anti_affinity("zone", sel_in("app", "web"), namespaces=("default",))
            .pod_affinity("zone", sel_in("tier", "x"), weight=7).obj()]
    return FakeHandle(nodes, pods, TEAM_NAMESPACES)


def incoming():
    team1 = selector(None, ("team", "In", ["team1"]))
    return (make_pod("p").label("app", "web")
            .pod_affinity_term(PodAffinityTerm("zone", sel_in("app", "db"), namespace_selector=team1))
            .pod_anti_affinity("zone", sel_in("app", "web"))
            .obj())


def test_name_and_extensions() -> None:
    pl = InterPodAffinity(None, cluster())
    assert (pl.name(), pl.pre_filter_extensions(), pl.score_extensions()) == \
        (INTER_POD_AFFINITY, pl, pl)


def test_explain_reports_counts_per_topology_pair() -> None:
    handle = cluster()
    pl = InterPodAffinity(None, handle)
    state = CycleState()
    pod = incoming()
    assert pl.pre_filter(state, pod, handle.snapshot.list()) == (None, Status())
    assert [pl.filter(state, pod, ni).code for ni in handle.snapshot.list()] == \
        [Code.Success, Code.Success, Code.UnschedulableAndUnresolvable]
    assert pl.pre_score(state, pod, handle.snapshot.list()) == Status(Code.Skip)
    assert pl.explain(state, pod) == {"filter": {
        "requiredAffinityTerms": [{"topologyKey": "zone", "labelSelector": "app=db",
                                   "namespaces": ["subteam1.team1", "subteam2.team1"],
                                   "namespaceSelector": None}],
        "requiredAntiAffinityTerms": [{"topologyKey": "zone", "labelSelector": "app=web",
                                       "namespaces": ["default"], "namespaceSelector": None}],
        "affinityCounts": [{"topologyKey": "zone", "topologyValue": "z1", "count": 1}],
        "affinityPairCount": 1,
        "antiAffinityCounts": [], "antiAffinityPairCount": 0,
        "existingAntiAffinityCounts": [{"topologyKey": "zone", "topologyValue": "z2", "count": 1}],
        "existingAntiAffinityPairCount": 1,
    }}


def test_explain_reports_topology_score() -> None:
    handle = cluster()
    pl = InterPodAffinity(None, handle)
    state = CycleState()
    pod = make_pod("q", "subteam1.team1").label("tier", "x").obj()
    assert pl.pre_filter(state, pod, handle.snapshot.list()) == (None, Status(Code.Skip))
    assert pl.pre_score(state, pod, handle.snapshot.list()) == Status()
    assert pl.explain(state, pod) == {"score": {"topologyScore": [
        {"topologyKey": "zone", "topologyValue": "z2", "score": 7}], "topologyScorePairCount": 1}}


def test_explain_lists_at_most_100_pairs_and_counts_them_all() -> None:
    # one rack per node, each with a pod the incoming pod's anti-affinity repels
    nodes = [node(f"n{i:03}", rack=f"r{i:03}") for i in range(150)]
    handle = FakeHandle(nodes, [make_pod(f"w{i:03}").label("app", "web").node(f"n{i:03}").obj()
                                for i in range(150)])
    pl = InterPodAffinity(None, handle)
    state = CycleState()
    pod = make_pod("p").pod_anti_affinity("rack", sel_in("app", "web")).obj()
    assert pl.pre_filter(state, pod, handle.snapshot.list()) == (None, Status())
    ex = pl.explain(state, pod)["filter"]
    assert (len(ex["antiAffinityCounts"]), ex["antiAffinityPairCount"]) == (100, 150)
    assert ex["antiAffinityCounts"][:2] == [
        {"topologyKey": "rack", "topologyValue": "r000", "count": 1},
        {"topologyKey": "rack", "topologyValue": "r001", "count": 1}]


def test_explain_is_none_when_both_skipped() -> None:
    pl = InterPodAffinity(None, FakeHandle([node("n1", zone="z1")]))
    state = CycleState()
    pod = make_pod("lone").obj()
    assert pl.pre_filter(state, pod, []) == (None, Status(Code.Skip))
    assert pl.pre_score(state, pod, []) == Status(Code.Skip)
    assert pl.explain(state, pod) is None
