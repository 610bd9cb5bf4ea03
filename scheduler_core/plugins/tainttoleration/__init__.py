"""TaintToleration: Filter, PreScore, Score, NormalizeScore (reverse).

CycleState keys written: ``"PreScoreTaintToleration"`` (the pod's PreferNoSchedule
tolerations). Mirrors kube-scheduler v1.34 ``framework/plugins/tainttoleration``.
"""
from .taint_toleration import TaintToleration

__all__ = ["TaintToleration"]
