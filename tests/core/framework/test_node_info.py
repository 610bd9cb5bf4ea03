"""NodeInfo accounting as the filters see it (framework/types.go NodeInfo.AddPod/RemovePod)."""
import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import Code
from scheduler_core.k8s.types import Container, ContainerPort
from scheduler_core.plugins.nodeports.node_ports import NodePorts
from tests.core.wrappers import make_node, make_pod, node_infos

SIDECAR = Container("proxy", restart_policy="Always", ports=(ContainerPort(8080, 8080),))
PLAIN_INIT = Container("setup", ports=(ContainerPort(8080, 8080),))


def _port_filter(bound, remove_after_add=False):
    ni = node_infos([make_node("n1").obj()], [bound])[0]
    if remove_after_add:
        ni.remove_pod(bound)
    pod = make_pod("p").host_port(8080).obj()
    state = CycleState()
    plugin = NodePorts(None, None)
    plugin.pre_filter(state, pod, [ni])
    return plugin.filter(state, pod, ni).code


@pytest.mark.parametrize("init,removed,want", [
    (SIDECAR, False, Code.Unschedulable),
    (PLAIN_INIT, False, Code.Success),
    (SIDECAR, True, Code.Success),
], ids=["a bound pod's sidecar host port is in use",
        "a finished init container's host port is free",
        "removing the pod frees its sidecar port"])
def test_sidecar_host_ports_are_used_ports(init, removed, want):
    bound = make_pod("b").node("n1").init_container(init).obj()
    assert _port_filter(bound, removed) == want


def test_remove_pod_restores_requested_resources():
    bound = make_pod("b").node("n1").req(cpu=500, memory=1024).obj()
    ni = node_infos([make_node("n1").obj()], [bound])[0]
    assert (ni.requested.milli_cpu, ni.requested.memory, len(ni.pods)) == (500, 1024, 1)
    assert ni.remove_pod(bound) is True
    assert (ni.requested.milli_cpu, ni.requested.memory, len(ni.pods)) == (0, 0, 0)
    assert ni.remove_pod(bound) is False
