"""Snapshot: the read-only view of the cluster for one scheduling cycle.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/backend/cache/snapshot.go`` (the
SharedLister). The simulator keeps NodeInfos updated incrementally as pods bind or are
evicted and builds a Snapshot over them at the start of each cycle; nothing mutates them
during the cycle, and preemption works on clones.
"""
from __future__ import annotations

from typing import Iterable

from .types import NodeInfo


class Snapshot:
    __slots__ = ("node_info_list", "node_info_map", "have_pods_with_affinity_node_info_list",
                 "have_pods_with_required_anti_affinity_node_info_list", "generation",
                 "changed")

    def __init__(self, node_infos: Iterable[NodeInfo], generation: int = 0) -> None:
        self.node_info_list: list[NodeInfo] = list(node_infos)
        self.node_info_map: dict[str, NodeInfo] = {ni.name: ni for ni in self.node_info_list}
        self.have_pods_with_affinity_node_info_list = [
            ni for ni in self.node_info_list if ni.pods_with_affinity]
        self.have_pods_with_required_anti_affinity_node_info_list = [
            ni for ni in self.node_info_list if ni.pods_with_required_anti_affinity]
        self.generation = generation
        # A Snapshot kept across cycles (the columnar simulation's) logs every NodeInfo it
        # changes here, in order, so that per-node counts can follow only those; None when
        # nobody keeps the log (a Snapshot taken for one cycle).
        self.changed: list[NodeInfo] | None = None

    # NodeInfoLister
    def list(self) -> list[NodeInfo]:
        return self.node_info_list

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        return self.have_pods_with_affinity_node_info_list

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        return self.have_pods_with_required_anti_affinity_node_info_list

    def get(self, node_name: str) -> NodeInfo:
        """NodeInfos().Get: KeyError when the node is not in the snapshot."""
        return self.node_info_map[node_name]

    def num_nodes(self) -> int:
        return len(self.node_info_list)
