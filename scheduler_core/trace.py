"""What the dashboard draws, as JSON-ready dicts of bounded size.

Per cycle, ``cycle_json``: the pod, the attempt, the nominated-node fast path and how many
nodes were evaluated. Per pod, ``explanation_json`` for its latest cycle: the rejected
nodes grouped by verdict (code, plugin, reasons, how many, which), the nodes that passed,
the best-scored nodes with their per-plugin scores, and every plugin's ``explain``. Per
node at the end, ``nodes_json``: allocatable against requested. (In the manner of
kube-scheduler-simulator's result store: node -> plugin -> result, but grouped, so that
a 5,000-node cluster does not make every explanation 5,000 entries long.)
"""
from __future__ import annotations

import operator
from typing import Iterable, Mapping, Sequence

from .framework.interface import Status
from .framework.types import NodeInfo
from .k8s import labels as klabels
from .k8s.types import Pod

MAX_NODE_NAMES = 100  # node names listed per group (the count is always complete)
MAX_SCORED = 20  # best-scored nodes listed per explanation (plus the chosen one)
MAX_DOMAINS = 50  # topology domains listed per spread constraint


def cycle_json(nominated_node_tried: str, nominated_node_fit: bool | None,
               nodes_evaluated: int) -> dict:
    """The nominated-node fast path and the evaluated-node count of a cycle."""
    return {"nominatedNodeTried": nominated_node_tried or None,
            "nominatedNodeFit": nominated_node_fit, "nodesEvaluated": nodes_evaluated}


def rejected_json(groups: Iterable[tuple[Status, int, Sequence[str]]]) -> list[dict]:
    """(verdict, node count, node names in node order) -> the "rejected" list, most nodes
    first, then by plugin and reasons."""
    ordered = sorted(groups, key=lambda g: (-g[1], g[0].plugin, int(g[0].code), g[0].reasons))
    return [{**st.to_json(), "count": n, "nodes": list(names[:MAX_NODE_NAMES])}
            for st, n, names in ordered]


def scores_json(plugins: Sequence[str], rows: Sequence[tuple],
                chosen: str | None, weights: Mapping[str, int] | None = None,
                skipped: Sequence[str] = ()) -> dict:
    """Scored nodes as (name, total, per-plugin normalized scores, per-plugin raw scores)
    in evaluation order ->
    the best MAX_SCORED by total (ties in evaluation order), the chosen node always in,
    each with its per-plugin weighted scores (normalized x weight; they sum to the total),
    and the nodes tied at the top (``tie_json``)."""
    order = sorted(range(len(rows)), key=lambda i: -rows[i][1])[:MAX_SCORED]
    if chosen is not None and all(rows[i][0] != chosen for i in order):
        order += [i for i, r in enumerate(rows) if r[0] == chosen][:1]
    best = max((r[1] for r in rows), default=None)
    tied = [r[0] for r in rows if r[1] == best]
    return scores_shape(plugins, [rows[i] for i in order],
                        len(rows), weights or {}, skipped,
                        tie_json(len(tied), tied[:MAX_NODE_NAMES], chosen))


def scores_shape(plugins: Sequence[str], listed: Iterable[tuple], count: int,
                 weights: Mapping[str, int], skipped: Sequence[str], tie: dict | None) -> dict:
    """The "scores" of an explanation: plugins in score order with their weights (a plugin
    a PreScore skipped is in ``skipped``, scoring nothing), the tie, and the listed nodes
    as (name, total, normalized scores, raw scores): per node each plugin's score before
    NormalizeScore (``raw``), after it (``plugins``, 0..100) and times its weight
    (``weighted``; they sum to ``total``)."""
    w = {p: weights.get(p, 1) for p in plugins}
    return {"count": count, "plugins": list(plugins), "weights": w, "skipped": list(skipped),
            "nodes": [{"node": row[0], "total": row[1], "plugins": dict(zip(plugins, row[2])),
                       "raw": dict(zip(plugins, row[3])) if len(row) > 3 else {},
                       "weighted": {p: v * w[p] for p, v in zip(plugins, row[2])}}
                      for row in listed],
            "tie": tie}


def tie_json(count: int, tied: Sequence[str], chosen: str | None) -> dict | None:
    """The ``count`` nodes sharing the highest total (the first MAX_NODE_NAMES of them in
    evaluation order), when more than one: selectHost picked ``chosen`` among them with one
    draw of the run's seeded generator."""
    if count < 2:
        return None
    return {"count": count, "nodes": list(tied), "chosen": chosen,
            "brokenBy": "seeded random choice"}


def explanation_json(cycle: dict, num_nodes: int, feasible: int,
                     rejected: list[dict], passed: Sequence[str], scores: dict,
                     plugins: dict) -> dict:
    """A pod's latest cycle, explained (see the module docstring)."""
    return {"cycle": cycle["cycle"], "attempt": cycle["attempt"],
            "result": cycle.get("result"), "node": cycle.get("node"),
            "nodes": num_nodes, "evaluated": cycle.get("nodesEvaluated", 0),
            "feasible": feasible, "rejected": rejected,
            "passed": list(passed[:MAX_NODE_NAMES]), "scores": scores, "plugins": plugins}


def spread_constraints_json(pods: Iterable[Pod]) -> list[dict]:
    """The distinct topology spread constraints the pods carry in their specs (namespace,
    key, selector as text, maxSkew, whenUnsatisfiable), in first-seen order: what a
    dashboard needs to count skew in any placement, explanations or not."""
    seen: dict[tuple, dict] = {}
    by_object: set[int] = set()
    for pod in pods:
        tscs = pod.topology_spread_constraints
        if not tscs or id(tscs) in by_object:
            continue
        by_object.add(id(tscs))  # the loader shares one object among a workload's pods
        for c in tscs:
            selector = str(klabels.selector_from_label_selector(c.label_selector))
            entry = {"namespace": pod.namespace, "topologyKey": c.topology_key,
                     "selector": selector, "maxSkew": c.max_skew,
                     "whenUnsatisfiable": c.when_unsatisfiable}
            seen.setdefault(tuple(entry.values()), entry)
    return list(seen.values())


_POD_KEY = operator.attrgetter("pod.key")


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
        "pods": sorted(map(_POD_KEY, ni.pods)),
    }


def nodes_json(node_infos: Iterable[NodeInfo]) -> list[dict]:
    """Every node's final summary, in node order."""
    return [node_summary(ni) for ni in node_infos]
