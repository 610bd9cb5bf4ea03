"""VolumeRestrictions (kube-scheduler v1.34 ``volumerestrictions/``).

Extension points: PreFilter (with AddPod/RemovePod), Filter. CycleState key:
``"PreFilterVolumeRestrictions"`` (the pod's ReadWriteOncePod claims, and how many of
them other pods use).
"""
from .volume_restrictions import VolumeRestrictions

__all__ = ["VolumeRestrictions"]
