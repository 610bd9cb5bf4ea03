"""ImageLocality: Score (no normalization).

Writes no CycleState. ``image_states_for(nodes)`` builds the per-node image summaries the
snapshot builder stores in ``NodeInfo.image_states``. Mirrors kube-scheduler v1.34
``framework/plugins/imagelocality``.
"""
from .image_locality import ImageLocality, image_states_for

__all__ = ["ImageLocality", "image_states_for"]
