"""NodeName Filter (node_name_test.go cases, re-expressed)."""
import dataclasses

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import SUCCESS, Code, Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins.nodename import NodeName
from tests.core.wrappers import make_node, make_pod

CASES = [
    ("no host specified", "", SUCCESS),
    ("host matches", "n1", SUCCESS),
    ("host does not match", "n2", Status(Code.UnschedulableAndUnresolvable,
                                         ("node(s) didn't match the requested node name",))),
]


@pytest.mark.parametrize("node_name,want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_filter(node_name, want) -> None:
    pod = dataclasses.replace(make_pod("p").obj(), node_name=node_name)
    assert NodeName().filter(CycleState(), pod, NodeInfo(make_node("n1").obj())) == want
