"""NodeName: Filter. Writes no CycleState keys."""
from .node_name import NodeName

__all__ = ["NodeName"]
