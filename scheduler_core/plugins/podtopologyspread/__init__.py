"""PodTopologySpread: spreads pods evenly over topology domains (kube-scheduler v1.34
``pkg/scheduler/framework/plugins/podtopologyspread``).

Extension points: PreFilter (with PreFilterExtensions AddPod/RemovePod), Filter,
PreScore, Score (with NormalizeScore). CycleState keys written:
``"PreFilterPodTopologySpread"`` (filtering.PreFilterState, cloned for preemption) and
``"PreScorePodTopologySpread"`` (scoring.PreScoreState). ``explain`` lays both out for the
dashboard.
"""
from .plugin import PodTopologySpread

__all__ = ["PodTopologySpread"]
