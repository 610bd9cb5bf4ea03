"""The result's facts about the end of a run: podInfo, boundPods, spreadDomains, the score
breakdown of explanations, and events naming pods namespace/name; on both paths."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from scheduler_core.api import simulate
from scheduler_core.k8s.types import replace_pod
from scheduler_core.scenario import Scenario

from .wrappers import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
WEB = {"app": "web"}


def zones(*counts: int, cpu: int = 4000) -> list:
    """One node per zone z1, z2, ... (the counts say nothing; see ``web_bound``)."""
    return [make_node(f"n{i}").zone(f"z{i}").capacity(cpu=cpu, pods=110).obj()
            for i in range(1, len(counts) + 1)]


def web_bound(counts: tuple[int, ...]) -> list:
    """counts[i] web pods bound on node n{i+1} before the run."""
    return [make_pod(f"old-{i}-{k}").labels(WEB).node(f"n{i + 1}").req(cpu=100).obj()
            for i, n in enumerate(counts) for k in range(n)]


def web_pending(n: int, skew: int = 1, when: str = "DoNotSchedule", **kw) -> list:
    return [make_pod(f"new-{k}").labels(WEB).owner("ReplicaSet", "web").req(cpu=100)
            .spread(skew, ZONE, when, WEB, **kw).obj() for k in range(n)]


@dataclass
class Case:
    name: str
    bound: tuple[int, ...]
    pending: int
    want_domains: dict[str, int]
    want_skew: int
    want_min: int = -1
    extra: list = field(default_factory=list)
    kw: dict = field(default_factory=dict)
    when: str = "DoNotSchedule"


SPREAD_CASES = [
    Case("bound pods count in the final domains", (3, 1, 1), 4,
         {"z1": 3, "z2": 3, "z3": 3}, 0, 3),
    Case("an uneven end is reported with its skew", (4, 0), 1, {"z1": 4, "z2": 1}, 3, 1),
    Case("pods the selector does not match are not counted", (1, 1), 2,
         {"z1": 2, "z2": 2}, 0, 2,
         extra=[make_pod("dns").label("app", "coredns").node("n1").req(cpu=100).obj()]),
    Case("pods of another namespace are not counted", (1, 1), 2, {"z1": 2, "z2": 2}, 0, 2,
         extra=[make_pod("other", "kube-system").labels(WEB).node("n1").req(cpu=100).obj()]),
    Case("fewer domains than minDomains: the global minimum is 0", (1, 1), 0,
         {"z1": 1, "z2": 1}, 1, 0, kw={"min_domains": 3}),
    Case("ScheduleAnyway constraints are reported too", (2, 0), 2, {"z1": 3, "z2": 1}, 2, 1,
         when="ScheduleAnyway", extra=[]),
]


def run_both(scenario: Scenario, **kw) -> dict:
    fast, ref = simulate(scenario, fast=True, **kw), simulate(scenario, fast=False, **kw)
    for key in ("podInfo", "boundPods", "spreadDomains", "podsPerDomain", "events", "explanations", "counts"):
        assert fast.get(key) == ref.get(key), key
    return fast


@pytest.mark.parametrize("case", SPREAD_CASES, ids=lambda c: c.name)
def test_spread_domains_count_the_final_placement(case: Case) -> None:
    nodes = zones(*case.bound)
    if case.when == "ScheduleAnyway":  # only n1 can take the pods: the end is uneven
        nodes = [nodes[0], make_node("n2").zone("z2").capacity(cpu=100, pods=110).obj()]
    pods = web_bound(case.bound) + case.extra + web_pending(case.pending, when=case.when,
                                                            **case.kw)
    if case.pending == 0:  # a pending pod of the workload that cannot fit anywhere
        pods.append(make_pod("huge").labels(WEB).req(cpu=99000)
                    .spread(1, ZONE, case.when, WEB, **case.kw).obj())
    r = run_both(Scenario(nodes=tuple(nodes), pods=tuple(pods)))
    [entry] = r["spreadDomains"]
    assert (entry["domains"], entry["skew"], entry["globalMinimum"]) == \
        (case.want_domains, case.want_skew, case.want_min)
    assert entry["skews"] == {d: n - case.want_min for d, n in case.want_domains.items()}
    assert entry["withinMaxSkew"] == (case.want_skew <= entry["maxSkew"])
    assert entry["whenUnsatisfiable"] == case.when and entry["selector"] == "app=web"


def test_each_pending_pod_points_at_its_constraints() -> None:
    pods = web_bound((1, 0)) + web_pending(1) + [make_pod("lone").req(cpu=100).obj()]
    r = run_both(Scenario(nodes=tuple(zones(1, 0)), pods=tuple(pods)))
    assert r["podInfo"]["default/new-0"]["spread"] == [0]
    assert "spread" not in r["podInfo"]["default/lone"]
    assert r["spreadDomains"][0]["workloads"] == ["ReplicaSet/web"]


POD_INFO_CASES = [
    ("an owned pod's workload is its owner",
     make_pod("a").label("app", "x").owner("ReplicaSet", "rs").node("n1"),
     {"labels": {"app": "x"}, "owner": "ReplicaSet/rs", "workload": "ReplicaSet/rs",
      "priority": 0, "boundBeforeRun": True, "requests": {"cpu": 100}}),
    ("without an owner the app label names the workload",
     make_pod("b").label("app", "x").priority(7),
     {"labels": {"app": "x"}, "owner": "", "workload": "app=x", "priority": 7,
      "boundBeforeRun": False, "requests": {"cpu": 100}}),
    ("without owner or app label the pod is its own workload", make_pod("c"),
     {"labels": {}, "owner": "", "workload": "c", "priority": 0, "boundBeforeRun": False,
      "requests": {"cpu": 100}}),
]


@pytest.mark.parametrize("name,pod,want", POD_INFO_CASES, ids=[c[0] for c in POD_INFO_CASES])
def test_pod_info_covers_bound_and_pending_pods(name, pod, want) -> None:
    p = pod.req(cpu=100).obj()
    r = run_both(Scenario(nodes=tuple(zones(0)), pods=(p,)))
    assert r["podInfo"][p.key] == want


@pytest.mark.parametrize("labels,owner,want", [
    ({}, None, ["c", "d"]),
    ({"app": "x"}, None, ["app=x", "app=x"]),
    ({"tier": "web"}, ("ReplicaSet", "rs"), ["ReplicaSet/rs", "ReplicaSet/rs"]),
], ids=["pods without owner or app label are each their own workload",
        "pods without owner share their app label's workload",
        "pods of one owner share its workload"])
def test_pods_sharing_their_labels_and_owner_objects_get_their_own_workload(labels, owner, want) -> None:
    """The loader shares one labels mapping (and owner references, requests) among a workload's pods:
    the pod info must still name each pod's own workload and requests."""
    first = make_pod("c").labels(labels)
    first = (first.owner(*owner) if owner else first).req(cpu=100).obj()
    second = replace_pod(first, name="d", requests={"cpu": 250, "memory": 64})
    assert second.labels is first.labels and second.owner_references is first.owner_references
    r = simulate(Scenario(nodes=tuple(zones(0)), pods=(first, second)), detail=False)
    assert [r["podInfo"][p.key]["workload"] for p in (first, second)] == want
    assert [r["podInfo"][p.key]["requests"] for p in (first, second)] == [
        {"cpu": 100}, {"cpu": 250, "memory": 64}]


@pytest.mark.parametrize("labels,owner,want", [
    ({"tier": "web"}, None, ["c", "d"]),
    ({"app": "x"}, None, ["app=x"]),
    ({"tier": "web"}, ("ReplicaSet", "rs"), ["ReplicaSet/rs"]),
], ids=["pods without owner or app label each name their constraint's workload",
        "pods without owner name their app label's workload once",
        "pods of one owner name its workload once"])
def test_a_spread_constraint_lists_the_workloads_of_the_pods_sharing_it(labels, owner, want) -> None:
    """Pending pods sharing one labels mapping, owner references and spread constraints (as the loader shares
    them) are one group for the final spread domains: the constraint still lists each workload they belong to."""
    first = make_pod("c").labels(labels).spread(1, ZONE, "DoNotSchedule", labels)
    first = (first.owner(*owner) if owner else first).req(cpu=100).obj()
    second = replace_pod(first, name="d")
    assert second.topology_spread_constraints is first.topology_spread_constraints
    r = run_both(Scenario(nodes=tuple(zones(0, 0)), pods=(first, second)))
    [entry] = r["spreadDomains"]
    assert entry["workloads"] == want


def test_bound_pods_end_on_their_node_or_evicted_by_a_named_preemptor() -> None:
    nodes = [make_node("n1").capacity(cpu=1000, pods=110).obj()]
    pods = [make_pod("stays").req(cpu=100).node("n1").priority(10).obj(),
            make_pod("victim").req(cpu=800).node("n1").obj(),
            make_pod("vip", "prod").req(cpu=500).priority(100).obj()]
    r = run_both(Scenario(nodes=tuple(nodes), pods=tuple(pods)))
    assert r["boundPods"] == [
        {"pod": "default/stays", "startNode": "n1", "node": "n1", "evicted": False},
        {"pod": "default/victim", "startNode": "n1", "node": None, "evicted": True,
         "evictedBy": {"pod": "prod/vip", "cycle": 1, "node": "n1"}}]
    [ev] = [e for e in r["events"] if e["reason"] == "Preempted"]
    assert (ev["preemptor"], ev["message"]) == ("prod/vip", "Preempted by pod prod/vip on node n1")
    assert all(b["pod"] not in {p["pod"] for p in r["pods"]} for b in r["boundPods"])


def test_scores_list_weights_weighted_scores_summing_to_the_total_and_the_tie() -> None:
    nodes = [make_node(f"n{i}").zone("z1").capacity(cpu=4000, pods=110).obj() for i in (1, 2, 3)]
    pod = make_pod("p").req(cpu=100).obj()
    r = run_both(Scenario(nodes=tuple(nodes), pods=(pod,)), detail=True)
    scores = r["explanations"]["default/p"]["scores"]
    assert scores["weights"]["TaintToleration"] == 3  # the default profile's weight
    for row in scores["nodes"]:
        assert row["weighted"] == {p: v * scores["weights"][p] for p, v in row["plugins"].items()}
        assert sum(row["weighted"].values()) == row["total"]
    assert scores["tie"] == {"count": 3, "nodes": ["n1", "n2", "n3"],
                             "chosen": r["pods"][0]["node"], "brokenBy": "seeded random choice"}
    # PreScore skips them: no constraint, no preferred affinity
    assert {"PodTopologySpread", "NodeAffinity"} <= set(scores["skipped"])


def test_a_single_best_node_is_no_tie() -> None:
    nodes = [make_node("n1").capacity(cpu=4000, pods=110).obj(),
             make_node("n2").capacity(cpu=4000, pods=110).obj()]
    pods = [make_pod("busy").req(cpu=2000).node("n2").obj(), make_pod("p").req(cpu=100).obj()]
    r = run_both(Scenario(nodes=tuple(nodes), pods=tuple(pods)), detail=True)
    assert r["explanations"]["default/p"]["scores"]["tie"] is None


def test_pods_per_domain_counts_every_pod_on_each_domains_nodes() -> None:
    nodes = zones(0, 0) + [make_node("bare").without_label(ZONE).capacity(cpu=4000, pods=110)
                           .obj()]
    pods = [make_pod("dns").node("n1").req(cpu=100).obj(),
            make_pod("proxy").node("bare").req(cpu=100).obj(),
            make_pod("new").req(cpu=100).node_selector({ZONE: "z2"}).obj()]
    r = run_both(Scenario(nodes=tuple(nodes), pods=tuple(pods)))
    assert r["podsPerDomain"][ZONE] == {"domains": {"z1": 1, "z2": 1}, "withoutLabel": 1}


def test_pods_sharing_their_objects_keep_their_gates_and_constraints_to_themselves() -> None:
    """Pods of one workload share their pod info entry; the gates of one and the spread
    constraints of another must show on that pod only."""
    first = make_pod("a").labels(WEB).owner("ReplicaSet", "web").req(cpu=100).obj()
    gated = replace_pod(first, name="b", scheduling_gates=("wait",))
    spread = replace_pod(first, name="c", topology_spread_constraints=web_pending(1)[0].topology_spread_constraints)
    plain = replace_pod(first, name="d")
    assert gated.labels is first.labels and spread.owner_references is first.owner_references
    r = run_both(Scenario(nodes=tuple(zones(0, 0)), pods=(first, gated, spread, plain)))
    info = r["podInfo"]
    assert info["default/b"]["gates"] == ["wait"]
    assert info["default/c"]["spread"] == [0]
    assert [sorted(set(info[f"default/{n}"]) & {"gates", "spread"}) for n in "abcd"] == [
        [], ["gates"], ["spread"], []]


def test_pod_info_names_the_gates_of_a_gated_pod() -> None:
    p = make_pod("held").gate("wait", "later").req(cpu=100).obj()
    r = run_both(Scenario(nodes=tuple(zones(0)), pods=(p,)))
    assert r["podInfo"]["default/held"]["gates"] == ["wait", "later"]


ONE_NODE = [make_node("n1").capacity(cpu=1000, pods=110).obj()]
COUNT_CASES = [
    ("nothing pending", [make_pod("old").req(cpu=100).node("n1").obj()],
     {"pendingAtStart": 0, "scheduled": 0, "pendingAtEnd": 0, "outcomes": {}, "boundBefore": 1,
      "boundBeforeEvicted": 0, "evicted": 0, "ignored": 0}),
    ("scheduled, unschedulable, gated and another scheduler's pod",
     [make_pod("fits").req(cpu=500).obj(), make_pod("too-big").req(cpu=5000).obj(),
      make_pod("held").gate("wait").req(cpu=100).obj(), make_pod("other").scheduler("mine").obj()],
     {"pendingAtStart": 3, "scheduled": 1, "pendingAtEnd": 2,
      "outcomes": {"Gated": 1, "Scheduled": 1, "Unschedulable": 1}, "boundBefore": 0,
      "boundBeforeEvicted": 0, "evicted": 0, "ignored": 1}),
    ("a preemptor evicts one of two pods bound before the run",
     [make_pod("stays").req(cpu=100).node("n1").priority(10).obj(),
      make_pod("victim").req(cpu=800).node("n1").obj(),
      make_pod("vip", "prod").req(cpu=500).priority(100).obj()],
     {"pendingAtStart": 1, "scheduled": 1, "pendingAtEnd": 0, "outcomes": {"Scheduled": 1},
      "boundBefore": 2, "boundBeforeEvicted": 1, "evicted": 1, "ignored": 0}),
]


@pytest.mark.parametrize("name,pods,want", COUNT_CASES, ids=[c[0] for c in COUNT_CASES])
def test_counts_total_the_rows_the_result_lists(name, pods, want) -> None:
    r = run_both(Scenario(nodes=tuple(ONE_NODE), pods=tuple(pods)))
    assert r["counts"] == want
    assert r["counts"]["pendingAtStart"] == len(r["pods"]) and r["counts"]["evicted"] == len(r["evicted"])


RAW_CASES = [
    ("an untolerated PreferNoSchedule taint is counted raw, then reversed",
     [make_node("n1").taint("k", "v", "PreferNoSchedule").capacity(cpu=4000, pods=110).obj(),
      make_node("n2").capacity(cpu=4000, pods=110).obj()],
     {"n1": (1, 0), "n2": (0, 100)}),
    ("no taint anywhere: every raw count is 0, every normalized score 100",
     [make_node("n1").capacity(cpu=4000, pods=110).obj(),
      make_node("n2").capacity(cpu=4000, pods=110).obj()],
     {"n1": (0, 100), "n2": (0, 100)}),
]


@pytest.mark.parametrize("name,nodes,want", RAW_CASES, ids=[c[0] for c in RAW_CASES])
def test_scores_keep_each_plugins_raw_score_before_normalizing(name, nodes, want) -> None:
    r = run_both(Scenario(nodes=tuple(nodes), pods=(make_pod("p").req(cpu=100).obj(),)),
                 detail=True)
    rows = r["explanations"]["default/p"]["scores"]["nodes"]
    assert {row["node"]: (row["raw"]["TaintToleration"], row["plugins"]["TaintToleration"])
            for row in rows} == want
    for row in rows:  # NodeResourcesFit has no NormalizeScore: raw and normalized agree
        assert row["raw"]["NodeResourcesFit"] == row["plugins"]["NodeResourcesFit"]


def test_each_cycle_records_the_pods_per_domain_it_changed_binds_and_evictions_alike() -> None:
    nodes = [make_node("n1").zone("z1").capacity(cpu=1000, pods=110).obj(),
             make_node("n2").zone("z2").capacity(cpu=500, pods=110).obj()]
    pods = [make_pod("victim").req(cpu=900).node("n1").obj(),
            make_pod("small").req(cpu=100).obj(),
            make_pod("vip", "prod").req(cpu=900).priority(100).obj(),
            make_pod("big").req(cpu=950).obj()]
    r = run_both(Scenario(nodes=tuple(nodes), pods=tuple(pods)))
    assert r["podsPerDomainAtStart"] == {"kubernetes.io/hostname": {"n1": 1, "n2": 0},
                                         ZONE: {"z1": 1, "z2": 0}}
    changes = [(c["pod"], c.get("podsPerDomain", {}).get(ZONE)) for c in r["cycles"]]
    # vip fits nowhere and preempts victim on n1 (its cycle: one pod off z1); small fits beside vip's nomination
    # on n1; big fits nowhere (a cycle that changes nothing records nothing); vip binds on n1 when retried
    assert changes == [("prod/vip", {"z1": 0}), ("default/small", {"z1": 1}), ("default/big", None),
                       ("prod/vip", {"z1": 2})]
    final = {ZONE: dict(r["podsPerDomainAtStart"][ZONE])}
    for c in r["cycles"]:
        final[ZONE].update(c.get("podsPerDomain", {}).get(ZONE, {}))
    assert final[ZONE] == r["podsPerDomain"][ZONE]["domains"]


def test_spread_facts_say_which_domains_are_within_max_skew_and_the_band_top() -> None:
    nodes = zones(0, 0, 0)
    pods = web_bound((3, 0, 0)) + web_pending(1)
    r = run_both(Scenario(nodes=tuple(nodes), pods=tuple(pods)), detail=True)
    [final] = r["spreadDomains"]
    assert (final["domainsOverMaxSkew"], final["bandTop"]) == (["z1"], 1)
    [explained] = r["explanations"]["default/new-0"]["plugins"]["PodTopologySpread"]["constraints"]
    assert explained["fitsMaxSkew"] == {"z1": False, "z2": True, "z3": True}
    assert explained["bandTop"] == 1
