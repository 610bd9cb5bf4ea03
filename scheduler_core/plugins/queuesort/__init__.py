"""PrioritySort: QueueSort. Writes no CycleState keys."""
from .priority_sort import PrioritySort

__all__ = ["PrioritySort"]
