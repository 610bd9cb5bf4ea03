"""InterPodAffinity PreScore/Score/NormalizeScore, re-expressing upstream v1.34
scoring_test.go (TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight)."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from scheduler_core.config_args import InterPodAffinityArgs
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import Code, NodeScore, Status
from scheduler_core.framework.types import new_pod_info
from scheduler_core.k8s.types import Node, Pod, PodAffinityTerm
from scheduler_core.plugins.interpodaffinity import InterPodAffinity
from scheduler_core.plugins.interpodaffinity.scoring import (PRE_SCORE_STATE_KEY, PreScoreState,
                                                             normalize_scores)
from tests.core.wrappers import make_pod, selector

from .fake_handle import TEAM_NAMESPACES, FakeHandle, node, sel_in

OK = Status()
SKIP = Status(Code.Skip)
S1, S2 = {"security": "S1"}, {"security": "S2"}
CHINA, INDIA = {"region": "China"}, {"region": "India"}
AZ1, AZ2 = {"az": "az1"}, {"az": "az2"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
TEAM1 = selector(None, ("team", "In", ["team1"]))


# Affinity presets of the upstream table, applied to a PodWrapper.
def stay_with_s1_in_region(w):
    return w.pod_affinity("region", sel_in("security", "S1"), weight=5)


def stay_with_s2_in_region(w):
    return w.pod_affinity("region", sel_in("security", "S2"), weight=6)


def affinity3(w):
    return w.pod_affinity("region", selector(None, ("security", "NotIn", ["S1"]),
                                             ("security", "In", ["S2"])), weight=8) \
        .pod_affinity("region", selector(None, ("security", "Exists"), ("wrongkey", "DoesNotExist")),
                      weight=2)


def hard_affinity(w):
    return w.pod_affinity("region", sel_in("security", "S1", "value2")) \
        .pod_affinity("region", selector(None, ("security", "Exists"), ("wrongkey", "DoesNotExist")))


def away_from_s1_in_az(w):
    return w.pod_anti_affinity("az", sel_in("security", "S1"), weight=5)


def away_from_s2_in_az(w):
    return w.pod_anti_affinity("az", sel_in("security", "S2"), weight=5)


def stay_s1_region_away_s2_az(w):
    return w.pod_affinity("region", sel_in("security", "S1"), weight=8) \
        .pod_anti_affinity("az", sel_in("security", "S2"), weight=5)


NS_TERM = PodAffinityTerm("region", sel_in("security", "S1"), namespaces=("subteam2.team2",),
                          namespace_selector=TEAM1)


def affinity_ns_selector(w):
    return w.pod_affinity_term(NS_TERM, weight=5)


def anti_affinity_ns_selector(w):
    return w.pod_affinity_term(NS_TERM, weight=5, anti=True)


def none(w):
    return w


def on(node_name: str, labels: dict | None = None, aff=none, ns: str = "default") -> Pod:
    return aff(make_pod(f"e-{node_name}", ns).labels(labels or {}).node(node_name)).obj()


def incoming(labels: dict | None = None, aff=none, ns: str = "default") -> Pod:
    return aff(make_pod("incoming", ns).labels(labels or {})).obj()


def nodes(*labels: dict) -> list[Node]:
    return [node(f"node{i + 1}", **lbl) for i, lbl in enumerate(labels)]


@dataclass
class Case:
    name: str
    pod: Pod
    pods: list[Pod]
    nodes: list[Node]
    want: list[int] | None  # normalized scores in node order; None when PreScore skips
    want_pre_score: Status = OK
    args: InterPodAffinityArgs = field(default_factory=InterPodAffinityArgs)


def run(case: Case) -> tuple[Status, list[int] | None]:
    handle = FakeHandle(case.nodes, case.pods, TEAM_NAMESPACES)
    pl = InterPodAffinity(case.args, handle)
    state = CycleState()
    st = pl.pre_score(state, case.pod, handle.snapshot.list())
    if not st.is_success():
        return st, None
    scores = []
    for ni in handle.snapshot.list():
        s, sst = pl.score(state, case.pod, ni)
        assert sst == OK
        scores.append(NodeScore(ni.name, s))
    assert pl.score_extensions().normalize_score(state, case.pod, scores) == OK
    return st, [ns.score for ns in scores]


PREFERRED = [
    Case("no affinity anywhere skips", incoming(S1), [], nodes(CHINA, INDIA, AZ1), None, SKIP),
    Case("affinity: matching pod in the topology gets the high score",
         incoming(S1, stay_with_s1_in_region),
         [on("node1", S1), on("node2", S2), on("node3", S1)], nodes(CHINA, INDIA, AZ1), [100, 0, 0]),
    Case("affinity: nodes sharing the matching pod's region score the same",
         incoming(None, stay_with_s1_in_region), [on("node1", S1)],
         nodes(CHINA, CHINA_AZ1, INDIA), [100, 100, 0]),
    Case("affinity: the region with more matching pods scores higher",
         incoming(S1, stay_with_s2_in_region),
         [on("node1", S2), on("node1", S2), on("node2", S2), on("node3", S2), on("node4", S2),
          on("node5", S2)], nodes(CHINA, INDIA, CHINA, CHINA, INDIA), [100, 0, 100, 100, 0]),
    Case("affinity: operators and weights sum per region (2 vs 10)",
         incoming(S1, affinity3), [on("node1", S1), on("node2", S2), on("node3", S1)],
         nodes(CHINA, INDIA, AZ1), [20, 100, 0]),
    Case("symmetry: an existing pod's preferred affinity attracts the incoming pod",
         incoming(S2), [on("node1", S1, stay_with_s1_in_region), on("node2", S2, stay_with_s2_in_region)],
         nodes(CHINA, INDIA, AZ1), [0, 100, 0]),
    Case("symmetry: existing pod's namespaceSelector matches the incoming namespace",
         incoming(S1, ns="subteam1.team1"),
         [on("node1", S1, affinity_ns_selector), on("node2", S2, stay_with_s2_in_region)],
         nodes(CHINA, INDIA, AZ1), [100, 0, 0]),
    Case("symmetry: existing pod's anti-affinity namespaceSelector repels the incoming pod",
         incoming(S1, ns="subteam1.team1"),
         [on("node1", S1, anti_affinity_ns_selector), on("node2", S2, stay_with_s2_in_region)],
         nodes(CHINA, INDIA, AZ1), [0, 100, 100]),
    Case("symmetry: existing pods' required affinity counts at hardPodAffinityWeight",
         incoming(S1), [on("node1", S1, hard_affinity), on("node2", S2, hard_affinity)],
         nodes(CHINA, INDIA, AZ1), [100, 100, 0]),
    Case("anti-affinity: node with a matching pod in its az scores low",
         incoming(S1, away_from_s1_in_az), [on("node1", S1), on("node2", S2)],
         nodes(AZ1, CHINA), [0, 100]),
    Case("anti-affinity: node without the topology key scores high",
         incoming(S1, away_from_s1_in_az), [on("node1", S1), on("node2", S1)],
         nodes(AZ1, CHINA), [0, 100]),
    Case("anti-affinity: more matching pods, lower score",
         incoming(S1, away_from_s1_in_az), [on("node1", S1), on("node1", S1), on("node2", S2)],
         nodes(AZ1, INDIA), [0, 100]),
    Case("anti-affinity symmetry: existing pod's preferred anti-affinity repels",
         incoming(S2), [on("node1", S1, away_from_s2_in_az), on("node2", S2, away_from_s1_in_az)],
         nodes(AZ1, AZ2), [0, 100]),
    Case("affinity and anti-affinity of the incoming pod together",
         incoming(S1, stay_s1_region_away_s2_az), [on("node1", S1), on("node2", S1)],
         nodes(CHINA, AZ1), [100, 0]),
    Case("same-labelled pods: together in a region, apart per az",
         incoming(S1, stay_s1_region_away_s2_az),
         [on("node1", S1), on("node1", S1), on("node2", S1), on("node3", S1), on("node3", S1),
          on("node4", S1), on("node5", S1)],
         nodes(CHINA_AZ1, INDIA, CHINA, CHINA, INDIA), [100, 0, 100, 100, 0]),
    Case("affinity, anti-affinity and both symmetries (8, -5, 8, -5)",
         incoming(S1, stay_s1_region_away_s2_az),
         [on("node1", S1), on("node2", S2), on("node3", None, stay_s1_region_away_s2_az),
          on("node4", None, away_from_s1_in_az)],
         nodes(CHINA, AZ1, INDIA, AZ2), [100, 0, 100, 0]),
    Case("nodes of a topology without pods with affinity still score (no crash)",
         incoming(S1), [on("node1", S1), on("node2", None, stay_s1_region_away_s2_az)],
         nodes(CHINA, CHINA), [0, 0]),
    Case("incoming preferred affinity merges namespaceSelector namespaces",
         incoming(S1, affinity_ns_selector, ns="subteam1.team1"),
         [on("node1", S1, ns="subteam1.team1"), on("node1", S1, ns="subteam1.team1"),
          on("node1", S1, ns="subteam1.team2"), on("node2", S1, ns="subteam2.team1")],
         nodes(CHINA, INDIA), [100, 0]),
    Case("incoming preferred affinity counts both namespaces and namespaceSelector",
         incoming(S1, affinity_ns_selector, ns="subteam1.team1"),
         [on("node1", S1, ns="subteam1.team1"), on("node1", S1, ns="subteam1.team1"),
          on("node1", S1, ns="subteam2.team2"), on("node2", S1, ns="subteam2.team1")],
         nodes(CHINA, INDIA), [100, 0]),
    Case("incoming preferred anti-affinity with namespaceSelector",
         incoming(S1, anti_affinity_ns_selector, ns="subteam1.team1"),
         [on("node1", S1, ns="subteam1.team1"), on("node1", S1, ns="subteam1.team1"),
          on("node1", S1, ns="subteam1.team2"), on("node2", S1, ns="subteam2.team1")],
         nodes(CHINA, INDIA), [0, 100]),
    Case("ignorePreferredTermsOfExistingPods skips a pod without preferred terms",
         incoming(S2), [on("node1", S1, stay_s1_region_away_s2_az), on("node2", S2, stay_with_s2_in_region)],
         nodes(CHINA, INDIA), None, SKIP,
         InterPodAffinityArgs(ignore_preferred_terms_of_existing_pods=True)),
    Case("existing pods' preferred terms count by default",
         incoming(S2), [on("node1", S1, stay_s1_region_away_s2_az), on("node2", S2, stay_with_s2_in_region)],
         nodes(CHINA, INDIA), [0, 100]),
    Case("no nodes to score skips", incoming(S2), [], [], None, SKIP),
]

HARD_TERM = PodAffinityTerm("region", sel_in("service", "S1"), namespaces=("default", "subteam2.team2"),
                            namespace_selector=TEAM1)


def hard_ns(w):
    return w.pod_affinity_term(HARD_TERM)


SERVICE_S1 = {"service": "S1"}
HARD = [
    Case("hard affinity symmetry with the default weight", incoming(SERVICE_S1),
         [on("node1", None, hard_ns), on("node2", None, hard_ns)], nodes(CHINA, INDIA, AZ1),
         [100, 100, 0]),
    Case("hard affinity symmetry with zero weight skips", incoming(SERVICE_S1),
         [on("node1", None, hard_ns), on("node2", None, hard_ns)], nodes(CHINA, INDIA, AZ1),
         None, SKIP, InterPodAffinityArgs(hard_pod_affinity_weight=0)),
    Case("hard affinity symmetry in no matching namespace skips",
         incoming(SERVICE_S1, ns="subteam1.team2"),
         [on("node1", None, hard_ns), on("node2", None, hard_ns)], nodes(CHINA, INDIA, AZ1),
         None, SKIP),
    Case("hard affinity symmetry through the namespaceSelector",
         incoming(SERVICE_S1, ns="subteam1.team1"),
         [on("node1", None, hard_ns), on("node2", None, hard_ns)], nodes(CHINA, INDIA, AZ1),
         [100, 100, 0]),
    Case("hard affinity symmetry through the namespaces list",
         incoming(SERVICE_S1, ns="subteam2.team2"),
         [on("node1", None, hard_ns), on("node2", None, hard_ns)], nodes(CHINA, INDIA, AZ1),
         [100, 100, 0]),
    Case("hardPodAffinityWeight scales against a preferred term",
         incoming(SERVICE_S1, lambda w: w.pod_affinity("region", sel_in("app", "x"), weight=10)),
         [on("node1", None, hard_ns), on("node2", {"app": "x"}), on("node3", {"app": "x"})],
         nodes(CHINA, INDIA, {"region": "Peru"}, AZ1), [100, 20, 20, 0],
         args=InterPodAffinityArgs(hard_pod_affinity_weight=50)),
]


# upstream scoring_test.go: "invalid Affinity fails PreScore" / "invalid AntiAffinity fails
# PreScore" (an Error: PreFilter would have caught it)
_BAD = "{{.bad-value.}}"
_BAD_MSG = (
    'values[0][security]: Invalid value: "{{.bad-value.}}": a valid label must be an empty '
    "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
INVALID = [
    Case("invalid Affinity fails PreScore",
         incoming(S1, lambda w: w.pod_affinity("region", sel_in("security", _BAD), weight=5)),
         [on("node1", S1)], nodes(CHINA, INDIA), None,
         Status(Code.Error, (f"failed to parse pod: preferredAffinityTerms: {_BAD_MSG}",))),
    Case("invalid AntiAffinity fails PreScore",
         incoming(S1, lambda w: w.pod_anti_affinity("region", sel_in("security", _BAD),
                                                    weight=5)),
         [on("node1", S1)], nodes(CHINA, INDIA), None,
         Status(Code.Error, (f"failed to parse pod: preferredAntiAffinityTerms: {_BAD_MSG}",))),
]


@pytest.mark.parametrize("case", PREFERRED + HARD + INVALID, ids=lambda c: c.name)
def test_score(case: Case) -> None:
    assert run(case) == (case.want_pre_score, case.want)


def raw_state(topology_score: dict) -> PreScoreState:
    s = PreScoreState(new_pod_info(incoming()), {})
    s.topology_score = topology_score
    return s


NORMALIZE = [
    ("negative sums map the minimum to 0", [-5, 0, 1], [0, 83, 100]),
    ("equal sums all become 0", [7, 7], [0, 0]),
    # Go computes 100 * (29/100) = 28.999999999999996 and truncates: 28, not 29
    ("float order of the formula is Go's: 100 * ((s-min)/(max-min))", [0, 29, 100], [0, 28, 100]),
    ("all negative", [-10, -4, -1], [0, 66, 100]),
]


@pytest.mark.parametrize("name,raw,want", NORMALIZE, ids=[c[0] for c in NORMALIZE])
def test_normalize(name, raw, want) -> None:
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    normalize_scores(raw_state({"zone": {"z": 1}}), scores)
    assert [s.score for s in scores] == want


def test_normalize_leaves_scores_when_topology_score_is_empty() -> None:
    scores = [NodeScore("a", 3), NodeScore("b", 9)]
    normalize_scores(raw_state({}), scores)
    assert scores == [NodeScore("a", 3), NodeScore("b", 9)]


def test_score_without_pre_score_state_is_an_error() -> None:
    handle = FakeHandle(nodes(CHINA))
    pl = InterPodAffinity(None, handle)
    got = pl.score(CycleState(), incoming(), handle.snapshot.list()[0])
    assert got == (0, Status(Code.Error, (f'error reading "{PRE_SCORE_STATE_KEY}" from '
                                          'cycleState: not found',)))


@pytest.mark.parametrize("weight", [-1, 101])
def test_hard_pod_affinity_weight_out_of_range_is_rejected(weight: int) -> None:
    with pytest.raises(ValueError, match=r"not in valid range \[0-100\]"):
        InterPodAffinity(InterPodAffinityArgs(hard_pod_affinity_weight=weight), FakeHandle([]))
