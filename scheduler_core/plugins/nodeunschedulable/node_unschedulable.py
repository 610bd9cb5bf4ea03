"""NodeUnschedulable (kube-scheduler v1.34
``framework/plugins/nodeunschedulable/node_unschedulable.go``)."""
from __future__ import annotations

from ...framework.cycle_state import CycleState
from ...framework.interface import SUCCESS, Code, Plugin, Status
from ...framework.types import NodeInfo
from ...k8s.types import NO_SCHEDULE, Pod, Taint, Toleration
from .. import names

# node_unschedulable.go
ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
# k8s.io/api/core/v1 well_known_taints.go TaintNodeUnschedulable
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_UNSCHEDULABLE_TAINT = Taint(TAINT_NODE_UNSCHEDULABLE, "", NO_SCHEDULE)


def tolerates(tol: Toleration, taint: Taint) -> bool:
    """v1.Toleration.ToleratesTaint (component-helpers) for one taint."""
    if tol.effect and tol.effect != taint.effect:
        return False
    if tol.key and tol.key != taint.key:
        return False
    if tol.operator == "Exists":
        return True
    if tol.operator in ("Equal", ""):
        return tol.value == taint.value
    return False


class NodeUnschedulable(Plugin):
    """Filter: a node with spec.unschedulable rejects pods that do not tolerate the
    ``node.kubernetes.io/unschedulable:NoSchedule`` taint."""

    NAME = names.NODE_UNSCHEDULABLE

    def __init__(self, args=None, handle=None) -> None:
        self.handle = handle

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        node = node_info.node
        if node is None:
            return Status(Code.UnschedulableAndUnresolvable, (ERR_REASON_UNKNOWN_CONDITION,))
        if not node.unschedulable:
            return SUCCESS
        if any(tolerates(t, _UNSCHEDULABLE_TAINT) for t in pod.tolerations):
            return SUCCESS
        return Status(Code.UnschedulableAndUnresolvable, (ERR_REASON_UNSCHEDULABLE,))
