"""PrioritySort Less (priority_sort_test.go cases, re-expressed)."""
import dataclasses

import pytest

from scheduler_core.framework.types import QueuedPodInfo, new_pod_info
from scheduler_core.plugins.queuesort import PrioritySort
from tests.core.wrappers import make_pod


def qpi(priority: int, ts: float, index: int = 0) -> QueuedPodInfo:
    pod = dataclasses.replace(make_pod("p").priority(priority).obj(), file_index=index)
    return QueuedPodInfo(new_pod_info(pod), timestamp=ts)


CASES = [
    ("higher priority first", qpi(100, 2), qpi(50, 1), True),
    ("lower priority later", qpi(50, 1), qpi(100, 2), False),
    ("equal priority, earlier timestamp first", qpi(10, 1), qpi(10, 2), True),
    ("equal priority, later timestamp later", qpi(10, 2), qpi(10, 1), False),
    ("full tie, file order decides", qpi(10, 1, 0), qpi(10, 1, 1), True),
    ("identical pods are not less", qpi(10, 1, 1), qpi(10, 1, 1), False),
]


@pytest.mark.parametrize("a,b,want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_less(a, b, want) -> None:
    assert PrioritySort(None, None).less(a, b) is want
