"""The volume plugins on the columnar path: VolumeRestrictions, NodeVolumeLimits,
VolumeBinding and VolumeZone for pods that use no claims and no restricted disks.

``ColumnarSimulation`` refuses a scenario in which some pod has a claim-backed volume
(persistentVolumeClaim, ephemeral) or a GCE PD / AWS EBS / iSCSI / RBD volume
(``uses_volumes``): the run then takes the reference path. For every other pod these
plugins' PreFilter and PreScore return Skip, so their Filter and Score never run here.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interface import SKIP, Status
from ...k8s.types import Pod
from . import ColumnarPlugin


class VolumePlugin(ColumnarPlugin):
    """One of the four volume plugins: PreFilter and PreScore are the reference ones
    (Skip for the pods this path runs); Filter and Score are never reached."""

    def __init__(self, ref, ctx) -> None:
        super().__init__(ref, ctx)
        self.NAME = ref.NAME

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence):
        """The reference PreFilter; a pod without volumes is a Skip at once (as there)."""
        if not pod.volumes:
            return None, SKIP
        return self.ref.pre_filter(state, pod, nodes)

    def pre_score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> Status:
        # VolumeBinding's PreScore is a Skip whatever the nodes (no capacity scoring)
        return self.ref.pre_score(state, pod, ())

    def filter_ok(self, state: CycleState, pod: Pod) -> np.ndarray:
        raise RuntimeError(f"{self.NAME}: a pod with volumes on the columnar path")

    def filter_status(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        raise RuntimeError(f"{self.NAME}: a pod with volumes on the columnar path")

    def score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        raise RuntimeError(f"{self.NAME}: a pod with volumes on the columnar path")
