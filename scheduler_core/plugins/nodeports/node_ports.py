"""NodePorts plugin.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/nodeports/node_ports.go``
and ``pkg/scheduler/util/utils.go`` GetHostPorts: host ports of the containers and of
restartable (sidecar) init containers; a node is rejected when any of them conflicts with
a port already used there (``HostPortInfo.check_conflict``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...framework.cycle_state import CycleState
from ...framework.interface import SKIP, SUCCESS, Code, PreFilterResult, Plugin, Status, new_status
from ...framework.types import NodeInfo, pod_used_ports
from ...k8s.shared_memo import MISS, IdentityMemo
from ...k8s.types import ContainerPort, Pod
from ..names import NODE_PORTS

PRE_FILTER_STATE_KEY = "PreFilter" + NODE_PORTS

# node_ports.go ErrReason (v1.34)
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    ports: tuple[ContainerPort, ...]  # host ports wanted by the pod, hostPort > 0

    def clone(self) -> "_PreFilterState":
        return self


# per (init containers, containers) objects: their host ports (the loader shares them among
# a workload's pods, and PreFilter asks in every cycle)
_HOST_PORTS: IdentityMemo[tuple] = IdentityMemo()


def get_host_ports(pod: Pod) -> tuple[ContainerPort, ...]:
    """util.GetHostPorts: sidecar init containers first, then containers; hostPort > 0."""
    value = _HOST_PORTS.get(pod.init_containers, pod.containers)
    if value is MISS:  # (NodeInfo's ports of the pod, in the same order, those with a host port)
        value = _HOST_PORTS.put(tuple(p for p in pod_used_ports(pod) if p.host_port > 0),
                                pod.init_containers, pod.containers)
    return value


def fits_ports(want: Sequence[ContainerPort], node_info: NodeInfo) -> bool:
    """fitsPorts: no wanted (ip, protocol, hostPort) conflicts with the node's used ports."""
    used = node_info.used_ports
    return not any(used.check_conflict(p.host_ip, p.protocol, p.host_port) for p in want)


class NodePorts(Plugin):
    """nodeports.NodePorts."""

    NAME = NODE_PORTS

    def __init__(self, args: None = None, handle=None) -> None:
        self.handle = handle

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status]:
        """PreFilter: record the host ports; Skip when the pod asks for none."""
        ports = get_host_ports(pod)
        if not ports:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(ports))
        return None, SUCCESS

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter: Unschedulable when a wanted host port is taken on the node."""
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return new_status(Code.Error, f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: '
                                          "not found")
        if fits_ports(s.ports, node_info):
            return SUCCESS
        return new_status(Code.Unschedulable, ERR_REASON)

    def explain(self, state: CycleState, pod: Pod) -> dict | None:
        """The host ports the pod asks for, as protocol/ip:port."""
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return None
        return {"hostPorts": [f"{p.protocol or 'TCP'}/{p.host_ip or '0.0.0.0'}:{p.host_port}"
                              for p in s.ports]}
