"""Scheduler tuning: run the scenario once per scoring configuration and measure how
balanced each run leaves the cluster (cpu and memory utilisation per node, per zone, pods
per node)."""
from __future__ import annotations

import statistics
from dataclasses import replace

from ..config import API_VERSION, parse_configuration
from .common import ZONE, pending, run

STRATEGIES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")
_RTC_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]


def candidate(strategy: str = "LeastAllocated", weights: dict | None = None,
              disabled: tuple[str, ...] = (), name: str = "") -> dict:
    """One configuration to try: NodeResourcesFit's scoringStrategy, score plugin weights and
    score plugins disabled (a KubeSchedulerConfiguration is built from it)."""
    return {"name": name or strategy, "strategy": strategy, "weights": dict(weights or {}),
            "disabled": list(disabled)}


def default_candidates() -> list[dict]:
    return [candidate(s) for s in STRATEGIES]


def configuration_document(c: dict) -> dict:
    strategy = {"type": c["strategy"],
                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
    if c["strategy"] == "RequestedToCapacityRatio":
        strategy["requestedToCapacityRatio"] = {"shape": _RTC_SHAPE}
    score: dict = {}
    enabled = [{"name": n, "weight": w} for n, w in sorted(c["weights"].items())]
    if enabled:
        score["enabled"] = enabled
    if c["disabled"]:
        score["disabled"] = [{"name": n} for n in c["disabled"]]
    profile: dict = {"schedulerName": "default-scheduler",
                     "pluginConfig": [{"name": "NodeResourcesFit",
                                       "args": {"scoringStrategy": strategy}}]}
    if score:
        profile["plugins"] = {"score": score}
    return {"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration",
            "profiles": [profile]}


def _stats(values: list[float]) -> dict:
    if not values:
        return {"min": 0.0, "max": 0.0, "stddev": 0.0}
    return {"min": round(min(values), 4), "max": round(max(values), 4),
            "stddev": round(statistics.pstdev(values), 4)}


def balance(result: dict) -> dict:
    """Utilisation (requested / allocatable) per node of cpu and memory, its spread, the
    same per zone, and pods per node."""
    per_node, zones = [], {}
    for n in result["nodes"]:
        alloc, req = n["allocatable"], n["requested"]
        u = {r: (req.get(r, 0) / alloc[r]) if alloc.get(r) else 0.0 for r in ("cpu", "memory")}
        per_node.append({"node": n["name"], "zone": n["labels"].get(ZONE, ""),
                         "cpu": round(u["cpu"], 4), "memory": round(u["memory"], 4),
                         "pods": len(n["pods"])})
        z = zones.setdefault(n["labels"].get(ZONE, ""), {"cpu": [0, 0], "memory": [0, 0],
                                                           "pods": 0})
        for r in ("cpu", "memory"):
            z[r][0] += req.get(r, 0)
            z[r][1] += alloc.get(r, 0)
        z["pods"] += len(n["pods"])
    return {
        "nodes": per_node,
        "cpu": _stats([n["cpu"] for n in per_node]),
        "memory": _stats([n["memory"] for n in per_node]),
        "podsPerNode": _stats([float(n["pods"]) for n in per_node]),
        "nodesUsed": sum(1 for n in per_node if n["pods"]),
        "zones": {z: {"cpu": round(v["cpu"][0] / v["cpu"][1], 4) if v["cpu"][1] else 0.0,
                      "memory": round(v["memory"][0] / v["memory"][1], 4) if v["memory"][1] else 0.0,
                      "pods": v["pods"]} for z, v in sorted(zones.items())},
        "pending": len(pending(result)),
    }


def sweep(scenario, candidates: list[dict] | None = None, seed: int = 0) -> dict:
    """One real run per candidate (``measure``); the most balanced is named (``pick``)."""
    return pick([measure(scenario, c, seed) for c in candidates or default_candidates()])


def measure(scenario, c: dict, seed: int = 0) -> dict:
    """One candidate's run and how balanced it leaves the cluster."""
    cfg, _ = parse_configuration(configuration_document(c), f"candidate {c['name']}")
    return {"candidate": c, **balance(run(replace(scenario, config=cfg), seed))}


def pick(rows: list[dict]) -> dict:
    """The most balanced run (lowest cpu stddev, then memory, among those that leave the
    fewest pods pending; the earlier candidate on a tie) and a sentence naming it."""
    def rank(r):
        return r["pending"], r["cpu"]["stddev"], r["memory"]["stddev"]

    best = min(rows, key=rank)
    spread = (f"cpu utilisation {best['cpu']['min']:.0%}–{best['cpu']['max']:.0%} per node "
              f"(stddev {best['cpu']['stddev']:.2f})")
    if len(rows) > 1 and all(rank(r) == rank(best) for r in rows):
        sentence = (f"all {len(rows)} configurations balance the same: {spread}; "
                    "the scoring strategy makes no difference here")
    else:
        sentence = f"{best['candidate']['name']} balances best: {spread}"
    return {"runs": rows, "best": best["candidate"]["name"], "sentence": sentence}
