"""Queue order (PrioritySort) and the unschedulable pool's re-queueing."""
from __future__ import annotations

from scheduler_core.framework.types import QueuedPodInfo, new_pod_info
from scheduler_core.plugins.queuesort import PrioritySort
from scheduler_core.queue import SchedulingQueue
from tests.core.wrappers import make_pod


def qpi(name: str, priority: int = 0, created: float = 0.0, index: int = 0) -> QueuedPodInfo:
    pod = make_pod(name).priority(priority).created(created).obj()
    pod = type(pod)(**{**{f: getattr(pod, f) for f in pod.__dataclass_fields__},
                       "file_index": index})
    return QueuedPodInfo(new_pod_info(pod), timestamp=created)


def drain(q: SchedulingQueue) -> list[str]:
    out = []
    while (x := q.pop()) is not None:
        out.append(x.pod.name)
    return out


def test_priority_then_creation_then_file_order() -> None:
    q = SchedulingQueue(PrioritySort().less)
    for x in (qpi("late", 0, 20, 0), qpi("early", 0, 10, 1), qpi("high", 100, 30, 2),
              qpi("tie-second", 0, 10, 4), qpi("tie-first", 0, 10, 3)):
        q.add(x)
    assert drain(q) == ["high", "early", "tie-first", "tie-second", "late"]


def test_prioritysort_less() -> None:
    less = PrioritySort().less
    assert (less(qpi("a", 5), qpi("b", 1)), less(qpi("a", 1), qpi("b", 5)),
            less(qpi("a", 1, 1), qpi("b", 1, 2))) == (True, False, True)


def test_bind_moves_only_pods_rejected_by_spread_or_affinity() -> None:
    q = SchedulingQueue(PrioritySort().less)
    spread, fit, unknown = qpi("spread", index=0), qpi("fit", index=1), qpi("unknown", index=2)
    spread.unschedulable_plugins = {"PodTopologySpread"}
    fit.unschedulable_plugins = {"NodeResourcesFit"}
    for x in (spread, fit, unknown):
        q.add_unschedulable(x)
    assert q.move_after_assigned_pod_add() == 2
    assert drain(q) == ["spread", "unknown"]
    assert list(q.unschedulable) == ["default/fit"]
    assert q.move_all_to_active() == 1 and drain(q) == ["fit"]
