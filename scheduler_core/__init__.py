"""Whatif's scheduling engine: kube-scheduler's scheduling cycle in pure Python.

Public surface (imported lazily so that each part can be used alone):
``load_scenario``, ``ScenarioError``, ``run_filter``, ``run_score``, ``simulate``,
``validate_pod_update``.
"""
from __future__ import annotations

from importlib import import_module

KUBERNETES_VERSION = "v1.34"

_EXPORTS = {
    "ScenarioError": "scheduler_core.errors",
    "load_scenario": "scheduler_core.scenario",
    "Scenario": "scheduler_core.scenario",
    "run_filter": "scheduler_core.api",
    "run_score": "scheduler_core.api",
    "simulate": "scheduler_core.api",
    "validate_pod_update": "scheduler_core.validation",
}

__all__ = sorted(_EXPORTS) + ["KUBERNETES_VERSION"]


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'scheduler_core' has no attribute {name!r}")
