"""The NodeVolumeLimits plugin: CSI volumes attached to a node stay within its limit.

Mirrors kube-scheduler v1.34 ``nodevolumelimits/csi.go``: a node's limit per driver is
its CSINode's ``allocatable.count``; the pod's new claim-backed CSI volumes (a bound
claim's PV ``spec.csi``, an unbound one's class provisioner with ``<ns>-<claim>`` as the
handle) plus those already used by the node's pods must not exceed it. A volume shared
with a pod on the node counts once. Drivers whose CSIDriver says ``attachRequired:
false`` are not counted. In-tree volumes migrated to CSI are not translated.
"""
from __future__ import annotations

from typing import Sequence

from ...framework.cycle_state import CycleState
from ...framework.interface import SKIP, SUCCESS, Code, Plugin, PreFilterResult, Status
from ...framework.types import NodeInfo
from ...k8s.types import Pod
from ..names import NODE_VOLUME_LIMITS

# csi.go ErrReasonMaxVolumeCountExceeded (v1.34)
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"


class _NotFound(Exception):
    pass


class CSILimits(Plugin):
    """nodevolumelimits.CSILimits (registered as NodeVolumeLimits): PreFilter, Filter."""

    NAME = NODE_VOLUME_LIMITS

    def __init__(self, args=None, handle=None) -> None:
        self.handle = handle

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status]:
        """PreFilter: Skip unless the pod has a claim-backed volume."""
        if any(v.has_claim for v in pod.volumes):
            return None, SUCCESS
        return None, SKIP

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter: new volumes per driver + attached ones <= the CSINode count."""
        if not pod.volumes:
            return SUCCESS
        new: dict[str, str] = {}
        try:
            self.attachable_volumes(pod, True, new)
        except _NotFound as err:
            return Status(Code.UnschedulableAndUnresolvable, (str(err),))
        if not new:
            return SUCCESS
        limits = self.volume_limits(node_info.name)
        if not limits:
            return SUCCESS
        attached: dict[str, str] = {}
        for pi in node_info.pods:
            self.attachable_volumes(pi.pod, False, attached)
        counts: dict[str, int] = {}
        for unique, driver in attached.items():
            new.pop(unique, None)  # a volume used by several pods counts once
            counts[driver] = counts.get(driver, 0) + 1
        wanted: dict[str, int] = {}
        for driver in new.values():
            wanted[driver] = wanted.get(driver, 0) + 1
        for driver, count in wanted.items():
            limit = limits.get(driver)
            if limit is not None and counts.get(driver, 0) + count > limit:
                return Status(Code.Unschedulable, (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))
        return SUCCESS

    def volume_limits(self, node_name: str) -> dict[str, int]:
        """getVolumeLimits: driver -> allocatable count from the node's CSINode."""
        csi_node = self.handle.volume_cache().csi_nodes.get(node_name)
        if csi_node is None:
            return {}
        return {d.name: d.allocatable_count for d in csi_node.drivers
                if d.allocatable_count is not None}

    def attachable_volumes(self, pod: Pod, new_pod: bool, out: dict[str, str]) -> None:
        """filterAttachableVolumes: "<driver>/<handle>" -> driver for the pod's claims."""
        cache = self.handle.volume_cache()
        for v in pod.volumes:
            if not v.has_claim:
                continue
            if not v.claim_name:
                raise _NotFound("PersistentVolumeClaim had no name")
            claim = cache.pvc(pod.namespace, v.claim_name)
            if claim is None:
                if new_pod:
                    raise _NotFound(f"looking up PVC {pod.namespace}/{v.claim_name}: "
                                    f'persistentvolumeclaim "{v.claim_name}" not found')
                continue
            driver, handle = self._driver_info(claim)
            if not driver or not handle:
                continue
            csi_driver = cache.csi_drivers.get(driver)
            if csi_driver is not None and not csi_driver.attach_required:
                continue
            out[f"{driver}/{handle}"] = driver

    def _driver_info(self, claim) -> tuple[str, str]:
        """getCSIDriverInfo: the bound PV's CSI source, else the class's provisioner."""
        cache = self.handle.volume_cache()
        pv = cache.pv(claim.volume_name) if claim.volume_name else None
        if pv is not None:
            return pv.csi_driver, pv.csi_handle
        cls = cache.classes.get(claim.storage_class_name) if claim.storage_class_name else None
        if cls is None:
            return "", ""
        return cls.provisioner, f"{claim.namespace}-{claim.name}"

    def explain(self, state: CycleState, pod: Pod) -> dict | None:
        """The pod's CSI volumes by driver (dashboard only)."""
        found: dict[str, str] = {}
        try:
            self.attachable_volumes(pod, False, found)
        except _NotFound:
            return None
        if not found:
            return None
        return {"volumes": sorted(found)}


def attached_volume_counts(cache, node_name: str, pods: Sequence[Pod], handle) -> dict:
    """For the node page: driver -> {"attached": n, "limit": count or None}."""
    pl = CSILimits(None, handle)
    attached: dict[str, str] = {}
    for p in pods:
        pl.attachable_volumes(p, False, attached)
    limits = pl.volume_limits(node_name)
    out: dict[str, dict] = {}
    for driver in sorted(set(attached.values()) | set(limits)):
        out[driver] = {"attached": sum(1 for d in attached.values() if d == driver),
                       "limit": limits.get(driver)}
    return out
