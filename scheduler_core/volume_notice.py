"""The warning that volume constraints were not applied.

The engine has no volume plugins yet (VolumeBinding, VolumeZone, VolumeRestrictions,
NodeVolumeLimits): a pod with a PersistentVolumeClaim is placed as if its volumes could
attach anywhere. Until they exist, a load that meets such pods says so in one warning.
Narrow ``uses_claims`` (or drop the warning) for what volume-aware scheduling supports.
"""
from __future__ import annotations

from typing import Any, Mapping

from .load_report import names_text


def uses_claims(spec: Any) -> bool:
    """Whether a PodSpec (raw manifest) mounts a PersistentVolumeClaim or an ephemeral
    volume (which becomes one)."""
    if not isinstance(spec, Mapping):
        return False
    volumes = spec.get("volumes")
    if not isinstance(volumes, list):
        return False
    return any(isinstance(v, Mapping) and (v.get("persistentVolumeClaim") is not None
                                           or v.get("ephemeral") is not None)
               for v in volumes)


def warning(file: str, objects: list[str], total: int) -> str | None:
    """One line naming the first objects (``Kind ns/name``) whose volumes were not
    considered, or None when there are none."""
    if not total:
        return None
    return (f"{file}: {names_text(objects, total)}: volumes: volume constraints were not "
            f"applied (no volume plugins): {total} object(s) use PersistentVolumeClaims, "
            "ephemeral volumes or volumeClaimTemplates, placed as if their volumes could "
            "attach to any node")
