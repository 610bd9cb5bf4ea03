"""What the dashboard draws, as JSON-ready dicts.

Per cycle: the nominated-node fast path, how many nodes were evaluated, each node's
filter verdict (code, plugin, reasons), each feasible node's scores (normalized per
plugin, weighted total) and every plugin's ``explain``. Per node at the end:
allocatable against requested. (In the manner of kube-scheduler-simulator's result
store: node -> plugin -> result.)
"""
from __future__ import annotations

from typing import Iterable

from .framework.interface import Status
from .framework.runtime import NodePluginScores
from .framework.types import NodeInfo
from .schedule_one import CycleRecord


def status_json(st: Status) -> dict:
    """The ``filter`` command's per-node shape."""
    return st.to_json()


def scores_json(s: NodePluginScores) -> dict:
    """A feasible node's scores: normalized per plugin and the weighted total."""
    return {"total": s.total, "plugins": dict(s.plugins)}


def cycle_json(record: CycleRecord, detail: bool) -> dict:
    """The per-node part of a cycle record."""
    out: dict = {
        "nominatedNodeTried": record.nominated_node_tried or None,
        "nominatedNodeFit": record.nominated_node_fit,
        "nodesEvaluated": record.nodes_evaluated,
    }
    if detail:
        out["filter"] = {n: status_json(s) for n, s in record.filter.items()}
        out["scores"] = {n: scores_json(s) for n, s in record.scores.items()}
    return out


def node_summary(ni: NodeInfo) -> dict:
    """A node's final state: labels, taints, allocatable vs requested, its pods."""
    node = ni.node
    return {
        "name": ni.name,
        "labels": dict(node.labels),
        "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in node.taints],
        "unschedulable": node.unschedulable,
        "allocatable": {"cpu": ni.allocatable.milli_cpu, "memory": ni.allocatable.memory,
                        "pods": ni.allocatable.allowed_pod_number},
        "requested": {"cpu": ni.requested.milli_cpu, "memory": ni.requested.memory,
                      "pods": len(ni.pods)},
        "pods": sorted(pi.pod.key for pi in ni.pods),
    }


def nodes_json(node_infos: Iterable[NodeInfo]) -> list[dict]:
    """Every node's final summary, in node order."""
    return [node_summary(ni) for ni in node_infos]
