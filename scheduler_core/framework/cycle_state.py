"""CycleState: per-cycle key/value store shared by a pod's plugins.

Mirrors kube-scheduler v1.34 ``framework/cycle_state.go``. Written once in PreFilter or
PreScore under ``"PreFilter" + NAME`` / ``"PreScore" + NAME`` keys, read many times in
Filter/Score. Preemption evaluates candidates on ``clone()``s, so a state value that can be
updated by PreFilterExtensions must implement ``clone()``.
"""
from __future__ import annotations

from typing import Any


class CycleState:
    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins", "record_plugin_metrics")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        # Plugins whose PreFilter/PreScore returned Skip: their Filter/Score are not run.
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()
        self.record_plugin_metrics = False

    def read(self, key: str) -> Any:
        """Return the value stored under key; KeyError when absent (upstream ErrNotFound)."""
        return self._data[key]

    def get(self, key: str) -> Any:
        """The value stored under key, None when absent (no KeyError to raise and catch where
        absent is the usual answer)."""
        return self._data.get(key)

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def clone(self) -> "CycleState":
        """A copy whose values are cloned when they know how (StateData.Clone)."""
        c = CycleState()
        c._data = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in self._data.items()}
        c.skip_filter_plugins = set(self.skip_filter_plugins)
        c.skip_score_plugins = set(self.skip_score_plugins)
        return c
