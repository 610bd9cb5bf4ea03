"""Storage objects of a scenario: PersistentVolumes, PersistentVolumeClaims,
StorageClasses, CSINodes and CSIDrivers, read beside ``scenario.py``'s kinds.

After every document is read, ``StorageBuilder.finish`` does what the cluster's
controllers and admission would have done before the scheduler sees the objects:

- DefaultStorageClass admission: a claim without ``storageClassName`` gets the default
  class (plugin/pkg/admission/storage/storageclass/setdefault, v1.34);
- the StatefulSet controller: each pod of a StatefulSet with ``volumeClaimTemplates``
  mounts ``<template>-<pod>`` and the claim is created from the template when it does
  not exist (pkg/controller/statefulset/stateful_set_utils.go getPersistentVolumeClaims);
- the ephemeral volume controller: a generic ephemeral volume's claim ``<pod>-<volume>``
  is created from its template (pkg/controller/volume/ephemeral).

Bad input raises ScenarioError naming the object and field: a claim waiting for a class
that does not exist, a volume claimed by two claims.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from .errors import ScenarioError
from .k8s import storage as st
from .k8s import storage_manifests as smf
from .k8s import types as t
from .k8s.decode import Decoder

STORAGE_KINDS = ("PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode",
                 "CSIDriver")


class StorageBuilder:
    """Collects the storage objects of one file, then resolves them against the pods."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.pvs: dict[str, st.PersistentVolume] = {}
        self.pvcs: dict[str, st.PersistentVolumeClaim] = {}
        self.origin: dict[str, tuple[str, str]] = {}  # claim key -> (object label, path)
        self.classes: dict[str, st.StorageClass] = {}
        self.csi_nodes: dict[str, st.CSINode] = {}
        self.csi_drivers: dict[str, st.CSIDriver] = {}
        self.templates: dict[tuple[str, str], tuple[st.PersistentVolumeClaim, ...]] = {}
        self.warnings: list[str] = []

    # --- reading -----------------------------------------------------------------------
    def add(self, kind: str, d: Decoder, doc: dict, name: str, ns: str) -> None:
        """One storage object (its identity already checked by the scenario reader)."""
        if kind == "PersistentVolume":
            self.pvs[name] = smf.read_pv(d, doc, name)
        elif kind == "PersistentVolumeClaim":
            meta = d.obj(doc.get("metadata"), "metadata")
            claim = smf.read_claim(d, name, ns, doc.get("spec"), "spec", meta, doc.get("status"))
            self.pvcs[claim.key] = claim
            self.origin[claim.key] = (d.label, "spec")
        elif kind == "StorageClass":
            self.classes[name] = smf.read_storage_class(d, doc, name)
        elif kind == "CSINode":
            self.csi_nodes[name] = smf.read_csi_node(d, doc, name)
        else:
            driver = smf.read_csi_driver(d, doc, name)
            self.csi_drivers[name] = driver
            if driver.storage_capacity:
                self.warnings.append(
                    f"{self.file}: CSIDriver {name}: spec.storageCapacity: CSIStorageCapacity "
                    "objects are not read; free storage is not checked")

    def claim_templates(self, d: Decoder, spec: dict, ns: str, sts: str
                        ) -> tuple[st.PersistentVolumeClaim, ...]:
        """A StatefulSet's spec.volumeClaimTemplates (claims named after the template)."""
        def read(v: Any, path: str) -> st.PersistentVolumeClaim:
            m = d.obj(v, path)
            meta = d.obj(m.get("metadata"), f"{path}.metadata")
            name = d.str(meta.get("name"), f"{path}.metadata.name")
            if not name:
                raise d.fail(f"{path}.metadata.name", "Required value")
            return smf.read_claim(d, name, ns, m.get("spec"), f"{path}.spec", meta)
        tpls = d.items(spec.get("volumeClaimTemplates"), "spec.volumeClaimTemplates", read)
        self.templates[(ns, sts)] = tpls
        return tpls

    # --- resolving -----------------------------------------------------------------------
    def finish(self, pods: tuple[t.Pod, ...]) -> tuple[tuple[t.Pod, ...], st.StorageObjects]:
        """Pods with their claim volumes filled in, and the storage objects. A scenario
        without any storage object (a dump of pods and workloads only) keeps its pods'
        claims out of scheduling, with a warning: nothing says where their volumes are."""
        if not (self.pvs or self.pvcs or self.classes or self.csi_nodes or self.csi_drivers):
            return self._without_storage(pods), st.StorageObjects()
        self.pvcs = {k: self._admit(c) for k, c in self.pvcs.items()}
        out = tuple(self._pod_volumes(p) for p in pods)
        self._check_claims()
        return out, st.StorageObjects(self.pvs, self.pvcs, self.classes, self.csi_nodes,
                                      self.csi_drivers)

    def _without_storage(self, pods: tuple[t.Pod, ...]) -> tuple[t.Pod, ...]:
        uses = [p for p in pods if not p.node_name and (
            any(v.has_claim for v in p.volumes) or self.templates.get(
                (p.namespace, next((r.name for r in p.owner_references
                                    if r.controller and r.kind == "StatefulSet"), None))))]
        if uses:
            self.warnings.append(
                f"{self.file}: {len(uses)} pending pod(s) use PersistentVolumeClaims (e.g. "
                f"{uses[0].key}) but the scenario has no PersistentVolumeClaim, PersistentVolume "
                "or StorageClass: volume constraints were not applied (add them: kubectl get "
                "pvc,pv,storageclasses,csinodes -A -o yaml)")
        return tuple(t.replace_pod(p, volumes=tuple(v for v in p.volumes if not v.has_claim))
                     if any(v.has_claim for v in p.volumes) else p for p in pods)

    def _default_class(self) -> str:
        defaults = sorted(n for n, c in self.classes.items() if c.is_default)
        return defaults[0] if defaults else ""

    def _admit(self, claim: st.PersistentVolumeClaim) -> st.PersistentVolumeClaim:
        """DefaultStorageClass admission: an unset class becomes the default one."""
        if claim.storage_class_name is not None:
            return claim
        return replace(claim, storage_class_name=self._default_class())

    def _pod_volumes(self, pod: t.Pod) -> t.Pod:
        """A pending pod's claim volumes named, and their claims made when missing."""
        if pod.node_name:
            return pod
        sts = next((r.name for r in pod.owner_references
                    if r.controller and r.kind == "StatefulSet"), None)
        tpls = self.templates.get((pod.namespace, sts), ()) if sts else ()
        if not tpls and not any(v.ephemeral for v in pod.volumes):
            return pod
        volumes = [self._claim_volume(pod, v) if v.ephemeral else v for v in pod.volumes]
        names = {v.name for v in volumes}
        for i, tpl in enumerate(tpls):
            claim = f"{tpl.name}-{pod.name}"
            self._generate(replace(tpl, name=claim, namespace=pod.namespace),
                           f"StatefulSet {pod.namespace}/{sts}",
                           f"spec.volumeClaimTemplates[{i}].spec")
            if tpl.name in names:  # the pod mounts it already (a pod the controller made)
                continue
            volumes.append(st.Volume(tpl.name, claim_name=claim, has_claim=True))
        return t.replace_pod(pod, volumes=tuple(volumes))

    def _claim_volume(self, pod: t.Pod, v: st.Volume) -> st.Volume:
        """ephemeral.VolumeClaimName: ``<pod>-<volume>``; its claim made from the template."""
        name = f"{pod.name}-{v.name}"
        if v.claim_template is not None:
            self._generate(replace(v.claim_template, name=name, namespace=pod.namespace,
                                   owner_pod=pod.key),
                           f"Pod {pod.key}", f"spec.volumes[{v.name}].ephemeral")
        return replace(v, claim_name=name)

    def _generate(self, claim: st.PersistentVolumeClaim, label: str, path: str) -> None:
        if claim.key in self.pvcs:
            return
        self.pvcs[claim.key] = self._admit(replace(claim, generated=True))
        self.origin[claim.key] = (label, path)

    def _check_claims(self) -> None:
        """A waiting claim's class must exist; a volume belongs to one claim only."""
        owner: dict[str, str] = {}
        for key, c in self.pvcs.items():
            label, path = self.origin[key]
            if c.volume_name:
                if c.volume_name in owner:
                    raise ScenarioError(
                        self.file, label, f"{path}.volumeName",
                        f"Invalid value: \"{c.volume_name}\": PersistentVolume "
                        f"{c.volume_name} is already bound to PersistentVolumeClaim "
                        f"{owner[c.volume_name]}")
                owner[c.volume_name] = key
                pv = self.pvs.get(c.volume_name)
                if pv is not None and pv.claim_ref is not None and \
                        pv.claim_ref != (c.namespace, c.name):
                    raise ScenarioError(
                        self.file, label, f"{path}.volumeName",
                        f"Invalid value: \"{c.volume_name}\": PersistentVolume "
                        f"{c.volume_name} is bound to PersistentVolumeClaim "
                        f"{pv.claim_ref[0]}/{pv.claim_ref[1]}")
            if not c.fully_bound() and c.storage_class_name and \
                    c.storage_class_name not in self.classes:
                raise ScenarioError(self.file, label, f"{path}.storageClassName",
                                    f"Not found: \"{c.storage_class_name}\": no StorageClass "
                                    f"with that name in the scenario")
