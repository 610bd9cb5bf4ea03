"""SchedulingGates PreEnqueue (scheduling_gates_test.go cases, re-expressed)."""
import pytest

from scheduler_core.framework.interface import SUCCESS, Code, Status
from scheduler_core.plugins.schedulinggates import SchedulingGates
from tests.core.wrappers import make_pod

CASES = [
    ("pod without gates is enqueued", make_pod("p").obj(), SUCCESS),
    ("one gate holds the pod", make_pod("p").gate("foo").obj(),
     Status(Code.UnschedulableAndUnresolvable, ("waiting for scheduling gates: [foo]",))),
    ("gates are listed in order", make_pod("p").gate("foo", "bar").obj(),
     Status(Code.UnschedulableAndUnresolvable, ("waiting for scheduling gates: [foo bar]",))),
]


@pytest.mark.parametrize("pod,want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pre_enqueue(pod, want) -> None:
    assert SchedulingGates(None, None).pre_enqueue(pod) == want
