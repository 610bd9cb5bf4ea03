"""The scheduling queue without wall-clock time.

A model of kube-scheduler v1.34 ``backend/queue`` (scheduling_queue.go,
backoff_queue.go, unschedulable_pods.go) in which scheduling cycles take no time:

- PreEnqueue plugins (SchedulingGates) keep gated pods out;
- activeQ is ordered by the profile's QueueSort plugin (PrioritySort: priority, then
  creationTimestamp, then file order);
- a pod that fails goes to the unschedulable pool with the plugins that rejected it;
- a cluster event moves pooled pods out: those whose rejecting plugins' queueing hints
  say Queue for it (``queueing_hints.py``), or that recorded no rejector. Their
  backoff (1s doubling to 10s per attempt) has not run out, since no time passes, so
  they go to backoffQ, not activeQ;
- Pop takes from activeQ, and from backoffQ only when activeQ is empty
  (SchedulerPopFromBackoffQ). backoffQ is ordered by backoff expiry: shorter backoff
  first, then, within the same expiry window, higher priority, then earlier failure.
"""
from __future__ import annotations

import functools
import heapq
from typing import Callable

from .framework.types import QueuedPodInfo
from .k8s.types import Pod
from .plugins import names
from .queueing_hints import worth_retrying_after_bind, worth_retrying_after_delete

# Plugins whose queueing hints react to an assigned pod being added (v1.34
# EventsToRegister: PodTopologySpread, InterPodAffinity).
ASSIGNED_POD_ADD_PLUGINS = frozenset({names.POD_TOPOLOGY_SPREAD, names.INTER_POD_AFFINITY})
# scheduler defaults: podInitialBackoffSeconds 1, podMaxBackoffSeconds 10
POD_INITIAL_BACKOFF = 1
POD_MAX_BACKOFF = 10


def backoff_duration(attempts: int, initial: int = POD_INITIAL_BACKOFF,
                     maximum: int = POD_MAX_BACKOFF) -> int:
    """backoffQueue.calculateBackoffDuration in seconds: 0 before any attempt, then
    initial, doubling per attempt, capped at maximum (1, 2, 4, 8, 10 by default)."""
    if attempts <= 0:
        return 0
    duration = initial
    for _ in range(1, attempts):
        if duration > maximum - duration:
            return maximum
        duration += duration
    return duration


class SchedulingQueue:
    """activeQ, backoffQ and the unschedulable pool."""

    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool],
                 initial_backoff: int = POD_INITIAL_BACKOFF,
                 max_backoff: int = POD_MAX_BACKOFF,
                 sort_key: Callable[[QueuedPodInfo], tuple] | None = None) -> None:
        """``sort_key``, when the QueueSort plugin offers one, orders as ``less`` then
        file order do, without a call per comparison."""
        self._backoff_bounds = (initial_backoff, max_backoff)
        def cmp(a: QueuedPodInfo, b: QueuedPodInfo) -> int:
            """QueueSort less as a three-way comparison; file order breaks full ties."""
            if less(a, b):
                return -1
            if less(b, a):
                return 1
            return (a.pod.file_index > b.pod.file_index) - (a.pod.file_index < b.pod.file_index)
        self._key = sort_key or functools.cmp_to_key(cmp)
        # activeQ's entries: the sort key's fields themselves when it is a tuple, then the order added and the pod
        # (a pop from a heap of 10,000 pods compares about 15 entries: one tuple deep, not two)
        self._flat = sort_key is not None
        self._active: list = []
        self._backoff: list = []
        self._seq = 0
        self._failed_at: dict[str, int] = {}  # pod key -> failure order (its queue timestamp)
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        # The unschedulable pool grouped by what the AssignedPodAdd hints read of a pending pod
        # (its namespace, labels, spread constraints and affinity, which the pods of one workload
        # share: the loader interns them) and its rejectors: a bind asks each group once.
        self._hint_groups: dict[tuple, dict[str, None]] = {}
        self._hint_group_of: dict[str, tuple] = {}

    def add(self, qpi: QueuedPodInfo) -> None:
        """Add to activeQ."""
        self._seq += 1
        key = self._key(qpi)
        heapq.heappush(self._active, (*key, self._seq, qpi) if self._flat else (key, self._seq, qpi))

    def pop(self) -> QueuedPodInfo | None:
        """Pop: activeQ first, then backoffQ when activeQ is empty."""
        if self._active:
            return heapq.heappop(self._active)[-1]
        if self._backoff:
            return heapq.heappop(self._backoff)[-1]
        return None

    def __len__(self) -> int:
        return len(self._active) + len(self._backoff)

    def add_unschedulable(self, qpi: QueuedPodInfo) -> None:
        """AddUnschedulableIfNotPresent: pooled, its timestamp the failure time."""
        self._seq += 1
        self._failed_at[qpi.pod.key] = self._seq
        self._unpool(qpi.pod.key)
        self.unschedulable[qpi.pod.key] = qpi
        p = qpi.pod
        group = (p.namespace, id(p.labels), id(p.topology_spread_constraints), id(p.affinity),
                 frozenset(qpi.unschedulable_plugins))
        self._hint_group_of[p.key] = group
        self._hint_groups.setdefault(group, {})[p.key] = None

    def _unpool(self, key: str) -> QueuedPodInfo | None:
        """Take a pod out of the unschedulable pool (None when it is not there)."""
        group = self._hint_group_of.pop(key, None)
        if group is not None:
            members = self._hint_groups[group]
            del members[key]
            if not members:
                del self._hint_groups[group]
        return self.unschedulable.pop(key, None)

    def _to_backoff(self, qpi: QueuedPodInfo) -> None:
        key = (backoff_duration(qpi.attempts, *self._backoff_bounds), -qpi.pod.priority,
               self._failed_at.get(qpi.pod.key, 0), qpi.pod.file_index)
        heapq.heappush(self._backoff, (*key, qpi))

    def move_all_to_active(self, deleted: Pod | None = None) -> int:
        """MoveAllToActiveOrBackoffQueue for an AssignedPodDelete: every pooled pod, or,
        given the deleted pod, those whose rejectors' hints say Queue."""
        moved = [k for k, q in self.unschedulable.items()
                 if deleted is None
                 or worth_retrying_after_delete(q.pod, q.unschedulable_plugins, deleted)]
        for k in moved:
            self._to_backoff(self._unpool(k))
        return len(moved)

    def move_after_assigned_pod_add(self, added: Pod | None = None) -> int:
        """AssignedPodAdd: move pods whose rejectors' queueing hints say Queue for this
        pod (or that recorded no rejector). Without a pod, any such rejector queues."""
        moved: list[str] = []
        for group, members in self._hint_groups.items():
            plugins = group[-1]
            if added is None:
                ok = not plugins or bool(plugins & ASSIGNED_POD_ADD_PLUGINS)
            else:  # (the group's pods share what the hint reads: any one answers for all)
                ok = worth_retrying_after_bind(self.unschedulable[next(iter(members))].pod,
                                               plugins, added)
            if ok:
                moved.extend(members)
        for k in moved:
            self._to_backoff(self._unpool(k))
        return len(moved)
