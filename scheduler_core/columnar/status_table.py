"""Status values interned as small ints, so a cycle's per-node verdicts fit one int array.

Not an upstream file: kube-scheduler keeps a ``*Status`` per node (NodeToStatus). Here a
node's verdict is an index into one table shared by every cycle of a simulation; index 0
is Success. Statuses are frozen values, so equal verdicts share one index.
"""
from __future__ import annotations

from ..framework.interface import SUCCESS, Status

SUCCESS_ID = 0


class StatusTable:
    """Status <-> int, append-only; id 0 is Success."""

    __slots__ = ("_statuses", "_ids")

    def __init__(self) -> None:
        self._statuses: list[Status] = [SUCCESS]
        self._ids: dict[Status, int] = {SUCCESS: SUCCESS_ID}

    def intern(self, status: Status) -> int:
        """The id of an equal Status, adding it when new."""
        i = self._ids.get(status)
        if i is None:
            i = self._ids[status] = len(self._statuses)
            self._statuses.append(status)
        return i

    def get(self, i: int) -> Status:
        return self._statuses[i]

    def __len__(self) -> int:
        return len(self._statuses)
