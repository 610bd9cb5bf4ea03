"""DefaultBinder binds in memory: the simulation records the pod on the node."""
from scheduler_core.api import simulate
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import SUCCESS
from scheduler_core.plugins.defaultbinder import DefaultBinder
from scheduler_core.scenario import Scenario
from tests.core.wrappers import make_node, make_pod


def test_bind_succeeds() -> None:
    assert DefaultBinder(None, None).bind(CycleState(), make_pod("p").obj(), "n") == SUCCESS


def test_bound_pod_is_accounted_on_its_node() -> None:
    s = Scenario(nodes=(make_node("n").obj(),), pods=(make_pod("p").req(cpu=300).obj(),))
    r = simulate(s)
    assert r["nodes"][0]["requested"]["cpu"] == 300 and r["nodes"][0]["pods"] == ["default/p"]
