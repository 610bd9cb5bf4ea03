"""PrioritySort (kube-scheduler v1.34 ``framework/plugins/queuesort/priority_sort.go``)."""
from __future__ import annotations

from ...framework.interface import Plugin
from ...framework.types import QueuedPodInfo
from .. import names


class PrioritySort(Plugin):
    """Higher priority first, then the earlier queue timestamp (creationTimestamp here),
    then file order (our stand-in for arrival order)."""

    NAME = names.PRIORITY_SORT

    def __init__(self, args=None, handle=None) -> None:
        self.handle = handle

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        pa, pb = a.pod.priority, b.pod.priority
        if pa != pb:
            return pa > pb
        if a.timestamp != b.timestamp:
            return a.timestamp < b.timestamp
        return a.pod.file_index < b.pod.file_index

    @staticmethod
    def sort_key(q: QueuedPodInfo) -> tuple:
        """A key ordering as ``less`` does (the queue's heap compares keys, not calls)."""
        return (-q.pod.priority, q.timestamp, q.pod.file_index)
