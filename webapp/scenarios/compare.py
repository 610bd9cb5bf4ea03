"""Comparing two engine results: pure functions over their JSON. Every count is the engine's."""

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


def domain_counts(result, key):
    """{domain: pods on its nodes at the end of the run}, as the engine counted them ("podsPerDomain"); pods on
    nodes without the label are under '(none)' when there are such nodes. {} for a result stored before."""
    found = ((result or {}).get("podsPerDomain") or {}).get(key)
    if found is None:
        return {}
    out = dict(found.get("domains") or {})
    labels = node_labels(result)
    if any(key not in (l or {}) for l in labels.values()):
        out[NO_LABEL] = found.get("withoutLabel", 0)
    return out


def compare(a, b, key=ZONE_KEY):
    """What changed from result `a` to result `b`, over every pod either places (running before the run
    included). A pod only in `b` that `b` scheduled counts as got scheduled ("new": true); a pod `a` left
    running and `b` preempted is displaced."""
    pa, pb = final_states(a), final_states(b)
    moved, became_pending, got_scheduled, only_a, only_b, displaced = [], [], [], [], [], []
    unchanged = 0
    for pod in sorted(set(pa) | set(pb)):
        (na, _), (nb, evicted_b) = pa.get(pod, (None, False)), pb.get(pod, (None, False))
        if pod not in pb:
            only_a.append({"pod": pod, "node": na})
        elif pod not in pa:
            if nb:
                got_scheduled.append({"pod": pod, "to": nb, "new": True})
            else:
                only_b.append({"pod": pod, "node": nb})
        elif na == nb:
            unchanged += 1
        elif na and not nb:
            (displaced if evicted_b else became_pending).append({"pod": pod, "from": na})
        elif not na and nb:
            got_scheduled.append({"pod": pod, "to": nb})
        else:
            moved.append({"pod": pod, "from": na, "to": nb})
    da, db = domain_counts(a, key), domain_counts(b, key)
    domains = [{"domain": d, "a": da.get(d), "b": db.get(d)} for d in sorted(set(da) | set(db))]
    return {
        "a": counts(a), "b": counts(b), "moved": moved, "became_pending": became_pending,
        "got_scheduled": got_scheduled, "only_a": only_a, "only_b": only_b, "displaced": displaced,
        "unchanged": unchanged, "key": key, "domains": domains, "keys": topology_keys(a, b),
    }


def max_skew(result):
    """Per spread constraint ("topologyKey (selector)"): the largest skew the engine found at the end of the
    run ("spreadDomains": pods the selector matches per domain, bound-before pods included)."""
    out = {}
    for entry in (result or {}).get("spreadDomains") or []:
        name = f"{entry.get('topologyKey')} ({entry.get('selector') or 'all pods'})"
        out[name] = max(out.get(name, 0), entry.get("skew", 0))
    return out


def skew_changes(before, after):
    """Per spread constraint of either run: its skew at the end of each ("before" / "after", None where the
    constraint is not in that run), as the engine counted it; the changed ones first."""
    a, b = max_skew(before), max_skew(after)
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
