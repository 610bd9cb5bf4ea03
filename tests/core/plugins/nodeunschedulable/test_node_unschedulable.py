"""NodeUnschedulable Filter (node_unschedulable_test.go cases, re-expressed)."""
import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import SUCCESS, Code, Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins.nodeunschedulable import NodeUnschedulable
from tests.core.wrappers import make_node, make_pod

REJECTED = Status(Code.UnschedulableAndUnresolvable, ("node(s) were unschedulable",))
KEY = "node.kubernetes.io/unschedulable"
CASES = [
    ("schedulable node admits any pod", make_node("n").obj(), make_pod("p").obj(), SUCCESS),
    ("unschedulable node rejects a pod", make_node("n").unschedulable().obj(),
     make_pod("p").obj(), REJECTED),
    ("toleration of the unschedulable taint admits", make_node("n").unschedulable().obj(),
     make_pod("p").toleration(KEY, effect="NoSchedule", operator="Exists").obj(), SUCCESS),
    ("match-everything toleration admits", make_node("n").unschedulable().obj(),
     make_pod("p").toleration(operator="Exists").obj(), SUCCESS),
    ("toleration for another effect does not admit", make_node("n").unschedulable().obj(),
     make_pod("p").toleration(KEY, effect="NoExecute", operator="Exists").obj(), REJECTED),
]


@pytest.mark.parametrize("node,pod,want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_filter(node, pod, want) -> None:
    assert NodeUnschedulable(None, None).filter(CycleState(), pod, NodeInfo(node)) == want


def test_node_info_without_node_is_unknown_condition() -> None:
    assert NodeUnschedulable().filter(CycleState(), make_pod("p").obj(), NodeInfo()) == Status(
        Code.UnschedulableAndUnresolvable, ("node(s) had unknown conditions",))
