"""Comparing two engine results: pure functions over their JSON."""

ZONE_KEY = "topology.kubernetes.io/zone"


def placements(result):
    """{pod: node or None} from a result's `pods` rows."""
    return {row["pod"]: row.get("node") or None for row in (result or {}).get("pods", [])}


def counts(result):
    p = placements(result)
    scheduled = sum(1 for n in p.values() if n)
    return {"pods": len(p), "scheduled": scheduled, "pending": len(p) - scheduled}


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
    """{domain: scheduled pods on nodes with that label value}; nodes without the label are '(none)'."""
    labels = node_labels(result)
    out = {}
    for name, l in labels.items():
        out.setdefault(l.get(key, "(none)"), 0)
    for pod, node in placements(result).items():
        if node:
            d = labels.get(node, {}).get(key, "(none)")
            out[d] = out.get(d, 0) + 1
    return out


def compare(a, b, key=ZONE_KEY):
    """What changed from result `a` to result `b`."""
    pa, pb = placements(a), placements(b)
    moved, became_pending, got_scheduled, only_a, only_b = [], [], [], [], []
    unchanged = 0
    for pod in sorted(set(pa) | set(pb)):
        if pod not in pb:
            only_a.append({"pod": pod, "node": pa[pod]})
        elif pod not in pa:
            only_b.append({"pod": pod, "node": pb[pod]})
        elif pa[pod] == pb[pod]:
            unchanged += 1
        elif pa[pod] and not pb[pod]:
            became_pending.append({"pod": pod, "from": pa[pod]})
        elif not pa[pod] and pb[pod]:
            got_scheduled.append({"pod": pod, "to": pb[pod]})
        else:
            moved.append({"pod": pod, "from": pa[pod], "to": pb[pod]})
    da, db = domain_counts(a, key), domain_counts(b, key)
    domains = [{"domain": d, "a": da.get(d), "b": db.get(d)} for d in sorted(set(da) | set(db))]
    return {
        "a": counts(a), "b": counts(b), "moved": moved, "became_pending": became_pending,
        "got_scheduled": got_scheduled, "only_a": only_a, "only_b": only_b, "unchanged": unchanged,
        "key": key, "domains": domains, "keys": topology_keys(a, b),
    }


def max_skew(result, pod_labels=None):
    """Per spread constraint seen in the result's pods: max − min matching pods over its domains.

    Counting only: the constraints are the engine's list of those the pods carry
    ("spreadConstraints") and those its explanations show (cluster defaults included),
    the pods come from the final node placements.
    """
    labels = node_labels(result)
    by_node = {}
    for pod, node in placements(result).items():
        if node:
            by_node.setdefault(node, []).append(pod)
    pod_labels = pod_labels or {}
    out = {}
    constraints = list((result or {}).get("spreadConstraints") or [])
    for explained in ((result or {}).get("explanations") or {}).values():
        explain = (explained.get("plugins") or {}).get("PodTopologySpread") or {}
        constraints += explain.get("constraints", []) or []
    for c in constraints:
        key = c.get("topologyKey")
        if not key:
            continue
        name = f"{key} ({c.get('selector') or 'all pods'})"
        if name in out:
            continue
        domains = {}
        for node, l in labels.items():
            if key in l:
                domains.setdefault(l[key], 0)
        selector = c.get("selector") or c.get("labelSelector")
        for node, ps in by_node.items():
            d = labels.get(node, {}).get(key)
            if d is None:
                continue
            for pod in ps:
                if _matches(selector, pod_labels.get(pod)):
                    domains[d] += 1
        if domains:
            out[name] = max(domains.values()) - min(domains.values())
    return out


def _matches(selector, labels):
    """`selector` as the explain prints it ("app=api,tier=web"); other forms count every pod."""
    if labels is None or not isinstance(selector, str):
        return True
    for term in selector.split(","):
        if "=" not in term or any(op in term for op in ("!=", " in ", " notin ")):
            return True
        k, v = (x.strip() for x in term.split("=", 1))
        if labels.get(k) != v.lstrip("="):
            return False
    return True
