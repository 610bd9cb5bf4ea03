"""The VolumeBinding plugin: a pod's claims must be bound, or bindable on the node.

Mirrors kube-scheduler v1.34 ``volumebinding/volume_binding.go``: PreFilter (podHasPVCs,
GetPodVolumeClaims, unbound Immediate claims), Filter (FindPodVolumes), Reserve
(AssumePodVolumes; here the binding is final at once, see ``assume_cache``), PreScore
(Skip: the StorageCapacityScoring feature is off by default, so there is no scorer).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ...framework.cycle_state import CycleState
from ...framework.interface import SKIP, SUCCESS, Code, Plugin, PreFilterResult, Status
from ...framework.types import NodeInfo
from ...k8s import storage as st
from ...k8s.types import Pod
from ..names import VOLUME_BINDING
from . import binder
from .assume_cache import VolumeCache

STATE_KEY = VOLUME_BINDING  # volume_binding.go stateKey = Name
# volume_binding.go PreFilter's reason (v1.34)
ERR_REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"


@dataclass
class StateData:
    """volume_binding.go stateData: the pod's claims and, per node, what Filter found.
    Shared by clones, as upstream's Clone returns the same pointer."""

    claims: binder.PodVolumeClaims | None = None
    by_node: dict[str, binder.PodVolumes] = field(default_factory=dict)
    reasons: dict[str, list[str]] = field(default_factory=dict)

    def clone(self) -> "StateData":
        return self


def volume_cache(handle) -> VolumeCache:
    """The simulation's VolumeCache through the handle (a bare cache in tests)."""
    return handle.volume_cache()


def pod_has_pvcs(cache: VolumeCache, pod: Pod) -> tuple[bool, Status]:
    """podHasPVCs: whether the pod uses claims, and an UnschedulableAndUnresolvable
    status when one is missing, lost or being deleted."""
    names = binder.pod_claim_names(pod)
    for name, ephemeral in names:
        claim = cache.pvc(pod.namespace, name)
        if claim is None:
            msg = (f'waiting for ephemeral volume controller to create the '
                   f'persistentvolumeclaim "{name}"' if ephemeral
                   else f'persistentvolumeclaim "{name}" not found')
            return True, Status(Code.UnschedulableAndUnresolvable, (msg,))
        if claim.phase == st.CLAIM_LOST:
            return True, Status(Code.UnschedulableAndUnresolvable, (
                f'persistentvolumeclaim "{name}" bound to non-existent persistentvolume '
                f'"{claim.volume_name}"',))
        if claim.deleting:
            return True, Status(Code.UnschedulableAndUnresolvable, (
                f'persistentvolumeclaim "{name}" is being deleted',))
        if ephemeral and claim.owner_pod and claim.owner_pod != pod.key:
            return True, Status(Code.UnschedulableAndUnresolvable, (
                f'PVC {claim.key} was not created for pod {pod.key} (pod is not owner)',))
    return bool(names), SUCCESS


class VolumeBinding(Plugin):
    """volumebinding.VolumeBinding: PreFilter, Filter, Reserve, PreScore, Score."""

    NAME = VOLUME_BINDING

    def __init__(self, args=None, handle=None) -> None:
        self.args = args
        self.handle = handle

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status]:
        """PreFilter: Skip without claims; unbound Immediate claims are unresolvable."""
        if not pod.volumes:
            state.write(STATE_KEY, StateData())
            return None, SKIP
        cache = volume_cache(self.handle)
        has, st_ = pod_has_pvcs(cache, pod)
        if not st_.is_success():
            return None, st_
        if not has:
            state.write(STATE_KEY, StateData())
            return None, SKIP
        try:
            claims = binder.get_pod_volume_claims(cache, pod)
        except binder.BinderError as err:
            return None, Status(Code.Error, (str(err),))
        state.write(STATE_KEY, StateData(claims))
        if claims.immediate:
            return None, Status(Code.UnschedulableAndUnresolvable, (ERR_REASON_UNBOUND_IMMEDIATE,))
        return None, SUCCESS

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter: the node's conflict reasons, UnschedulableAndUnresolvable."""
        try:
            s: StateData = state.read(STATE_KEY)
        except KeyError:
            return Status(Code.Error, (f'reading "{STATE_KEY}" from cycleState: not found',))
        try:
            found, reasons = binder.find_pod_volumes(volume_cache(self.handle), s.claims,
                                                     node_info.node)
        except binder.BinderError as err:
            return Status(Code.Error, (str(err),))
        s.by_node[node_info.name] = found
        if reasons:
            s.reasons[node_info.name] = reasons
            return Status(Code.UnschedulableAndUnresolvable, tuple(reasons))
        s.reasons.pop(node_info.name, None)
        return SUCCESS

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Reserve (AssumePodVolumes) and the bindings PreBind waits for: static volumes
        are bound to their claims, the rest provisioned for the node."""
        try:
            s: StateData = state.read(STATE_KEY)
        except KeyError:
            return SUCCESS
        found = s.by_node.get(node_name)
        if s.claims is None or found is None:
            return SUCCESS
        cache = volume_cache(self.handle)
        node = self.handle.snapshot_shared_lister().node_info_map[node_name].node
        for claim, pv in found.static_bindings:
            cache.bind_static(claim, pv, node_name)
        for claim in found.dynamic_provisions:
            cache.provision(claim, node)
        return SUCCESS

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """PreBind: the bindings Reserve made are final already (no API to wait for)."""
        return SUCCESS

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Unreserve: nothing was assumed that a failed bind must undo here."""

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """PreScore: Skip (no scorer without the StorageCapacityScoring feature)."""
        return SKIP

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        return 0, SUCCESS

    def score_extensions(self) -> None:
        return None

    def explain(self, state: CycleState, pod: Pod) -> dict | None:
        """The pod's claims (class, binding mode, bound volume and its node affinity) and
        why nodes failed, claim by claim (dashboard only)."""
        try:
            s: StateData = state.read(STATE_KEY)
        except KeyError:
            return None
        if s.claims is None:
            return None
        return explain_claims(volume_cache(self.handle), pod, s)


def explain_claims(cache: VolumeCache, pod: Pod, s: StateData) -> dict:
    claims = []
    groups = (("bound", s.claims.bound), ("waitForFirstConsumer", s.claims.delay),
              ("unboundImmediate", s.claims.immediate))
    for state_name, group in groups:
        for c in group:
            pv = cache.pv(c.volume_name) if c.volume_name else None
            cls = cache.classes.get(c.storage_class_name)
            claims.append({
                "claim": c.key, "state": state_name, "storageClass": c.storage_class_name or None,
                "bindingMode": cls.volume_binding_mode if cls else None,
                "provisioner": cls.provisioner if cls else None,
                "volume": c.volume_name or None,
                "volumeAffinity": binder.describe_affinity(pv) if pv is not None else None,
                "volumeZone": _zone(pv)})
    failed: dict[str, dict] = {}
    for node, reasons in list(s.reasons.items())[:50]:
        found = s.by_node.get(node)
        failed[node] = {"reasons": reasons, "claims": dict(found.why) if found else {}}
    return {"claims": claims, "failedNodes": failed}


def _zone(pv: st.PersistentVolume | None) -> str | None:
    """The zone a volume lives in: its zone label, else its node affinity's zone."""
    if pv is None:
        return None
    for key in ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"):
        if key in pv.labels:
            return pv.labels[key]
    if pv.node_affinity is not None:
        for term in pv.node_affinity.node_selector_terms:
            for r in term.match_expressions:
                if r.key.endswith("/zone") and r.operator == "In":
                    return ",".join(r.values)
    return None
