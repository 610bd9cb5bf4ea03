"""SchedulingGates: PreEnqueue. Writes no CycleState keys."""
from .scheduling_gates import SchedulingGates

__all__ = ["SchedulingGates"]
