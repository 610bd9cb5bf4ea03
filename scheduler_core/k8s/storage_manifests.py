"""Manifest dicts -> the storage values of ``k8s/storage.py``.

Pod volumes, PersistentVolumes, PersistentVolumeClaims (and the claim templates of
StatefulSets and generic ephemeral volumes), StorageClasses, CSINodes and CSIDrivers.
Validation follows the apiserver where the volume plugins depend on it
(``pkg/apis/core/validation/validation.go`` and ``pkg/apis/storage/validation``, v1.34):
enum values, required names, non-negative quantities.
"""
from __future__ import annotations

from typing import Any

from ..validation import field as vf
from . import selector_manifests as mf
from . import storage as st
from .decode import Decoder
from .types import NodeSelector

VOLUME_MODES = (st.BLOCK, st.FILESYSTEM)
BINDING_MODES = (st.IMMEDIATE, st.WAIT_FOR_FIRST_CONSUMER)
STORAGE = "storage"  # v1.ResourceStorage


# --- pod volumes ---------------------------------------------------------------------
def read_volumes(d: Decoder, v: Any, path: str) -> tuple[st.Volume, ...]:
    """spec.volumes: the sources the volume plugins read."""
    return d.items(v, path, lambda x, p: _volume(d, x, p))


def _volume(d: Decoder, v: Any, path: str) -> st.Volume:
    m = d.obj(v, path)
    name = d.str(m.get("name"), f"{path}.name")
    if not name:
        raise d.fail_field(vf.required(f"{path}.name", ""))
    if m.get("persistentVolumeClaim") is not None:
        p = f"{path}.persistentVolumeClaim"
        pm = d.obj(m["persistentVolumeClaim"], p)
        claim = d.str(pm.get("claimName"), f"{p}.claimName")
        if not claim:
            raise d.fail_field(vf.required(f"{p}.claimName", ""))
        return st.Volume(name, claim_name=claim, has_claim=True,
                         read_only=d.bool(pm.get("readOnly"), f"{p}.readOnly"))
    if m.get("ephemeral") is not None:
        p = f"{path}.ephemeral"
        em = d.obj(m["ephemeral"], p)
        if em.get("volumeClaimTemplate") is None:
            raise d.fail_field(vf.required(f"{p}.volumeClaimTemplate", ""))
        tpl = d.obj(em["volumeClaimTemplate"], f"{p}.volumeClaimTemplate")
        claim = read_claim(d, "", "", tpl.get("spec"), f"{p}.volumeClaimTemplate.spec", {})
        return st.Volume(name, ephemeral=True, has_claim=True, claim_template=claim)
    return _inline_volume(d, m, name, path)


def _inline_volume(d: Decoder, m: dict, name: str, path: str) -> st.Volume:
    """CSI, GCE PD, AWS EBS, iSCSI and RBD sources (VolumeRestrictions, NodeVolumeLimits)."""
    def src(key: str) -> dict:
        return d.obj(m.get(key), f"{path}.{key}")
    if m.get("csi") is not None:
        return st.Volume(name, csi_driver=d.str(src("csi").get("driver"), f"{path}.csi.driver"))
    if m.get("gcePersistentDisk") is not None:
        s = src("gcePersistentDisk")
        return st.Volume(name, gce_pd=d.str(s.get("pdName"), f"{path}.gcePersistentDisk.pdName"),
                         read_only=d.bool(s.get("readOnly"), f"{path}.gcePersistentDisk.readOnly"))
    if m.get("awsElasticBlockStore") is not None:
        s = src("awsElasticBlockStore")
        return st.Volume(name, aws_ebs=d.str(s.get("volumeID"),
                                             f"{path}.awsElasticBlockStore.volumeID"))
    if m.get("iscsi") is not None:
        s = src("iscsi")
        return st.Volume(name, iscsi_iqn=d.str(s.get("iqn"), f"{path}.iscsi.iqn"),
                         read_only=d.bool(s.get("readOnly"), f"{path}.iscsi.readOnly"))
    if m.get("rbd") is not None:
        s = src("rbd")
        rbd = (d.str_list(s.get("monitors"), f"{path}.rbd.monitors"),
               d.str(s.get("pool"), f"{path}.rbd.pool", "rbd"),  # API default "rbd"
               d.str(s.get("image"), f"{path}.rbd.image"))
        return st.Volume(name, rbd=rbd, read_only=d.bool(s.get("readOnly"),
                                                         f"{path}.rbd.readOnly"))
    return st.Volume(name)


# --- claims and volumes ----------------------------------------------------------------
def _access_modes(d: Decoder, v: Any, path: str) -> tuple[str, ...]:
    return d.items(v, path, lambda x, p: d.enum(x, p, st.ACCESS_MODES))


def _storage(d: Decoder, v: Any, path: str) -> int:
    """The ``storage`` entry of a ResourceList in bytes (negative amounts refused)."""
    return d.resource_list(v, path).get(STORAGE, 0)


def read_claim(d: Decoder, name: str, ns: str, spec: Any, path: str, meta: dict,
               status: Any = None) -> st.PersistentVolumeClaim:
    """A PersistentVolumeClaim (or a claim template) from its spec. The class is left as
    written (None when absent) in ``storage_class_name`` until ``resolve_class``."""
    s = d.obj(spec, path)
    annotations = d.str_map(meta.get("annotations"), "metadata.annotations")
    cls = s.get("storageClassName")
    cls = d.str(cls, f"{path}.storageClassName") if cls is not None \
        else annotations.get(st.ANN_BETA_STORAGE_CLASS)
    res = d.obj(s.get("resources"), f"{path}.resources")
    stat = d.obj(status, "status")
    claim = st.PersistentVolumeClaim(
        name=name, namespace=ns, storage_class_name="",
        volume_name=d.str(s.get("volumeName"), f"{path}.volumeName"),
        access_modes=_access_modes(d, s.get("accessModes"), f"{path}.accessModes"),
        volume_mode=d.enum(s.get("volumeMode"), f"{path}.volumeMode", VOLUME_MODES,
                           st.FILESYSTEM),
        request=_storage(d, res.get("requests"), f"{path}.resources.requests"),
        selector=mf.read_label_selector(d, s.get("selector"), f"{path}.selector"),
        phase=d.str(stat.get("phase"), "status.phase") or st.CLAIM_PENDING,
        annotations=annotations,
        deleting=meta.get("deletionTimestamp") is not None)
    object.__setattr__(claim, "storage_class_name", cls)  # None: unset, for admission
    return claim


def read_pv(d: Decoder, doc: dict, name: str) -> st.PersistentVolume:
    """A PersistentVolume (its phase derived when the manifest has no status)."""
    meta = d.obj(doc.get("metadata"), "metadata")
    spec = d.obj(doc.get("spec"), "spec")
    status = d.obj(doc.get("status"), "status")
    annotations = d.str_map(meta.get("annotations"), "metadata.annotations")
    cls = spec.get("storageClassName")
    cls = d.str(cls, "spec.storageClassName") if cls is not None \
        else annotations.get(st.ANN_BETA_STORAGE_CLASS, "")
    claim_ref = None
    if spec.get("claimRef") is not None:
        cr = d.obj(spec["claimRef"], "spec.claimRef")
        claim_ref = (d.str(cr.get("namespace"), "spec.claimRef.namespace") or "default",
                     d.str(cr.get("name"), "spec.claimRef.name"))
    csi = d.obj(spec.get("csi"), "spec.csi")
    phase = d.str(status.get("phase"), "status.phase") or (
        st.VOLUME_BOUND if claim_ref else st.VOLUME_AVAILABLE)
    return st.PersistentVolume(
        name=name, labels=mf._labels(d, meta.get("labels"), "metadata.labels"),
        capacity=_storage(d, spec.get("capacity"), "spec.capacity"),
        access_modes=_access_modes(d, spec.get("accessModes"), "spec.accessModes"),
        volume_mode=d.enum(spec.get("volumeMode"), "spec.volumeMode", VOLUME_MODES,
                           st.FILESYSTEM),
        storage_class_name=cls, node_affinity=_pv_node_affinity(d, spec.get("nodeAffinity")),
        claim_ref=claim_ref, phase=phase,
        csi_driver=d.str(csi.get("driver"), "spec.csi.driver"),
        csi_handle=d.str(csi.get("volumeHandle"), "spec.csi.volumeHandle"),
        deleting=meta.get("deletionTimestamp") is not None)


def _pv_node_affinity(d: Decoder, v: Any) -> NodeSelector | None:
    """spec.nodeAffinity.required (VolumeNodeAffinity): at least one term when set."""
    m = d.obj(v, "spec.nodeAffinity")
    if m.get("required") is None:
        return None
    path = "spec.nodeAffinity.required"
    r = d.obj(m["required"], path)
    terms = d.items(r.get("nodeSelectorTerms"), f"{path}.nodeSelectorTerms",
                    lambda x, p: mf.read_node_selector_term(d, x, p))
    if not terms:
        raise d.fail_field(vf.required(f"{path}.nodeSelectorTerms",
                                       "must have at least one node selector term"))
    return NodeSelector(terms)


def read_storage_class(d: Decoder, doc: dict, name: str) -> st.StorageClass:
    """storagev1.StorageClass: provisioner required, binding mode defaulted to Immediate."""
    meta = d.obj(doc.get("metadata"), "metadata")
    provisioner = d.str(doc.get("provisioner"), "provisioner")
    if not provisioner:
        raise d.fail_field(vf.required("provisioner", ""))
    topo = d.items(doc.get("allowedTopologies"), "allowedTopologies",
                   lambda x, p: _topology_term(d, x, p))
    annotations = d.str_map(meta.get("annotations"), "metadata.annotations")
    return st.StorageClass(
        name, provisioner,
        d.enum(doc.get("volumeBindingMode"), "volumeBindingMode", BINDING_MODES, st.IMMEDIATE),
        topo, annotations.get(st.ANN_DEFAULT_STORAGE_CLASS) == "true")


def _topology_term(d: Decoder, v: Any, path: str) -> st.TopologySelectorTerm:
    m = d.obj(v, path)

    def req(x: Any, p: str) -> tuple[str, tuple[str, ...]]:
        r = d.obj(x, p)
        key = d.str(r.get("key"), f"{p}.key")
        mf.check_label_name(d, key, f"{p}.key")
        values = d.str_list(r.get("values"), f"{p}.values")
        if not values:
            raise d.fail_field(vf.required(f"{p}.values", "must specify as least one value"))
        return key, values
    return st.TopologySelectorTerm(d.items(m.get("matchLabelExpressions"),
                                           f"{path}.matchLabelExpressions", req))


def read_csi_node(d: Decoder, doc: dict, name: str) -> st.CSINode:
    """storagev1.CSINode: per driver, the attachable volume count and topology keys."""
    spec = d.obj(doc.get("spec"), "spec")

    def driver(x: Any, p: str) -> st.CSINodeDriver:
        m = d.obj(x, p)
        alloc = d.obj(m.get("allocatable"), f"{p}.allocatable")
        count = d.int(alloc.get("count"), f"{p}.allocatable.count")
        if count is not None and count < 0:
            raise d.fail_field(vf.invalid(f"{p}.allocatable.count", count,
                                          "must be greater than or equal to 0"))
        return st.CSINodeDriver(d.str(m.get("name"), f"{p}.name"), count,
                                d.str_list(m.get("topologyKeys"), f"{p}.topologyKeys"))
    return st.CSINode(name, d.items(spec.get("drivers"), "spec.drivers", driver))


def read_csi_driver(d: Decoder, doc: dict, name: str) -> st.CSIDriver:
    spec = d.obj(doc.get("spec"), "spec")
    return st.CSIDriver(name, d.bool(spec.get("attachRequired"), "spec.attachRequired", True),
                        d.bool(spec.get("storageCapacity"), "spec.storageCapacity", False))
