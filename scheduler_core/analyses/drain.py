"""Failure tolerance: drain a node or every node of a zone as ``kubectl drain`` does, then
reschedule the evicted pods with a real run.

kubectl drain (staging/src/k8s.io/kubectl/pkg/drain/filters.go): cordon the node; skip
DaemonSet pods and mirror pods (annotation kubernetes.io/config.mirror); evict the rest
through the Eviction API, which (pkg/registry/core/pod/storage/eviction.go) refuses an
eviction when a PodDisruptionBudget selecting the pod has no disruption left
(status.disruptionsAllowed, decremented by each accepted eviction), and refuses every
eviction of a pod that more than one budget selects. A budget with an empty selector
selects no pod. A terminating pod (deletionTimestamp set) is deleted without a look at
budgets (canIgnorePDB). A pod with a controller comes back pending (its controller
recreates it); a bare pod is gone, as with ``kubectl drain --ignore-daemonsets --force``.

Not modelled: canIgnorePDB also passes pods whose phase is Pending, and the eviction of an
unready pod does not use up a budget that has enough healthy pods; a scenario's bound pod
without a status is taken as running and ready (the apiserver would say Pending), so both
cases are treated as running pods are."""
from __future__ import annotations

from dataclasses import replace

from ..errors import ScenarioError
from ..plugins.defaultpreemption.candidates import build_pdbs
from .common import ZONE, pending, run

MIRROR = "kubernetes.io/config.mirror"


def _controller(pod):
    return next((r for r in pod.owner_references if r.controller), None)


def drain(scenario, node_names, seed: int = 0, label: str = "") -> dict:
    """Cordon and drain ``node_names``; the run's pending pods, blocked evictions and the
    spread constraints left outside maxSkew."""
    names = set(node_names)
    unknown = names - {n.name for n in scenario.nodes}
    if unknown:
        raise ScenarioError(scenario.source, "", "nodes", f"no node {min(unknown)}")
    bound = [p for p in scenario.pods if p.node_name]
    pdbs = build_pdbs(scenario.pdbs, bound, scenario.workloads)
    left = {p.key: p.disruptions_allowed for p in pdbs}
    pods, evicted, blocked, lost, skipped = [], [], [], [], []
    for p in scenario.pods:
        if p.node_name not in names:
            pods.append(p)
            continue
        ref = _controller(p)
        if MIRROR in p.annotations or (ref is not None and ref.kind == "DaemonSet"):
            skipped.append(p.key)
            pods.append(p)
            continue
        covering = [] if p.deletion_timestamp else [
            b for b in pdbs if b.namespace == p.namespace and not b.selector.empty()
            and b.selector.matches(p.labels)]
        # eviction.go: more than one budget for a pod is refused outright
        refusing = ([b.key for b in covering] if len(covering) > 1 else
                    [b.key for b in covering if left[b.key] <= 0])
        if refusing:
            blocked.append({"pod": p.key, "pdbs": refusing})
            pods.append(p)
            continue
        for b in covering:
            left[b.key] -= 1
        evicted.append(p.key)
        if ref is None:
            lost.append(p.key)
        else:
            # the controller's replacement: a new pod, pending, not terminating
            pods.append(replace(p, node_name="", nominated_node_name="", deletion_timestamp=None))
    nodes = tuple(replace(n, unschedulable=True) if n.name in names else n
                  for n in scenario.nodes)
    result = run(replace(scenario, nodes=nodes, pods=tuple(pods)), seed)
    still = pending(result)
    violated = sorted({f"{c['namespace']}/{c['selector']} on {c['topologyKey']} "
                       f"(skew {c['skew']} > maxSkew {c['maxSkew']})"
                       for c in result.get("spreadDomains", []) if not c.get("withinMaxSkew", True)})
    blocking = sorted({k for b in blocked for k in b["pdbs"]})
    # pods that ran before and have no node now (evicted, or preempted while they were placed again);
    # pods pending before the drain are not the drain's doing
    ran = {p.key for p in scenario.pods if p.node_name}
    left = [k for k in still if k in ran]
    survives = not left and not blocked and not lost
    what = label or ", ".join(sorted(names))
    if survives:
        sentence = f"survives losing {what}"
    else:
        parts = []
        if left:
            parts.append(f"{len(left)} running pod{'s' if len(left) != 1 else ''} left pending")
        for k in blocking:
            n = sum(1 for b in blocked if k in b["pdbs"])
            parts.append(f"PDB {k.split('/', 1)[1]} blocked {n} eviction{'s' if n > 1 else ''}")
        if lost:
            parts.append(f"{len(lost)} pod{'s' if len(lost) != 1 else ''} without a controller deleted")
        sentence = f"does not survive losing {what}: " + ", ".join(parts)
    return {"target": what, "nodes": sorted(names), "survives": survives, "sentence": sentence,
            "evicted": evicted, "skipped": skipped, "blocked": blocked, "blockingPdbs": blocking,
            "deleted": lost, "pending": still, "leftPending": left, "spreadViolated": violated,
            "result": result}


def zones(scenario) -> list[str]:
    return sorted({n.labels[ZONE] for n in scenario.nodes if ZONE in n.labels})


def zone_nodes(scenario, zone: str) -> list[str]:
    return [n.name for n in scenario.nodes if n.labels.get(ZONE) == zone]


def zone_tolerance(scenario, seed: int = 0) -> dict:
    """Every zone drained in turn; one line per zone."""
    return combine([without_run(drain(scenario, zone_nodes(scenario, z), seed, z))
                    for z in zones(scenario)], "zones")


def without_run(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "result"}


def combine(rows: list[dict], what: str = "zones") -> dict:
    """One drain per zone (or node), in turn: the rows, one sentence, whether all survive."""
    return {what: rows, "sentence": "; ".join(r["sentence"] for r in rows),
            "survivesAll": all(r["survives"] for r in rows)}
