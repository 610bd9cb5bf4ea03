"""View models of a run result: domains, chips, bars, sentences.

Pure functions over the engine's result dict: pod metadata ("podInfo"), final counts and skews
("spreadDomains", "podsPerDomain"), scores with weights. They only read the recorded trace; nothing
here recounts or recomputes scheduling. The topology "after step N" replays recorded events to draw
the chips; its domain totals are the engine's ("podsPerDomainAtStart" and each cycle's "podsPerDomain").
"""

import hashlib
from collections.abc import Mapping

from .templatetags import units

ZONE_KEY = "topology.kubernetes.io/zone"
PREFERRED_KEYS = [ZONE_KEY, "kubernetes.io/hostname", "topology.kubernetes.io/region"]
SHORT_KEYS = {ZONE_KEY: "zone", "kubernetes.io/hostname": "hostname", "topology.kubernetes.io/region": "region"}
# Colour-blind friendly, readable with dark text.
PALETTE = ["#8dd3c7", "#ffd92f", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69",
           "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"]
RESOURCES = ("cpu", "memory", "pods")
NO_DOMAIN = "(no label)"


def pod_meta(result):
    """{"ns/name": {labels, owner, workload, priority, spread, gates, node}} of every pod, as the engine recorded
    it in the result ("podInfo"), or None for a result stored before the engine recorded it."""
    info = (result or {}).get("podInfo")
    if info is None:
        return None
    return PodMeta(info, result)


class PodMeta(Mapping):
    """pod_meta's mapping: each pod's entry made the first time a page asks for it (a page shows a few of a
    production cluster's 150,000 pods; making every entry took a second). The result's "boundPods" (where each
    entry's "node" comes from) is read then: a page drawing chips by workload does not read it."""

    def __init__(self, info, result):
        self._info, self._result, self._start, self._made = info, result, None, {}
        self._workloads = {}  # pod -> its workload as the engine named it, read for many pods together

    def want_workloads(self, pods):
        """A page is about to colour these pods by workload: read their workloads together (without the rest of
        their entries when the result is read by parts)."""
        fields_of = getattr(self._info, "fields_of", None)
        if fields_of is not None:
            self._workloads.update(fields_of([p for p in pods if p not in self._workloads], "workload"))

    def workload(self, pod):
        """The pod's workload as the engine named it ("" when it did not)."""
        found = self._workloads.get(pod)
        return found if found is not None else self.engine_entry(pod).get("workload") or ""

    def __getitem__(self, pod):
        found = self._made.get(pod)
        if found is None:
            i = self._info[pod]
            if i.get("boundBeforeRun") is False:  # (a pod pending at the start: no node, and no boundPods read)
                node = ""
            else:
                if self._start is None:
                    self._start = {b["pod"]: b.get("startNode") or "" for b in self._result.get("boundPods") or []}
                node = self._start.get(pod, "")
            found = self._made[pod] = {**i, "spread": bool(i.get("spread")), "gates": i.get("gates") or [],
                                       "node": node}
        return found

    def want(self, pods):
        """A page is about to ask for these pods' entries: read them together when the result is read by parts."""
        prefetch = getattr(self._info, "prefetch", None)
        if prefetch is not None:
            prefetch(pods)

    def engine_entry(self, pod):
        """The pod's "podInfo" entry as the engine wrote it ({} for a pod it does not name)."""
        return self._info.get(pod) or {}

    def __iter__(self):
        return iter(self._info)

    def __len__(self):
        return len(self._info)

    def __bool__(self):  # (without counting the entries of a result read by parts)
        return bool(self._info)


def short_key(key):
    return SHORT_KEYS.get(key, key)


def workload_of(pod, meta=None):
    """A pod's workload: its controller owner, else its app label, else the pod itself."""
    if isinstance(meta, PodMeta):
        found = meta.workload(pod)
        if found:  # the engine's own naming
            return found
        info = meta.engine_entry(pod)
    else:
        info = (meta or {}).get(pod) or {}
    if info.get("workload"):  # the engine's own naming
        return info["workload"]
    if info.get("owner"):
        return info["owner"]
    labels = info.get("labels") or {}
    for label in ("app.kubernetes.io/name", "app"):
        if labels.get(label):
            return f"{label}={labels[label]}"
    return pod.split("/", 1)[-1]


def colour(workload):
    """A stable colour per workload name (the same in every run and page)."""
    return PALETTE[int(hashlib.sha1(workload.encode()).hexdigest(), 16) % len(PALETTE)]


def chip(pod, meta=None, status="placed"):
    workload = workload_of(pod, meta)
    namespace, _, name = pod.partition("/")
    return {"pod": pod, "namespace": namespace, "name": name, "workload": workload,
            "colour": colour(workload), "status": status}


def topology_keys(result):
    """Label keys present on nodes, the usual topology keys first."""
    keys = set()
    for node in result.get("nodes", []):
        keys.update((node.get("labels") or {}).keys())
    return [k for k in PREFERRED_KEYS if k in keys] + sorted(keys - set(PREFERRED_KEYS))


def cycles(result):
    return sorted(result.get("cycles", []), key=lambda c: c.get("cycle", 0))


def last_step(result):
    return max([c.get("cycle", 0) for c in result.get("cycles", [])] + [0])


def placements(result, step=None):
    """{node: [pods]} and the pods still pending, finally or right after cycle `step`.

    For a step, the recorded events are replayed from the initial state: the final
    placement minus the pods the events bound, plus the pods they preempted.
    """
    nodes = {n["name"]: list(n.get("pods", [])) for n in result.get("nodes", [])}
    pending_rows = [r["pod"] for r in result.get("pods", [])]
    if step is None:
        pending = [r["pod"] for r in result.get("pods", []) if not r.get("node")]
        return nodes, pending
    events = sorted(result.get("events", []), key=lambda e: e.get("seq", 0))
    for event in reversed(events):
        pods = nodes.setdefault(event.get("node") or "", [])
        if event.get("reason") == "Scheduled" and event["pod"] in pods:
            pods.remove(event["pod"])
        elif event.get("reason") == "Preempted" and event.get("node"):
            pods.append(event["pod"])
    for event in events:
        if event.get("cycle", 0) > step:
            break
        pods = nodes.setdefault(event.get("node") or "", [])
        if event.get("reason") == "Scheduled":
            pods.append(event["pod"])
        elif event.get("reason") == "Preempted" and event["pod"] in pods:
            pods.remove(event["pod"])
    nodes.pop("", None)
    placed = {p for pods in nodes.values() for p in pods}
    return nodes, [p for p in pending_rows if p not in placed]


def pending_statuses(result, step=None):
    """{pod: its outcome}, or at a step {pod: its latest attempt's result so far}; a pod missing
    (or without a result) is "Pending". One pass, so a tray of thousands of pods costs no more."""
    if step is None:
        return {r["pod"]: r.get("outcome") for r in result.get("pods", [])}
    out = {}
    for c in cycles(result):
        if c.get("cycle", 0) <= step and c.get("pod"):
            out[c["pod"]] = c.get("result")
    return out


def topology(result, key=ZONE_KEY, meta=None, step=None, limit=None, keep=(), tray_limit=None, final=None,
             workloads=None):
    """Domains (columns) of `key` with their nodes and pod chips, a pending tray and a legend. With `limit`, a
    domain draws its first `limit` nodes, those in `keep` and those with nominated pods (the rest are counted);
    with `tray_limit`, the tray holds at most that many pods, those attempted (or gated) first. `final`: the
    engine's final counts of one spread constraint on `key` (final_spreads), shown per domain at the run's end.
    `workloads`: the legend's (topology_facts' "workloads", else worked out here)."""
    placed, pending = placements(result, step)
    pending_total = len(pending)
    nominated_pods, nominated_nodes = nominations(result, step)
    domains = {}
    for node in result.get("nodes", []):
        value = (node.get("labels") or {}).get(key, NO_DOMAIN)
        domains.setdefault(value, []).append(node)
    engine_counts = pods_per_domain(result, key) if step is None else pods_per_domain_at(result, key, step)
    shown_of = {}  # domain -> its nodes drawn
    for name, nodes in sorted(domains.items(), key=lambda kv: (kv[0] == NO_DOMAIN, kv[0])):
        shown_of[name] = nodes if limit is None or len(nodes) <= limit else [
            node for i, node in enumerate(nodes)
            if i < limit or node["name"] in keep or node["name"] in nominated_nodes]
    status = pending_statuses(result, step)
    if tray_limit is not None and len(pending) > tray_limit:
        pending = sorted(pending, key=lambda p: (status.get(p) or "Pending") == "Pending")[:tray_limit]
    if isinstance(meta, PodMeta):  # (the pods drawn: their workloads, read together)
        drawn_pods = [p for shown in shown_of.values() for node in shown for p in placed.get(node["name"], [])]
        meta.want_workloads(drawn_pods + pending)
    columns = []
    for name, shown in shown_of.items():
        nodes = domains[name]
        count = (engine_counts or {}).get(name)
        drawn = [{
            "name": node["name"], "cordoned": bool(node.get("unschedulable")),
            "tainted": bool(node.get("taints")), "nominated": nominated_nodes.get(node["name"], []),
            "chips": [chip(p, meta) for p in placed.get(node["name"], [])],
        } for node in shown]
        matching = None
        if final is not None and step is None and name != NO_DOMAIN:
            matching = next((d for d in final["domains"] if d["name"] == name), None)
        columns.append({"name": name, "nodes": drawn, "count": count, "missing": name == NO_DOMAIN,
                        "matching": matching,
                        "hidden": len(nodes) - len(drawn),
                        "hidden_pods": None if count is None else count - sum(len(n["chips"]) for n in drawn)})
    zones = volume_zones(result)
    tray = [dict(chip(p, meta, status=status.get(p) or "Pending"), nominated=nominated_pods.get(p, ""),
                 volume_zones=zones.get(p, [])) for p in pending]
    if key in (ZONE_KEY, "failure-domain.beta.kubernetes.io/zone"):
        for column in columns:  # the volumes living in this zone, by the pod that mounts them
            column["volumes"] = sorted(p for p, zs in zones.items() if column["name"] in zs)
    if workloads is None:
        workloads = legend_workloads(result, meta)
    return {"key": key, "short_key": short_key(key), "step": step, "domains": columns, "pending": tray,
            "final": final if step is None else None,
            "legend": [{"workload": w, "colour": colour(w)} for w in workloads],
            "pending_total": pending_total,
            "capped": any(column["hidden"] for column in columns) or len(tray) < pending_total}


def legend_workloads(result, meta=None):
    """The workloads of every pod of the cluster, sorted: those the engine names (its pod metadata), and those of
    the pods on its nodes or pending (every pod, drawn or not, at any step of the run)."""
    found = {workload_of(p, meta) for p in (meta or {})}
    found.update(workload_of(p, meta) for node in result.get("nodes", []) for p in node.get("pods", []))
    found.update(workload_of(row["pod"], meta) for row in result.get("pods", []))
    return sorted(found)


def topology_facts(result, meta=None):
    """What the topology and timeline pages read of every pod, worked out once per run (the worker keeps it beside
    the run: run_page.py), so that a page drawing a few hundred nodes of a production cluster reads neither every
    pod's metadata nor every explanation: the legend's workloads, the pods whose spread constraints the pages
    offer (spread_candidates), the one shown first (default_spread_pod) and the last cycle."""
    if meta is None:
        meta = pod_meta(result) or {}
    return {"workloads": legend_workloads(result, meta), "spreadCandidates": spread_candidates(result, meta),
            "defaultSpreadPod": default_spread_pod(result, meta), "lastStep": last_step(result)}


def stepped_keys(result):
    """The label keys whose per-domain counts the engine kept cycle by cycle (None: a result stored before)."""
    found = (result or {}).get("podsPerDomainAtStart")
    return None if found is None else list(found)


def pods_per_domain_at(result, key, step):
    """{domain: pods on its nodes right after cycle `step`} of one label key, as the engine recorded it (the
    counts at the start, then each cycle's changed domains), or None when it kept no counts for `key`."""
    start = ((result or {}).get("podsPerDomainAtStart") or {}).get(key)
    if start is None:
        return None
    counts = dict(start)
    for c in cycles(result):
        if c.get("cycle", 0) > step:
            break
        counts.update((c.get("podsPerDomain") or {}).get(key) or {})
    return counts


def pods_per_domain(result, key):
    """{domain: pods on its nodes at the end of the run} of one label key as the engine counted them ("podsPerDomain";
    nodes without the key under NO_DOMAIN), or None for a result stored before the engine recorded it."""
    found = (result or {}).get("podsPerDomain")
    if found is None:
        return None
    entry = found.get(key) or {"domains": {}, "withoutLabel": 0}
    return {**entry["domains"], NO_DOMAIN: entry["withoutLabel"]}


def explanations(result):
    """{pod: its latest cycle explained} (the engine's "explanations"; empty without detail)."""
    return (result or {}).get("explanations") or {}


def spread_of(explained):
    return ((explained or {}).get("plugins") or {}).get("PodTopologySpread") or {}


def spread_pods(result):
    """Pods whose latest cycle has a PodTopologySpread explanation with constraints."""
    return sorted(p for p, e in explanations(result).items() if spread_of(e).get("constraints"))


def spread_candidates(result, meta=None, limit=200):
    """Pods to show spread constraints for: those with an explanation that has them, then
    the latest attempted pod of each workload whose spec has some (explained on demand)."""
    pods = spread_pods(result)
    seen = {workload_of(p, meta) for p in pods}
    for c in reversed(cycles(result)):
        pod = c.get("pod")
        info = (meta or {}).get(pod) or {}
        if pod and info.get("spread") and workload_of(pod, meta) not in seen:
            seen.add(workload_of(pod, meta))
            pods.append(pod)
    return pods[:limit]


def default_spread_pod(result, meta=None):
    """The pod whose constraints the topology shows by default: a pending pod with an
    explanation, else the latest attempted pod whose spec has spread constraints."""
    pod, _, constraints = spread_constraints(result)
    if constraints:
        return pod
    for c in reversed(cycles(result)):
        if ((meta or {}).get(c.get("pod")) or {}).get("spread"):
            return c.get("pod")
    return None


def spread_constraints(result, pod=None):
    """(pod, explanation, constraints) of the pod's latest cycle with a PodTopologySpread explain.

    Without a pod: the latest such cycle of a pod left pending, else of any pod.
    """
    if pod:  # (its entry alone: a large result's explanations are read an entry at a time)
        explained = explanations(result).get(pod)
        found = {pod: explained} if spread_of(explained).get("constraints") else {}
    else:
        found = {p: e for p, e in explanations(result).items() if spread_of(e).get("constraints")}
        pending = {r["pod"] for r in result.get("pods", []) if not r.get("node")}
        found = {p: e for p, e in found.items() if p in pending} or found
    if not found:
        return None, None, []
    pod, explained = max(found.items(), key=lambda kv: kv[1].get("cycle", 0))
    return pod, explained, spread_of(explained)["constraints"]


def spread_not_evaluated(result, pod):
    """Why the pod's latest cycle, explained, shows no spread constraint ("" when it has no
    explanation): ScheduleAnyway constraints only count while scoring, which kube-scheduler
    skips with fewer than two feasible nodes."""
    explained = explanations(result).get(pod)
    if not explained:
        return ""
    feasible, cycle = explained.get("feasible"), explained.get("cycle")
    if feasible == 1:
        why = "only one node was feasible, so kube-scheduler did not score"
    elif feasible == 0:
        why = "no node passed Filter, so nothing was scored"
    else:
        why = "its constraints did not apply in it"
    return (f"The last cycle of {pod} (cycle {cycle}) evaluated no spread constraint: {why}, "
            f"and ScheduleAnyway constraints count only while scoring.")


def _names(group):
    """"a, b, c" or "a, b and 98 more" for a group of nodes listed by name."""
    names = list(group.get("nodes") or [])
    more = (group.get("count") or len(names)) - len(names)
    shown = ", ".join(names[:5])
    more += max(len(names) - 5, 0)
    return f"{shown} and {more} more" if more > 0 else shown


def spread_view(constraint, result):
    """One PodTopologySpread constraint as a cycle saw it (the pod's explanation): per domain the engine's
    matching count and the skew placing the pod there would make, and whether the domain was counted."""
    key = constraint.get("topologyKey", "")
    minimum = constraint.get("globalMinimum", 0) or 0
    max_skew = constraint.get("maxSkew", 1)
    counts = constraint.get("domains") or {}
    skews = constraint.get("skews") or {}
    by_domain = constraint.get("ignoredByDomain") or {}
    node_values = {(n.get("labels") or {}).get(key) for n in result.get("nodes", [])} - {None}
    names = sorted(set(counts) | (node_values if len(node_values) <= 100 else set()))
    rows = []
    for name in names:
        skew = skews.get(name)
        why = [f"{n} node{'s' if n != 1 else ''}: {reason}"
               for reason, n in sorted((by_domain.get(name) or {}).items())]
        counted = name in counts
        rows.append({
            "name": name, "count": counts.get(name, 0), "skew": skew, "counted": counted,
            "fits": counted and bool((constraint.get("fitsMaxSkew") or {}).get(name)),
            "why": why or ([] if counted else ["no eligible node in this domain"]),
        })
    ignored_rows = [{"node": _names(g), "reason": g.get("reason", ""), "count": g.get("count", 0)}
                    for g in constraint.get("ignored") or []]
    band = constraint.get("bandTop")
    _bars(rows, band or 0)
    return {
        "key": key, "short_key": short_key(key), "maxSkew": max_skew, "minDomains": constraint.get("minDomains"),
        "whenUnsatisfiable": constraint.get("whenUnsatisfiable"), "selector": constraint.get("selector", ""),
        "selfMatch": constraint.get("selfMatch", 1), "globalMinimum": minimum, "band_max": band,
        "band_pct": None if band is None else _pct(band, rows, band), "domains": rows, "ignored": ignored_rows,
        "domain_count": constraint.get("domainCount", len(counts)),
        "domains_truncated": bool(constraint.get("domainsTruncated")),
        "min_domains_sentence": min_domains_sentence(constraint),
        "origin": constraint.get("origin", ""),
    }


def _bars(rows, band):
    top = _top(rows, band)  # (once: worked out per row, 5,000 hostname domains took 1.1 s)
    for row in rows:
        row["pct"] = round(100 * row["count"] / top)


def _top(rows, band):
    return max([r["count"] for r in rows] + [band, 1])


def _pct(value, rows, band):
    return round(100 * value / _top(rows, band))


def final_spreads(result, pod):
    """The pod's spread constraints at the end of the run, as the engine counted them ("spreadDomains"): per
    domain the pods the selector matches (bound-before pods included) and the skew, and the constraint's skew."""
    indices = (((result or {}).get("podInfo") or {}).get(pod) or {}).get("spread") or []
    entries = (result or {}).get("spreadDomains") or []
    return [final_spread_view(entries[i]) for i in indices if i < len(entries)]


def final_spread_view(entry):
    max_skew = entry.get("maxSkew", 1)
    over = set(entry.get("domainsOverMaxSkew") or ())
    rows = [{"name": name, "count": count, "skew": entry["skews"].get(name), "over": name in over}
            for name, count in (entry.get("domains") or {}).items()]
    _bars(rows, entry.get("bandTop") or 0)
    return {"key": entry.get("topologyKey", ""), "short_key": short_key(entry.get("topologyKey", "")),
            "selector": entry.get("selector", ""), "maxSkew": max_skew, "minDomains": entry.get("minDomains"),
            "whenUnsatisfiable": entry.get("whenUnsatisfiable"), "globalMinimum": entry.get("globalMinimum", 0),
            "skew": entry.get("skew", 0), "within": entry.get("withinMaxSkew", True),
            "forced_zero": entry.get("minDomainsForcedZero", False), "domains": rows,
            "workloads": entry.get("workloads") or []}


def listed_domains(view, limit):
    """A final_spread_view listing at most ``limit`` (None: all) of its domains (a hostname constraint of a 5,000-node cluster
    has 5,000): those over maxSkew first, then the others, each by name; ``domain_count`` says how many there
    are. The bars keep the scale of every domain."""
    rows = view["domains"]
    if limit is None or len(rows) <= limit:
        return {**view, "domain_count": len(rows), "domains_truncated": False}
    listed = ([r for r in rows if r["over"]] + [r for r in rows if not r["over"]])[:limit]
    return {**view, "domains": listed, "domain_count": len(rows), "domains_truncated": True}


def pending_groups(result, meta=None):
    """The pods the run left unscheduled, grouped by the engine's message (most pods first): each group with
    its pods, the message, and the causes read from the explanation of its first explained pod (the root
    cause first: a minDomains that forces the global minimum to 0, then each domain a constraint rejects)."""
    explained = explanations(result)
    groups = {}
    for row in result.get("pods", []):
        if row.get("outcome") == "Scheduled" or row.get("node"):
            continue
        message = row.get("message") or ("Held back by scheduling gates until they are removed."
                                         if row.get("outcome") == "Gated" else "Not scheduled.")
        group = groups.setdefault(message, {"message": message, "outcome": row.get("outcome"), "pods": [],
                                            "nominated": set(), "causes": []})
        group["pods"].append(row["pod"])
        if row.get("nominatedNode"):
            group["nominated"].add(row["nominatedNode"])
    for group in groups.values():
        first = next((p for p in group["pods"] if spread_of(explained.get(p) or {}).get("constraints")), None)
        roots, others = [], []
        for constraint in spread_of(explained.get(first) or {}).get("constraints") or []:
            sentence = min_domains_sentence(constraint)
            if sentence:
                roots.append(f"{constraint.get('topologyKey')}: {sentence}")
            others += spread_sentences(constraint, result)
        roots = list(dict.fromkeys(roots))
        group["causes"] = roots + [c for c in dict.fromkeys(others) if c not in roots]
        group["roots"] = len(roots)  # (the first causes: a minDomains that forces the global minimum to 0)
        group["explained_pod"] = first
        group["nominated"] = sorted(group["nominated"])
        group["priority"] = sorted({((meta or {}).get(p) or {}).get("priority", 0) for p in group["pods"]})
    return sorted(groups.values(), key=lambda g: (-len(g["pods"]), g["message"]))


def preempted(result, meta=None, preemptor=None):
    """[{pod, priority, node, preemptor, cycle}] of every pod the run evicted (or ``preemptor`` did), as its
    Preempted event says."""
    events = [e for e in result.get("events", []) if e.get("reason") == "Preempted"
              and (preemptor is None or e.get("preemptor") == preemptor)]
    if isinstance(meta, PodMeta):  # (their priorities, read together; the engine's entries are enough)
        meta.want([e["pod"] for e in events])
        info = meta.engine_entry
    else:
        def info(pod):
            return (meta or {}).get(pod) or {}
    return [{"pod": e["pod"], "priority": info(e["pod"]).get("priority"), "node": e.get("node"),
             "preemptor": e.get("preemptor"), "cycle": e.get("cycle")} for e in events]


def min_domains_sentence(constraint):
    if not constraint.get("minDomainsForcedZero"):
        return ""
    count = constraint.get("domainCount", len(constraint.get("domains") or {}))
    return (f"{count} of {constraint.get('minDomains')} domains: global minimum treated as 0 "
            f"(fewer eligible domains than minDomains).")


def spread_sentences(constraint, result=None):
    """One plain sentence per domain a DoNotSchedule constraint rejects (naming its nodes),
    and one for the nodes that lack its topology key."""
    if constraint.get("whenUnsatisfiable") != "DoNotSchedule":
        return []
    out = []
    topology_key = constraint.get("topologyKey", "")
    key = short_key(topology_key)
    max_skew = constraint.get("maxSkew", 1)
    counts = constraint.get("domains") or {}
    members = {}
    for node in (result or {}).get("nodes", []):
        value = (node.get("labels") or {}).get(topology_key)
        if value is not None:
            members.setdefault(value, []).append(node["name"])
    fits = constraint.get("fitsMaxSkew") or {}
    for domain, skew in sorted((constraint.get("skews") or {}).items()):
        if fits.get(domain, True):
            continue
        n = counts.get(domain, 0)
        nodes = members.get(domain, [])
        where = f" ({_names({'nodes': nodes, 'count': len(nodes)})})" if nodes and key != "hostname" else ""
        out.append(f"{key} {domain} already has {n} matching pod{'s' if n != 1 else ''}; "
                   f"placing the pod there{where} would make skew {skew} > maxSkew {max_skew}.")
    for group in constraint.get("ignored") or []:
        if group.get("reason", "").startswith("missing label"):
            n = group.get("count", 0)
            out.append(f"{n} node{'s' if n != 1 else ''} ({_names(group)}) "
                       f"{'have' if n != 1 else 'has'} no {constraint.get('topologyKey')} label, "
                       "so the constraint rejects them.")
    return out


def explanation(result, pod):
    """Why a pod landed where it did, or why it is pending: message, filter table, scores, sentences."""
    row = next((r for r in result.get("pods", []) if r["pod"] == pod), None)
    explained = explanations(result).get(pod)
    history = [c for c in cycles(result) if c.get("pod") == pod]
    if row is None and not history:
        return None
    explained = explained or {}
    groups = explained.get("rejected") or []
    plugins = sorted({g.get("plugin") for g in groups if g.get("plugin")})
    verdicts = {}
    for g in groups:
        for node in g.get("nodes") or []:
            verdicts[node] = g
    for node in explained.get("passed") or []:
        verdicts[node] = None
    table = []
    for node in sorted(verdicts):
        g = verdicts[node]
        cells = []
        for plugin in plugins:
            if g is not None and plugin == g.get("plugin"):
                cells.append({"verdict": g.get("code"), "reason": "; ".join(g.get("reasons") or []), "ok": False})
            else:
                cells.append({"verdict": "pass" if g is None else "", "reason": "", "ok": g is None})
        table.append({"node": node, "passed": g is None, "code": "Success" if g is None else g.get("code"),
                      "cells": cells, "reasons": "" if g is None else "; ".join(g.get("reasons") or [])})
    scores = explained.get("scores") or {}
    score_plugins = list(scores.get("plugins") or [])
    weights = scores.get("weights") or {}
    score_rows = [{"node": s["node"], "total": s.get("total"),
                   "plugins": [(s.get("plugins") or {}).get(p, "") for p in score_plugins],
                   "cells": [{"score": (s.get("plugins") or {}).get(p, ""),
                              "weighted": (s.get("weighted") or {}).get(p),
                              "raw": (s.get("raw") or {}).get(p)} for p in score_plugins]}
                  for s in scores.get("nodes") or []]
    sentences = []
    for constraint in spread_of(explained).get("constraints", []):
        sentences += spread_sentences(constraint, result)
        if constraint.get("minDomainsForcedZero"):
            sentences.append(min_domains_sentence(constraint))
    for g in groups:
        if g.get("plugin") != "PodTopologySpread":
            n = g.get("count", 0)
            sentences.append(f"{n} node{'s' if n != 1 else ''} ({_names(g)}): {g.get('plugin') or 'filter'} "
                             f"says {'; '.join(g.get('reasons') or [])}.")
    listed = sum(len(g.get("nodes") or []) for g in groups) + len(explained.get("passed") or [])
    row = row or {"pod": pod}
    return {
        "pod": pod, "outcome": row.get("outcome", explained.get("result", "")), "node": row.get("node"),
        "nominatedNode": row.get("nominatedNode"),
        "message": row.get("message") or (history[-1].get("message") if history else "") or "",
        "cycle": explained.get("cycle") or (history[-1].get("cycle") if history else None),
        "attempts": len(history),
        "plugins": plugins, "filter": table, "score_plugins": score_plugins, "scores": score_rows,
        "score_columns": [{"plugin": p, "weight": weights.get(p)} for p in score_plugins],
        "weighted": bool(scores.get("weights")),
        "score_skipped": list(scores.get("skipped") or []), "tie": scores.get("tie"),
        "groups": [{"code": g.get("code"), "plugin": g.get("plugin"), "reasons": "; ".join(g.get("reasons") or []),
                    "count": g.get("count", 0), "nodes": _names(g)} for g in groups],
        "nodes_total": explained.get("nodes"), "evaluated": explained.get("evaluated"),
        "feasible": explained.get("feasible"), "scored": scores.get("count", 0),
        "filter_partial": listed < (explained.get("evaluated") or 0),
        "sentences": sentences + volume_sentences(explained), "nomination": nomination(result, pod),
        "volumes": pod_volumes(result, explained, pod),
        "history": [{"cycle": c.get("cycle"), "attempt": c.get("attempt"), "result": c.get("result"),
                     "node": c.get("node"), "message": c.get("message") or ""}
                    for c in history],
    }


def volume_sentences(explained):
    """Why VolumeBinding rejected nodes, claim by claim, nodes grouped by the same sentence."""
    failed = ((explained.get("plugins") or {}).get("VolumeBinding") or {}).get("failedNodes") or {}
    groups = {}
    for node, entry in failed.items():
        for claim, why in (entry.get("claims") or {}).items():
            groups.setdefault(f"claim {claim} is {why}" if why.startswith("bound") else f"claim {claim}: {why}",
                              []).append(node)
    return [f"{', '.join(sorted(nodes))}: {sentence}." for sentence, nodes in groups.items()]


def pod_volumes(result, explained, pod):
    """The pod's claims as its last cycle saw them (VolumeBinding's explanation) and where their volumes
    ended up after the run; None for a pod without claims."""
    seen = ((explained.get("plugins") or {}).get("VolumeBinding") or {}).get("claims") or []
    final = {c["claim"]: c for c in ((result.get("volumes") or {}).get("pods") or {}).get(pod) or []}
    if not seen and not final:
        return None
    rows = []
    for c in seen or final.values():
        end = final.get(c["claim"]) or {}
        rows.append({"claim": c["claim"], "state": c.get("state") or ("bound" if end.get("bound") else "unbound"),
                     "storage_class": c.get("storageClass") or end.get("storageClass") or "",
                     "mode": c.get("bindingMode") or "", "volume": end.get("volume") or c.get("volume") or "",
                     "zone": end.get("zone") or c.get("volumeZone") or "",
                     "affinity": end.get("volumeAffinity") or c.get("volumeAffinity") or "",
                     "provisioned": bool(end.get("provisioned"))})
    zones = ((explained.get("plugins") or {}).get("VolumeZone") or {}).get("volumes") or []
    return {"claims": rows, "zone_labels": zones}


def volume_zones(result):
    """pod -> the zones its claims' volumes live in (final state of the run)."""
    out = {}
    for pod, claims in ((result.get("volumes") or {}).get("pods") or {}).items():
        zones = sorted({c["zone"] for c in claims if c.get("zone")})
        if zones:
            out[pod] = zones
    return out


def bound_pod(result, pod):
    """A pod that was running before the run, as the engine recorded it ("boundPods", "podInfo"): where it
    started and ended, who evicted it; None for any other pod (or a result stored before the engine kept it)."""
    info = ((result or {}).get("podInfo") or {}).get(pod) or {}
    if info.get("boundBeforeRun") is False:  # (the engine says so: its boundPods, 20 MB at 150,000 pods, not read)
        return None
    found = next((b for b in (result or {}).get("boundPods") or [] if b.get("pod") == pod), None)
    if found is None:
        return None
    namespace, _, name = pod.partition("/")
    by = (found.get("evictedBy") or {}).get("pod") or "/"
    known = {n.get("name") for n in (result or {}).get("nodes", [])}
    return {**found, "namespace": namespace, "name": name, "labels": sorted((info.get("labels") or {}).items()),
            "evictor_ns": by.partition("/")[0], "evictor_name": by.partition("/")[2],
            "node_known": found.get("startNode") in known,
            "owner": info.get("owner") or "", "workload": info.get("workload") or "",
            "priority": info.get("priority", 0), "evictedBy": found.get("evictedBy") or {}}


def _victims(candidate):
    return [v.get("pod") if isinstance(v, dict) else v for v in candidate.get("victims", [])]


def nomination(result, pod):
    """The pod's latest preemption: nominated node, victims, that node's pods before and after."""
    attempt = ((result or {}).get("preemptions") or {}).get(pod) or {}
    node = attempt.get("chosen")
    if not node:
        return None
    candidate = next((c for c in attempt.get("candidates", []) if c.get("node") == node), {})
    victims = _victims(candidate) or list(attempt.get("evictions") or [])
    cycle = attempt.get("cycle")
    before_nodes, _ = placements(result, cycle - 1)
    after_nodes, _ = placements(result, cycle)
    return {
        "pod": pod, "node": node, "cycle": cycle, "victims": victims,
        "decidedBy": attempt.get("decidedBy") or "",
        "before": before_nodes.get(node, []), "after": after_nodes.get(node, []),
        "candidates": [{"node": c.get("node"), "chosen": c.get("chosen"), "victims": _victims(c),
                        "lost": c.get("lost")} for c in attempt.get("candidates", [])],
    }


def nominations(result, step=None):
    """{pod: node} of pods nominated and not yet bound, and {node: [pods]} nominated there:
    at the end of the run, or after cycle `step`. A pod that was nominated and then bound
    (to that node or another) is no longer nominated anywhere."""
    pods = {}
    if step is None:  # the run's end: the pods' own final state says it
        pods = {row["pod"]: row["nominatedNode"] for row in result.get("pods", [])
                if row.get("nominatedNode")}
    else:
        for event in sorted(result.get("events", []), key=lambda e: e.get("seq", 0)):
            if event.get("cycle", 0) > step:
                break
            if event.get("reason") == "Nominated" and event.get("node"):
                pods[event["pod"]] = event["node"]
            elif event.get("reason") == "Scheduled":
                pods.pop(event["pod"], None)
    nodes = {}
    for pod, node in pods.items():
        nodes.setdefault(node, []).append(pod)
    return pods, nodes


def quantity(resource, value):
    """An engine amount (cpu in millicores, memory in bytes) as people read it."""
    if resource == "cpu":
        return units.cores(value)
    if resource == "memory":
        return units.memory(value)
    return "—" if value is None else str(value)


def node_bars(node):
    """Requested vs allocatable bars for cpu, memory and pods."""
    bars = []
    allocatable = node.get("allocatable") or {}
    requested = node.get("requested") or {}
    for resource in RESOURCES:
        total, used = allocatable.get(resource), requested.get(resource, 0) or 0
        pct = round(100 * used / total) if total else 0
        bars.append({"resource": resource, "requested": quantity(resource, used),
                     "allocatable": quantity(resource, total), "pct": min(pct, 100), "raw_pct": pct,
                     "level": "full" if pct >= 90 else "high" if pct >= 70 else "ok"})
    return bars


def taint_text(taint):
    if isinstance(taint, dict):
        value = f"={taint['value']}" if taint.get("value") else ""
        return f"{taint.get('key')}{value}:{taint.get('effect')}"
    return str(taint)


def _entry(meta, pod):
    """The pod's entry of ``meta`` as the engine wrote it (its priority, its requests), without the node it started
    on, which PodMeta finds in every bound pod's row (20 MB at 150,000 pods) and the node page does not show."""
    if isinstance(meta, PodMeta):
        return meta.engine_entry(pod)
    return (meta or {}).get(pod) or {}


def node_view(result, name, meta=None):
    node = next((n for n in result.get("nodes", []) if n["name"] == name), None)
    if node is None:
        return None
    if hasattr(meta, "want"):
        meta.want(node.get("pods", []))
    _, nominated = nominations(result)
    return {
        "name": name, "labels": sorted((node.get("labels") or {}).items()),
        "taints": [taint_text(t) for t in node.get("taints") or []], "cordoned": bool(node.get("unschedulable")),
        "bars": node_bars(node), "chips": [chip(p, meta) for p in node.get("pods", [])],
        "pods": [{**chip(p, meta), "priority": _entry(meta, p).get("priority"),
                  "cpu": quantity("cpu", (_entry(meta, p).get("requests") or {}).get("cpu", 0)),
                  "memory": quantity("memory", (_entry(meta, p).get("requests") or {}).get("memory", 0))}
                 for p in node.get("pods", [])],
        "nominated": nominated.get(name, []),
        "evicted_here": [e["pod"] for e in result.get("events", [])
                         if e.get("reason") == "Preempted" and e.get("node") == name],
        "allocatable": node.get("allocatable") or {}, "requested": node.get("requested") or {},
        "volumes": [{"driver": driver, **counts} for driver, counts in
                    sorted((((result.get("volumes") or {}).get("nodes") or {}).get(name) or {}).items())],
    }


def nodes_overview(result, name="", limit=None):
    """(cards of the nodes whose name contains `name`, the first `limit` of them or all; how many match)."""
    _, nominated = nominations(result)
    matching = [n for n in result.get("nodes", []) if name in str(n.get("name", ""))]
    return [{"name": n["name"], "cordoned": bool(n.get("unschedulable")),
             "taints": [taint_text(t) for t in n.get("taints") or []], "bars": node_bars(n),
             "pods": len(n.get("pods", [])), "nominated": nominated.get(n["name"], [])}
            for n in matching[:limit]], len(matching)


def group_nodes(result, cards, key):
    """[{"name": domain, "nodes": cards, "pods": the engine's count of pods on its nodes}] of node cards grouped
    by a label key (nodes without it last, under NO_DOMAIN)."""
    labels = {n["name"]: (n.get("labels") or {}) for n in result.get("nodes", [])}
    counts = pods_per_domain(result, key) or {}
    groups = {}
    for card in cards:
        groups.setdefault(labels.get(card["name"], {}).get(key, NO_DOMAIN), []).append(card)
    return [{"name": name, "nodes": members, "pods": counts.get(name)}
            for name, members in sorted(groups.items(), key=lambda kv: (kv[0] == NO_DOMAIN, kv[0]))]


def timeline(result, step=None):
    """Cycle `step` (1-based, clamped) of the simulation, with its events and neighbours."""
    all_cycles = cycles(result)
    numbers = [c.get("cycle") for c in all_cycles]
    if not numbers:
        return {"step": 0, "first": 0, "last": 0, "prev": None, "next": None, "cycle": None, "events": [],
                "total": 0, "outcomes": []}
    if step is None or step not in numbers:
        step = min(max(step or numbers[0], numbers[0]), numbers[-1])
        step = next(n for n in numbers if n >= step)
    index = numbers.index(step)
    cycle = all_cycles[index]
    return {
        "step": step, "first": numbers[0], "last": numbers[-1], "total": len(numbers), "index": index + 1,
        "prev": numbers[index - 1] if index > 0 else None,
        "next": numbers[index + 1] if index + 1 < len(numbers) else None,
        "cycle": {"cycle": step, "pod": cycle.get("pod"), "attempt": cycle.get("attempt"),
                  "result": cycle.get("result"), "node": cycle.get("node"), "message": cycle.get("message") or ""},
        "events": [e for e in result.get("events", []) if e.get("cycle") == step],
        "outcomes": [{"cycle": c.get("cycle"), "pod": c.get("pod"), "result": c.get("result")}
                     for c in all_cycles],
    }
