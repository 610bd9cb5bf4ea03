"""VolumeZone (kube-scheduler v1.34 ``volumezone/``).

Extension points: PreFilter, Filter. CycleState key: ``"PreFilterVolumeZone"`` (the
zone and region labels of the pod's bound PersistentVolumes).
"""
from .volume_zone import VolumeZone

__all__ = ["VolumeZone"]
