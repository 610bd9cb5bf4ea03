"""Builders for engine tests, in the manner of kube-scheduler's ``testing/wrappers.go``.

``make_pod("p").label("app", "web").req(cpu=500).spread(1, "zone", "DoNotSchedule",
{"app": "web"}).obj()`` builds a frozen ``Pod``. Extend by adding methods; keep them
chainable and never change what an existing method does.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from scheduler_core.framework.types import NodeInfo
from scheduler_core.k8s import storage as st
from scheduler_core.k8s.storage import Volume
from scheduler_core.k8s.resource import pod_requests
from scheduler_core.k8s.types import (Affinity, Container, ContainerPort, LabelSelector,
                                      LabelSelectorRequirement, Node, NodeAffinity,
                                      NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
                                      OwnerReference, Pod, PodAffinity, PodAffinityTerm,
                                      PreferredSchedulingTerm, Taint, Toleration,
                                      TopologySpreadConstraint, WeightedPodAffinityTerm)

GI = 1024 ** 3
MI = 1024 ** 2


def selector(match_labels: Mapping[str, str] | None = None, *exprs: tuple) -> LabelSelector:
    """selector({"app": "web"}, ("tier", "In", ["a", "b"]), ("x", "Exists"))."""
    return LabelSelector(dict(match_labels or {}), tuple(
        LabelSelectorRequirement(e[0], e[1], tuple(e[2]) if len(e) > 2 else ()) for e in exprs))


def _res(cpu: int | None = None, memory: int | None = None, **other: int) -> dict[str, int]:
    """cpu in millicores, memory in bytes; extended resources by keyword (dashes as __)."""
    r: dict[str, int] = {}
    if cpu is not None:
        r["cpu"] = cpu
    if memory is not None:
        r["memory"] = memory
    for k, v in other.items():
        r[k.replace("__", "/").replace("_", "-")] = v
    return r


class PodWrapper:
    def __init__(self, name: str, namespace: str = "default") -> None:
        self.f: dict[str, Any] = {"name": name, "namespace": namespace, "uid": f"uid-{name}",
                                  "labels": {}, "containers": (Container("c"),)}

    def _set(self, **kw: Any) -> "PodWrapper":
        self.f.update(kw)
        return self

    def namespace(self, ns: str) -> "PodWrapper":
        return self._set(namespace=ns)

    def label(self, k: str, v: str) -> "PodWrapper":
        self.f["labels"] = {**self.f["labels"], k: v}
        return self

    def labels(self, d: Mapping[str, str]) -> "PodWrapper":
        self.f["labels"] = {**self.f["labels"], **d}
        return self

    def node(self, name: str) -> "PodWrapper":
        return self._set(node_name=name, phase="Running")

    def priority(self, p: int) -> "PodWrapper":
        return self._set(priority=p)

    def preemption_policy(self, p: str) -> "PodWrapper":
        return self._set(preemption_policy=p)

    def created(self, ts: float) -> "PodWrapper":
        return self._set(creation_timestamp=ts)

    def started(self, ts: float) -> "PodWrapper":
        """status.startTime (what preemption orders victims and candidates by)."""
        return self._set(start_time=ts)

    def terminating(self) -> "PodWrapper":
        return self._set(deletion_timestamp="2026-01-01T00:00:00Z")

    def preempted(self) -> "PodWrapper":
        """Terminating because the scheduler preempted it (DisruptionTarget condition)."""
        return self._set(deletion_timestamp="2026-01-01T00:00:00Z",
                         disruption_target_reason="PreemptionByScheduler")

    def nominated(self, node: str) -> "PodWrapper":
        return self._set(nominated_node_name=node)

    def gate(self, *names: str) -> "PodWrapper":
        return self._set(scheduling_gates=tuple(self.f.get("scheduling_gates", ())) + names)

    def scheduler(self, name: str) -> "PodWrapper":
        return self._set(scheduler_name=name)

    def owner(self, kind: str, name: str, uid: str = "") -> "PodWrapper":
        ref = OwnerReference("apps/v1", kind, name, uid or f"uid-{name}", True)
        return self._set(owner_references=(ref,))

    def owner_ref(self, api_version: str, kind: str, name: str,
                  controller: bool = True) -> "PodWrapper":
        """Append an owner reference with an explicit apiVersion and controller flag."""
        ref = OwnerReference(api_version, kind, name, f"uid-{name}", controller)
        return self._set(owner_references=tuple(self.f.get("owner_references", ())) + (ref,))

    def req(self, cpu: int | None = None, memory: int | None = None, **other: int) -> "PodWrapper":
        """Add a container with these requests (cpu millicores, memory bytes)."""
        c = Container(f"c{len(self.f['containers'])}", requests=_res(cpu, memory, **other))
        self.f["containers"] = tuple(x for x in self.f["containers"] if x.requests or x.ports) + (c,)
        return self

    def container(self, c: Container) -> "PodWrapper":
        self.f["containers"] = tuple(x for x in self.f["containers"] if x.requests or x.ports) + (c,)
        return self

    def init_container(self, c: Container) -> "PodWrapper":
        return self._set(init_containers=tuple(self.f.get("init_containers", ())) + (c,))

    def host_port(self, port: int, protocol: str = "TCP", ip: str = "") -> "PodWrapper":
        c = Container(f"p{port}", ports=(ContainerPort(port, port, protocol, ip),))
        self.f["containers"] = tuple(x for x in self.f["containers"] if x.requests or x.ports) + (c,)
        return self

    def image(self, image: str) -> "PodWrapper":
        self.f["containers"] = (Container("c", image=image),)
        return self

    def node_selector(self, d: Mapping[str, str]) -> "PodWrapper":
        return self._set(node_selector=dict(d))

    def _affinity(self) -> Affinity:
        return self.f.get("affinity") or Affinity()

    def node_affinity_in(self, key: str, values: list[str], op: str = "In") -> "PodWrapper":
        """Add a required term with one requirement (terms are ORed)."""
        a = self._affinity()
        na = a.node_affinity or NodeAffinity()
        terms = (na.required.node_selector_terms if na.required else ()) + (
            NodeSelectorTerm((NodeSelectorRequirement(key, op, tuple(values)),)),)
        na = dataclasses.replace(na, required=NodeSelector(terms))
        return self._set(affinity=dataclasses.replace(a, node_affinity=na))

    def node_affinity_preferred(self, weight: int, key: str, values: list[str],
                                op: str = "In") -> "PodWrapper":
        a = self._affinity()
        na = a.node_affinity or NodeAffinity()
        term = PreferredSchedulingTerm(weight, NodeSelectorTerm(
            (NodeSelectorRequirement(key, op, tuple(values)),)))
        na = dataclasses.replace(na, preferred=na.preferred + (term,))
        return self._set(affinity=dataclasses.replace(a, node_affinity=na))

    def _pod_term(self, field: str, term: PodAffinityTerm, weight: int | None) -> "PodWrapper":
        a = self._affinity()
        pa = getattr(a, field) or PodAffinity()
        if weight is None:
            pa = dataclasses.replace(pa, required=pa.required + (term,))
        else:
            pa = dataclasses.replace(pa, preferred=pa.preferred + (WeightedPodAffinityTerm(weight, term),))
        return self._set(affinity=dataclasses.replace(a, **{field: pa}))

    def pod_affinity(self, topology_key: str, sel: LabelSelector, weight: int | None = None,
                     namespaces: tuple[str, ...] = ()) -> "PodWrapper":
        return self._pod_term("pod_affinity", PodAffinityTerm(topology_key, sel, namespaces), weight)

    def pod_anti_affinity(self, topology_key: str, sel: LabelSelector, weight: int | None = None,
                          namespaces: tuple[str, ...] = ()) -> "PodWrapper":
        return self._pod_term("pod_anti_affinity", PodAffinityTerm(topology_key, sel, namespaces),
                              weight)

    def pod_affinity_term(self, term: PodAffinityTerm, weight: int | None = None,
                          anti: bool = False) -> "PodWrapper":
        """Add a whole PodAffinityTerm (e.g. with a namespaceSelector); required unless
        weight is given, to podAntiAffinity when anti."""
        return self._pod_term("pod_anti_affinity" if anti else "pod_affinity", term, weight)

    def toleration(self, key: str = "", value: str = "", effect: str = "",
                   operator: str = "Equal") -> "PodWrapper":
        t = Toleration(key, operator, value, effect)
        return self._set(tolerations=tuple(self.f.get("tolerations", ())) + (t,))

    def spread(self, max_skew: int, key: str, when: str, sel: Mapping[str, str] | LabelSelector | None,
               min_domains: int | None = None, node_affinity_policy: str | None = None,
               node_taints_policy: str | None = None,
               match_label_keys: tuple[str, ...] = ()) -> "PodWrapper":
        ls = sel if isinstance(sel, LabelSelector) or sel is None else selector(sel)
        c = TopologySpreadConstraint(max_skew, key, when, ls, min_domains, node_affinity_policy,
                                     node_taints_policy, tuple(match_label_keys))
        return self._set(topology_spread_constraints=tuple(
            self.f.get("topology_spread_constraints", ())) + (c,))

    def pvc(self, claim: str, volume: str = "") -> "PodWrapper":
        """Mount the PersistentVolumeClaim ``claim`` (volume named after it by default)."""
        return self.volume(Volume(volume or claim, claim_name=claim, has_claim=True))

    def volume(self, v: Volume) -> "PodWrapper":
        return self._set(volumes=tuple(self.f.get("volumes", ())) + (v,))

    def obj(self) -> Pod:
        f = dict(self.f)
        f["requests"] = pod_requests(f["containers"], f.get("init_containers", ()),
                                     f.get("overhead", {}))
        return Pod(**f)


class NodeWrapper:
    def __init__(self, name: str) -> None:
        self.f: dict[str, Any] = {"name": name, "labels": {"kubernetes.io/hostname": name},
                                  "allocatable": {"cpu": 4000, "memory": 16 * GI, "pods": 110,
                                                  "ephemeral-storage": 100 * GI}}

    def label(self, k: str, v: str) -> "NodeWrapper":
        self.f["labels"] = {**self.f["labels"], k: v}
        return self

    def zone(self, z: str) -> "NodeWrapper":
        return self.label("topology.kubernetes.io/zone", z)

    def without_label(self, k: str) -> "NodeWrapper":
        self.f["labels"] = {a: b for a, b in self.f["labels"].items() if a != k}
        return self

    def capacity(self, cpu: int | None = None, memory: int | None = None, pods: int | None = None,
                 **other: int) -> "NodeWrapper":
        alloc = dict(self.f["allocatable"])
        alloc.update(_res(cpu, memory, **other))
        if pods is not None:
            alloc["pods"] = pods
        self.f["allocatable"] = alloc
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> "NodeWrapper":
        self.f["taints"] = tuple(self.f.get("taints", ())) + (Taint(key, value, effect),)
        return self

    def unschedulable(self) -> "NodeWrapper":
        self.f["unschedulable"] = True
        return self

    def obj(self) -> Node:
        return Node(**self.f)


def make_pod(name: str, namespace: str = "default") -> PodWrapper:
    return PodWrapper(name, namespace)


def make_node(name: str) -> NodeWrapper:
    return NodeWrapper(name)


def node_infos(nodes: list[Node], pods: list[Pod] = ()) -> list[NodeInfo]:
    """NodeInfos for nodes with the bound pods (pod.node_name) added, in node order."""
    infos = {n.name: NodeInfo(n) for n in nodes}
    for p in pods:
        if p.node_name in infos:
            infos[p.node_name].add_pod(p)
    return list(infos.values())


# --- storage (volume plugins) ----------------------------------------------------------
def make_pv(name: str, capacity: int = GI, cls: str = "", modes=(st.READ_WRITE_ONCE,),
            labels: Mapping[str, str] | None = None, claim: str | None = None,
            affinity: tuple | None = None, **kw: Any) -> st.PersistentVolume:
    """A PersistentVolume; ``claim`` "ns/name" sets claimRef (phase Bound), ``affinity``
    (key, op, values) one required node selector term."""
    ref = tuple(claim.split("/", 1)) if claim else None
    na = None
    if affinity is not None:
        na = NodeSelector((NodeSelectorTerm((NodeSelectorRequirement(
            affinity[0], affinity[1], tuple(affinity[2])),)),))
    return st.PersistentVolume(name, dict(labels or {}), capacity, tuple(modes),
                               storage_class_name=cls, node_affinity=na, claim_ref=ref,
                               phase=st.VOLUME_BOUND if ref else st.VOLUME_AVAILABLE, **kw)


def make_pvc(name: str, cls: str = "", volume: str = "", request: int = GI,
             modes=(st.READ_WRITE_ONCE,), namespace: str = "default",
             **kw: Any) -> st.PersistentVolumeClaim:
    """A claim; with ``volume`` it is fully bound (bind-completed) unless phase says else."""
    ann = {st.ANN_BIND_COMPLETED: "yes"} if volume else {}
    phase = st.CLAIM_BOUND if volume else st.CLAIM_PENDING
    fields = dict(storage_class_name=cls, volume_name=volume, access_modes=tuple(modes),
                  request=request, phase=phase, annotations=ann)
    fields.update(kw)
    return st.PersistentVolumeClaim(name, namespace, **fields)


def make_class(name: str, mode: str = st.WAIT_FOR_FIRST_CONSUMER,
               provisioner: str = "ebs.csi.aws.com", zones: tuple[str, ...] = ()
               ) -> st.StorageClass:
    """A StorageClass; ``zones`` become allowedTopologies on topology.kubernetes.io/zone."""
    topo = (st.TopologySelectorTerm((("topology.kubernetes.io/zone", tuple(zones)),)),) \
        if zones else ()
    return st.StorageClass(name, provisioner, mode, topo)


def storage(pvs=(), pvcs=(), classes=(), csi_nodes=(), csi_drivers=()) -> st.StorageObjects:
    return st.StorageObjects({p.name: p for p in pvs}, {c.key: c for c in pvcs},
                             {c.name: c for c in classes}, {n.name: n for n in csi_nodes},
                             {d.name: d for d in csi_drivers})
