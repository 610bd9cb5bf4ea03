"""DefaultBinder: Bind. Writes no CycleState keys."""
from .default_binder import DefaultBinder

__all__ = ["DefaultBinder"]
