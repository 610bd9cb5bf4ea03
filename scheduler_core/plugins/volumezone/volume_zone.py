"""The VolumeZone plugin: a pod's bound volumes must be in the node's zone and region.

Mirrors kube-scheduler v1.34 ``volumezone/volume_zone.go``: PreFilter collects the
topology labels of the pod's bound PersistentVolumes (unbound WaitForFirstConsumer claims
are VolumeBinding's business), Filter rejects a node whose zone or region label is not
among a volume's values (``__``-separated, volumehelpers.LabelZonesToSet). A node without
any zone or region label passes (a single-zone cluster).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...framework.cycle_state import CycleState
from ...framework.interface import SKIP, SUCCESS, Code, Plugin, PreFilterResult, Status
from ...framework.types import NodeInfo
from ...k8s import storage as st
from ...k8s.types import Pod
from ..names import VOLUME_ZONE

PRE_FILTER_STATE_KEY = "PreFilter" + VOLUME_ZONE
# volume_zone.go ErrReasonConflict (v1.34)
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION,
                   LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)
_TO_GA = {LABEL_FAILURE_DOMAIN_BETA_ZONE: LABEL_TOPOLOGY_ZONE,
          LABEL_FAILURE_DOMAIN_BETA_REGION: LABEL_TOPOLOGY_REGION}


@dataclass(frozen=True, slots=True)
class PVTopology:
    """volume_zone.go pvTopology: one topology label of one bound volume."""

    pv_name: str
    key: str
    values: frozenset[str]


@dataclass(frozen=True, slots=True)
class _State:
    topologies: tuple[PVTopology, ...]

    def clone(self) -> "_State":
        return self


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """volumehelpers.LabelZonesToSet: "a__b" -> {a, b}; None when a part is empty."""
    parts = [p.strip() for p in value.split("__")]
    return None if any(not p for p in parts) else frozenset(parts)


def pv_topologies(pv: st.PersistentVolume) -> list[PVTopology]:
    """getPVTopologies: the volume's zone and region labels, in TOPOLOGY_LABELS order."""
    out = []
    for key in TOPOLOGY_LABELS:
        if key in pv.labels:
            values = label_zones_to_set(pv.labels[key])
            if values is not None:
                out.append(PVTopology(pv.name, key, values))
    return out


class VolumeZone(Plugin):
    """volumezone.VolumeZone: PreFilter, Filter."""

    NAME = VOLUME_ZONE

    def __init__(self, args=None, handle=None) -> None:
        self.handle = handle

    def get_pv_by_pod(self, pod: Pod) -> tuple[list[PVTopology], Status]:
        """getPVbyPod: the topologies of the pod's bound volumes, or why they are unknown."""
        cache = self.handle.volume_cache()
        out: list[PVTopology] = []
        for v in pod.volumes:
            if not v.has_claim:
                continue
            if not v.claim_name:
                return [], _unresolvable("PersistentVolumeClaim had no name")
            claim = cache.pvc(pod.namespace, v.claim_name)
            if claim is None:
                return [], _unresolvable(f'persistentvolumeclaim "{v.claim_name}" not found')
            if not claim.volume_name:
                sc_name = claim.storage_class_name
                if not sc_name:
                    return [], _unresolvable(
                        "PersistentVolumeClaim had no pv name and storageClass name")
                cls = cache.classes.get(sc_name)
                if cls is None:
                    return [], _unresolvable(
                        f'storageclass.storage.k8s.io "{sc_name}" not found')
                if cls.volume_binding_mode == st.WAIT_FOR_FIRST_CONSUMER:
                    continue  # skip unbound volumes
                return [], _unresolvable("PersistentVolume had no name")
            pv = cache.pv(claim.volume_name)
            if pv is None:
                return [], _unresolvable(f'persistentvolume "{claim.volume_name}" not found')
            out += pv_topologies(pv)
        return out, SUCCESS

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status]:
        """PreFilter: Skip unless a bound volume carries zone or region labels."""
        if not pod.volumes:
            return None, SKIP
        topologies, status = self.get_pv_by_pod(pod)
        if not status.is_success():
            return None, status
        if not topologies:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, _State(tuple(topologies)))
        return None, SUCCESS

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter: each volume's zone/region must hold the node's (GA label fallback)."""
        if not pod.volumes:
            return SUCCESS
        try:
            topologies = state.read(PRE_FILTER_STATE_KEY).topologies
        except KeyError:  # upstream computes it again
            topologies, status = self.get_pv_by_pod(pod)
            if not status.is_success():
                return status
        labels = node_info.node.labels
        if not any(k in labels for k in TOPOLOGY_LABELS):
            return SUCCESS
        for topo in topologies:
            v = labels.get(topo.key)
            if v is None:
                v = labels.get(_TO_GA.get(topo.key, topo.key))
            if v is None or v not in topo.values:
                return Status(Code.UnschedulableAndUnresolvable, (ERR_REASON_CONFLICT,))
        return SUCCESS

    def explain(self, state: CycleState, pod: Pod) -> dict | None:
        """The zone/region labels of the pod's bound volumes (dashboard only)."""
        try:
            topologies = state.read(PRE_FILTER_STATE_KEY).topologies
        except KeyError:
            return None
        return {"volumes": [{"volume": t.pv_name, "key": t.key, "values": sorted(t.values)}
                            for t in topologies]}


def _unresolvable(msg: str) -> Status:
    return Status(Code.UnschedulableAndUnresolvable, (msg,))
