"""The storage objects the volume plugins read, as frozen values.

Mirrors the fields of k8s.io/api/core/v1 (Volume, PersistentVolume,
PersistentVolumeClaim) and k8s.io/api/storage/v1 (StorageClass, CSINode, CSIDriver)
that kube-scheduler v1.34's VolumeBinding, VolumeZone, VolumeRestrictions and
NodeVolumeLimits consult. Parsing lives in ``k8s/storage_manifests.py``; the mutable
state a simulation keeps (claims bound as pods bind) in ``plugins/volumebinding/cache.py``.
Capacities and requests are in bytes (Quantity.Value(), rounded up).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from .types import LabelSelector, NodeSelector

# v1.PersistentVolumeAccessMode
READ_WRITE_ONCE = "ReadWriteOnce"
READ_ONLY_MANY = "ReadOnlyMany"
READ_WRITE_MANY = "ReadWriteMany"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
ACCESS_MODES = (READ_WRITE_ONCE, READ_ONLY_MANY, READ_WRITE_MANY, READ_WRITE_ONCE_POD)
# v1.PersistentVolumeMode
FILESYSTEM, BLOCK = "Filesystem", "Block"
# storagev1.VolumeBindingMode
IMMEDIATE = "Immediate"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
# v1.PersistentVolumeClaimPhase / PersistentVolumePhase
CLAIM_PENDING, CLAIM_BOUND, CLAIM_LOST = "Pending", "Bound", "Lost"
VOLUME_AVAILABLE, VOLUME_BOUND = "Available", "Bound"
# component-helpers/storage/volume: annotations the PV controller and the scheduler set
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_DEFAULT_STORAGE_CLASS = "storageclass.kubernetes.io/is-default-class"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"


@dataclass(frozen=True, slots=True)
class Volume:
    """v1.Volume: the sources the volume plugins look at (others leave only ``name``).

    ``claim_name`` is persistentVolumeClaim.claimName, or for a generic ephemeral volume
    the claim the ephemeral controller creates (``<pod>-<volume>``, ``ephemeral`` True).
    ``rbd`` is (monitors, pool, image) for an RBD volume.
    """

    name: str
    claim_name: str = ""
    ephemeral: bool = False
    read_only: bool = False
    has_claim: bool = False  # a persistentVolumeClaim or ephemeral source
    csi_driver: str = ""
    gce_pd: str = ""
    aws_ebs: str = ""
    iscsi_iqn: str = ""
    rbd: tuple[tuple[str, ...], str, str] | None = None
    claim_template: PersistentVolumeClaim | None = None  # ephemeral.volumeClaimTemplate


@dataclass(frozen=True, slots=True)
class PersistentVolume:
    """v1.PersistentVolume. ``claim_ref`` is (namespace, name) or None; ``phase`` is the
    status phase (absent: Bound with a claimRef, else Available, as the PV controller
    makes it)."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    capacity: int = 0
    access_modes: tuple[str, ...] = ()
    volume_mode: str = FILESYSTEM
    storage_class_name: str = ""
    node_affinity: NodeSelector | None = None
    claim_ref: tuple[str, str] | None = None
    phase: str = VOLUME_AVAILABLE
    csi_driver: str = ""
    csi_handle: str = ""
    deleting: bool = False
    provisioned: bool = False  # made by the simulation for a WaitForFirstConsumer claim


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaim:
    """v1.PersistentVolumeClaim. ``storage_class_name`` is the resolved class ("" for
    none: the beta annotation and the default class admission applied)."""

    name: str
    namespace: str = "default"
    storage_class_name: str = ""
    volume_name: str = ""
    access_modes: tuple[str, ...] = ()
    volume_mode: str = FILESYSTEM
    request: int = 0
    selector: LabelSelector | None = None
    phase: str = CLAIM_PENDING
    annotations: Mapping[str, str] = field(default_factory=dict)
    deleting: bool = False
    owner_pod: str = ""  # an ephemeral claim: the pod it belongs to
    generated: bool = False  # made by the simulation (StatefulSet or ephemeral template)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def fully_bound(self) -> bool:
        """volumeBinder.isPVCFullyBound: a volume name and bind-completed (a claim whose
        status says Bound counts too: the PV controller sets both at once)."""
        return bool(self.volume_name) and (ANN_BIND_COMPLETED in self.annotations
                                           or self.phase == CLAIM_BOUND)


@dataclass(frozen=True, slots=True)
class TopologySelectorTerm:
    """v1.TopologySelectorTerm: (key, values) requirements, ANDed."""

    match_label_expressions: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(labels.get(k) in vals for k, vals in self.match_label_expressions)


@dataclass(frozen=True, slots=True)
class StorageClass:
    name: str
    provisioner: str = ""
    volume_binding_mode: str = IMMEDIATE  # API default
    allowed_topologies: tuple[TopologySelectorTerm, ...] = ()
    is_default: bool = False


@dataclass(frozen=True, slots=True)
class CSINodeDriver:
    name: str
    allocatable_count: int | None = None
    topology_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CSINode:
    name: str
    drivers: tuple[CSINodeDriver, ...] = ()

    def driver(self, name: str) -> CSINodeDriver | None:
        return next((d for d in self.drivers if d.name == name), None)


@dataclass(frozen=True, slots=True)
class CSIDriver:
    name: str
    attach_required: bool = True  # API default
    storage_capacity: bool = False


@dataclass(frozen=True)
class StorageObjects:
    """The storage objects of a scenario, by name (claims by namespace/name)."""

    pvs: Mapping[str, PersistentVolume] = field(default_factory=dict)
    pvcs: Mapping[str, PersistentVolumeClaim] = field(default_factory=dict)
    classes: Mapping[str, StorageClass] = field(default_factory=dict)
    csi_nodes: Mapping[str, CSINode] = field(default_factory=dict)
    csi_drivers: Mapping[str, CSIDriver] = field(default_factory=dict)

    def empty(self) -> bool:
        return not (self.pvs or self.pvcs)


def match_topology_selector_terms(terms: tuple[TopologySelectorTerm, ...],
                                  labels: Mapping[str, str]) -> bool:
    """v1helper.MatchTopologySelectorTerms: no terms match everything; terms are ORed."""
    return not terms or any(t.matches(labels) for t in terms)
