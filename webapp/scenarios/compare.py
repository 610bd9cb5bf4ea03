"""Comparing two engine results: pure functions over their JSON. Every count is the engine's."""
import base64
from collections import Counter
from itertools import chain

import numpy as np

ZONE_KEY = "topology.kubernetes.io/zone"
NO_LABEL = "(none)"


def placements(result):
    """{pod: node or None} from a result's `pods` rows (the pods pending at the start)."""
    return {row["pod"]: row.get("node") or None for row in (result or {}).get("pods", [])}


def final_states(result):
    """{pod: (node or None, evicted)} of every pod the result places: the pods pending at the start and those
    running before the run ("boundPods": their node at the end, None once preempted)."""
    out = {row["pod"]: (row.get("node") or None, bool(row.get("evicted")))
           for row in (result or {}).get("pods", [])}
    for b in (result or {}).get("boundPods") or []:
        out[b["pod"]] = (b.get("node") or None, bool(b.get("evicted")))
    return out


def counts(result):
    """Pods pending at the start (scheduled / still pending), pods running before the run and how many of
    those were preempted: the engine's "counts" (rows counted here only in a result stored before it gave them)."""
    found = (result or {}).get("counts")
    if found is not None:
        return {"pods": found["pendingAtStart"], "scheduled": found["scheduled"], "pending": found["pendingAtEnd"],
                "running_before": found["boundBefore"], "evicted": found["boundBeforeEvicted"]}
    p = placements(result)
    scheduled = sum(1 for n in p.values() if n)
    bound = (result or {}).get("boundPods") or []
    return {"pods": len(p), "scheduled": scheduled, "pending": len(p) - scheduled,
            "running_before": len(bound), "evicted": sum(1 for b in bound if b.get("evicted"))}


def node_labels(result):
    nodes = (result or {}).get("nodes", [])
    if isinstance(nodes, dict):
        return {name: (n or {}).get("labels", {}) for name, n in nodes.items()}
    return {n.get("name"): n.get("labels", {}) for n in nodes}


def topology_keys(*results):
    keys = set()
    for r in results:
        for labels in node_labels(r).values():
            keys.update(labels)
    return sorted(keys)


def _key_counts(result):
    """(how many nodes the result has, {label key: how many of them have it})."""
    labels = node_labels(result)
    return len(labels), Counter(chain.from_iterable(l or {} for l in labels.values()))


def domain_counts(result, key, key_counts=None):
    """{domain: pods on its nodes at the end of the run}, as the engine counted them ("podsPerDomain"); pods on
    nodes without the label are under '(none)' when there are such nodes. {} for a result stored before.
    ``key_counts``: _key_counts(result), when the caller asks for several keys."""
    found = ((result or {}).get("podsPerDomain") or {}).get(key)
    if found is None:
        return {}
    out = dict(found.get("domains") or {})
    nodes, having = key_counts or _key_counts(result)
    if having[key] < nodes:
        out[NO_LABEL] = found.get("withoutLabel", 0)
    return out


def compare(a, b, key=ZONE_KEY):
    """What changed from result `a` to result `b` (compare_facts of their final_facts)."""
    return compare_facts(final_facts(a), final_facts(b), key)


def final_facts(result):
    """What a comparison reads of a run's result, packed (the worker keeps it beside every run it stores,
    RunPage.data["compare"]: 5.6 MB of JSON at 150,000 pods, where the result is 140 MB, and this as {pod: node}
    took a web process half a second to decode): "pods", every pod the result places, sorted, as one string of lines (a
    list if a name holds a line break); "nodes", the nodes they end on, sorted; "at", each pod's index in "nodes"
    (-1: pending, or preempted) as base64 of little-endian int32; "evicted", the pods evicted; and "counts",
    "keys" (topology_keys), "domains" ({key: domain_counts} of each key the engine counted pods per domain of),
    "skew" (max_skew)."""
    states = final_states(result)
    key_counts = _key_counts(result)  # (the nodes' labels read once)
    pods = sorted(states)
    nodes = sorted({node for node, _ in states.values() if node})
    index = {node: i for i, node in enumerate(nodes)}
    at = np.fromiter((index.get(states[pod][0], -1) for pod in pods), dtype="<i4", count=len(pods))
    return {
        "pods": pods if any("\n" in pod for pod in pods) else "\n".join(pods),
        "nodes": nodes,
        "at": base64.b64encode(at.tobytes()).decode(),
        "evicted": [pod for pod in pods if states[pod][1]],
        "counts": counts(result),
        "keys": sorted(key_counts[1]),
        "domains": {k: domain_counts(result, k, key_counts) for k in sorted((result or {}).get("podsPerDomain") or {})},
        "skew": max_skew(result),
    }


def _unpacked(facts):
    """(pods, node names, each pod's index among them or -1) of final_facts."""
    pods = facts["pods"]
    if isinstance(pods, str):
        pods = pods.split("\n") if pods else []
    return pods, facts["nodes"], np.frombuffer(base64.b64decode(facts["at"]), dtype="<i4")


def compare_facts(a, b, key=ZONE_KEY):
    """What changed from run `a` to run `b`, given their final_facts, over every pod either places (running
    before the run included). A pod only in `b` that `b` scheduled counts as got scheduled ("new": true); a pod
    `a` left running and `b` preempted is displaced."""
    (pods_a, nodes_a, at_a), (pods_b, nodes_b, at_b) = _unpacked(a), _unpacked(b)
    evicted_b = set(b["evicted"])
    moved, became_pending, got_scheduled, only_a, only_b, displaced = [], [], [], [], [], []
    if a["pods"] == b["pods"]:  # the same pods (an edit that adds or removes none): compare the arrays
        in_b = {node: i for i, node in enumerate(nodes_b)}
        # each pod's node in a as an index into b's nodes (-2: b has no such node; the last entry keeps -1, pending)
        a_in_b = np.array([in_b.get(node, -2) for node in nodes_a] + [-1], dtype="<i4")[at_a]
        differ = np.flatnonzero(a_in_b != at_b)
        unchanged = len(pods_b) - len(differ)
        changes = [(pods_b[i], _name(nodes_a, at_a[i]), _name(nodes_b, at_b[i]), True, True) for i in differ]
    else:
        pa = dict(zip(pods_a, (_name(nodes_a, i) for i in at_a.tolist())))
        pb = dict(zip(pods_b, (_name(nodes_b, i) for i in at_b.tolist())))
        differ = {pod for pod, _ in pb.items() - pa.items()}  # in b only, or on another node
        unchanged = len(pb) - len(differ)
        changes = [(pod, pa.get(pod), pb.get(pod), pod in pa, pod in pb)
                   for pod in sorted(differ | (pa.keys() - pb.keys()))]
    for pod, na, nb, in_a, in_b in changes:
        if not in_b:
            only_a.append({"pod": pod, "node": na})
        elif not in_a:
            if nb:
                got_scheduled.append({"pod": pod, "to": nb, "new": True})
            else:
                only_b.append({"pod": pod, "node": nb})
        elif na and not nb:
            (displaced if pod in evicted_b else became_pending).append({"pod": pod, "from": na})
        elif not na and nb:
            got_scheduled.append({"pod": pod, "to": nb})
        else:
            moved.append({"pod": pod, "from": na, "to": nb})
    da, db = a["domains"].get(key) or {}, b["domains"].get(key) or {}
    domains = [{"domain": d, "a": da.get(d), "b": db.get(d)} for d in sorted(set(da) | set(db))]
    return {
        "a": a["counts"], "b": b["counts"], "moved": moved, "became_pending": became_pending,
        "got_scheduled": got_scheduled, "only_a": only_a, "only_b": only_b, "displaced": displaced,
        "unchanged": unchanged, "key": key, "domains": domains, "keys": sorted(set(a["keys"]) | set(b["keys"])),
    }


def _name(nodes, i):
    return nodes[i] if i >= 0 else None


def max_skew(result):
    """Per spread constraint ("topologyKey (selector)"): the largest skew the engine found at the end of the
    run ("spreadDomains": pods the selector matches per domain, bound-before pods included)."""
    out = {}
    for entry in (result or {}).get("spreadDomains") or []:
        name = f"{entry.get('topologyKey')} ({entry.get('selector') or 'all pods'})"
        out[name] = max(out.get(name, 0), entry.get("skew", 0))
    return out


def skew_changes(before, after):
    """Per spread constraint of either run (given max_skew of each): its skew at the end of each ("before" /
    "after", None where the constraint is not in that run), as the engine counted it; the changed ones first."""
    a, b = before, after
    rows = [{"constraint": name, "before": a.get(name), "after": b.get(name)} for name in sorted(set(a) | set(b))]
    return sorted(rows, key=lambda r: r["before"] == r["after"])


def cell_summary(result):
    """A run's counts (as `counts` gives them) and {"skew": {constraint: skew at the end}}, all the engine's
    numbers. The worker keeps it with every run it finishes, so that pages that show only these (a sweep's table,
    polled while the sweep runs; the draft editor's two runs) read neither the runs' texts nor their results."""
    return {**counts(result), "skew": max_skew(result)}


def counts_of(run, result_of):
    """`counts` of a finished run: from the summary kept with it, else from its result (`result_of(run)`; a run
    stored before every run kept one)."""
    found = run.summary
    if found is not None and "running_before" in found:
        return {k: found[k] for k in ("pods", "scheduled", "pending", "running_before", "evicted")}
    result = result_of(run)
    return counts(result) if result else None
