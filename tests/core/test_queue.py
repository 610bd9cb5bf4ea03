"""Queue order (PrioritySort) and the unschedulable pool's re-queueing."""
from __future__ import annotations

import dataclasses

from scheduler_core.framework.types import QueuedPodInfo, new_pod_info
from scheduler_core.plugins.queuesort import PrioritySort
import pytest

from scheduler_core.queue import SchedulingQueue, backoff_duration
from tests.core.wrappers import make_pod


def qpi(name: str, priority: int = 0, created: float = 0.0, index: int = 0) -> QueuedPodInfo:
    pod = make_pod(name).priority(priority).created(created).obj()
    pod = dataclasses.replace(pod, file_index=index)
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


@pytest.mark.parametrize("attempts,seconds", [(0, 0), (1, 1), (2, 2), (3, 4), (4, 8), (5, 10),
                                              (9, 10)],
                         ids=lambda v: str(v))
def test_backoff_duration_doubles_to_the_cap(attempts, seconds) -> None:
    assert backoff_duration(attempts) == seconds


def test_requeued_pods_wait_in_backoff_until_active_queue_is_empty() -> None:
    q = SchedulingQueue(PrioritySort().less)
    failed = qpi("failed", priority=100, index=0)
    failed.attempts = 1
    q.add_unschedulable(failed)
    q.add(qpi("fresh-low", priority=0, index=1))
    q.move_all_to_active()
    assert drain(q) == ["fresh-low", "failed"]


def test_backoff_order_shorter_backoff_then_priority_then_failure_order() -> None:
    q = SchedulingQueue(PrioritySort().less)
    pods = {name: qpi(name, priority=p, index=i) for i, (name, p) in enumerate(
        [("twice-high", 9), ("once-low-first", 0), ("once-low-second", 0), ("once-high", 5)])}
    pods["twice-high"].attempts = 2
    for name in ("twice-high", "once-low-first", "once-low-second", "once-high"):
        pods[name].attempts = pods[name].attempts or 1
        q.add_unschedulable(pods[name])
    q.move_all_to_active()
    assert drain(q) == ["once-high", "once-low-first", "once-low-second", "twice-high"]


def _pooled(name: str, index: int, plugins: set[str], labels: dict, spread_on: str) -> QueuedPodInfo:
    pod = make_pod(name).labels(labels).spread(1, "zone", "DoNotSchedule", {"app": spread_on}).obj()
    pod = dataclasses.replace(pod, file_index=index)
    q = QueuedPodInfo(new_pod_info(pod))
    q.unschedulable_plugins = plugins
    return q


def test_bind_asks_each_pooled_pod_with_its_latest_rejectors() -> None:
    """A bind of an ``app: web`` pod moves the pods its spread selector counts and whose latest
    failure was the spread's, each once; a pod pooled again with another rejector stays."""
    q = SchedulingQueue(PrioritySort().less)
    web = _pooled("web-1", 0, {"PodTopologySpread"}, {"app": "web"}, "web")
    again = _pooled("web-2", 1, {"PodTopologySpread"}, {"app": "web"}, "web")
    db = _pooled("db-1", 2, {"PodTopologySpread"}, {"app": "db"}, "db")
    full = _pooled("web-3", 3, {"NodeResourcesFit"}, {"app": "web"}, "web")
    for x in (web, again, db, full):
        q.add_unschedulable(x)
    again.unschedulable_plugins = {"NodeResourcesFit"}  # failed again, for its resources
    q.add_unschedulable(again)
    bound = make_pod("web-0").label("app", "web").node("n1").obj()
    assert q.move_after_assigned_pod_add(bound) == 1
    assert drain(q) == ["web-1"]
    assert sorted(q.unschedulable) == ["default/db-1", "default/web-2", "default/web-3"]
    full.unschedulable_plugins = {"PodTopologySpread"}
    q.add_unschedulable(full)
    assert q.move_after_assigned_pod_add(bound) == 1 and drain(q) == ["web-3"]
    assert q.move_all_to_active() == 2 and sorted(drain(q)) == ["db-1", "web-2"]
    assert q.move_after_assigned_pod_add(bound) == 0
