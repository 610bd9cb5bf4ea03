"""NodeResourcesFit and NodeResourcesBalancedAllocation.

Fit: PreFilter, Filter, PreScore, Score (LeastAllocated / MostAllocated /
RequestedToCapacityRatio); writes ``"PreFilterNodeResourcesFit"`` (the pod's requests as
a Resource) and ``"PreScoreNodeResourcesFit"`` (the pod's request per scored resource).
BalancedAllocation: PreScore (Skip for a pod requesting none of its resources), Score;
writes ``"PreScoreNodeResourcesBalancedAllocation"``. Mirrors kube-scheduler v1.34
``framework/plugins/noderesources``.
"""
from .balanced_allocation import BalancedAllocation
from .fit import Fit

__all__ = ["BalancedAllocation", "Fit"]
