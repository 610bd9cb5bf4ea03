"""The volume state a simulation keeps: claims and volumes as they are bound.

Mirrors kube-scheduler v1.34 ``volumebinding/assume_cache.go`` (PVAssumeCache,
PVCAssumeCache) together with what the PV controller and the external provisioner do
after the scheduler's PreBind: in a simulation nothing runs in between, so an assumed
binding is the binding. VolumeBinding, VolumeZone, VolumeRestrictions and NodeVolumeLimits
all read the claims through this one cache (their listers upstream), so a pod scheduled
later sees the claims bound before it.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from ...k8s import storage as st
from ...k8s.nodeaffinity import LazyErrorNodeSelector
from ...k8s.types import Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm


class VolumeCache:
    """Current PersistentVolumes and PersistentVolumeClaims (namespace/name), read-only
    classes, CSINodes and CSIDrivers, and the bindings made during the run."""

    def __init__(self, objects: st.StorageObjects) -> None:
        self.pvs: dict[str, st.PersistentVolume] = dict(objects.pvs)
        self.pvcs: dict[str, st.PersistentVolumeClaim] = dict(objects.pvcs)
        self.classes: Mapping[str, st.StorageClass] = objects.classes
        self.csi_nodes: Mapping[str, st.CSINode] = objects.csi_nodes
        self.csi_drivers: Mapping[str, st.CSIDriver] = objects.csi_drivers
        self.bindings: list[dict] = []  # {"claim", "volume", "node", "provisioned"}
        self._affinity: dict[str, tuple[st.PersistentVolume, LazyErrorNodeSelector]] = {}

    def pvc(self, namespace: str, name: str) -> st.PersistentVolumeClaim | None:
        return self.pvcs.get(f"{namespace}/{name}")

    def pv(self, name: str) -> st.PersistentVolume | None:
        return self.pvs.get(name)

    def list_pvs(self, class_name: str) -> list[st.PersistentVolume]:
        """pvCache.ListPVs(storageClassName), in name order."""
        return sorted((pv for pv in self.pvs.values() if pv.storage_class_name == class_name),
                      key=lambda pv: pv.name)

    def check_node_affinity(self, pv: st.PersistentVolume, node: Node) -> bool:
        """volume.CheckNodeAffinity: the PV's required terms against the node's labels
        (a node of labels only, as upstream builds it: matchFields never match)."""
        if pv.node_affinity is None:
            return True
        hit = self._affinity.get(pv.name)
        if hit is None or hit[0] is not pv:
            hit = self._affinity[pv.name] = (pv, LazyErrorNodeSelector.from_node_selector(
                pv.node_affinity))
        return hit[1].match(Node(name="", labels=node.labels))

    # --- AssumePodVolumes + the PV controller ------------------------------------------
    def bind_static(self, claim: st.PersistentVolumeClaim, pv: st.PersistentVolume,
                    node: str) -> None:
        """A static binding: the PV's claimRef and the claim's volumeName, both Bound."""
        self.pvs[pv.name] = replace(pv, claim_ref=(claim.namespace, claim.name),
                                    phase=st.VOLUME_BOUND)
        self._bind_claim(claim, pv.name, node, False)

    def provision(self, claim: st.PersistentVolumeClaim, node: Node) -> st.PersistentVolume:
        """Dynamic provisioning for the selected node: a PV of the claim's class and size,
        pinned to the node's values of the driver's topology keys (CSINode), else of the
        class's allowedTopologies keys; with neither, reachable from every node."""
        cls = self.classes[claim.storage_class_name]
        keys = self._topology_keys(cls, node.name)
        reqs = tuple(NodeSelectorRequirement(k, "In", (node.labels[k],))
                     for k in keys if k in node.labels)
        pv = st.PersistentVolume(
            name=f"pvc-{claim.namespace}-{claim.name}", capacity=claim.request,
            access_modes=claim.access_modes, volume_mode=claim.volume_mode,
            storage_class_name=cls.name, claim_ref=(claim.namespace, claim.name),
            node_affinity=NodeSelector((NodeSelectorTerm(reqs),)) if reqs else None,
            phase=st.VOLUME_BOUND, csi_driver=cls.provisioner,
            csi_handle=f"{claim.namespace}-{claim.name}", provisioned=True)
        self.pvs[pv.name] = pv
        self._bind_claim(claim, pv.name, node.name, True)
        return pv

    def _topology_keys(self, cls: st.StorageClass, node_name: str) -> tuple[str, ...]:
        csi_node = self.csi_nodes.get(node_name)
        driver = csi_node.driver(cls.provisioner) if csi_node else None
        if driver is not None and driver.topology_keys:
            return driver.topology_keys
        return tuple(dict.fromkeys(k for term in cls.allowed_topologies
                                   for k, _ in term.match_label_expressions))

    def _bind_claim(self, claim: st.PersistentVolumeClaim, pv_name: str, node: str,
                    provisioned: bool) -> None:
        annotations = {**claim.annotations, st.ANN_BIND_COMPLETED: "yes"}
        if provisioned:
            annotations[st.ANN_SELECTED_NODE] = node
        self.pvcs[claim.key] = replace(claim, volume_name=pv_name, phase=st.CLAIM_BOUND,
                                       annotations=annotations)
        self.bindings.append({"claim": claim.key, "volume": pv_name, "node": node,
                              "provisioned": provisioned})
