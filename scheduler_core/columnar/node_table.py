"""NodeTable: the cluster's nodes as arrays, updated as pods bind and are evicted.

The columnar counterpart of kube-scheduler v1.34 ``backend/cache/snapshot.go`` plus the
aggregates of ``framework/types.go`` NodeInfo: one entry per node, in node order, for

- allocatable and requested resources (cpu in millicores, memory, ephemeral storage,
  scalar resources), the non-zero requests scoring uses, and the number of pods;
- label values, interned per label key on first use (``LabelColumn``);
- matching-pod counts per (namespace, selector) (``Matcher``), the numbers
  PodTopologySpread's countPodsMatchSelector computes, kept incrementally;
- per-domain totals of those counts over a fixed set of eligible nodes
  (``DomainCounter``), also kept incrementally, so a PreFilter never recounts.

Nodes never change during a simulation; only the pods on them do.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable, Iterable, Mapping, Sequence

import numpy as np

from ..framework.types import NodeInfo, PodInfo
from ..k8s import labels as klabels
from ..k8s.shared_memo import MISS, IdentityMemo
from ..k8s.types import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Node, Pod

INT = np.int64
NATIVE = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)


class LabelColumn:
    """One label key over all nodes: ``ids[i]`` is node i's value id, ``-1`` when the node
    lacks the key; ``slots`` is the same with missing mapped to ``len(values)``, so a
    per-value lookup array with one extra entry can be indexed directly."""

    __slots__ = ("key", "ids", "slots", "values", "index", "missing", "sorted_ids",
                 "all_present")

    def __init__(self, key: str, nodes: Sequence[Node]) -> None:
        self.key = key
        self.index: dict[str, int] = {}
        ids = np.empty(len(nodes), np.int32)
        for i, node in enumerate(nodes):
            v = node.labels.get(key)
            ids[i] = -1 if v is None else self.index.setdefault(v, len(self.index))
        self.values: list[str] = list(self.index)
        self.ids = ids
        self.missing = ids < 0
        self.all_present = not self.missing.any()
        self.slots = np.where(self.missing, len(self.values), ids).astype(np.intp)
        # value ids in the order of their values (how explanations list domains)
        self.sorted_ids = np.array(sorted(range(len(self.values)),
                                          key=self.values.__getitem__), np.intp)

    def __len__(self) -> int:
        return len(self.values)


@dataclass(eq=False)
class DomainCounter:
    """Per-domain matching-pod totals of one Matcher over the eligible nodes of a label
    key: ``cnt[v]`` sums the matcher's counts of eligible nodes with value v;
    ``present[v]`` says some eligible node has value v."""

    column: LabelColumn
    eligible: np.ndarray  # bool per node; only nodes with the key
    cnt: np.ndarray = field(init=False)
    present: np.ndarray = field(init=False)
    present_idx: np.ndarray = field(init=False)  # value ids with an eligible node
    present_sorted: np.ndarray = field(init=False)  # the same, in value order
    insertion_order: np.ndarray = field(init=False)  # the same, by first eligible node

    def rebuild(self, counts: np.ndarray) -> None:
        n = len(self.column)
        dom = self.column.ids[self.eligible]
        self.cnt = np.bincount(dom, weights=counts[self.eligible], minlength=n).astype(INT)
        self.present = np.bincount(dom, minlength=n) > 0
        self.present_idx = self.present.nonzero()[0]
        order = self.column.sorted_ids
        self.present_sorted = order[self.present[order]]
        values, first = np.unique(dom, return_index=True)
        self.insertion_order = values[np.argsort(first, kind="stable")]

    def add(self, i: int, delta: int) -> None:
        if self.eligible[i]:
            self.cnt[self.column.ids[i]] += delta


@dataclass(eq=False)
class Matcher:
    """Pods in ``namespace`` matching ``selector`` (terminating pods excluded): how many
    on each node (countPodsMatchSelector per node; an empty selector counts none)."""

    namespace: str
    selector: klabels.Selector
    counts: np.ndarray
    counters: dict[Hashable, DomainCounter] = field(default_factory=dict)

    def matches(self, pod: Pod) -> bool:
        return (pod.namespace == self.namespace and pod.deletion_timestamp is None
                and not self.selector.empty() and self.selector.matches(pod.labels))


class NodeTable:
    """Node arrays in node order; see the module docstring."""

    def __init__(self, node_infos: Sequence[NodeInfo]) -> None:
        self.node_infos = list(node_infos)
        self.nodes: list[Node] = [ni.node for ni in self.node_infos]
        self.n = len(self.nodes)
        self.names: list[str] = [n.name for n in self.nodes]
        self.name_array = np.array(self.names, dtype=object)
        self.name_rank = np.empty(len(self.names), np.intp)  # position in name order
        self.name_rank[sorted(range(len(self.names)), key=self.names.__getitem__)] = \
            np.arange(len(self.names))
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        n = self.n
        alloc = [ni.allocatable for ni in self.node_infos]
        self.alloc_cpu = np.array([a.milli_cpu for a in alloc], INT)
        self.alloc_mem = np.array([a.memory for a in alloc], INT)
        self.alloc_eph = np.array([a.ephemeral_storage for a in alloc], INT)
        self.alloc_pods = np.array([a.allowed_pod_number for a in alloc], INT)
        self.alloc_scalar: dict[str, np.ndarray] = {}
        for i, a in enumerate(alloc):
            for name, v in a.scalar_resources.items():
                self.alloc_scalar.setdefault(name, np.zeros(n, INT))[i] = v
        # The bound pods' sums, as each NodeInfo holds them (add_pod and remove_pod keep
        # them in step from here on, pod by pod)
        req = [ni.requested for ni in self.node_infos]
        nz = [ni.non_zero_requested for ni in self.node_infos]
        self.req_cpu = np.array([r.milli_cpu for r in req], INT).reshape(n)
        self.req_mem = np.array([r.memory for r in req], INT).reshape(n)
        self.req_eph = np.array([r.ephemeral_storage for r in req], INT).reshape(n)
        self.req_scalar: dict[str, np.ndarray] = {}
        for i, r in enumerate(req):
            for name, v in r.scalar_resources.items():
                self.req_scalar.setdefault(name, np.zeros(n, INT))[i] = v
        self.nz_cpu = np.array([r.milli_cpu for r in nz], INT).reshape(n)
        self.nz_mem = np.array([r.memory for r in nz], INT).reshape(n)
        self.npods = np.array([len(ni.pods) for ni in self.node_infos], INT).reshape(n)
        # alloc - requested, and pods that still fit by count: what Filter compares with
        self.free_cpu = self.alloc_cpu - self.req_cpu
        self.free_mem = self.alloc_mem - self.req_mem
        self.room_pods = self.alloc_pods - self.npods
        self.unschedulable = np.array([bool(nd.unschedulable) for nd in self.nodes], bool)
        # every node has cpu and memory allocatable (scores then need no "left out" masks)
        self.cpu_memory_everywhere = bool((self.alloc_cpu > 0).all() and
                                          (self.alloc_mem > 0).all())
        self._columns: dict[str, LabelColumn] = {}
        self._matchers: dict[tuple[str, klabels.Selector], Matcher] = {}
        self._pod_matchers: dict[Hashable, tuple[Mapping, tuple[Matcher, ...]]] = {}
        # pods with host ports and with (anti-)affinity terms: the plugins that need them
        # read the NodeInfos, which the simulation keeps in step
        # The bound pods by class (namespace, labels mapping, terminating or not: all a
        # Matcher looks at): each pod's node and class, then the binds and evictions since,
        # so that a new Matcher asks each class once rather than each pod
        self._class_ids: dict[tuple[str, int, bool], int] = {}
        self._class_pods: list[Pod] = []  # one pod of each class (it keeps its labels alive)
        class_ids, class_pods = self._class_ids, self._class_pods
        pod_class = []
        for ni in self.node_infos:  # (_class_of, written out: 138,705 bound pods at dense-5000)
            for pi in ni.pods:
                pod = pi.pod
                key = (pod.namespace, id(pod.labels), pod.deletion_timestamp is not None)
                c = class_ids.get(key)
                if c is None:
                    c = class_ids[key] = len(class_pods)
                    class_pods.append(pod)
                pod_class.append(c)
        self._pod_node = np.repeat(np.arange(n, dtype=np.intp), [len(ni.pods) for ni in self.node_infos])
        self._pod_class = np.array(pod_class, np.intp)
        self._moves: list[tuple[int, int, int]] = []  # (node, class, +1 or -1)
        # nodes where NodePorts may reject a pod: those with a pod's host port (NodeInfo keeps
        # them; NodePorts lets every other node through), and those a pod with one is added to
        self.port_nodes: set[int] = {i for i, ni in enumerate(self.node_infos)
                                     if ni.used_ports.ports}
        # the lowest priority of each node's pods (NodeInfo.lowest_pod_priority), worked out
        # when first asked; the nodes whose pods changed since are asked again
        self._lowest: np.ndarray | None = None
        self._lowest_changed: set[int] = set()
        self.affinity_pods = sum(len(ni.pods_with_affinity) for ni in self.node_infos)
        self.anti_affinity_pods = sum(len(ni.pods_with_required_anti_affinity)
                                      for ni in self.node_infos)

    # --- labels ------------------------------------------------------------------------
    def column(self, key: str) -> LabelColumn:
        """The interned values of one label key (built on first use)."""
        col = self._columns.get(key)
        if col is None:
            col = self._columns[key] = LabelColumn(key, self.nodes)
        return col

    # --- matching pods -----------------------------------------------------------------
    def matcher(self, namespace: str, selector: klabels.Selector) -> Matcher:
        """The Matcher of (namespace, selector), counted over the bound pods when new."""
        key = (namespace, selector)
        m = self._matchers.get(key)
        if m is None:
            m = Matcher(namespace, selector, np.zeros(self.n, INT))
            hit = np.array([m.matches(p) for p in self._class_pods], bool)
            if len(self._pod_class):
                m.counts += np.bincount(self._pod_node[hit[self._pod_class]],
                                        minlength=self.n).astype(INT)
            for i, c, sign in self._moves:
                if hit[c]:
                    m.counts[i] += sign
            self._matchers[key] = m
            self._pod_matchers.clear()
        return m

    def domain_counter(self, m: Matcher, column: LabelColumn, key: Hashable,
                       eligible: np.ndarray) -> DomainCounter:
        """m's per-domain totals over ``eligible`` nodes (``key`` names that node set)."""
        dc = m.counters.get((column.key, key))
        if dc is None:
            dc = DomainCounter(column, eligible & ~column.missing)
            dc.rebuild(m.counts)
            m.counters[(column.key, key)] = dc
        return dc

    def _class_of(self, pod: Pod) -> int:
        key = (pod.namespace, id(pod.labels), pod.deletion_timestamp is not None)
        found = self._class_ids.get(key)
        if found is None:
            found = self._class_ids[key] = len(self._class_pods)
            self._class_pods.append(pod)
        return found

    def _matchers_of(self, pod: Pod) -> tuple[Matcher, ...]:
        # (keyed by the labels object, which the entry keeps alive, not by value: the loader
        # shares one among a workload's pods, and a bind would otherwise hash its items)
        key = (pod.namespace, pod.deletion_timestamp is None, id(pod.labels))
        found = self._pod_matchers.get(key)
        if found is None:
            found = self._pod_matchers[key] = (pod.labels, tuple(
                m for m in self._matchers.values() if m.matches(pod)))
        return found[1]

    # --- binds and evictions -------------------------------------------------------------
    def add_pod(self, i: int, pi: PodInfo) -> None:
        """A pod bound to node i (NodeInfo.AddPodInfo)."""
        self._account(i, pi, 1)

    def remove_pod(self, i: int, pi: PodInfo) -> None:
        """A pod removed from node i (NodeInfo.RemovePod)."""
        self._account(i, pi, -1)

    def _account(self, i: int, pi: PodInfo, sign: int) -> None:
        req = pi.requests
        cpu, mem = req.get(CPU, 0), req.get(MEMORY, 0)
        self.req_cpu[i] += sign * cpu
        self.free_cpu[i] -= sign * cpu
        self.req_mem[i] += sign * mem
        self.free_mem[i] -= sign * mem
        self.req_eph[i] += sign * req.get(EPHEMERAL_STORAGE, 0)
        for name, v in req.items():
            if name not in NATIVE:
                self.req_scalar.setdefault(name, np.zeros(self.n, INT))[i] += sign * v
        self.nz_cpu[i] += sign * pi.non_zero_requests.get(CPU, 0)
        self.nz_mem[i] += sign * pi.non_zero_requests.get(MEMORY, 0)
        self.npods[i] += sign
        self.room_pods[i] -= sign
        pod = pi.pod
        self._moves.append((i, self._class_of(pod), sign))
        lowest = self._lowest
        if lowest is not None:  # (a pod added lowers the node's lowest at most; one taken off
            if sign > 0:       # may raise it, which the node's pods then say)
                if pod.priority < lowest[i]:
                    lowest[i] = pod.priority
            elif pod.priority <= lowest[i]:
                self._lowest_changed.add(i)
        if _has_host_port(pi):
            self.port_nodes.add(i)
        if pi.required_affinity_terms or pi.preferred_affinity_terms or \
                pi.required_anti_affinity_terms or pi.preferred_anti_affinity_terms:
            self.affinity_pods += sign
        if pi.required_anti_affinity_terms:
            self.anti_affinity_pods += sign
        for m in self._matchers_of(pod):
            m.counts[i] += sign
            for dc in m.counters.values():
                dc.add(i, sign)

    def lowest_priorities(self) -> np.ndarray:
        """The lowest priority of the pods on each node (NO_PODS_PRIORITY on a node without
        pods), as the NodeInfos hold them now: preemption looks for nodes with a pod of lower
        priority than the preemptor's in every failed cycle. Not to be changed."""
        if self._lowest is None:
            self._lowest = np.array([ni.lowest_pod_priority() for ni in self.node_infos], INT)
            self._lowest_changed.clear()
        elif self._lowest_changed:
            for i in self._lowest_changed:
                self._lowest[i] = self.node_infos[i].lowest_pod_priority()
            self._lowest_changed.clear()
        return self._lowest

    def scalar_requested(self, name: str) -> np.ndarray:
        """Requested amount of a scalar resource per node (zeros when none)."""
        arr = self.req_scalar.get(name)
        if arr is None:
            arr = self.req_scalar[name] = np.zeros(self.n, INT)
        return arr

    def scalar_allocatable(self, name: str) -> np.ndarray:
        arr = self.alloc_scalar.get(name)
        if arr is None:
            arr = self.alloc_scalar[name] = np.zeros(self.n, INT)
        return arr

    def names_of(self, idx: Iterable[int] | np.ndarray) -> list[str]:
        """Node names for node indices."""
        return self.name_array[np.asarray(idx, dtype=np.intp)].tolist()


# per (containers, init containers) objects: whether a port has a host port (the loader
# shares one containers tuple among a workload's pods)
_HOST_PORTS: IdentityMemo[bool] = IdentityMemo()


def _has_host_port(pi: PodInfo) -> bool:
    """Some container or init container of the pod asks for a host port."""
    pod = pi.pod
    value = _HOST_PORTS.get(pod.containers, pod.init_containers)
    if value is MISS:
        value = _HOST_PORTS.put(any(
            p.host_port > 0 for c in (*pod.containers, *pod.init_containers) for p in c.ports),
            pod.containers, pod.init_containers)
    return value
