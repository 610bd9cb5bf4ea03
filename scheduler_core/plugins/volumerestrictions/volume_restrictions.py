"""The VolumeRestrictions plugin: disks that cannot be shared, ReadWriteOncePod claims.

Mirrors kube-scheduler v1.34 ``volumerestrictions/volume_restrictions.go``: Filter rejects
a node where another pod mounts the same GCE PD, AWS EBS volume, iSCSI target or RBD
image (unless every mount is read-only, where that is allowed), and rejects every node
while a ReadWriteOncePod claim of the pod is in use by another pod; PreFilter counts those
uses and its AddPod/RemovePod follow preemption's edits.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...framework.cycle_state import CycleState
from ...framework.interface import SKIP, SUCCESS, Code, Plugin, PreFilterResult, Status
from ...framework.types import NodeInfo, PodInfo
from ...k8s import storage as st
from ...k8s.types import Pod
from ..names import VOLUME_RESTRICTIONS

PRE_FILTER_STATE_KEY = "PreFilter" + VOLUME_RESTRICTIONS
# volume_restrictions.go (v1.34)
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod "
    "access mode")


@dataclass(slots=True)
class PreFilterState:
    """preFilterState: the pod's ReadWriteOncePod claims (namespace/name) and how many of
    them other pods use."""

    read_write_once_pod_pvcs: frozenset[str]
    conflicting_pvc_ref_count: int

    def update_with_pod(self, pi: PodInfo, multiplier: int) -> None:
        self.conflicting_pvc_ref_count += multiplier * sum(
            1 for key in _claim_keys(pi.pod) if key in self.read_write_once_pod_pvcs)

    def clone(self) -> "PreFilterState":
        return PreFilterState(self.read_write_once_pod_pvcs, self.conflicting_pvc_ref_count)


def _claim_keys(pod: Pod) -> list[str]:
    return [f"{pod.namespace}/{v.claim_name}" for v in pod.volumes
            if v.has_claim and not v.ephemeral]


def needs_restrictions_check(v: st.Volume) -> bool:
    """needsRestrictionsCheck: GCE PD, AWS EBS, RBD and iSCSI volumes."""
    return bool(v.gce_pd or v.aws_ebs or v.rbd or v.iscsi_iqn)


def uses_volumes(pods: Sequence[Pod]) -> bool:
    """Whether some pod has a volume one of the volume plugins would look at (a claim, or one this plugin
    checks)."""
    return any(v.has_claim or needs_restrictions_check(v) for p in pods for v in p.volumes)


def is_volume_conflict(v: st.Volume, pod: Pod) -> bool:
    """isVolumeConflict: ``v`` conflicts with one of ``pod``'s volumes."""
    for e in pod.volumes:
        if v.gce_pd and e.gce_pd == v.gce_pd and not (v.read_only and e.read_only):
            return True
        if v.aws_ebs and e.aws_ebs == v.aws_ebs:
            return True
        if v.iscsi_iqn and e.iscsi_iqn == v.iscsi_iqn and not (v.read_only and e.read_only):
            return True
        if v.rbd and e.rbd:
            (mon, pool, image), (emon, epool, eimage) = v.rbd, e.rbd
            if set(mon) & set(emon) and pool == epool and image == eimage and \
                    not (v.read_only and e.read_only):
                return True
    return False


def satisfy_volume_conflicts(pod: Pod, node_info: NodeInfo) -> bool:
    """satisfyVolumeConflicts: no checked volume of the pod conflicts on the node."""
    for v in pod.volumes:
        if not needs_restrictions_check(v):
            continue
        if any(is_volume_conflict(v, pi.pod) for pi in node_info.pods):
            return False
    return True


class VolumeRestrictions(Plugin):
    """volumerestrictions.VolumeRestrictions: PreFilter (with AddPod/RemovePod), Filter."""

    NAME = VOLUME_RESTRICTIONS

    def __init__(self, args=None, handle=None) -> None:
        self.handle = handle

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status]:
        """PreFilter: Skip unless a volume needs the disk check or a ReadWriteOncePod
        claim is used by another pod; a missing claim is unresolvable."""
        if not pod.volumes:
            return None, SKIP
        needs_check = any(needs_restrictions_check(v) for v in pod.volumes)
        cache = self.handle.volume_cache()
        rwop = set()
        for v in pod.volumes:
            if not v.has_claim or v.ephemeral:
                continue
            claim = cache.pvc(pod.namespace, v.claim_name)
            if claim is None:
                return None, Status(Code.UnschedulableAndUnresolvable, (
                    f'persistentvolumeclaim "{v.claim_name}" not found',))
            if st.READ_WRITE_ONCE_POD in claim.access_modes:
                rwop.add(claim.key)
        used = _used_claims(nodes) if rwop else set()
        s = PreFilterState(frozenset(rwop), sum(1 for key in rwop if key in used))
        if not needs_check and s.conflicting_pvc_ref_count == 0:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, SUCCESS

    def pre_filter_extensions(self) -> "VolumeRestrictions":
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status:
        return self._update(state, pod_info_to_add, 1)

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status:
        return self._update(state, pod_info_to_remove, -1)

    def _update(self, state: CycleState, pi: PodInfo, multiplier: int) -> Status:
        try:
            s: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status(Code.Error, (f'error reading "{PRE_FILTER_STATE_KEY}" from '
                                       "cycleState: not found",))
        s.update_with_pod(pi, multiplier)
        return SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter: disk conflicts on this node, then ReadWriteOncePod conflicts anywhere."""
        if not satisfy_volume_conflicts(pod, node_info):
            return Status(Code.Unschedulable, (ERR_REASON_DISK_CONFLICT,))
        try:
            s: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status(Code.Error, (f'error reading "{PRE_FILTER_STATE_KEY}" from '
                                       "cycleState: not found",))
        if s.conflicting_pvc_ref_count > 0:
            return Status(Code.Unschedulable, (ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,))
        return SUCCESS


def _used_claims(nodes: Sequence[NodeInfo]) -> set[str]:
    """NodeInfoLister.IsPVCUsedByPods: claims (namespace/name) some bound pod mounts."""
    return {key for ni in nodes for pi in ni.pods for key in _claim_keys(pi.pod)}
