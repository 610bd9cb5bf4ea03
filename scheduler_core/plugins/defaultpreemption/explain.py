"""DefaultPreemption's explanation for the dashboard, built from its PostFilter trace.

Not an upstream file: it turns what the Evaluator recorded (``preemption.PreemptionTrace``)
into JSON (candidates with their victims and PDB violations, why each candidate lost
against the chosen one, the evictions and the nominations cleared).
"""
from __future__ import annotations

import math
from itertools import compress, repeat
from operator import is_, not_

from ...framework.interface import Status
from ...k8s.types import Pod
from ...trace import MAX_NODE_NAMES, rejected_json
from .candidates import CRITERION_FIRST, Candidate, Elimination, pod_start_time
from .preemption import PreemptionTrace, WalkStatuses


def _victim_json(p: Pod) -> dict:
    start = pod_start_time(p)
    return {"pod": p.key, "priority": p.priority,
            "startTime": None if math.isinf(start) else start}


def _value_json(v: float) -> float | int | None:
    if isinstance(v, float) and math.isinf(v):
        return None
    return v


def _lost_json(e: Elimination | None, chosen: str) -> dict | None:
    if e is None:
        return None
    if e.criterion == CRITERION_FIRST:
        return {"criterion": e.criterion, "against": chosen}
    return {"criterion": e.criterion, "against": chosen,
            "value": _value_json(e.value), "chosenValue": _value_json(e.best)}


def _candidate_json(c: Candidate, trace: PreemptionTrace,
                    lost: dict[str, Elimination]) -> dict:
    return {
        "node": c.name,
        "victims": [_victim_json(p) for p in c.victims],
        "numPDBViolations": c.num_pdb_violations,
        "pdbViolations": {k: list(v) for k, v in c.pdb_violations.items()},
        "chosen": c.name == trace.chosen,
        "lost": _lost_json(lost.get(c.name), trace.chosen),
    }


def _rejected(trace: PreemptionTrace) -> list[dict]:
    """Dry runs that found no victims, grouped by verdict (nodes in dry-run order)."""
    statuses = trace.node_statuses
    if not statuses:
        return []
    if isinstance(statuses, WalkStatuses):  # (as the walk left them: no dict of every node)
        groups = statuses.groups(MAX_NODE_NAMES)
        if groups is not None:
            return rejected_json(groups)
    # Most nodes share one Status object: the nodes are grouped by the object's identity, those
    # of the most common object (in the first few) in one pass in C, not by hashing a Status
    # per node (that walks its reasons); groups of equal verdicts in distinct objects are then
    # merged, each keeping its nodes in dry-run order.
    names, values = list(statuses), list(statuses.values())
    sample = values[:64]
    common = max({id(st): st for st in sample}.values(), key=lambda st: sum(map(is_, sample, repeat(st))))
    same = list(map(is_, values, repeat(common)))
    by_object: dict[int, list[str]] = {id(common): list(compress(names, same))}
    objects: dict[int, Status] = {id(common): common}
    for name, st in compress(zip(names, values), map(not_, same)):
        group = by_object.get(id(st))
        if group is None:
            group = by_object[id(st)] = []
            objects[id(st)] = st
        group.append(name)
    if len(objects) == 1:
        return rejected_json([(common, len(names), names)])
    groups: dict[Status, list[int]] = {}
    for key, st in objects.items():
        groups.setdefault(st, []).append(key)
    out = []
    for st, keys in groups.items():
        if len(keys) == 1:
            group = by_object[keys[0]]
        else:
            merged = set(keys)
            group = [n for n, s in statuses.items() if id(s) in merged]
        out.append((st, len(group), group))
    return rejected_json(out)


def trace_to_json(trace: PreemptionTrace) -> dict:
    """The ``plugins.DefaultPreemption`` entry of a cycle's trace (node lists bounded by
    trace.MAX_NODE_NAMES; the counts are complete): worked out once per trace, each caller
    getting a dict of its own (the lists in it are shared, and not to be changed)."""
    if trace.written is None:
        trace.written = _trace_json(trace)
    return dict(trace.written)


def _trace_json(trace: PreemptionTrace) -> dict:
    lost = {e.node: e for e in trace.eliminations}
    return {
        "eligible": trace.eligible,
        "ineligibleReason": trace.ineligible_reason,
        "potentialNodes": list(trace.potential_nodes[:MAX_NODE_NAMES]),
        "potentialNodeCount": len(trace.potential_nodes),
        "offset": trace.offset,
        "numCandidates": trace.num_candidates,
        "pdbs": [{"pdb": p.key, "disruptionsAllowed": p.disruptions_allowed,
                  "computed": p.computed} for p in trace.pdbs],
        "evaluated": list(trace.evaluated[:MAX_NODE_NAMES]),
        "evaluatedCount": len(trace.evaluated),
        "rejectedNodes": _rejected(trace),
        "candidates": [_candidate_json(c, trace, lost) for c in trace.candidates],
        "chosen": trace.chosen or None,
        "decidedBy": trace.decided_by or None,
        "evictions": list(trace.evictions),
        "clearedNominations": list(trace.cleared_nominations),
    }
