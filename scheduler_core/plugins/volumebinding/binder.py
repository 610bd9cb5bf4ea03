"""The volume binder: which claims a pod has, and whether a node can satisfy them.

Mirrors kube-scheduler v1.34 ``volumebinding/binder.go`` (GetPodVolumeClaims,
FindPodVolumes, checkBoundClaims, findMatchingVolumes, checkVolumeProvisions) and
``component-helpers/storage/volume/pv_helpers.go`` (FindMatchingVolume, CheckAccessModes,
IsDelayBindingMode). Storage capacity (CSIStorageCapacity) is not modelled: provisioning
never fails for lack of space.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...k8s import labels as klabels
from ...k8s import storage as st
from ...k8s.types import Node, Pod
from .assume_cache import VolumeCache

# binder.go ConflictReason constants (v1.34), copied character for character
ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"


class BinderError(Exception):
    """An error FindPodVolumes / GetPodVolumeClaims return (an Error status upstream)."""


@dataclass
class PodVolumeClaims:
    """binder.go PodVolumeClaims: the pod's claims by state, and the unbound static
    volumes of each class its delayed claims ask for."""

    bound: list[st.PersistentVolumeClaim] = field(default_factory=list)
    delay: list[st.PersistentVolumeClaim] = field(default_factory=list)
    immediate: list[st.PersistentVolumeClaim] = field(default_factory=list)
    pvs_by_class: dict[str, list[st.PersistentVolume]] = field(default_factory=dict)


@dataclass
class PodVolumes:
    """binder.go PodVolumes, plus what the explanation shows (``why``: claim key ->
    sentence, for the claims that failed on this node)."""

    static_bindings: list[tuple[st.PersistentVolumeClaim, st.PersistentVolume]] = \
        field(default_factory=list)
    dynamic_provisions: list[st.PersistentVolumeClaim] = field(default_factory=list)
    why: dict[str, str] = field(default_factory=dict)


def pod_claim_names(pod: Pod) -> list[tuple[str, bool]]:
    """(claim name, ephemeral) of every claim-backed volume of the pod, in spec order."""
    return [(v.claim_name, v.ephemeral) for v in pod.volumes if v.has_claim]


def is_delay_binding_mode(cache: VolumeCache, claim: st.PersistentVolumeClaim) -> bool:
    """volume.IsDelayBindingMode: the claim's class binds WaitForFirstConsumer."""
    name = claim.storage_class_name
    if not name:
        return False
    cls = cache.classes.get(name)
    if cls is None:
        raise BinderError(f'storageclass.storage.k8s.io "{name}" not found')
    return cls.volume_binding_mode == st.WAIT_FOR_FIRST_CONSUMER


def get_pod_volume_claims(cache: VolumeCache, pod: Pod) -> PodVolumeClaims:
    """GetPodVolumeClaims: bound claims, unbound delayed ones, unbound immediate ones
    (a pre-bound claim, volumeName set but not yet bound, counts as immediate)."""
    out = PodVolumeClaims()
    for name, _ in pod_claim_names(pod):
        claim = cache.pvc(pod.namespace, name)
        if claim is None:
            raise BinderError(f'error getting PVC "{pod.namespace}/{name}": could not find v1'
                              f'.PersistentVolumeClaim "{pod.namespace}/{name}"')
        if claim.fully_bound():
            out.bound.append(claim)
        elif is_delay_binding_mode(cache, claim) and not claim.volume_name:
            out.delay.append(claim)
        else:
            out.immediate.append(claim)
    for claim in out.delay:
        out.pvs_by_class[claim.storage_class_name] = cache.list_pvs(claim.storage_class_name)
    return out


def find_pod_volumes(cache: VolumeCache, claims: PodVolumeClaims, node: Node
                     ) -> tuple[PodVolumes, list[str]]:
    """FindPodVolumes: the node's conflict reasons (empty when it fits) and the static
    bindings / provisions that would satisfy the pod there."""
    pv = PodVolumes()
    bound_ok, bound_found = True, True
    unbound_ok, enough_space = True, True
    if claims.bound:
        bound_ok, bound_found = _check_bound_claims(cache, claims.bound, node, pv)
    if claims.delay:
        to_match, to_provision = [], []
        for c in claims.delay:
            selected = c.annotations.get(st.ANN_SELECTED_NODE)
            if selected is not None:
                if selected != node.name:  # fast path: provisioning started elsewhere
                    pv.why[c.key] = f"provisioning was started for node {selected}"
                    return pv, _reasons(bound_ok, False, True, bound_found)
                to_provision.append(c)
            else:
                to_match.append(c)
        if to_match:
            unbound_ok, pv.static_bindings, unmatched = _find_matching_volumes(
                cache, to_match, claims.pvs_by_class, node)
            to_provision += unmatched
        if to_provision:
            unbound_ok, enough_space, pv.dynamic_provisions = _check_volume_provisions(
                cache, to_provision, node, pv)
    return pv, _reasons(bound_ok, unbound_ok, enough_space, bound_found)


def _reasons(bound_ok: bool, unbound_ok: bool, enough_space: bool, bound_found: bool
             ) -> list[str]:
    """FindPodVolumes' deferred function: reasons in its order."""
    out = []
    if not bound_ok:
        out.append(ERR_REASON_NODE_CONFLICT)
    if not unbound_ok:
        out.append(ERR_REASON_BIND_CONFLICT)
    if not enough_space:
        out.append(ERR_REASON_NOT_ENOUGH_SPACE)
    if not bound_found:
        out.append(ERR_REASON_PV_NOT_EXIST)
    return out


def _check_bound_claims(cache: VolumeCache, bound: list[st.PersistentVolumeClaim], node: Node,
                        out: PodVolumes) -> tuple[bool, bool]:
    """checkBoundClaims: (node affinity satisfied, every bound PV found); stops at the
    first claim that fails."""
    for c in bound:
        pv = cache.pv(c.volume_name)
        if pv is None:
            out.why[c.key] = f"bound to PersistentVolume {c.volume_name}, which does not exist"
            return True, False
        if not cache.check_node_affinity(pv, node):
            out.why[c.key] = f"bound to PersistentVolume {pv.name}, whose node affinity " \
                             f"({describe_affinity(pv)}) this node does not match"
            return False, True
    return True, True


def _find_matching_volumes(cache: VolumeCache, claims: list[st.PersistentVolumeClaim],
                           pvs_by_class: dict[str, list[st.PersistentVolume]], node: Node):
    """findMatchingVolumes: smallest claims first, each gets the smallest free volume
    that fits; returns (all matched, bindings, claims left for provisioning)."""
    chosen: set[str] = set()
    bindings, unmatched, ok = [], [], True
    for c in sorted(claims, key=lambda c: c.request):  # byPVCSize (stable)
        pv = find_matching_volume(cache, c, pvs_by_class.get(c.storage_class_name, []), node,
                                  chosen)
        if pv is None:
            unmatched.append(c)
            ok = False
            continue
        chosen.add(pv.name)
        bindings.append((c, pv))
    return ok, bindings, unmatched


def find_matching_volume(cache: VolumeCache, claim: st.PersistentVolumeClaim,
                         volumes: list[st.PersistentVolume], node: Node | None,
                         excluded: set[str]) -> st.PersistentVolume | None:
    """volume.FindMatchingVolume (delayBinding): a volume pre-bound to the claim, else
    the smallest Available one of the claim's class, size, mode, selector, node affinity
    and access modes."""
    selector = klabels.selector_from_label_selector(claim.selector) \
        if claim.selector is not None else None
    smallest = None
    for v in volumes:
        if v.name in excluded:
            continue
        bound_to_claim = v.claim_ref == (claim.namespace, claim.name)
        if v.claim_ref is not None and not bound_to_claim:
            continue
        if v.capacity < claim.request or v.volume_mode != claim.volume_mode or v.deleting:
            continue
        affinity_ok = node is None or cache.check_node_affinity(v, node)
        if bound_to_claim:
            return v if affinity_ok else None
        if v.phase != st.VOLUME_AVAILABLE or (selector is not None
                                              and not selector.matches(v.labels)):
            continue
        if v.storage_class_name != claim.storage_class_name or not affinity_ok:
            continue
        if node is not None and not check_access_modes(claim, v):
            continue
        if smallest is None or v.capacity < smallest.capacity:
            smallest = v
    return smallest


def check_access_modes(claim: st.PersistentVolumeClaim, pv: st.PersistentVolume) -> bool:
    """volume.CheckAccessModes: every mode the claim asks for is one the volume offers."""
    return all(m in pv.access_modes for m in claim.access_modes)


def _check_volume_provisions(cache: VolumeCache, claims: list[st.PersistentVolumeClaim],
                             node: Node, out: PodVolumes):
    """checkVolumeProvisions: each claim's class must provision, within its
    allowedTopologies; returns (satisfied, enough space, claims to provision)."""
    for c in claims:
        if not c.storage_class_name:
            raise BinderError(f'no class for claim "{c.key}"')
        cls = cache.classes.get(c.storage_class_name)
        if cls is None:
            raise BinderError(f'failed to find storage class "{c.storage_class_name}"')
        if not cls.provisioner or cls.provisioner == st.NOT_SUPPORTED_PROVISIONER:
            out.why[c.key] = f"no PersistentVolume of class {cls.name} matches the claim, " \
                             f"and the class does not provision ({cls.provisioner})"
            return False, True, []
        if not st.match_topology_selector_terms(cls.allowed_topologies, node.labels):
            out.why[c.key] = f"class {cls.name} provisions only in " \
                             f"{describe_topologies(cls)}, which this node is not in"
            return False, True, []
    return True, True, list(claims)


def describe_affinity(pv: st.PersistentVolume) -> str:
    """A PV's required node affinity as text: terms ORed with " or "."""
    if pv.node_affinity is None:
        return "any node"
    terms = []
    for term in pv.node_affinity.node_selector_terms:
        reqs = [f"{r.key} {r.operator} ({', '.join(r.values)})" if r.values
                else f"{r.key} {r.operator}" for r in term.match_expressions]
        terms.append(", ".join(reqs) or "any node")
    return " or ".join(terms)


def describe_topologies(cls: st.StorageClass) -> str:
    terms = [", ".join(f"{k} in ({', '.join(v)})" for k, v in t.match_label_expressions)
             for t in cls.allowed_topologies]
    return " or ".join(terms)
