"""The ``volumes`` entry of a simulation's result, for the dashboard.

Not an upstream file: where each pod's claims stand after the run (claim, volume, class,
the zone the volume lives in, its node affinity as text), the bindings the run made
(static or provisioned, and for which node), and per node the CSI volumes attached
against its CSINode limit.
"""
from __future__ import annotations

from typing import Iterable

from ...framework.types import NodeInfo
from ...k8s.types import Pod
from ..nodevolumelimits.csi import attached_volume_counts
from .assume_cache import VolumeCache
from .binder import describe_affinity, pod_claim_names
from .volume_binding import _zone


def claim_json(cache: VolumeCache, namespace: str, name: str) -> dict:
    """One claim as it stands: its volume, class, zone and the volume's node affinity."""
    claim = cache.pvc(namespace, name)
    if claim is None:
        return {"claim": f"{namespace}/{name}", "missing": True}
    pv = cache.pv(claim.volume_name) if claim.volume_name else None
    return {"claim": claim.key, "volume": claim.volume_name or None,
            "storageClass": claim.storage_class_name or None,
            "bound": claim.fully_bound(), "zone": _zone(pv),
            "volumeAffinity": describe_affinity(pv) if pv is not None else None,
            "provisioned": bool(pv and pv.provisioned)}


def volumes_json(cache: VolumeCache, pods: Iterable[Pod], node_infos: Iterable[NodeInfo],
                 handle) -> dict:
    """The result's ``volumes``: pods -> claims, the run's bindings, nodes -> drivers."""
    by_pod = {}
    for p in pods:
        names = pod_claim_names(p)
        if names:
            by_pod[p.key] = [claim_json(cache, p.namespace, n) for n, _ in names]
    nodes = {}
    for ni in node_infos:
        counts = attached_volume_counts(cache, ni.name, [pi.pod for pi in ni.pods], handle)
        if counts:
            nodes[ni.name] = counts
    return {"pods": by_pod, "bindings": list(cache.bindings), "nodes": nodes}
