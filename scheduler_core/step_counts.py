"""Pods per topology domain, cycle by cycle: what a page stepping through a run shows.

The run keeps, for the label keys a person steps through (the well-known topology keys and
every key a pod's spread constraints or pod (anti-)affinity terms name), the number of pods on
the nodes of each domain: at the start, and after every cycle that bound or evicted a pod, the
counts of the domains that cycle changed. The counts at cycle N are then the latest recorded
value of each domain at or before N; nothing needs to be recounted.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from .framework.types import NodeInfo
from .k8s.types import Pod

WELL_KNOWN_KEYS = ("topology.kubernetes.io/zone", "kubernetes.io/hostname",
                   "topology.kubernetes.io/region")


def stepped_keys(pods: Iterable[Pod], node_infos: Iterable[NodeInfo]) -> list[str]:
    """The label keys of the nodes that are well known or that a pod's constraints name."""
    named = set(WELL_KNOWN_KEYS)
    seen: set[int] = set()  # (the loader shares these objects among a workload's pods: each read once)
    for pod in pods:
        constraints, affinity = pod.topology_spread_constraints, pod.affinity
        if constraints and id(constraints) not in seen:
            seen.add(id(constraints))
            named.update(c.topology_key for c in constraints)
        if affinity is None or id(affinity) in seen:
            continue
        seen.add(id(affinity))
        for group in (affinity.pod_affinity, affinity.pod_anti_affinity):
            if group is None:
                continue
            named.update(t.topology_key for t in group.required)
            named.update(w.pod_affinity_term.topology_key for w in group.preferred)
    present = {k for ni in node_infos for k in ni.node.labels}
    return sorted(named & present)


class StepCounts:
    """Pods per domain of the stepped keys, kept in step with binds and evictions."""

    def __init__(self, node_infos: Mapping[str, NodeInfo], keys: list[str]) -> None:
        self.keys = keys
        domains_of = {name: [(k, ni.node.labels[k]) for k in keys if k in ni.node.labels]
                      for name, ni in node_infos.items()}
        self.counts: dict[str, dict[str, int]] = {k: {} for k in keys}
        for name, ni in node_infos.items():
            for key, value in domains_of[name]:
                self.counts[key][value] = self.counts[key].get(value, 0) + len(ni.pods)
        self.initial = {k: dict(sorted(d.items())) for k, d in self.counts.items()}
        # per node, its domains in key order with the dict counting each: what moved updates
        self._counted = {name: [(key, value, self.counts[key]) for key, value in
                                sorted(domains)] for name, domains in domains_of.items()}
        self._moved: list[str] = []  # the nodes moved since the last take, in order

    def moved(self, node: str, delta: int) -> None:
        """A pod was bound to (+1) or evicted from (-1) node."""
        counted = self._counted.get(node)
        if counted:
            for _, value, counts in counted:
                counts[value] += delta
            self._moved.append(node)

    def take(self) -> dict[str, dict[str, int]] | None:
        """The counts of the domains changed since the last call, or None."""
        moved = self._moved
        if not moved:
            return None
        self._moved = []
        if len(moved) == 1:  # (a bind: the node's domains, one per key, keys in order)
            return {key: {value: counts[value]} for key, value, counts in self._counted[moved[0]]}
        changed: dict[str, set[str]] = {}
        for node in moved:
            for key, value, _ in self._counted[node]:
                changed.setdefault(key, set()).add(value)
        return {key: {v: self.counts[key][v] for v in sorted(values)}
                for key, values in sorted(changed.items())}
