"""NodeName (kube-scheduler v1.34 ``framework/plugins/nodename/node_name.go``)."""
from __future__ import annotations

from ...framework.cycle_state import CycleState
from ...framework.interface import SUCCESS, Code, Plugin, Status
from ...framework.types import NodeInfo
from ...k8s.types import Pod
from .. import names

# node_name.go
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(Plugin):
    """Filter: a pod naming a node (spec.nodeName) fits only that node."""

    NAME = names.NODE_NAME

    def __init__(self, args=None, handle=None) -> None:
        self.handle = handle

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not pod.node_name or pod.node_name == node_info.name:
            return SUCCESS
        return Status(Code.UnschedulableAndUnresolvable, (ERR_REASON,))
