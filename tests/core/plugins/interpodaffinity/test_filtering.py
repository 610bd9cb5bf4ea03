"""InterPodAffinity PreFilter/Filter, re-expressing upstream v1.34 filtering_test.go tables."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import Code, Status
from scheduler_core.framework.types import new_pod_info
from scheduler_core.k8s.types import Node, Pod, PodAffinityTerm
from scheduler_core.plugins.interpodaffinity import InterPodAffinity
from scheduler_core.plugins.interpodaffinity.filtering import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH, PRE_FILTER_STATE_KEY, PreFilterState,
    get_incoming_affinity_anti_affinity_counts)
from tests.core.wrappers import make_pod, selector

from .fake_handle import TEAM_NAMESPACES, FakeHandle, node, sel_exists, sel_in, sel_not_in

OK = Status()
SKIP = Status(Code.Skip)
AFFINITY = Status(Code.UnschedulableAndUnresolvable, (ERR_REASON_AFFINITY_RULES_NOT_MATCH,))
ANTI = Status(Code.Unschedulable, (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,))
EXISTING = Status(Code.Unschedulable, (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,))


@dataclass
class Case:
    name: str
    pod: Pod
    pods: list[Pod]
    nodes: list[Node]
    want: list[Status]  # one per node, in order; ignored when pre-filter skips
    want_pre_filter: Status = OK
    namespaces: dict = field(default_factory=lambda: dict(TEAM_NAMESPACES))


def run(case: Case) -> tuple[Status, list[Status]]:
    handle = FakeHandle(case.nodes, case.pods, case.namespaces)
    pl = InterPodAffinity(None, handle)
    state = CycleState()
    _, st = pl.pre_filter(state, case.pod, handle.snapshot.list())
    if not st.is_success():
        return st, []
    return st, [pl.filter(state, case.pod, ni) for ni in handle.snapshot.list()]


# --- one node: region r1, zone z11 (upstream TestRequiredAffinitySingleNode) -------------

NODE1 = [node("node1", region="r1", zone="z11")]
SECURITYSCAN = {"service": "securityscan"}
S1 = {"security": "S1"}


def existing(name: str = "e", labels: dict | None = None, ns: str = "default",
             on: str = "node1"):
    """A builder for a pod bound to `on`."""
    return make_pod(name, ns).labels(labels or {}).node(on)


def scan_pod():
    return existing("scan", SECURITYSCAN).obj()


def ns_term(topology_key: str, team: str) -> PodAffinityTerm:
    return PodAffinityTerm(topology_key, sel_in("service", "securityscan", "value2"),
                           namespace_selector=selector(None, ("team", "In", [team])))


SINGLE = [
    Case("a pod without required terms skips, no existing pods",
         make_pod("p").obj(), [], NODE1, [], want_pre_filter=SKIP),
    Case("In selector in required affinity matches the existing pod",
         make_pod("p").labels(S1).pod_affinity("region", sel_in("service", "securityscan", "value2")).obj(),
         [scan_pod()], NODE1, [OK]),
    Case("NotIn selector in required affinity matches the existing pod",
         make_pod("p").labels(S1).pod_affinity("region", sel_not_in("service", "securityscan3", "value3")).obj(),
         [scan_pod()], NODE1, [OK]),
    Case("affinity restricted to another namespace doesn't match",
         make_pod("p").labels(S1).pod_affinity("", sel_in("service", "securityscan", "value2"),
                                               namespaces=("DiffNameSpace",)).obj(),
         [existing("x", SECURITYSCAN, ns="ns").obj()], NODE1, [AFFINITY]),
    Case("affinity selector not matching the existing pod rejects",
         make_pod("p").labels(SECURITYSCAN).pod_affinity("", sel_in("service", "antivirusscan", "value2")).obj(),
         [scan_pod()], NODE1, [AFFINITY]),
    Case("several affinity terms with different operators all match",
         make_pod("p").labels(S1)
         .pod_affinity("region", selector(None, ("service", "Exists"), ("wrongkey", "DoesNotExist")))
         .pod_affinity("region", selector(None, ("service", "In", ["securityscan"]),
                                          ("service", "NotIn", ["WrongValue"]))).obj(),
         [scan_pod()], NODE1, [OK]),
    Case("matchExpressions are ANDed: one failing requirement rejects",
         make_pod("p").labels(S1)
         .pod_affinity("region", selector(None, ("service", "Exists"), ("wrongkey", "DoesNotExist")))
         .pod_affinity("region", selector(None, ("service", "In", ["securityscan2"]),
                                          ("service", "NotIn", ["WrongValue"]))).obj(),
         [scan_pod()], NODE1, [AFFINITY]),
    Case("affinity and anti-affinity both satisfied",
         make_pod("p").labels(S1).pod_affinity("region", sel_in("service", "securityscan", "value2"))
         .pod_anti_affinity("node", sel_in("service", "antivirusscan", "value2")).obj(),
         [scan_pod()], NODE1, [OK]),
    Case("affinity, anti-affinity and the existing pod's anti-affinity satisfied",
         make_pod("p").labels(S1).pod_affinity("region", sel_in("service", "securityscan", "value2"))
         .pod_anti_affinity("node", sel_in("service", "antivirusscan", "value2")).obj(),
         [existing("e", SECURITYSCAN).pod_anti_affinity("node", sel_in("service", "antivirusscan", "value2")).obj()],
         NODE1, [OK]),
    Case("affinity satisfied but anti-affinity violated in the zone",
         make_pod("p").labels(S1).pod_affinity("region", sel_in("service", "securityscan", "value2"))
         .pod_anti_affinity("zone", sel_in("service", "securityscan", "value2")).obj(),
         [scan_pod()], NODE1, [ANTI]),
    Case("the existing pod's anti-affinity rejects the incoming pod",
         make_pod("p").labels(SECURITYSCAN).pod_affinity("region", sel_in("service", "securityscan", "value2"))
         .pod_anti_affinity("node", sel_in("service", "antivirusscan", "value2")).obj(),
         [existing("e", SECURITYSCAN).pod_anti_affinity("zone", sel_in("service", "securityscan", "value2")).obj()],
         NODE1, [EXISTING]),
    Case("matching pod only on another node of no topology: own label match doesn't help",
         make_pod("p").labels(SECURITYSCAN).pod_affinity("region", sel_not_in("service", "securityscan", "value2")).obj(),
         [existing("x", SECURITYSCAN, on="node2").obj()], NODE1, [AFFINITY]),
    Case("existing anti-affinity is enforced on a pod without terms",
         make_pod("p").labels(SECURITYSCAN).obj(),
         [existing("e", SECURITYSCAN).pod_anti_affinity("zone", sel_in("service", "securityscan", "value2")).obj()],
         NODE1, [EXISTING]),
    Case("existing anti-affinity not matching a pod without terms skips",
         make_pod("p").labels(SECURITYSCAN).obj(),
         [existing("e", SECURITYSCAN).pod_anti_affinity("zone", sel_not_in("service", "securityscan", "value2")).obj()],
         NODE1, [], want_pre_filter=SKIP),
    Case("incoming anti-affinity is checked before the existing pod's",
         make_pod("p").labels(SECURITYSCAN).pod_anti_affinity("region", sel_exists("service"))
         .pod_anti_affinity("region", sel_exists("security")).obj(),
         [existing("e", S1).pod_anti_affinity("zone", sel_exists("security")).obj()],
         NODE1, [ANTI]),
    Case("symmetry a2: only the existing pod's term matches",
         make_pod("p").labels(S1).pod_anti_affinity("zone", sel_exists("security")).obj(),
         [existing("e", SECURITYSCAN).pod_anti_affinity("zone", sel_exists("service"))
          .pod_anti_affinity("zone", sel_exists("security")).obj()],
         NODE1, [EXISTING]),
    Case("affinity with a matching namespaceSelector",
         make_pod("p").labels(S1).pod_affinity_term(ns_term("region", "team1")).obj(),
         [existing("x", SECURITYSCAN, ns="subteam1.team1").obj()], NODE1, [OK]),
    Case("affinity with a non-matching namespaceSelector",
         make_pod("p").labels(S1).pod_affinity_term(ns_term("region", "team1")).obj(),
         [existing("x", SECURITYSCAN, ns="subteam1.team2").obj()], NODE1, [AFFINITY]),
    Case("anti-affinity with a matching namespaceSelector",
         make_pod("p", "subteam1.team1").labels(S1).pod_affinity_term(ns_term("zone", "team1"), anti=True).obj(),
         [existing("x", SECURITYSCAN, ns="subteam2.team1").obj()], NODE1, [ANTI]),
    Case("anti-affinity with an empty namespaceSelector matches all namespaces",
         make_pod("p", "subteam1.team1").labels(S1).pod_affinity_term(
             PodAffinityTerm("zone", sel_in("service", "securityscan", "value2"),
                             namespace_selector=selector()), anti=True).obj(),
         [existing("x", SECURITYSCAN, ns="subteam2.team1").obj()], NODE1, [ANTI]),
    Case("anti-affinity with a non-matching namespaceSelector",
         make_pod("p", "subteam1.team1").labels(S1).pod_affinity_term(ns_term("zone", "team1"), anti=True).obj(),
         [existing("x", SECURITYSCAN, ns="subteam1.team2").obj()], NODE1, [OK]),
    Case("existing pod's anti-affinity namespaceSelector reads the incoming pod's namespace labels",
         make_pod("p", "subteam1.team1").labels(SECURITYSCAN).obj(),
         [existing("e", S1, ns="subteam1.team2").pod_affinity_term(ns_term("zone", "team1"), anti=True).obj()],
         NODE1, [EXISTING]),
    Case("existing pod's anti-affinity namespaceSelector not selecting the incoming pod's namespace skips",
         make_pod("p", "subteam1.team2").labels(SECURITYSCAN).obj(),
         [existing("e", S1, ns="subteam1.team2").pod_affinity_term(ns_term("zone", "team1"), anti=True).obj()],
         NODE1, [], want_pre_filter=SKIP),
]

# --- several nodes (upstream TestRequiredAffinityMultipleNodes) --------------------------

CHINA, CHINA_AZ1, INDIA = {"region": "China"}, {"region": "China", "az": "az1"}, {"region": "India"}


def three(names=("nodeA", "nodeB", "nodeC")) -> list[Node]:
    return [node(names[0], **CHINA), node(names[1], **CHINA_AZ1), node(names[2], **INDIA)]


def rzh(name: str, zone: str, region: str = "r1") -> Node:
    return node(name, region=region, zone=zone, hostname=name)


# upstream: "PodAffinity fails PreFilter with an invalid affinity label syntax" and its
# anti-affinity twin (labels.NewRequirement's message, PodInfo.ParseError's prefix)
BAD_VALUE = "{{.bad-value.}}"
BAD_VALUE_MSG = (
    'values[0][service]: Invalid value: "{{.bad-value.}}": a valid label must be an empty '
    "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
PARSE = [
    Case("PodAffinity fails PreFilter with an invalid affinity label syntax",
         make_pod("p").labels(S1).pod_affinity("region", sel_in("service", BAD_VALUE))
         .pod_affinity("node", sel_in("service", "antivirusscan", "value2")).obj(),
         [], NODE1, [], want_pre_filter=Status(
             Code.UnschedulableAndUnresolvable,
             (f"parsing pod: requiredAffinityTerms: {BAD_VALUE_MSG}",))),
    Case("PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
         make_pod("p").labels(S1).pod_affinity("region", sel_in("service", "foo"))
         .pod_anti_affinity("node", sel_in("service", BAD_VALUE)).obj(),
         [], NODE1, [], want_pre_filter=Status(
             Code.UnschedulableAndUnresolvable,
             (f"parsing pod: requiredAntiAffinityTerms: {BAD_VALUE_MSG}",))),
    Case("an invalid preferred term also fails PreFilter (PodInfo parses every term)",
         make_pod("p").pod_affinity("region", sel_in("service", BAD_VALUE), weight=1).obj(),
         [], NODE1, [], want_pre_filter=Status(
             Code.UnschedulableAndUnresolvable,
             (f"parsing pod: preferredAffinityTerms: {BAD_VALUE_MSG}",))),
    Case("invalid affinity and anti-affinity are aggregated",
         make_pod("p").pod_affinity("region", sel_in("service", BAD_VALUE))
         .pod_anti_affinity("region", sel_in("service", BAD_VALUE)).obj(),
         [], NODE1, [], want_pre_filter=Status(
             Code.UnschedulableAndUnresolvable,
             (f"parsing pod: [requiredAffinityTerms: {BAD_VALUE_MSG}, "
              f"requiredAntiAffinityTerms: {BAD_VALUE_MSG}]",))),
]

MULTI = [
    Case("every node sharing the region of the matching pod fits",
         make_pod("p").pod_affinity("region", sel_in("foo", "bar")).obj(),
         [existing("p1", {"foo": "bar"}, on="nodeA").obj()], three(), [OK, OK, AFFINITY]),
    Case("the first pod of a self-affine collection fits anywhere",
         make_pod("p").labels({"foo": "bar", "service": "securityscan"})
         .pod_affinity("zone", sel_in("foo", "bar")).pod_affinity("zone", sel_in("service", "securityscan")).obj(),
         [existing("p1", {"foo": "bar"}, on="nodeA").obj()],
         [node("nodeA", zone="az1", hostname="h1"), node("nodeB", zone="az2", hostname="h2")], [OK, OK]),
    Case("the first pod of a collection still needs the topology key on the node",
         make_pod("p").labels({"foo": "bar", "service": "securityscan"})
         .pod_affinity("zone", sel_in("foo", "bar")).pod_affinity("zone", sel_in("service", "securityscan")).obj(),
         [existing("p1", {"foo": "bar"}, on="nodeA").obj()],
         [node("nodeA", zoneLabel="az1", hostname="h1"), node("nodeB", zoneLabel="az2", hostname="h2")],
         [AFFINITY, AFFINITY]),
    Case("anti-affinity repels from every node of the matching pod's region",
         make_pod("p").pod_anti_affinity("region", sel_in("foo", "abc")).obj(),
         [existing("e", {"foo": "abc"}, on="nodeA").obj()],
         [node("nodeA", region="r1", hostname="nodeA"), node("nodeB", region="r1", hostname="nodeB")],
         [ANTI, ANTI]),
    Case("anti-affinity repels when any one term matches",
         make_pod("p").pod_anti_affinity("region", sel_in("foo", "abc"))
         .pod_anti_affinity("zone", sel_in("service", "securityscan")).obj(),
         [existing("e", {"foo": "abc", "service": "securityscan"}, on="nodeA").obj()],
         [rzh("nodeA", "z1"), rzh("nodeB", "z2")], [ANTI, ANTI]),
    Case("anti-affinity leaves the other region free",
         make_pod("p").pod_anti_affinity("region", sel_in("foo", "abc")).obj(),
         [existing("e", {"foo": "abc"}, on="nodeA").obj()], three(), [ANTI, ANTI, OK]),
    Case("an existing pod's anti-affinity in another namespace doesn't repel",
         make_pod("p", "NS1").labels({"foo": "123"}).pod_anti_affinity("region", sel_in("foo", "bar")).obj(),
         [existing("a", {"foo": "bar"}, ns="NS1", on="nodeA").obj(),
          existing("c", ns="NS2", on="nodeC").pod_anti_affinity("region", sel_in("foo", "123")).obj()],
         three(), [ANTI, ANTI, OK], namespaces={"NS1": {}}),
    Case("existing anti-affinity on a topology key no node has is not counted",
         make_pod("p").labels({"foo": ""}).obj(),
         [existing("e", on="nodeA").pod_anti_affinity("invalid-node-label", sel_exists("foo")).obj()],
         [rzh("nodeA", "z1"), rzh("nodeB", "z1")], [], want_pre_filter=SKIP),
    Case("incoming anti-affinity on a topology key no node has is not counted",
         make_pod("p").pod_anti_affinity("invalid-node-label", sel_exists("foo")).obj(),
         [existing("e", {"foo": ""}, on="nodeA").obj()],
         [rzh("nodeA", "z1"), rzh("nodeB", "z1")], [OK, OK]),
    Case("the incoming pod violates an existing pod's term on every node",
         make_pod("p").labels({"foo": "", "bar": ""}).obj(),
         [existing("e1", on="nodeA").pod_anti_affinity("zone", sel_exists("foo")).obj(),
          existing("e2", on="nodeA").pod_anti_affinity("region", sel_exists("bar")).obj()],
         [rzh("nodeA", "z1"), rzh("nodeB", "z2")], [EXISTING, EXISTING]),
    Case("the incoming pod's anti-affinity terms each exclude a node",
         make_pod("p").pod_anti_affinity("zone", sel_exists("foo")).pod_anti_affinity("region", sel_exists("bar")).obj(),
         [existing("a", {"foo": ""}, on="nodeA").obj(), existing("b", {"bar": ""}, on="nodeB").obj()],
         [rzh("nodeA", "z1"), rzh("nodeB", "z2")], [ANTI, ANTI]),
    Case("existing term with a missing topology key: only the valid term counts",
         make_pod("p").labels({"foo": "", "bar": ""}).obj(),
         [existing("e", on="nodeA").pod_anti_affinity("invalid-node-label", sel_exists("foo"))
          .pod_anti_affinity("zone", sel_exists("bar")).obj()],
         [rzh("nodeA", "z1"), rzh("nodeB", "z2")], [EXISTING, OK]),
    Case("incoming term with a missing topology key: only the valid term counts",
         make_pod("p").pod_anti_affinity("invalid-node-label", sel_exists("foo"))
         .pod_anti_affinity("zone", sel_exists("bar")).obj(),
         [existing("podA", {"foo": "", "bar": ""}, on="nodeA").obj()],
         [rzh("nodeA", "z1"), rzh("nodeB", "z2")], [ANTI, OK]),
    Case("existing pods on nodeA and nodeB each repel; only nodeC fits",
         make_pod("p").labels({"foo": "", "bar": ""}).obj(),
         [existing("a", on="nodeA").pod_anti_affinity("zone", sel_exists("foo"))
          .pod_anti_affinity("zone", sel_exists("labelA")).obj(),
          existing("b", on="nodeB").pod_anti_affinity("zone", sel_exists("bar"))
          .pod_anti_affinity("zone", sel_exists("labelB")).obj()],
         [rzh("nodeA", "z1"), rzh("nodeB", "z2"), rzh("nodeC", "z3")], [EXISTING, EXISTING, OK]),
    Case("affinity terms all matched by one pod, then topology checked per term",
         make_pod("p").pod_affinity("region", sel_exists("foo")).pod_affinity("zone", sel_exists("bar")).obj(),
         [existing("pod1", {"foo": "", "bar": ""}, on="nodeA").obj()],
         [rzh("nodeA", "z1"), rzh("nodeB", "z1")], [OK, OK]),
    Case("affinity terms matched by different pods don't count",
         make_pod("p").pod_affinity("region", sel_exists("foo")).pod_affinity("zone", sel_exists("bar")).obj(),
         [existing("pod1", {"foo": ""}, on="nodeA").obj(), existing("pod2", {"bar": ""}, on="nodeB").obj()],
         [rzh("nodeA", "z1"), rzh("nodeB", "z2")], [AFFINITY, AFFINITY]),
    Case("same-node affinity (hostname) only fits the node hosting the match",
         make_pod("p").pod_affinity("kubernetes.io/hostname", sel_in("app", "db")).obj(),
         [existing("db", {"app": "db"}, on="n1").obj()],
         [node("n1", **{"kubernetes.io/hostname": "n1", "zone": "z1"}),
          node("n2", **{"kubernetes.io/hostname": "n2", "zone": "z1"})], [OK, AFFINITY]),
    Case("a self-matching pod must join the zone where its peers already run",
         make_pod("p").label("app", "web").pod_affinity("zone", sel_in("app", "web")).obj(),
         [existing("web1", {"app": "web"}, on="n1").obj()],
         [node("n1", zone="z1"), node("n2", zone="z2")], [OK, AFFINITY]),
    Case("all three checks fail: the pod's affinity is reported first",
         make_pod("p").label("app", "web").pod_affinity("zone", sel_in("app", "db"))
         .pod_anti_affinity("zone", sel_in("app", "cache")).obj(),
         [existing("c", {"app": "cache"}, on="n1").pod_anti_affinity("zone", sel_in("app", "web")).obj(),
          existing("db", {"app": "db"}, on="n2").obj()],
         [node("n1", zone="z1"), node("n2", zone="z2")], [AFFINITY, OK]),
    Case("the pod's anti-affinity is reported before existing pods' anti-affinity",
         make_pod("p").label("app", "web").pod_anti_affinity("zone", sel_in("app", "cache")).obj(),
         [existing("c", {"app": "cache"}, on="n1").pod_anti_affinity("zone", sel_in("app", "web")).obj()],
         [node("n1", zone="z1"), node("n2", zone="z2")], [ANTI, OK]),
    Case("a node lacking the anti-affinity topology key is not repelled",
         make_pod("p").pod_anti_affinity("zone", sel_in("app", "db")).obj(),
         [existing("db", {"app": "db"}, on="n1").obj()],
         [node("n1", zone="z1"), node("n2", zone="z1"), node("n3")], [ANTI, ANTI, OK]),
]


@pytest.mark.parametrize("case", SINGLE + PARSE + MULTI, ids=lambda c: c.name)
def test_filter(case: Case) -> None:
    pre, got = run(case)
    assert pre == case.want_pre_filter
    assert got == (case.want if pre.is_success() else [])


def test_filter_without_pre_filter_state_is_an_error() -> None:
    pl = InterPodAffinity(None, FakeHandle(NODE1))
    got = pl.filter(CycleState(), make_pod("p").obj(), FakeHandle(NODE1).snapshot.list()[0])
    assert got == Status(Code.Error, (f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: '
                                      'not found',))


# --- PreFilterExtensions (upstream TestPreFilterStateAddRemovePod) -----------------------

FOO_BAR = {"foo": "bar"}
NODES3 = [node("nodeA", region="r1", zone="z11"), node("nodeB", region="r1", zone="z12"),
          node("nodeC", region="r2", zone="z21")]


def anti_foo_bar(w):
    return w.pod_anti_affinity("region", sel_in("foo", "bar"))


def anti_complex(w):
    return w.pod_anti_affinity("region", sel_in("foo", "bar", "buzz")) \
        .pod_anti_affinity("zone", sel_not_in("service", "bar", "security", "test"))


def aff_complex(w):
    return w.pod_affinity("region", sel_in("foo", "bar", "buzz")) \
        .pod_affinity("zone", sel_not_in("service", "bar", "security", "test"))


@dataclass
class AddRemoveCase:
    name: str
    pending: Pod
    existing: list[Pod]
    added: Pod
    want_anti: dict
    want_aff: dict


ADD_REMOVE = [
    AddRemoveCase(
        "anti-affinity counts follow an added and removed pod",
        anti_foo_bar(make_pod("pending").labels(FOO_BAR)).obj(),
        [existing("p1", FOO_BAR, on="nodeA").obj(), anti_foo_bar(existing("p2", on="nodeC")).obj()],
        anti_foo_bar(existing("added", FOO_BAR, on="nodeB")).obj(),
        {("region", "r1"): 2}, {}),
    AddRemoveCase(
        "anti-affinity counts with two terms follow an added and removed pod",
        anti_complex(make_pod("pending").labels(FOO_BAR)).obj(),
        [existing("p1", FOO_BAR, on="nodeA").obj(), anti_foo_bar(existing("p2", on="nodeC")).obj()],
        anti_complex(existing("added", FOO_BAR, on="nodeA")).obj(),
        {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1}, {}),
    AddRemoveCase(
        "affinity counts follow an added and removed pod",
        aff_complex(make_pod("pending").labels(FOO_BAR)).obj(),
        [existing("p1", FOO_BAR, on="nodeA").obj(),
         aff_complex(anti_foo_bar(existing("p2", on="nodeC"))).obj()],
        anti_complex(existing("added", FOO_BAR, on="nodeA")).obj(),
        {}, {("region", "r1"): 2, ("zone", "z11"): 2}),
]


def pre_filter_state(pending: Pod, pods: list[Pod]) -> tuple[InterPodAffinity, CycleState, FakeHandle]:
    handle = FakeHandle(NODES3, pods)
    pl = InterPodAffinity(None, handle)
    state = CycleState()
    _, st = pl.pre_filter(state, pending, handle.snapshot.list())
    assert st == OK
    return pl, state, handle


def counts(s: PreFilterState) -> tuple[dict, dict, dict]:
    return s.existing_anti_affinity_counts, s.affinity_counts, s.anti_affinity_counts


@pytest.mark.parametrize("case", ADD_REMOVE, ids=lambda c: c.name)
def test_add_remove_pod(case: AddRemoveCase) -> None:
    _, all_state, _ = pre_filter_state(case.pending, case.existing + [case.added])
    pl, state, handle = pre_filter_state(case.pending, case.existing)
    original = state.read(PRE_FILTER_STATE_KEY).clone()
    ni = handle.snapshot.get(case.added.node_name)
    assert pl.add_pod(state, case.pending, new_pod_info(case.added), ni) == OK
    s = state.read(PRE_FILTER_STATE_KEY)
    assert (s.anti_affinity_counts, s.affinity_counts) == (case.want_anti, case.want_aff)
    assert counts(s) == counts(all_state.read(PRE_FILTER_STATE_KEY))
    assert pl.remove_pod(state, case.pending, new_pod_info(case.added), ni) == OK
    assert counts(s) == counts(original)


def test_clone_copies_counts() -> None:
    _, state, _ = pre_filter_state(ADD_REMOVE[1].pending, ADD_REMOVE[1].existing)
    s = state.read(PRE_FILTER_STATE_KEY)
    c = state.clone().read(PRE_FILTER_STATE_KEY)
    c.anti_affinity_counts[("zone", "zz")] = 7
    assert c is not s and ("zone", "zz") not in s.anti_affinity_counts
    assert counts(s.clone()) == counts(s)


# --- incoming counts (upstream TestGetTPMapMatchingIncomingAffinityAntiAffinity) ---------

HOST_A = [node("nodeA", hostname="nodeA")]


def normal(*keys: str) -> Pod:
    return existing("normal", {k: "" for k in keys}, on="nodeA").obj()


def terms(aff: tuple[str, ...], anti: tuple[str, ...]) -> Pod:
    w = make_pod("incoming")
    for k in aff:
        w.pod_affinity("hostname", sel_exists(k))
    for k in anti:
        w.pod_anti_affinity("hostname", sel_exists(k))
    return w.obj()


A1 = {("hostname", "nodeA"): 1}
INCOMING = [
    ("no existing pods", [], make_pod("aaa-normal").obj(), {}, {}),
    ("a pod without terms counts nothing", [normal("aaa")], make_pod("aaa-normal").obj(), {}, {}),
    ("no existing pod matches", [normal("bbb")], terms(("aaa",), ("aaa",)), {}, {}),
    ("one term each, matched", [normal("aaa")], terms(("aaa",), ("aaa",)), A1, A1),
    ("two affinity terms matched by one pod count twice", [normal("aaa", "bbb")],
     terms(("aaa", "bbb"), ("aaa",)), {("hostname", "nodeA"): 2}, A1),
    ("affinity needs all terms; anti-affinity counts per term", [normal("aaa")],
     terms(("aaa", "bbb"), ("aaa", "bbb")), {}, A1),
    ("partial anti-affinity match, case 1", [normal("aaa", "bbb")],
     terms(("aaa", "ccc"), ("aaa", "ccc")), {}, A1),
    ("partial anti-affinity match, case 2", [normal("bbb")],
     terms(("aaa", "bbb"), ("aaa", "bbb")), {}, A1),
]


@pytest.mark.parametrize("name,pods,pod,want_aff,want_anti", INCOMING, ids=[c[0] for c in INCOMING])
def test_incoming_counts(name, pods, pod, want_aff, want_anti) -> None:
    handle = FakeHandle(HOST_A, pods)
    got = get_incoming_affinity_anti_affinity_counts(new_pod_info(pod), handle.snapshot.list())
    assert got == (want_aff, want_anti)
