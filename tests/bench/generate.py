"""Seeded generator of cluster scenarios for the benchmark.

The output is what ``kubectl get priorityclasses,nodes,pods -A -o yaml`` prints: one
``kind: List`` holding PriorityClasses, Nodes, bound Pods (``spec.nodeName`` set, Running)
and pending Pods. The same size and seed always give the same text.

The workload, chosen so that most pods fit and a few things are hard:

- Nodes over 3 regions x 3 zones (uneven zone sizes), labelled with hostname, zone, region,
  instance type and a pool. Three shapes: general (8 cpu), large (16 cpu) and highmem
  (4 cpu, 2% of the nodes, tainted ``pool=highmem:NoSchedule``).
- One bound pod per node: a small pod of a regular workload, or on a highmem node a
  low-priority ``batch`` pod that takes almost all of its cpu (the preemption victims).
- Pending pods of six regular workloads in three namespaces, each pod with two spread
  constraints (zone DoNotSchedule, maxSkew 5-10; hostname ScheduleAnyway) over its
  workload's ``app`` label; some workloads with required node affinity (region In, zone In,
  zone NotIn) or a preferred one; 1% held back by a scheduling gate.
- ``cache`` pods (highest priority, tolerate the taint, require the highmem pool) that
  only fit by preempting the batch pods, and a few low-priority ``analytics`` pods for the
  same pool.
- Priorities: batch-low 100, standard 1000 (the global default), no-preempt 10000
  (``preemptionPolicy: Never``), critical 100000.

Dense presets (``dense-1000``, ``dense-5000``, ``dense-NODESxPENDING``), the density of a
production cluster: up to 33 bound pods on every regular node, 27 on average, filling
about 70% of the cluster's cpu, placed as the scheduler would have left them (zone spread within each
workload's maxSkew, at most one ``etl`` pod per node). On top of the above:

- pod affinity: ``checkout`` requires a ``frontend`` pod in its zone; ``etl`` requires
  no other ``etl`` pod on its node (required anti-affinity); ``worker`` prefers nodes
  without another ``worker`` and ``indexer`` prefers a zone with ``frontend`` pods;
- preemption: the cluster is nearly full, so pending ``standard`` and ``critical`` pods
  fit only by evicting lower-priority bound pods (``batch-low`` and ``standard``).

``dense-1000`` is 1,000 nodes, ~27,000 bound and 2,000 pending pods; ``dense-5000`` is
5,000 nodes, ~135,000 bound and 10,000 pending (Kubernetes' documented limit is 5,000
nodes and 150,000 pods).

Command line: ``python -m tests.bench.generate --size 500 -o cluster.yaml`` (``--json``
writes JSON instead of YAML).
"""
from __future__ import annotations

import argparse
import random
import sys
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone

import yaml

try:  # libyaml's emitter is ~10x faster than the pure-Python one
    from yaml import CSafeDumper as _Dumper

    C_EMITTER = True
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]

    C_EMITTER = False


@dataclass(frozen=True)
class Size:
    name: str
    nodes: int
    pending: int
    bound: int  # one per node; about DENSE_PER_NODE per regular node when dense (an estimate)
    dense: bool = False


DENSE_PER_NODE = 27  # the average the placement below reaches (it tries DENSE_ROUNDS slots)
DENSE_ROUNDS = 33


def _size(name: str, nodes: int, pending: int, dense: bool = False) -> Size:
    return Size(name, nodes, pending, nodes * DENSE_PER_NODE if dense else nodes, dense)


SIZES: dict[str, Size] = {
    "small": _size("small", 100, 900),  # 100 nodes / 1,000 pods: the web round-trip target
    "500": _size("500", 500, 1_000),
    "1000": _size("1000", 1_000, 1_000),
    "5000": _size("5000", 5_000, 10_000),  # plus 5,000 bound
    # production density: ~28 bound pods per node, pod affinity, preemption
    "dense-1000": _size("dense-1000", 1_000, 2_000, dense=True),
    "dense-5000": _size("dense-5000", 5_000, 10_000, dense=True),
}


def parse_size(text: str) -> Size:
    """``small``, ``500``, ``1000``, ``5000``, ``dense-1000``, ``dense-5000``,
    ``NODESxPENDING`` (e.g. ``2000x4000``) or ``dense-NODESxPENDING``."""
    if text in SIZES:
        return SIZES[text]
    dense = text.startswith("dense-")
    nodes, sep, pending = text.removeprefix("dense-").partition("x")
    if sep and nodes.isdigit() and pending.isdigit() and int(nodes) > 0:
        return _size(text, int(nodes), int(pending), dense)
    raise ValueError(f"unknown size {text!r}: use one of {', '.join(SIZES)}, NODESxPENDING "
                     f"or dense-NODESxPENDING")


# --- topology -------------------------------------------------------------------------

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
POOL = "cloud.example.com/pool"

REGIONS = ("us-east1", "us-central1", "europe-west1")
ZONES = (
    ("us-east1-b", "us-east1"), ("us-east1-c", "us-east1"), ("us-east1-d", "us-east1"),
    ("us-central1-a", "us-central1"), ("us-central1-b", "us-central1"),
    ("us-central1-c", "us-central1"),
    ("europe-west1-b", "europe-west1"), ("europe-west1-c", "europe-west1"),
    ("europe-west1-d", "europe-west1"),
)
ZONE_WEIGHTS = (12, 11, 10, 12, 11, 10, 12, 11, 10)  # uneven, but not so much that
# the zone DoNotSchedule constraints lock a 100-node cluster


@dataclass(frozen=True)
class NodeShape:
    instance_type: str
    pool: str
    cpu: str  # allocatable
    memory: str
    cpu_capacity: str
    memory_capacity: str


GENERAL = NodeShape("n2-standard-8", "general", "7910m", "30458064Ki", "8", "32876752Ki")
LARGE = NodeShape("n2-standard-16", "general", "15890m", "61702592Ki", "16", "65869488Ki")
HIGHMEM = NodeShape("n2-highmem-4", "highmem", "3920m", "63234068Ki", "4", "65871124Ki")

HIGHMEM_EVERY = 50  # 2% of the nodes
HIGHMEM_TAINT = {"key": "pool", "value": "highmem", "effect": "NoSchedule"}
HIGHMEM_TOLERATION = {"key": "pool", "operator": "Equal", "value": "highmem",
                      "effect": "NoSchedule"}
# What the DefaultTolerationSeconds admission plugin adds to every pod.
DEFAULT_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
     "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
     "tolerationSeconds": 300},
]

# --- priorities -----------------------------------------------------------------------

PRIORITY_CLASSES = (
    # name, value, globalDefault, preemptionPolicy
    ("batch-low", 100, False, "PreemptLowerPriority"),
    ("standard", 1000, True, "PreemptLowerPriority"),
    ("no-preempt", 10000, False, "Never"),
    ("critical", 100000, False, "PreemptLowerPriority"),
)
PRIORITY = {name: (value, policy) for name, value, _, policy in PRIORITY_CLASSES}

# --- workloads ------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    app: str
    namespace: str
    priority_class: str
    cpu: tuple[str, ...]  # request choices
    memory: tuple[str, ...]
    zone_skew: int  # zone DoNotSchedule maxSkew
    host_skew: int  # hostname ScheduleAnyway maxSkew
    weight: int  # share of the regular pending pods and of the small bound pods
    affinity: dict | None = None
    tolerations: tuple[dict, ...] = ()
    template_hash: str = field(default="")


def _required(key: str, operator: str, values: list[str]) -> dict:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": key, "operator": operator, "values": values}]}]}}}


PREFER_LARGE = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 50, "preference": {"matchExpressions": [
        {"key": INSTANCE_TYPE, "operator": "In", "values": [LARGE.instance_type]}]}}]}}

REGULAR = (
    Workload("frontend", "shop", "standard", ("100m", "250m", "500m"),
             ("256Mi", "512Mi"), 5, 1, 25, template_hash="5d8f7c9b6"),
    Workload("checkout", "shop", "critical", ("250m", "500m", "1"), ("512Mi", "1Gi"), 6, 2, 10,
             affinity=_required(REGION, "In", ["us-east1", "us-central1"]),
             template_hash="7f6d4b8c5"),
    Workload("worker", "shop", "standard", ("500m", "1", "2"), ("1Gi", "2Gi", "4Gi"), 8, 1, 20,
             affinity=PREFER_LARGE, template_hash="64c9d7f8b"),
    Workload("batch", "data", "batch-low", ("1", "2"), ("2Gi", "4Gi"), 10, 3, 15,
             template_hash="8b5c6d7f9"),
    Workload("etl", "data", "no-preempt", ("500m",), ("1Gi", "2Gi"), 7, 2, 5,
             affinity=_required(ZONE, "In", ["us-east1-b", "us-central1-a", "europe-west1-c"]),
             template_hash="9c7b5d6f4"),
    Workload("indexer", "search", "standard", ("250m", "500m"), ("512Mi", "1Gi", "2Gi"), 5, 1,
             20, affinity=_required(ZONE, "NotIn", ["europe-west1-d"]),
             template_hash="6f8d9c7b5"),
)
# The highmem pool: cache pods preempt the batch victims; analytics pods cannot preempt them.
CACHE = Workload("cache", "data", "critical", ("1",), ("8Gi",), 5, 1, 0,
                 affinity=_required(POOL, "In", ["highmem"]), tolerations=(HIGHMEM_TOLERATION,),
                 template_hash="7d9f8c6b5")
ANALYTICS = Workload("analytics", "data", "batch-low", ("300m",), ("2Gi",), 5, 1, 0,
                     affinity=_required(POOL, "In", ["highmem"]),
                     tolerations=(HIGHMEM_TOLERATION,), template_hash="5b6c7d8f9")
VICTIM = Workload("batch", "data", "batch-low", ("3500m",), ("8Gi",), 10, 3, 0,
                  tolerations=(HIGHMEM_TOLERATION,), template_hash="8b5c6d7f9")



def _term(app: str, key: str, namespaces: tuple[str, ...] = ()) -> dict:
    term: dict = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}
    if namespaces:
        term["namespaces"] = list(namespaces)
    return term


# The dense presets' pod affinity, merged into each workload's node affinity.
DENSE_POD_AFFINITY = {
    "checkout": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("frontend", ZONE)]}},
    "etl": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("etl", HOSTNAME)]}},
    "worker": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": _term("worker", HOSTNAME)}]}},
    "indexer": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 50, "podAffinityTerm": _term("frontend", ZONE, ("shop",))}]}},
}
DENSE_REGULAR = tuple(
    replace(w, affinity={**(w.affinity or {}), **DENSE_POD_AFFINITY[w.app]})
    if w.app in DENSE_POD_AFFINITY else w for w in REGULAR)
# Requests of the dense presets' bound pods, by node shape: ~28 of them fill 80-90% of the cpu.
DENSE_REQUESTS = {
    GENERAL.instance_type: (("100m", "200m", "300m"), ("512Mi", "768Mi", "1Gi")),
    LARGE.instance_type: (("200m", "400m", "600m"), ("1Gi", "1536Mi", "2Gi")),
}
DENSE_FULL = 0.92  # a bound pod is not put on a node past this share of its cpu

GATE = "example.com/quota-check"
START = datetime(2026, 11, 1, tzinfo=timezone.utc)
_SUFFIX_CHARS = "bcdfghjklmnpqrstvwxz2456789"  # what the ReplicaSet controller draws from


@dataclass
class Cluster:
    """The generated objects and a few counts the bench reports."""

    size: Size
    seed: int
    objects: list[dict]
    nodes: int = 0
    bound: int = 0
    pending: int = 0
    gated: int = 0
    preemptors: int = 0  # cache pods: they fit only by preempting
    probe_pod: str = ""  # "ns/name" of a pending pod with both spread constraints

    def meta(self) -> dict:
        return {"size": self.size.name, "seed": self.seed, "nodes": self.nodes,
                "bound": self.bound, "pending": self.pending, "gated": self.gated,
                "preemptors": self.preemptors, "probe_pod": self.probe_pod}


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.names: set[str] = set()

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def pod_name(self, w: Workload) -> str:
        while True:
            suffix = "".join(self.rng.choice(_SUFFIX_CHARS) for _ in range(5))
            name = f"{w.namespace}/{w.app}-{w.template_hash}-{suffix}"
            if name not in self.names:
                self.names.add(name)
                return name.split("/", 1)[1]


def _timestamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _priority_class(name: str, value: int, default: bool, policy: str) -> dict:
    obj: dict = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                 "metadata": {"name": name}, "value": value, "preemptionPolicy": policy}
    if default:
        obj["globalDefault"] = True
    return obj


def _node(g: _Gen, index: int, zone: str, region: str, shape: NodeShape) -> dict:
    name = f"gke-whatif-{shape.pool}-{index:05d}"
    spec: dict = {"podCIDR": f"10.{64 + index // 256}.{index % 256}.0/24",
                  "providerID": f"gce://whatif/{zone}/{name}"}
    if shape is HIGHMEM:
        spec["taints"] = [dict(HIGHMEM_TAINT)]
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {
            "name": name, "uid": g.uid(),
            "creationTimestamp": _timestamp(START - timedelta(days=30, seconds=-index)),
            "labels": {
                "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
                HOSTNAME: name, INSTANCE_TYPE: shape.instance_type, POOL: shape.pool,
                REGION: region, ZONE: zone,
            },
        },
        "spec": spec,
        "status": {
            "allocatable": {"cpu": shape.cpu, "ephemeral-storage": "47060071478",
                            "memory": shape.memory, "pods": "110"},
            "capacity": {"cpu": shape.cpu_capacity, "ephemeral-storage": "98831908Ki",
                         "memory": shape.memory_capacity, "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
        },
    }


def _pod(g: _Gen, w: Workload, created: datetime, node_name: str = "",
         gated: bool = False, requests: tuple[str, str] | None = None) -> dict:
    rng = g.rng
    name = g.pod_name(w)
    image = f"registry.example.com/{w.namespace}/{w.app}:1.{rng.randrange(10)}.0"
    cpu, memory = requests or (rng.choice(w.cpu), rng.choice(w.memory))
    priority, policy = PRIORITY[w.priority_class]
    selector = {"matchLabels": {"app": w.app}}
    spec: dict = {
        "containers": [{
            "name": w.app,
            "image": image,
            "resources": {"requests": {"cpu": cpu, "memory": memory}},
        }],
        "schedulerName": "default-scheduler",
        "priority": priority,
        "priorityClassName": w.priority_class,
        "preemptionPolicy": policy,
        "tolerations": [dict(t) for t in w.tolerations] + [dict(t) for t in DEFAULT_TOLERATIONS],
        "topologySpreadConstraints": [
            {"maxSkew": w.zone_skew, "topologyKey": ZONE,
             "whenUnsatisfiable": "DoNotSchedule", "labelSelector": selector},
            {"maxSkew": w.host_skew, "topologyKey": HOSTNAME,
             "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": selector},
        ],
    }
    if w.affinity is not None:
        spec["affinity"] = w.affinity
    if gated:
        spec["schedulingGates"] = [{"name": GATE}]
    if node_name:
        spec["nodeName"] = node_name
    status: dict = {"phase": "Running" if node_name else "Pending", "qosClass": "Burstable"}
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": name, "namespace": w.namespace, "uid": g.uid(),
            "creationTimestamp": _timestamp(created),
            "labels": {"app": w.app, "pod-template-hash": w.template_hash},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                 "name": f"{w.app}-{w.template_hash}",
                                 "uid": _owner_uid(w),
                                 "controller": True, "blockOwnerDeletion": True}],
        },
        "spec": spec,
        "status": status,
    }


def _owner_uid(w: Workload) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{w.namespace}/{w.app}-{w.template_hash}"))


def generate(size: Size | str, seed: int = 0, pending_limit: int | None = None) -> Cluster:
    """Build the scenario's objects. ``pending_limit`` keeps only the first pending pods
    (same nodes and bound pods): the bench's probe when a full run overruns its budget."""
    if isinstance(size, str):
        size = parse_size(size)
    g = _Gen(seed)
    rng = g.rng
    objects: list[dict] = [_priority_class(*pc) for pc in PRIORITY_CLASSES]
    cluster = Cluster(size, seed, objects)

    # Nodes, and one bound pod on each (about DENSE_PER_NODE on each regular node when dense).
    regular = DENSE_REGULAR if size.dense else REGULAR
    zone_of = _zone_assignment(size.nodes, rng)
    nodes, bound, highmem = [], [], 0
    weights = [w.weight for w in REGULAR]
    shapes = []
    for i in range(size.nodes):
        zone, region = ZONES[zone_of[i]]
        if i % HIGHMEM_EVERY == HIGHMEM_EVERY // 2:
            shape = HIGHMEM
            highmem += 1
        else:
            shape = LARGE if rng.random() < 0.23 else GENERAL
        shapes.append(shape)
        node = _node(g, i, zone, region, shape)
        nodes.append(node)
        created = START + timedelta(seconds=i)
        if shape is HIGHMEM:
            bound.append(_pod(g, VICTIM, created, node_name=node["metadata"]["name"]))
        elif not size.dense:  # a regular workload whose node affinity this node satisfies
            while True:
                w = rng.choices(REGULAR, weights=weights)[0]
                if _required_ok(w, node["metadata"]["labels"]):
                    break
            bound.append(_pod(g, w, created, node_name=node["metadata"]["name"]))
    if size.dense:
        bound += _dense_bound(g, nodes, shapes, zone_of)
    objects += nodes
    objects += bound

    # Pending pods, in creation order; the pool workloads are scaled to the highmem nodes.
    n_cache = min(2 * highmem, size.pending)
    n_analytics = min(max(1, highmem // 2), size.pending - n_cache)
    kinds = [CACHE] * n_cache + [ANALYTICS] * n_analytics
    kinds += rng.choices(regular, weights=weights, k=size.pending - len(kinds))
    rng.shuffle(kinds)
    if pending_limit is not None:
        kinds = kinds[:pending_limit]
    t0 = START + timedelta(days=1)
    for i, w in enumerate(kinds):
        gated = w in regular and rng.random() < 0.01
        pod = _pod(g, w, t0 + timedelta(seconds=i), gated=gated)
        objects.append(pod)
        cluster.gated += gated
        if not cluster.probe_pod and w.app == "frontend" and not gated:
            cluster.probe_pod = f"{w.namespace}/{pod['metadata']['name']}"
    cluster.nodes = len(nodes)
    cluster.bound = len(bound)
    cluster.pending = len(kinds)
    cluster.preemptors = kinds.count(CACHE)
    return cluster


def _dense_bound(g: _Gen, nodes: list[dict], shapes: list[NodeShape],
                 zone_of: list[int]) -> list[dict]:
    """The dense presets' bound pods, as a scheduler would have left them: placed in rounds
    (one pod per regular node per round, nodes in a random order) so that each workload's
    zone counts stay within its maxSkew over the zones its node affinity allows, at most
    one etl pod per node (its required anti-affinity), and no node past DENSE_FULL of its
    cpu. A slot that no workload can take after a few draws stays empty."""
    rng = g.rng
    weights = [w.weight for w in DENSE_REGULAR]
    present = sorted(set(zone_of))
    eligible = {w.app: [z for z in present if _required_ok(
        w, {ZONE: ZONES[z][0], REGION: ZONES[z][1], POOL: "general"})] for w in DENSE_REGULAR}
    counts = {w.app: [0] * len(ZONES) for w in DENSE_REGULAR}
    regular_nodes = [i for i, shape in enumerate(shapes) if shape is not HIGHMEM]
    free_cpu = {i: _milli(shapes[i].cpu) * DENSE_FULL for i in regular_nodes}
    has_etl: set[int] = set()
    placed: list[dict] = []
    order = list(regular_nodes)
    for round_ in range(DENSE_ROUNDS):
        rng.shuffle(order)
        for i in order:
            labels = nodes[i]["metadata"]["labels"]
            z = zone_of[i]
            for _ in range(6):
                w = rng.choices(DENSE_REGULAR, weights=weights)[0]
                c = counts[w.app]
                if (not _required_ok(w, labels) or (w.app == "etl" and i in has_etl)
                        or c[z] + 1 - min(c[e] for e in eligible[w.app]) > w.zone_skew):
                    continue
                cpus, memories = DENSE_REQUESTS[shapes[i].instance_type]
                cpu = rng.choice(cpus)
                if _milli(cpu) > free_cpu[i]:
                    cpu = cpus[0]
                    if _milli(cpu) > free_cpu[i]:
                        break
                free_cpu[i] -= _milli(cpu)
                c[z] += 1
                if w.app == "etl":
                    has_etl.add(i)
                created = START + timedelta(seconds=len(nodes) + round_ * len(nodes) + i)
                placed.append(_pod(g, w, created, node_name=labels[HOSTNAME],
                                   requests=(cpu, rng.choice(memories))))
                break
    return placed


def _milli(cpu: str) -> int:
    return int(cpu[:-1]) if cpu.endswith("m") else int(float(cpu) * 1000)


def _zone_assignment(n: int, rng: random.Random) -> list[int]:
    """Zone of each node: sizes proportional to ZONE_WEIGHTS (largest remainder), shuffled."""
    total = sum(ZONE_WEIGHTS)
    exact = [n * w / total for w in ZONE_WEIGHTS]
    counts = [int(x) for x in exact]
    by_remainder = sorted(range(len(exact)), key=lambda z: counts[z] - exact[z])
    for z in by_remainder[:n - sum(counts)]:
        counts[z] += 1
    zones = [z for z, c in enumerate(counts) for _ in range(c)]
    rng.shuffle(zones)
    return zones


def _required_ok(w: Workload, labels: dict) -> bool:
    """Whether a node satisfies the workload's required node affinity (the generator's own
    subset: one term, In / NotIn)."""
    if not w.affinity:
        return True
    req = w.affinity.get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    if not req:
        return True
    for expr in req["nodeSelectorTerms"][0]["matchExpressions"]:
        inside = labels.get(expr["key"]) in expr["values"]
        if inside != (expr["operator"] == "In"):
            return False
    return True


class _NoAliasDumper(_Dumper):  # type: ignore[valid-type, misc]
    """kubectl never writes anchors: shared dicts are written out in full."""

    def ignore_aliases(self, data) -> bool:
        return True


def to_yaml(objects: list[dict]) -> str:
    """A ``kind: List`` as kubectl prints it, through libyaml's emitter when present."""
    doc = {"apiVersion": "v1", "kind": "List", "items": objects,
           "metadata": {"resourceVersion": ""}}
    return yaml.dump(doc, Dumper=_NoAliasDumper, default_flow_style=False, sort_keys=False,
                     width=1000)


def to_json(objects: list[dict]) -> str:
    """The same ``kind: List`` as ``kubectl get -o json`` prints it."""
    import json

    doc = {"apiVersion": "v1", "kind": "List", "items": objects,
           "metadata": {"resourceVersion": ""}}
    return json.dumps(doc, indent=4) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench.generate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", default="small",
                   help="small, 500, 1000, 5000, dense-1000, dense-5000, NODESxPENDING or "
                        "dense-NODESxPENDING")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pending-limit", type=int, default=None)
    p.add_argument("-o", "--output", default="-", help="file to write (default: stdout)")
    p.add_argument("--json", action="store_true", help="write JSON (kubectl -o json) instead")
    args = p.parse_args(argv)
    cluster = generate(args.size, args.seed, args.pending_limit)
    text = to_json(cluster.objects) if args.json else to_yaml(cluster.objects)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{args.output}: {len(text) / 1e6:.1f} MB, {cluster.meta()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
