"""The scheduling queue without wall-clock time.

A model of kube-scheduler v1.34 ``backend/queue/scheduling_queue.go``: PreEnqueue
plugins (SchedulingGates) keep gated pods out; the active queue is ordered by the
profile's QueueSort plugin (PrioritySort: priority, then creationTimestamp, then file
order); a pod that fails goes to the unschedulable pool with the plugins that rejected
it, and cluster events move pooled pods back (a delete moves all; a bind moves those
whose rejecting plugins have an AssignedPodAdd queueing hint).
"""
from __future__ import annotations

import functools
import heapq
from typing import Callable

from .framework.types import QueuedPodInfo
from .plugins import names

# Plugins whose queueing hints react to an assigned pod being added (v1.34
# EventsToRegister: PodTopologySpread, InterPodAffinity).
ASSIGNED_POD_ADD_PLUGINS = frozenset({names.POD_TOPOLOGY_SPREAD, names.INTER_POD_AFFINITY})


class SchedulingQueue:
    """activeQ (a heap ordered by ``less``) and the unschedulable pool."""

    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]) -> None:
        def cmp(a: QueuedPodInfo, b: QueuedPodInfo) -> int:
            if less(a, b):
                return -1
            if less(b, a):
                return 1
            return (a.pod.file_index > b.pod.file_index) - (a.pod.file_index < b.pod.file_index)
        self._key = functools.cmp_to_key(cmp)
        self._active: list = []
        self._seq = 0
        self.unschedulable: dict[str, QueuedPodInfo] = {}

    def add(self, qpi: QueuedPodInfo) -> None:
        """Add to the active queue."""
        self._seq += 1
        heapq.heappush(self._active, (self._key(qpi), self._seq, qpi))

    def pop(self) -> QueuedPodInfo | None:
        if not self._active:
            return None
        return heapq.heappop(self._active)[2]

    def __len__(self) -> int:
        return len(self._active)

    def add_unschedulable(self, qpi: QueuedPodInfo) -> None:
        self.unschedulable[qpi.pod.key] = qpi

    def move_all_to_active(self) -> int:
        """MoveAllToActiveOrBackoffQueue for an event every pod cares about (a delete)."""
        moved = list(self.unschedulable.values())
        self.unschedulable.clear()
        for qpi in moved:
            self.add(qpi)
        return len(moved)

    def move_after_assigned_pod_add(self) -> int:
        """Move pods whose rejectors react to AssignedPodAdd (or that have none recorded)."""
        moved = [k for k, q in self.unschedulable.items()
                 if not q.unschedulable_plugins or q.unschedulable_plugins & ASSIGNED_POD_ADD_PLUGINS]
        for k in moved:
            self.add(self.unschedulable.pop(k))
        return len(moved)
