"""InterPodAffinity: required and preferred inter-pod affinity and anti-affinity.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/interpodaffinity``.
Extension points: PreFilter (with PreFilterExtensions AddPod/RemovePod), Filter,
PreScore, Score, NormalizeScore.
CycleState keys written: ``"PreFilterInterPodAffinity"`` (filtering.PreFilterState,
cloneable) and ``"PreScoreInterPodAffinity"`` (scoring.PreScoreState).
"""
from .plugin import InterPodAffinity

__all__ = ["InterPodAffinity"]
