"""Whatif's scheduling engine: kube-scheduler's scheduling cycle in pure Python.

Public surface: ``load_scenario``, ``ScenarioError``, ``run_filter``, ``run_score``,
``simulate``, ``validate_pod_update``, ``with_changed_documents``, ``with_spread_fields``.
"""
from __future__ import annotations

KUBERNETES_VERSION = "v1.34"

# Imported eagerly, and after the submodules: importing the submodule ``simulate`` binds
# the package attribute ``simulate`` to that module, and the function must win.
from .errors import ScenarioError  # noqa: E402
from .scenario import DecodedDocuments, Scenario, load_scenario  # noqa: E402
from .api import run_filter, run_score, simulate  # noqa: E402
from .run_memory import RunMemory  # noqa: E402
from .validation import validate_pod_update  # noqa: E402
from .directive_changes import with_changed_documents, with_spread_fields  # noqa: E402

__all__ = ["KUBERNETES_VERSION", "DecodedDocuments", "RunMemory", "Scenario", "ScenarioError", "load_scenario", "run_filter",
           "run_score", "simulate", "validate_pod_update", "with_changed_documents",
           "with_spread_fields"]
