"""VolumeBinding (kube-scheduler v1.34 ``volumebinding/``).

Extension points: PreFilter, Filter, Reserve, PreScore (always Skip: no scorer without
the StorageCapacityScoring feature), Score. CycleState key: ``"VolumeBinding"`` (the
pod's claims and, per node, the bindings Filter found). The claims and volumes live in
``assume_cache.VolumeCache``, shared by the four volume plugins of a simulation.
"""
from .volume_binding import VolumeBinding

__all__ = ["VolumeBinding"]
