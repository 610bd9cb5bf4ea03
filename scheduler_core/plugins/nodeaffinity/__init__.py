"""NodeAffinity: PreFilter (Skip when nothing to check; node-name PreFilterResult), Filter,
PreScore (Skip without preferred terms), Score, NormalizeScore.

CycleState keys written: ``"PreFilterNodeAffinity"`` (the pod's RequiredNodeAffinity),
``"PreScoreNodeAffinity"`` (its PreferredSchedulingTerms). Mirrors kube-scheduler v1.34
``framework/plugins/nodeaffinity``.
"""
from .node_affinity import NodeAffinity

__all__ = ["NodeAffinity"]
