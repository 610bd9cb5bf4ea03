"""A minimal framework Handle for the volume plugins: a Snapshot and a VolumeCache."""
from __future__ import annotations

from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.k8s import storage as st
from scheduler_core.k8s.types import Node, Pod
from scheduler_core.plugins.volumebinding.assume_cache import VolumeCache
from tests.core.wrappers import node_infos


class FakeHandle:
    def __init__(self, nodes: list[Node], pods: list[Pod] = (),
                 objects: st.StorageObjects | None = None) -> None:
        self.snapshot = Snapshot(node_infos(nodes, list(pods)))
        self.cache = VolumeCache(objects or st.StorageObjects())

    def snapshot_shared_lister(self) -> Snapshot:
        return self.snapshot

    def volume_cache(self) -> VolumeCache:
        return self.cache
