"""The columnar cycle against the reference cycle on generated clusters.

``simulate(..., fast=True)`` (the default) runs each scheduling cycle over node arrays;
``fast=False`` runs every plugin node by node as upstream does. For the same seed both
must print the same result: placements, outcomes, messages, events, evictions and every
explanation. The scenarios here reach what the bench workload does not: inter-pod
(anti-)affinity, host ports, pods nominated from the start, PreFilterResult node names,
preferred node affinity, scalar resources, empty and missing label values, hostname and
minDomains constraints, cluster default spreading, and non-default profiles.
"""
from __future__ import annotations

import json
import random

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from scheduler_core.api import simulate
from scheduler_core.columnar import kernels
from scheduler_core.columnar.simulate import ColumnarSimulation
from scheduler_core.scenario import load_scenario
from tests.bench.generate import generate, to_yaml

ZONES = ["z1", "z2", "z3", ""]
APPS = ["web", "api", "db"]
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _node(rng: random.Random, i: int) -> dict:
    labels = {HOST: f"n{i}", "disk": rng.choice(["ssd", "hdd"])}
    if rng.random() > 0.1:  # some nodes lack the zone label, one zone is ""
        labels[ZONE] = rng.choice(ZONES)
    spec: dict = {}
    if rng.random() < 0.1:
        spec["taints"] = [{"key": "pool", "value": "special", "effect": "NoSchedule"}]
    if rng.random() < 0.1:
        spec.setdefault("taints", []).append({"key": "soft", "effect": "PreferNoSchedule"})
    if rng.random() < 0.04:
        spec["unschedulable"] = True
    alloc = {"cpu": rng.choice(["2", "4"]), "memory": "8Gi", "pods": rng.choice(["4", "30"])}
    if rng.random() < 0.3:
        alloc["example.com/gpu"] = str(rng.randint(0, 2))
    status: dict = {"allocatable": alloc}
    if rng.random() < 0.3:
        status["images"] = [{"names": [f"img/{a}:1"], "sizeBytes": rng.randint(20, 900) * 2**20}
                            for a in rng.sample(APPS, 2)]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": labels},
            "spec": spec, "status": status}


def _spread(rng: random.Random, app: str) -> list[dict]:
    sel = {"matchLabels": {"app": app}}
    out = []
    if rng.random() < 0.6:
        c = {"maxSkew": rng.randint(1, 2), "topologyKey": ZONE,
             "whenUnsatisfiable": "DoNotSchedule", "labelSelector": sel}
        if rng.random() < 0.3:
            c["minDomains"] = rng.randint(2, 4)
        if rng.random() < 0.3:
            c["nodeTaintsPolicy"] = "Honor"
        if rng.random() < 0.2:
            c["nodeAffinityPolicy"] = "Ignore"
        out.append(c)
    if rng.random() < 0.2:
        out.append({"maxSkew": 1, "topologyKey": HOST, "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": sel})
    if rng.random() < 0.5:
        out.append({"maxSkew": rng.randint(1, 3), "topologyKey": rng.choice([HOST, ZONE]),
                    "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": sel})
    return out


def _pod(rng: random.Random, i: int, nodes: int, node: str = "") -> dict:
    app = rng.choice(APPS)
    labels = {"app": app}
    container: dict = {"name": "c", "image": f"img/{app}:1", "resources": {"requests": {
        "cpu": rng.choice(["200m", "500m", "1"]), "memory": "512Mi"}}}
    if rng.random() < 0.1:
        container["resources"]["requests"]["example.com/gpu"] = "1"
    if rng.random() < 0.08:
        container["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    spec: dict = {"containers": [container], "topologySpreadConstraints": _spread(rng, app),
                  "priorityClassName": "low" if node else rng.choice(["low", "mid", "high"])}
    affinity: dict = {}
    if rng.random() < 0.15:
        affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": ZONE, "operator": "In", "values": rng.sample(ZONES[:3], 2)}]}]}}
    if rng.random() < 0.15:
        affinity.setdefault("nodeAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": 20, "preference": {"matchExpressions": [
                {"key": "disk", "operator": "In", "values": ["ssd"]}]}}]
    if rng.random() < 0.04:
        names = [f"n{rng.randrange(nodes)}" for _ in range(3)]
        affinity.setdefault("nodeAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [n]}]} for n in names]}
    if rng.random() < 0.1:
        affinity["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": HOST, "labelSelector": {"matchLabels": {"app": app}}}]}
    if rng.random() < 0.08:
        affinity["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10, "podAffinityTerm": {"topologyKey": ZONE,
                                               "labelSelector": {"matchLabels": {"app": "db"}}}}]}
    if affinity:
        spec["affinity"] = affinity
    if rng.random() < 0.1:
        spec["nodeSelector"] = {"disk": "ssd"}
    if rng.random() < 0.15:
        spec["tolerations"] = [{"key": "pool", "operator": "Exists", "effect": "NoSchedule"}]
    if node:
        spec["nodeName"] = node
    elif rng.random() < 0.03:
        spec["schedulingGates"] = [{"name": "wait"}]
    status = {}
    if not node and rng.random() < 0.05:
        status["nominatedNodeName"] = f"n{rng.randrange(nodes)}"
    return {"apiVersion": "v1", "kind": "Pod", "status": status,
            "metadata": {"name": f"p{i}", "namespace": rng.choice(["default", "team"]),
                         "labels": labels}, "spec": spec}


def _classes() -> list[dict]:
    return [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": n}, "value": v} for n, v in (("low", 10), ("mid", 100),
                                                                ("high", 1000))]


def scenario(seed: int, nodes: int, bound: int, pending: int, extra: list | None = None) -> str:
    rng = random.Random(seed)
    objs = _classes() + [_node(rng, i) for i in range(nodes)]
    objs += [_pod(rng, i, nodes, f"n{rng.randrange(nodes)}") for i in range(bound)]
    objs += [_pod(rng, bound + i, nodes) for i in range(pending)]
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs + (extra or [])})


def config(plugins_yaml: str = "", args: str = "", pct: int | None = None) -> dict:
    doc = yaml.safe_load(f"""
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
{plugins_yaml}{args}""")
    if pct is not None:
        doc["percentageOfNodesToScore"] = pct
    return doc


MOST_ALLOCATED = """  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 2}, {name: memory, weight: 1}, {name: example.com/gpu, weight: 3}]
"""
SYSTEM_DEFAULTS = """  pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: System
"""
REORDERED = """  plugins:
    filter:
      disabled: [{name: "*"}]
      enabled: [{name: PodTopologySpread}, {name: NodeResourcesFit}, {name: TaintToleration},
                {name: NodeAffinity}, {name: InterPodAffinity}, {name: NodePorts}]
    score:
      disabled: [{name: ImageLocality}]
"""
RTCR = """  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
"""


def both(text: str, seed: int, detail: bool = True) -> tuple[dict, dict]:
    s = load_scenario(text, filename="gen.yaml")
    ColumnarSimulation(s)  # the profile must run columnar: no silent reference fallback
    return simulate(s, seed=seed, detail=detail, fast=True), \
        simulate(s, seed=seed, detail=detail, fast=False)


def same(a: dict, b: dict) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


CASES = [
    pytest.param(11, 30, 40, 80, None, id="a small cluster with every feature"),
    pytest.param(12, 140, 120, 160, None, id="over 100 nodes: a share of the nodes is scored"),
    pytest.param(13, 12, 50, 90, None, id="a full cluster: failures, preemption, nominations"),
    pytest.param(14, 60, 60, 90, config(args=MOST_ALLOCATED), id="MostAllocated with a scalar"),
    pytest.param(15, 60, 60, 90, config(args=SYSTEM_DEFAULTS),
                 id="System default spreading over nodes without zones"),
    pytest.param(16, 60, 60, 90, config(REORDERED), id="a reordered filter list"),
    pytest.param(17, 40, 40, 60, config(args=RTCR), id="RequestedToCapacityRatio"),
    pytest.param(18, 150, 60, 80, config(pct=20), id="percentageOfNodesToScore 20"),
]


@pytest.fixture(params=["numpy", "compiled"])
def kernels_on(request, monkeypatch):
    """Run the columnar cycle with its NumPy code, and with the compiled kernels that
    large clusters use (forced on for these small ones)."""
    if request.param == "compiled":
        if not kernels.available(kernels.MIN_NODES):
            pytest.skip("numba is not installed")
        monkeypatch.setattr(kernels, "MIN_NODES", 0)
    else:
        monkeypatch.setattr(kernels, "MIN_NODES", 10**9)
    return request.param


@pytest.mark.parametrize("seed, nodes, bound, pending, cfg", CASES)
def test_columnar_and_reference_cycles_print_the_same_result(seed, nodes, bound, pending,
                                                            cfg, kernels_on) -> None:
    fast, ref = both(scenario(seed, nodes, bound, pending, [cfg] if cfg else None), seed)
    assert same(fast, ref)


def test_the_generated_clusters_reach_the_hard_branches() -> None:
    """Guard: the cases above fail pods, preempt, nominate and reject by every Filter."""
    fast, _ = both(scenario(11, 30, 40, 80), 11)
    assert {p["outcome"] for p in fast["pods"]} == {"Scheduled", "Unschedulable", "Gated"}
    assert fast["evicted"] and any(e["reason"] == "Nominated" for e in fast["events"])
    plugins = {g["plugin"] for e in fast["explanations"].values() for g in e["rejected"]}
    assert plugins == {"", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodePorts",
                       "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity"}


def test_the_bench_workload_gives_the_same_result(kernels_on) -> None:
    cluster = generate("60x300", seed=3)
    fast, ref = both(to_yaml(cluster.objects), 3)
    assert fast["evicted"] and same(fast, ref)


@pytest.mark.parametrize("seed, nodes, bound, pending", [
    pytest.param(1, 1, 0, 1, id="a PreFilterResult naming every node leaves none absent"),
    pytest.param(1479108632, 17, 22, 34,
                 id="a nominated node outside the PreFilterResult is explained as absent"),
])
def test_regressions_found_by_random_clusters(seed, nodes, bound, pending) -> None:
    fast, ref = both(scenario(seed, nodes, bound, pending), seed)
    assert same(fast, ref)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), nodes=st.integers(1, 25), bound=st.integers(0, 40),
       pending=st.integers(1, 40))
def test_columnar_and_reference_agree_on_any_seed(seed, nodes, bound, pending) -> None:
    # both code paths: the NumPy one for small clusters, the compiled one forced on
    fast, ref = both(scenario(seed, nodes, bound, pending), seed)
    assert same(fast, ref)
    if kernels.available(kernels.MIN_NODES):
        saved, kernels.MIN_NODES = kernels.MIN_NODES, 0
        try:
            fast, ref = both(scenario(seed, nodes, bound, pending), seed)
        finally:
            kernels.MIN_NODES = saved
        assert same(fast, ref)


def test_without_detail_the_results_agree_and_carry_no_explanations() -> None:
    fast, ref = both(scenario(19, 40, 40, 60), 19, detail=False)
    assert same(fast, ref) and "explanations" not in fast


@pytest.mark.parametrize("detail", ["failed", ("default/p90", "team/p95", "default/p99")])
def test_columnar_and_reference_agree_on_partial_detail(detail) -> None:
    s = load_scenario(scenario(13, 12, 50, 90), filename="gen.yaml")
    fast = simulate(s, seed=13, detail=detail, fast=True)
    assert fast["explanations"] and fast["preemptions"]
    assert same(fast, simulate(s, seed=13, detail=detail, fast=False))


@pytest.fixture
def walks(monkeypatch):
    """The compiled kernels forced on, and a count of the cycles that found their feasible nodes
    by walking the nodes (ColumnarScheduler._walk) against those that took the node arrays."""
    from scheduler_core.columnar.schedule_one import ColumnarScheduler

    if not kernels.available(kernels.MIN_NODES):
        pytest.skip("numba is not installed")
    monkeypatch.setattr(kernels, "MIN_NODES", 0)
    counted = {"walked": 0, "arrays": 0}
    walked, arrays = ColumnarScheduler._walked, ColumnarScheduler._pass_filters

    def count_walked(self, *args):
        counted["walked"] += 1
        return walked(self, *args)

    def count_arrays(self, *args):
        counted["arrays"] += 1
        return arrays(self, *args)
    monkeypatch.setattr(ColumnarScheduler, "_walked", count_walked)
    monkeypatch.setattr(ColumnarScheduler, "_pass_filters", count_arrays)
    return counted


@pytest.mark.parametrize("size, seed", [("60x300", 3), ("60x300", 8), ("small", 1), ("200x1000", 2)])
def test_cycles_that_walk_the_nodes_print_the_reference_result(size, seed, walks) -> None:
    """With detail "failed" a cycle that schedules its pod is not explained, so it may find its
    feasible nodes by walking them from nextStartNodeIndex, each node's Filter verdict worked out
    as the walk reaches it (node-static filters, NodeResourcesFit, PodTopologySpread); the other
    cycles (other plugins, nominated pods that must be made room for, no feasible node) take the
    node arrays. The bench's workloads: spread, preemption, pods nominated beforehand."""
    fast, ref = both(to_yaml(generate(size, seed=seed).objects), seed, detail="failed")
    assert same(fast, ref) and fast["evicted"]
    assert walks["walked"] > 4 * walks["arrays"] > 0


@pytest.mark.parametrize("seed, nodes, bound, pending, cfg", CASES)
def test_cycles_that_may_walk_the_nodes_print_the_reference_result_for_every_profile(
        seed, nodes, bound, pending, cfg, walks) -> None:
    """The same over the profiles and plugin arguments above (most of these clusters' cycles take
    the node arrays: pod anti-affinity, host ports and extended resources are common in them)."""
    fast, ref = both(scenario(seed, nodes, bound, pending, [cfg] if cfg else None), seed, detail="failed")
    assert same(fast, ref)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), nodes=st.integers(1, 25), bound=st.integers(0, 40),
       pending=st.integers(1, 40), detail=st.sampled_from([False, "failed"]))
def test_cycles_that_walk_the_nodes_agree_with_the_reference_on_any_seed(seed, nodes, bound, pending,
                                                                         detail) -> None:
    if not kernels.available(kernels.MIN_NODES):
        pytest.skip("numba is not installed")
    saved, kernels.MIN_NODES = kernels.MIN_NODES, 0
    try:
        fast, ref = both(scenario(seed, nodes, bound, pending), seed, detail=detail)
    finally:
        kernels.MIN_NODES = saved
    assert same(fast, ref)


def test_a_spread_key_on_no_node_fails_every_node_as_the_reference_says(walks) -> None:
    """A DoNotSchedule constraint over a label no node carries has no domain at all: every node
    lacks the key (the walk is not taken for it: it has no domain counts to look up)."""
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {
        "kubernetes.io/hostname": f"n{i}", "topology.kubernetes.io/zone": f"z{i % 2}"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}} for i in range(4)]

    def pod(name, key):
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": name, "namespace": "default", "labels": {"app": "web"}}, "spec": {
            "containers": [{"name": "c", "image": "web", "resources": {"requests": {"cpu": "100m"}}}],
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable":
                                           "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}]}}
    pods = [pod("racked", "example.com/rack"), pod("zoned-0", "topology.kubernetes.io/zone"),
            pod("zoned-1", "topology.kubernetes.io/zone")]
    fast, ref = both(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": nodes + pods}), 0,
                     detail="failed")
    assert same(fast, ref) and walks["walked"] == 2
    outcome = {p["pod"]: p["outcome"] for p in fast["pods"]}
    assert outcome == {"default/racked": "Unschedulable", "default/zoned-0": "Scheduled",
                       "default/zoned-1": "Scheduled"}
    assert "missing required label" in str(fast["explanations"]["default/racked"]["rejected"])


def test_a_walked_cycle_whose_bind_fails_is_explained_as_the_reference_explains_it(walks,
                                                                                  monkeypatch) -> None:
    """A cycle that walked the nodes keeps no Filter verdicts; when its bind then fails, the
    failure's explanation works them out again (nothing changed meanwhile)."""
    from scheduler_core.columnar.schedule_one import ColumnarScheduler
    from scheduler_core.framework.interface import Code, Status
    from scheduler_core.framework.runtime import Framework

    objects = generate("60x300", seed=3).objects
    pending = [f"{o['metadata']['namespace']}/{o['metadata']['name']}" for o in objects
               if o.get("kind") == "Pod" and not o["spec"].get("nodeName")]
    refuse = set(pending[10:13])
    text = to_yaml(objects)
    bind, again = Framework.run_bind_plugins, ColumnarScheduler.filters_again
    asked = []

    def run_bind_plugins(self, state, pod, node_name):
        if pod.key in refuse:
            return Status(Code.Error, (f"binding refused for {pod.key}",), "DefaultBinder")
        return bind(self, state, pod, node_name)

    def filters_again(self, record):
        asked.append(record)
        return again(self, record)
    monkeypatch.setattr(Framework, "run_bind_plugins", run_bind_plugins)
    monkeypatch.setattr(ColumnarScheduler, "filters_again", filters_again)
    fast, ref = both(text, 3, detail="failed")
    assert refuse <= set(fast["explanations"]) and asked
    assert any(fast["explanations"][k]["rejected"] for k in refuse)
    assert same(fast, ref)


def _sized_cluster() -> str:
    """Nodes of three sizes, a bound pod on each, and pending pods asking for more cpu, memory or both
    than the smaller nodes' whole allocatable (NodeResourcesFit: UnschedulableAndUnresolvable there,
    Unschedulable where they are only full)."""
    def node(i, cpu, mem):
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {
            "kubernetes.io/hostname": f"n{i}"}}, "status": {"allocatable": {
                "cpu": cpu, "memory": mem, "pods": "3"}}}

    def pod(name, cpu, mem, node_name=None):
        spec = {"containers": [{"name": "c", "image": "app", "resources": {"requests": {
            "cpu": cpu, "memory": mem}}}]}
        if node_name:
            spec["nodeName"] = node_name
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                "spec": spec}
    sizes = [("2", "2Gi"), ("4", "8Gi"), ("16", "64Gi")]
    nodes = [node(i, *sizes[i % 3]) for i in range(9)]
    bound = [pod(f"b{i}", "1500m", "1Gi", f"n{i}") for i in range(9)]
    pending = [pod("cpu-beyond-small", "3", "1Gi"), pod("memory-beyond-small", "500m", "4Gi"),
               pod("both-beyond-medium", "6", "16Gi"), pod("beyond-all", "32", "128Gi"),
               pod("fits-when-empty", "3", "3Gi")] + [pod(f"filler{i}", "1", "1Gi") for i in range(12)]
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": nodes + bound + pending})


def test_requests_above_a_nodes_allocatable_are_unresolvable_there_on_both_paths(kernels_on) -> None:
    fast, ref = both(_sized_cluster(), 5)
    assert same(fast, ref)
    codes = {(g["plugin"], g["code"]) for e in fast["explanations"].values() for g in e["rejected"]}
    assert ("NodeResourcesFit", "UnschedulableAndUnresolvable") in codes
    assert ("NodeResourcesFit", "Unschedulable") in codes


AFFINITY_BEFORE_FIT = """  plugins:
    filter:
      disabled: [{name: "*"}]
      enabled: [{name: TaintToleration}, {name: InterPodAffinity}, {name: NodeResourcesFit}]
"""


def _node_of_4_cpus(i, taints=()):
    """Node n<i>: 4 cpus, 8Gi, 10 pods, its hostname label, the taints given."""
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {
        "kubernetes.io/hostname": f"n{i}"}}, "spec": {"taints": list(taints)} if taints else {},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}


def _pod_of_priority(name, cpu, priority, labels=None, node_name=None, **spec):
    """A pod in default of one container requesting cpu (and 64Mi), of the priority, bound to node_name when
    given; ``spec``: more of its spec's fields."""
    spec = {"priority": priority, "containers": [{"name": "c", "image": "app", "resources": {
        "requests": {"cpu": cpu, "memory": "64Mi"}}}], **spec}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": name, "namespace": "default", "labels": labels or {}}, "spec": spec}


def _affinity_on_victims() -> str:
    """A preemptor that needs the pods of lower priority it would evict: it requires a db pod on its
    node, and the only db pods are low-priority ones. NodeResourcesFit rejects every node in its
    cycle; without the low-priority pods InterPodAffinity, which this profile runs first, rejects
    them instead."""
    pod = _pod_of_priority
    needs_db = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    items = [_node_of_4_cpus(i) for i in range(3)]
    items += [pod(f"db{i}", "2", 10, {"app": "db"}, f"n{i}") for i in range(3)]
    items += [pod(f"keep{i}", "1500m", 1000, {"app": "keep"}, f"n{i}") for i in range(3)]
    items += [pod("needs-db", "3", 500, {"app": "web"}, affinity=needs_db)]
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items})


@pytest.mark.parametrize("profile, plugin", [
    (None, "NodeResourcesFit"),
    (AFFINITY_BEFORE_FIT, "InterPodAffinity"),
], ids=["the default order: NodeResourcesFit still rejects the nodes without the victims",
        "InterPodAffinity first: it rejects the nodes once its db pods are off"])
def test_a_dry_run_reports_the_first_plugin_in_the_profiles_order_without_the_victims(profile, plugin) -> None:
    cfg = yaml.safe_dump(config(profile)) if profile else None
    s = load_scenario(_affinity_on_victims(), filename="gen.yaml", config_text=cfg)
    fast = simulate(s, seed=1, detail=True, fast=True)
    ref = simulate(s, seed=1, detail=True, fast=False)
    assert same(fast, ref)
    [attempt] = fast["preemptions"].values()
    assert [(g["plugin"], g["count"]) for g in attempt["rejectedNodes"]] == [(plugin, 3)]



FIT_THEN_TAINTS = """  plugins:
    filter:
      disabled: [{name: "*"}]
      enabled: [{name: NodeResourcesFit}, {name: TaintToleration}, {name: PodTopologySpread}]
"""


def _tainted_and_skewed() -> str:
    """Three full nodes, NodeResourcesFit first in the profile: each rejects the preemptor in its
    cycle for its resources. Without their low-priority pods n0 and n1 fit it, but their taint
    (TaintToleration, next in the profile) rejects them; n0 also holds two high-priority web pods,
    so PodTopologySpread, after it, would reject n0 as well. Only n2 is a candidate."""
    pod, web = _pod_of_priority, {"app": "web"}
    taint = {"key": "dedicated", "value": "x", "effect": "NoSchedule"}
    spread = [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": web}}]
    items = [_node_of_4_cpus(0, [taint]), _node_of_4_cpus(1, [taint]), _node_of_4_cpus(2)]
    items += [pod("web-a", "1", 1000, web, "n0"), pod("web-b", "1", 1000, web, "n0"),
              pod("low0", "2", 10, node_name="n0"), pod("low1", "4", 10, node_name="n1"),
              pod("low2", "4", 10, node_name="n2")]
    items += [pod("preemptor", "2", 500, web, topologySpreadConstraints=spread)]
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items})


def test_a_dry_run_after_node_resources_fit_still_asks_the_plugins_between_it_and_the_spread() -> None:
    s = load_scenario(_tainted_and_skewed(), filename="gen.yaml", config_text=yaml.safe_dump(config(FIT_THEN_TAINTS)))
    fast = simulate(s, seed=1, detail=True, fast=True)
    ref = simulate(s, seed=1, detail=True, fast=False)
    assert same(fast, ref)
    [attempt] = fast["preemptions"].values()
    assert [(g["plugin"], g["count"]) for g in attempt["rejectedNodes"]] == [("TaintToleration", 2)]
    assert {p["pod"]: p["node"] for p in fast["pods"]}["default/preemptor"] == "n2"


ONE_SCORE_ARRAY = """  plugins:
    score:
      disabled: [{name: "*"}]
      enabled: [{name: TaintToleration}, {name: NodeResourcesFit}]
"""


def test_a_single_scored_array_keeps_its_own_scores_beside_constant_ones(kernels_on) -> None:
    """TaintToleration scores every untainted node alike (one constant), NodeResourcesFit each node
    its own: the weighted total adds both, and the explanation still shows NodeResourcesFit's own
    scores, on both paths."""
    objs = [_node_of_4_cpus(i) for i in range(3)]
    objs += [_pod_of_priority("old", "1", 0, node_name="n0"), _pod_of_priority("new", "500m", 0), config(
        ONE_SCORE_ARRAY)]
    fast, ref = both(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}), 1)
    assert same(fast, ref)
    scores = fast["explanations"]["default/new"]["scores"]
    nodes = {n["node"]: n for n in scores["nodes"]}
    assert nodes["n0"]["plugins"] == {"TaintToleration": 100, "NodeResourcesFit": 80}
    assert nodes["n0"]["total"] == 100 * scores["weights"]["TaintToleration"] + 80


def test_a_nominated_pods_memory_counts_against_a_pod_of_no_higher_priority(kernels_on) -> None:
    """RunFilterPluginsWithNominatedPods adds a pod nominated to a node, of at least the incoming pod's
    priority, before NodeResourcesFit: its memory, not only its cpu, leaves the node too small."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0", "labels": {
        "kubernetes.io/hostname": "n0"}}, "status": {"allocatable": {"cpu": "4", "memory": "1Gi", "pods": "10"}}}

    def pod(name, memory, created, **status):
        return {"apiVersion": "v1", "kind": "Pod", "status": status, "metadata": {
            "name": name, "namespace": "default", "creationTimestamp": created}, "spec": {
            "containers": [{"name": "c", "image": "app", "resources": {"requests": {
                "cpu": "100m", "memory": memory}}}]}}

    first = pod("first", "400Mi", "2026-01-01T00:00:00Z")
    nominated = pod("nominated", "800Mi", "2026-01-01T00:00:01Z", nominatedNodeName="n0")
    fast, ref = both(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [node, first, nominated]}), 1)
    assert same(fast, ref)
    rows = {p["pod"]: p for p in fast["pods"]}
    assert rows["default/first"]["node"] is None
    assert rows["default/nominated"]["node"] == "n0"


def test_a_best_effort_pod_is_not_scored_by_balanced_allocation_on_both_paths(kernels_on) -> None:
    """BalancedAllocation's PreScore skips a pod requesting neither cpu nor memory (isBestEffortPod): its
    scores leave the plugin out, while a pod of the same nodes with requests is scored by it; nodes used
    unevenly, so that scoring the best-effort pod would order them differently."""
    objs = [_node_of_4_cpus(i) for i in range(3)]
    bound = [_pod_of_priority("cpu-heavy", "3", 0, node_name="n0"), _pod_of_priority("light", "100m", 0,
                                                                                      node_name="n1")]
    bound[0]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "64Mi"
    best_effort = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "best-effort", "namespace": "default"},
                   "spec": {"containers": [{"name": "c", "image": "app"}]}}
    objs += bound + [best_effort, _pod_of_priority("requests", "500m", 0)]
    fast, ref = both(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}), 1)
    assert same(fast, ref)
    scored = {pod: {n["node"]: n["plugins"] for n in fast["explanations"][pod]["scores"]["nodes"]}
              for pod in ("default/best-effort", "default/requests")}
    assert all("NodeResourcesBalancedAllocation" not in p for p in scored["default/best-effort"].values())
    assert all("NodeResourcesBalancedAllocation" in p for p in scored["default/requests"].values())


def _zoned_node(i: int, zone: str, taints=()) -> dict:
    node = _node_of_4_cpus(i, taints)
    node["metadata"]["labels"][ZONE] = zone
    return node


def _web_pod(name: str, namespace: str, node_name: str | None = None, tolerations=None) -> dict:
    """An app=web pod spread over zones (maxSkew 1, DoNotSchedule): pods that differ only in their namespace
    (or tolerations) are decoded into the same objects for everything else."""
    spread = [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    pod = _pod_of_priority(name, "100m", 0, labels={"app": "web"}, node_name=node_name,
                           topologySpreadConstraints=spread, **({"tolerations": tolerations} if tolerations else {}))
    pod["metadata"]["namespace"] = namespace
    return pod


SOFT = [{"key": "soft", "effect": "PreferNoSchedule"}]


@pytest.mark.parametrize("docs, expected", [
    pytest.param(
        # team a has two pods in z1, team b two in z2: each team's next pod goes to the other zone of its own
        [_zoned_node(1, "z1"), _zoned_node(2, "z1"), _zoned_node(3, "z2"), _zoned_node(4, "z2"),
         _web_pod("a1", "a", "n1"), _web_pod("a2", "a", "n2"), _web_pod("b1", "b", "n3"), _web_pod("b2", "b", "n4"),
         _web_pod("a3", "a"), _web_pod("b3", "b")],
        {"a/a3": ("n3", "n4"), "b/b3": ("n1", "n2")}, id="the same spec in two namespaces counts its own pods"),
    pytest.param(
        # n1 has a PreferNoSchedule taint the second pod tolerates: it is the only one scored as high there
        [_zoned_node(1, "z1", SOFT), _zoned_node(2, "z1"),
         _web_pod("p1", "default"), _web_pod("p2", "default", tolerations=SOFT)],
        {"default/p1": ("n2",), "default/p2": ("n1", "n2")}, id="the same spec but its tolerations"),
])
def test_pods_sharing_a_template_except_what_a_plugin_reads_are_scheduled_each_by_its_own(docs, expected) -> None:
    fast, ref = both(yaml.safe_dump_all(docs), seed=0)
    assert same(fast, ref)
    placed = {row["pod"]: row["node"] for row in fast["pods"]}
    for pod, nodes in expected.items():
        assert placed[pod] in nodes, (pod, placed[pod])


def _affinity_pods(objects: list[dict]) -> list[str]:
    return [f"{o['metadata']['namespace']}/{o['metadata']['name']}" for o in objects
            if o.get("kind") == "Pod" and not o["spec"].get("nodeName")
            and {"podAffinity", "podAntiAffinity"} & set((o["spec"].get("affinity") or {}))]


@pytest.mark.parametrize("seed", [3, 9])
def test_cycles_of_pods_with_pod_affinity_print_the_reference_result_when_only_totals_are_kept(seed, walks) -> None:
    """A cycle whose pod has pod affinity takes the node arrays (InterPodAffinity's Filter is no walk's), and when
    its success is not explained it keeps only the totals: InterPodAffinity's scores are added to the compiled
    loop's sum of the other plugins'. At production density (about 27 bound pods a node)."""
    objects = generate("dense-60x200", seed=seed).objects
    assert _affinity_pods(objects)
    fast, ref = both(to_yaml(objects), seed, detail="failed")
    assert same(fast, ref) and walks["arrays"] > 0


def test_a_cycle_scored_for_its_totals_whose_bind_fails_is_explained_with_every_plugins_scores(walks,
                                                                                              monkeypatch) -> None:
    """A cycle that took the node arrays and kept only its totals (its success was not to be explained) works out
    each plugin's scores when its bind fails and its explanation is wanted after all, as the reference shows them."""
    from scheduler_core.framework.interface import Code, Status
    from scheduler_core.framework.runtime import Framework

    objects = generate("dense-60x200", seed=3).objects
    refuse = {key for key in _affinity_pods(objects) if "/checkout-" in key}  # (required pod affinity)
    assert refuse
    bind = Framework.run_bind_plugins

    def run_bind_plugins(self, state, pod, node_name):
        if pod.key in refuse:
            return Status(Code.Error, (f"binding refused for {pod.key}",), "DefaultBinder")
        return bind(self, state, pod, node_name)
    monkeypatch.setattr(Framework, "run_bind_plugins", run_bind_plugins)
    fast, ref = both(to_yaml(objects), 3, detail="failed")
    assert same(fast, ref)
    scored = [fast["explanations"][k]["scores"] for k in refuse]
    assert all(s["plugins"] and s["nodes"] for s in scored), scored
