"""NodePorts PreFilter and Filter.

Cases re-expressed from upstream nodeports/node_ports_test.go (host IP and protocol
handling of HostPortInfo.CheckConflict) and the sidecar-port case of util.GetHostPorts.
"""
from dataclasses import dataclass

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import SUCCESS, Code, Status
from scheduler_core.k8s.types import Container, ContainerPort, Pod
from scheduler_core.plugins.nodeports import NodePorts
from scheduler_core.plugins.nodeports.node_ports import get_host_ports
from tests.core.wrappers import make_node, make_pod, node_infos

CONFLICT = Status(Code.Unschedulable,
                  ("node(s) didn't have free ports for the requested pod ports",))


def ports(*specs) -> Pod:
    """specs: "ip/proto/port" strings, one host port each."""
    w = make_pod("p")
    for s in specs:
        ip, proto, port = s.split("/")
        w = w.host_port(int(port), proto, ip)
    return w.obj()


def bound(*specs) -> Pod:
    w = make_pod("e").node("n")
    for s in specs:
        ip, proto, port = s.split("/")
        w = w.host_port(int(port), proto, ip)
    return w.obj()


@dataclass
class Case:
    name: str
    pod: Pod
    existing: list
    want: Status


CASES = [
    Case("same port, different ip", ports("127.0.0.1/UDP/8080"), [bound("127.0.0.2/UDP/8080")],
         SUCCESS),
    Case("same ip, protocol and port conflict", ports("127.0.0.1/UDP/8080"),
         [bound("127.0.0.1/UDP/8080")], CONFLICT),
    Case("same port, different protocol", ports("127.0.0.1/TCP/8080"),
         [bound("127.0.0.1/UDP/8080")], SUCCESS),
    Case("second port conflicts", ports("127.0.0.1/TCP/8001", "127.0.0.1/UDP/8080"),
         [bound("127.0.0.1/UDP/8080")], CONFLICT),
    Case("wildcard ip wanted conflicts with a specific ip", ports("0.0.0.0/TCP/8001"),
         [bound("127.0.0.1/TCP/8001")], CONFLICT),
    Case("specific ip wanted conflicts with a bound wildcard", ports("10.0.10.10/TCP/8001"),
         [bound("0.0.0.0/TCP/8001")], CONFLICT),
    Case("empty ip means the wildcard", ports("/TCP/8001"), [bound("127.0.0.1/TCP/8001")],
         CONFLICT),
    Case("wildcard ip and different protocol", ports("0.0.0.0/UDP/8001"),
         [bound("127.0.0.1/TCP/8001")], SUCCESS),
    Case("no bound pods, no conflict", ports("0.0.0.0/TCP/80"), [], SUCCESS),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_filter(case):
    pl = NodePorts(None, None)
    [ni] = node_infos([make_node("n").obj()], case.existing)
    state = CycleState()
    assert pl.pre_filter(state, case.pod, [ni]) == (None, SUCCESS)
    assert pl.filter(state, case.pod, ni) == case.want


def test_pre_filter_skips_a_pod_without_host_ports():
    pod = make_pod("p").container(Container("c", ports=(ContainerPort(80),))).obj()
    assert NodePorts(None, None).pre_filter(CycleState(), pod, []) == (None, Status(Code.Skip))


def test_sidecar_host_ports_count_but_plain_init_containers_do_not():
    sidecar = Container("s", ports=(ContainerPort(9000, 9000),), restart_policy="Always")
    init = Container("i", ports=(ContainerPort(9001, 9001),))
    pod = make_pod("p").init_container(sidecar).init_container(init).host_port(80).obj()
    assert [p.host_port for p in get_host_ports(pod)] == [9000, 80]


def test_explain_lists_the_wanted_host_ports():
    pl = NodePorts(None, None)
    pod = ports("/TCP/80", "10.0.0.1/UDP/53")
    state = CycleState()
    pl.pre_filter(state, pod, [])
    assert pl.explain(state, pod) == {"hostPorts": ["TCP/0.0.0.0:80", "UDP/10.0.0.1:53"]}
    assert pl.explain(CycleState(), pod) is None
