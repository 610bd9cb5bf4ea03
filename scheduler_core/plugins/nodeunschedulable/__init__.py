"""NodeUnschedulable: Filter. Writes no CycleState keys."""
from .node_unschedulable import NodeUnschedulable

__all__ = ["NodeUnschedulable"]
