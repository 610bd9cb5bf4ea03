"""The fast path against the reference path on generated scenarios.

``simulate(..., fast=True)`` (the default) lets plugins keep incremental state across
cycles (PodTopologySpread's per-domain counts); ``fast=False`` recounts every cycle as
upstream does. For the same seed both must give the same result: placements, outcomes,
messages, events, evictions and every per-node verdict and score of every cycle.
"""
from __future__ import annotations

import json
import random

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from scheduler_core.api import simulate
from scheduler_core.framework.types import NodeInfo
from scheduler_core.k8s.types import replace_pod
from scheduler_core.plugins.podtopologyspread.domain_cache import DomainCountCache
from scheduler_core.scenario import Scenario, load_scenario
from tests.bench.generate import generate, to_yaml
from tests.core.wrappers import make_node, make_pod, selector

ZONES = ["z1", "z2", "z3", "z4"]
APPS = ["web", "api", "db"]


def _node(rng: random.Random, i: int) -> dict:
    labels = {"kubernetes.io/hostname": f"n{i}", "topology.kubernetes.io/region": "r1"}
    if rng.random() > 0.05:  # a few nodes lack the zone label
        labels["topology.kubernetes.io/zone"] = rng.choice(ZONES)
    spec: dict = {}
    if rng.random() < 0.1:
        spec["taints"] = [{"key": "pool", "value": "special", "effect": "NoSchedule"}]
    if rng.random() < 0.03:
        spec["unschedulable"] = True
    if rng.random() < 0.1:
        spec.setdefault("taints", []).append(
            {"key": "soft", "value": "x", "effect": "PreferNoSchedule"})
    cpu = rng.choice(["2", "4", "8"])
    status: dict = {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "20"}}
    if rng.random() < 0.3:  # ImageLocality
        status["images"] = [{"names": [f"img/{app}:1"], "sizeBytes": rng.randint(1, 900) * 2**20}
                            for app in rng.sample(APPS, 2)]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": labels},
            "spec": spec, "status": status}


def _constraints(rng: random.Random, app: str) -> list[dict]:
    zone = {"maxSkew": rng.randint(1, 3), "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": app}}}
    if rng.random() < 0.3:
        zone["nodeTaintsPolicy"] = "Honor"
    if rng.random() < 0.2:
        zone["nodeAffinityPolicy"] = "Ignore"
    if rng.random() < 0.2:
        zone["minDomains"] = rng.randint(2, 5)
    if rng.random() < 0.2:
        zone["matchLabelKeys"] = ["tier"]
    host = {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
            "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": app}}}
    region = {"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone",
              "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": app}}}
    return rng.choice([[zone, host], [zone], [host, region], []])


def _pod(rng: random.Random, i: int, node: str = "") -> dict:
    app = rng.choice(APPS)
    ns = rng.choice(["default", "team"])
    labels = {"app": app, "tier": rng.choice(["a", "b"])}
    spec: dict = {"containers": [{"name": "c", "image": f"img/{app}:1", "resources": {
        "requests": {"cpu": rng.choice(["100m", "500m", "1", "2"]), "memory": "256Mi"}}}],
        "topologySpreadConstraints": _constraints(rng, app)}
    spec["priorityClassName"] = rng.choice(["low", "mid", "high"]) if not node else "low"
    if rng.random() < 0.2:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{
                "key": "topology.kubernetes.io/zone", "operator": "In",
                "values": rng.sample(ZONES, 2)}]}]}}}
    if rng.random() < 0.15:
        spec["tolerations"] = [{"key": "pool", "operator": "Exists", "effect": "NoSchedule"}]
    if rng.random() < 0.15:
        spec.setdefault("tolerations", []).append(
            {"key": "soft", "operator": "Exists", "effect": "PreferNoSchedule"})
    if rng.random() < 0.3:
        spec.setdefault("affinity", {}).update(_pod_affinity(rng))
    if not node and rng.random() < 0.03:
        spec["schedulingGates"] = [{"name": "wait"}]
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": ns, "labels": labels}, "spec": spec}


def _pod_term(rng: random.Random) -> dict:
    term: dict = {"labelSelector": {"matchLabels": {"app": rng.choice(APPS)}},
                  "topologyKey": rng.choice(["topology.kubernetes.io/zone",
                                             "kubernetes.io/hostname"])}
    if rng.random() < 0.2:
        term["labelSelector"]["matchExpressions"] = [
            {"key": "tier", "operator": "In", "values": [rng.choice(["a", "b"])]}]
    namespaces = rng.random()
    if namespaces < 0.15:
        term["namespaceSelector"] = {}  # every namespace
    elif namespaces < 0.3:
        term["namespaceSelector"] = {"matchLabels": {"env": "prod"}}
    elif namespaces < 0.4:
        term["namespaces"] = ["default", "team"]
    return term


def _pod_affinity(rng: random.Random) -> dict:
    """Required and preferred pod affinity and anti-affinity, over zones and hosts."""
    out: dict = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        terms: dict = {}
        if rng.random() < 0.4:
            terms["requiredDuringSchedulingIgnoredDuringExecution"] = [_pod_term(rng)]
        if rng.random() < 0.6:
            terms["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.randint(1, 100), "podAffinityTerm": _pod_term(rng)}
                for _ in range(rng.randint(1, 2))]
        if terms:
            out[kind] = terms
    return out


def _namespaces() -> list[dict]:
    return [{"apiVersion": "v1", "kind": "Namespace",
             "metadata": {"name": name, "labels": labels}}
            for name, labels in (("default", {"env": "prod"}), ("team", {"env": "dev"}))]


def _priority_classes() -> list[dict]:
    return [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": name}, "value": value}
            for name, value in (("low", 10), ("mid", 100), ("high", 1000))]


def generated_scenario(seed: int, nodes: int, bound: int, pending: int) -> str:
    """A seeded cluster as YAML: zones, taints, spread constraints, node and pod affinity,
    priorities, bound low-priority pods (preemption victims) and gated pods."""
    rng = random.Random(seed)
    objs = _namespaces() + _priority_classes() + [_node(rng, i) for i in range(nodes)]
    objs += [_pod(rng, i, f"n{rng.randrange(nodes)}") for i in range(bound)]
    objs += [_pod(rng, bound + i) for i in range(pending)]
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs})


def _both(text: str, seed: int, detail: bool) -> tuple[str, str]:
    scenario = load_scenario(text, filename="gen.yaml")
    fast = simulate(scenario, seed=seed, detail=detail, fast=True)
    ref = simulate(scenario, seed=seed, detail=detail, fast=False)
    return json.dumps(fast, sort_keys=True, default=str), json.dumps(ref, sort_keys=True,
                                                                      default=str)


@pytest.mark.parametrize("seed, nodes, bound, pending", [
    pytest.param(1, 40, 60, 120, id="small cluster, many pods per node"),
    pytest.param(2, 120, 100, 150, id="over 100 nodes: only a share of nodes is scored"),
    pytest.param(3, 250, 150, 120, id="a few hundred nodes"),
    pytest.param(4, 30, 90, 150, id="tight cluster: failures and preemption"),
])
def test_fast_and_reference_paths_give_the_same_result(seed, nodes, bound, pending) -> None:
    fast, ref = _both(generated_scenario(seed, nodes, bound, pending), seed, detail=True)
    assert fast == ref


def test_generated_scenarios_exercise_preemption_and_failures() -> None:
    """Guard that the tight scenario above really covers the hard branches."""
    scenario = load_scenario(generated_scenario(4, 30, 90, 150), filename="gen.yaml")
    result = simulate(scenario, seed=4, detail=False)
    outcomes = {p["outcome"] for p in result["pods"]}
    assert outcomes == {"Scheduled", "Unschedulable", "Gated"}
    assert result["evicted"]


@pytest.mark.parametrize("seed", range(5, 10))
def test_fast_and_reference_paths_agree_without_detail(seed) -> None:
    fast, ref = _both(generated_scenario(seed, 60, 80, 100), seed, detail=False)
    assert fast == ref


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), nodes=st.integers(1, 40), bound=st.integers(0, 60),
       pending=st.integers(1, 60))
def test_fast_and_reference_paths_agree_on_any_seed(seed, nodes, bound, pending) -> None:
    fast, ref = _both(generated_scenario(seed, nodes, bound, pending), seed, detail=True)
    assert fast == ref


@pytest.mark.parametrize("size, seed", [
    pytest.param("dense-120x400", 0, id="3,000 bound pods, pod affinity, preemption"),
    pytest.param("dense-60x300", 1, id="a tight one: anti-affinity failures and evictions"),
])
def test_fast_and_reference_paths_agree_at_production_density(size, seed) -> None:
    """The bench's dense preset: ~27 bound pods per node, required and preferred pod
    (anti-)affinity, pods that fit only by preempting."""
    cluster = generate(size, seed)
    fast, ref = _both(to_yaml(cluster.objects), seed, detail=True)
    assert fast == ref
    result = json.loads(fast)
    assert cluster.bound > 1500
    assert result["evicted"]
    assert any("anti-affinity" in (p.get("message") or "") for p in result["pods"])


def _recount(nodes: list[NodeInfo]) -> list[dict[str, int]]:
    totals: dict[str, int] = {}
    for ni in nodes:
        for _, value, count in _contribution(ni):
            totals[value] = totals.get(value, 0) + count
    return [totals]


def _contribution(ni: NodeInfo) -> tuple[tuple[int, str, int], ...]:
    return ((0, ni.node.labels["zone"], sum(p.pod.labels.get("app") == "web"
                                             for p in ni.pods)),)


def test_domain_cache_follows_binds_evictions_and_new_node_infos() -> None:
    nodes = [NodeInfo(make_node(f"n{i}").label("zone", f"z{i % 2}").obj()) for i in range(4)]
    cache = DomainCountCache()
    assert cache.totals("k", 1, nodes, _contribution) == [{"z0": 0, "z1": 0}]
    web = make_pod("w").label("app", "web").obj()
    nodes[1].add_pod(web)
    nodes[3].add_pod(make_pod("w2").label("app", "web").obj())
    assert cache.totals("k", 1, nodes, _contribution) == _recount(nodes) == [{"z0": 0, "z1": 2}]
    nodes[1].remove_pod(web)
    assert cache.totals("k", 1, nodes, _contribution) == [{"z0": 0, "z1": 1}]
    clone = nodes[0].clone()
    clone.add_pod(make_pod("w3").label("app", "web").obj())
    swapped = [clone] + nodes[1:]
    assert cache.totals("k", 1, swapped, _contribution) == [{"z0": 1, "z1": 1}]
    assert cache.totals("k", 1, nodes[:3], _contribution) == [{"z0": 0, "z1": 0}]


def test_domain_cache_returns_copies() -> None:
    nodes = [NodeInfo(make_node("n0").label("zone", "z0").obj())]
    cache = DomainCountCache()
    cache.totals("k", 1, nodes, _contribution)[0]["z0"] = 99
    assert cache.totals("k", 1, nodes, _contribution) == [{"z0": 0}]


@pytest.mark.parametrize("size, seed", [
    pytest.param("dense-60x300", 1, id="dense: evictions, nodes without victims"),
    pytest.param("120x400", 3, id="the regular preset: one preemptible batch pod per highmem node"),
])
def test_the_dry_run_over_nodes_with_lower_priority_pods_gives_the_node_by_node_trace(
        size, seed, monkeypatch) -> None:
    """DryRunPreemption tries only the nodes holding a pod of lower priority (told for all
    nodes at once); every result and preemption trace is the one the node-by-node walk gives."""
    from scheduler_core.plugins.defaultpreemption.default_preemption import DefaultPreemption

    text = to_yaml(generate(size, seed).objects)
    batched = simulate(load_scenario(text), seed=seed, detail=True)
    monkeypatch.setattr(DefaultPreemption, "nodes_with_lower_priority", None)
    walked = simulate(load_scenario(text), seed=seed, detail=True)
    assert json.dumps(batched, sort_keys=True, default=str) == json.dumps(walked, sort_keys=True, default=str)
    traces = batched["preemptions"].values()
    assert batched["evicted"] and any(t["candidates"] for t in traces)
    assert any(t["rejectedNodes"] and t["evaluatedCount"] > 1 for t in traces)  # nodes without victims


@pytest.mark.parametrize("size, seed", [
    pytest.param("dense-60x300", 1, id="dense: spread and resources reject most nodes"),
    pytest.param("dense-40x200", 5, id="another seed and size"),
])
def test_nodes_rejected_without_their_lower_priority_pods_are_told_without_a_dry_run(
        size, seed, monkeypatch) -> None:
    """A node that stays rejected with every lower-priority pod off is answered from a kept copy
    of the node without them (the filters, PodTopologySpread from its unchanged state) instead of
    cloning and trying it; results and traces are those of trying every such node."""
    from scheduler_core.plugins.defaultpreemption.default_preemption import DefaultPreemption

    told = []
    screen = DefaultPreemption.rejected_without_victims

    def counted(self, state, pod, node_info, *seen):
        st = screen(self, state, pod, node_info, *seen)
        told.append(st.plugin if st is not None else None)
        return st

    text = to_yaml(generate(size, seed).objects)
    monkeypatch.setattr(DefaultPreemption, "rejected_without_victims", counted)
    screened = simulate(load_scenario(text), seed=seed, detail=True)
    monkeypatch.setattr(DefaultPreemption, "rejected_without_victims", None)
    tried = simulate(load_scenario(text), seed=seed, detail=True)
    assert json.dumps(screened, sort_keys=True, default=str) == json.dumps(tried, sort_keys=True, default=str)
    assert {"PodTopologySpread", "NodeResourcesFit"} <= set(told) and None in told


def test_pods_sharing_their_labels_are_scored_by_their_own_preferred_pod_affinity() -> None:
    """The fast path keeps InterPodAffinity's matched terms per kind of incoming pod; two pods
    with one labels object (as the loader shares them) but different preferred terms must
    each be drawn to their own peers: near-db to the db's zone, near-cache to the cache's."""
    zone = "topology.kubernetes.io/zone"
    nodes = tuple(make_node(f"n{i}").zone(f"z{i}").capacity(cpu=4000, pods=20).obj() for i in (1, 2))
    db = make_pod("db").label("app", "db").node("n1").req(cpu=100).obj()
    cache = make_pod("cache").label("app", "cache").node("n2").req(cpu=100).obj()
    near_db = make_pod("near-db").label("app", "client").req(cpu=100) \
        .pod_affinity(zone, selector({"app": "db"}), weight=100).obj()
    near_cache = replace_pod(near_db, name="near-cache", affinity=make_pod("x").pod_affinity(
        zone, selector({"app": "cache"}), weight=100).obj().affinity)
    assert near_cache.labels is near_db.labels
    # (one of each kind already runs, so binding the first incoming pod makes no class or group
    # present that was not: nothing but the terms tells the two kinds apart)
    running = (replace_pod(near_db, name="old-near-db", node_name="n1"),
               replace_pod(near_cache, name="old-near-cache", node_name="n2"))
    scenario = Scenario(nodes=nodes, pods=(db, cache, *running, near_db, near_cache))
    for fast in (True, False):
        r = simulate(scenario, detail=False, fast=fast)
        assert {p["pod"]: p["node"] for p in r["pods"]} == {
            "default/near-db": "n1", "default/near-cache": "n2"}, fast


@pytest.mark.parametrize("first_on_node", ["data", "shop"])
def test_pods_of_two_namespaces_sharing_a_labels_object_are_counted_by_their_own_namespace(first_on_node) -> None:
    """InterPodAffinity counts a node's bound pods by (labels object, namespace) once it has seen each pair. One
    labels object shared by pods of two namespaces (as the loader shares equal labels) must still count each pod
    in its own namespace: a shop pod that requires a shop web pod in its zone goes to the zone of the shop web pod,
    never to the zone where only the data web pod runs, whichever of the two the nodes hold first."""
    zone = "topology.kubernetes.io/zone"
    nodes = tuple(make_node(f"n{i}").zone(f"z{i}").capacity(cpu=8000, pods=20).obj() for i in (1, 2, 3))
    web = make_pod("web").label("app", "web").req(cpu=100).obj()
    filler = make_pod("filler").label("app", "filler").req(cpu=100).obj()
    other = "shop" if first_on_node == "data" else "data"
    running = (  # (n2's pods have labels objects n1's have, each in the other namespace)
        replace_pod(web, name="web-a", namespace=first_on_node, node_name="n1"),
        replace_pod(filler, name="filler-a", namespace=first_on_node, node_name="n1"),
        replace_pod(web, name="web-b", namespace=other, node_name="n2"),
        replace_pod(filler, name="filler-b", namespace=other, node_name="n2"),
        replace_pod(filler, name="filler-c", namespace="shop", node_name="n3"),
    )
    assert running[0].labels is running[2].labels and running[1].labels is running[3].labels
    client = make_pod("client").namespace("shop").label("app", "client").req(cpu=100) \
        .pod_affinity(zone, selector({"app": "web"})).obj()
    want = "n1" if first_on_node == "shop" else "n2"
    scenario = Scenario(nodes=nodes, pods=(*running, client))
    for fast in (True, False):
        r = simulate(scenario, detail=False, fast=fast)
        assert {p["pod"]: p["node"] for p in r["pods"]} == {"shop/client": want}, fast
