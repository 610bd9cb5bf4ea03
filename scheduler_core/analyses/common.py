"""Helpers the analyses share: a run of a changed scenario and what it left pending."""
from __future__ import annotations

from dataclasses import replace

from ..api import simulate

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"


def run(scenario, seed: int) -> dict:
    """One real simulation, without explanations (the analyses read outcomes only)."""
    return simulate(scenario, seed=seed, detail=False)


def pending(result: dict) -> list[str]:
    """The keys of the pods the run left without a node."""
    return [p["pod"] for p in result["pods"] if p.get("node") is None]


def with_nodes(scenario, nodes) -> object:
    return replace(scenario, nodes=tuple(scenario.nodes) + tuple(nodes))
