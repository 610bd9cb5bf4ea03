"""NodeVolumeLimits (kube-scheduler v1.34 ``nodevolumelimits/csi.go``, CSILimits).

Extension points: PreFilter (Skip without claim-backed volumes), Filter. No CycleState.
"""
from .csi import CSILimits

__all__ = ["CSILimits"]
