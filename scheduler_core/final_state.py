"""Facts about the cluster at the end of a run, for the dashboard to read instead of recount.

``pods_json``: every pod of the scenario (bound before the run or pending) with its
labels, controller owner, workload and priority, and the pods bound before the run, each
with its node at the end (None once evicted). ``counts_json``: how many pods the run
scheduled, left pending, found bound and evicted, so that no page counts rows. ``spread_domains_json``: each
PodTopologySpread constraint of the pods pending at the start, with the number of pods its
selector matches in each domain at the end (pods bound before the run included), the global
minimum and the skew, counted by the plugin's own PreFilter helper
(``podtopologyspread/filtering.cal_pre_filter_state``) over the final NodeInfos.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Iterable, Mapping

from .framework.types import NodeInfo
from .k8s.shared_memo import MISS, IdentityMemo
from .k8s.types import DO_NOT_SCHEDULE, HONOR, SCHEDULE_ANYWAY, Pod
from .plugins.podtopologyspread.common import Constraint
from .plugins.podtopologyspread.filtering import cal_pre_filter_state
from .plugins.podtopologyspread.plugin import PodTopologySpread

WORKLOAD_LABELS = ("app.kubernetes.io/name", "app")


def owner_of(pod: Pod) -> str:
    """"Kind/name" of the pod's controller owner (else its first owner), "" without one."""
    refs = pod.owner_references
    if not refs:
        return ""
    name = _OWNERS.get(refs)
    if name is MISS:
        owner = next((r for r in refs if getattr(r, "controller", False)), refs[0])
        name = _OWNERS.put(f"{owner.kind}/{owner.name}", refs)
    return name


# per owner references object: "Kind/name" (the loader shares one tuple among a workload's
# pods)
_OWNERS: IdentityMemo[str] = IdentityMemo()


def workload_of(pod: Pod) -> str:
    """The pod's workload: its owner, else ``label=value`` of its app label, else its name."""
    owner = owner_of(pod)
    if owner:
        return owner
    for label in WORKLOAD_LABELS:
        if pod.labels.get(label):
            return f"{label}={pod.labels[label]}"
    return pod.name


def pods_json(pods: Iterable[Pod], evicted_by: Mapping[str, dict]) -> tuple[dict[str, dict], list[dict]]:
    """(podInfo, boundPods), in one pass over the pods.

    podInfo: pod key -> {labels, owner, workload, priority, boundBeforeRun, requests (cpu in
    millicores, memory in bytes, those requested)} for every pod, and ``gates`` (the scheduling
    gates' names) for a gated pod. The pods of a workload share one entry (read-only, as its
    labels and requests maps: one who gets a field of its own gets a copy).

    boundPods: the pods bound before the run, in scenario order: the node they started on, the
    node they end on (None when preempted: then ``evictedBy`` names the preemptor and the cycle)."""
    out = {}
    bound = []
    copies: dict[int, tuple[Mapping[str, str], dict]] = {}  # id(labels) -> (labels, copy)
    # per (owner references, labels) objects: (them, owner, workload), where the workload is not the pod's
    # name; per requests mapping: (it, the cpu and memory requested). A workload's pods share these objects.
    owners: dict[tuple[int, int], tuple] = {}
    asked: dict[int, tuple] = {}
    # per (labels, owner references, requests) objects, priority and whether bound: (them, the entry a
    # pod of theirs gets; its labels and requests maps are shared, as read-only)
    made: dict[tuple, tuple] = {}
    for p in pods:
        key = p.key
        kind = (id(p.labels), id(p.owner_references), id(p.requests), p.priority, bool(p.node_name))
        hit = made.get(kind)
        if hit is not None and hit[0] is p.labels and hit[1] is p.owner_references and \
                hit[2] is p.requests:
            info = out[key] = hit[3]
        else:
            labels = copies.get(id(p.labels))
            if labels is None or labels[0] is not p.labels:
                labels = copies[id(p.labels)] = (p.labels, dict(p.labels))
            who = owners.get((id(p.owner_references), id(p.labels)))
            if who is None or who[0] is not p.owner_references or who[1] is not p.labels:
                owner, workload = owner_of(p), workload_of(p)
                who = (p.owner_references, p.labels, owner, workload)
                if owner or workload != p.name:
                    owners[(id(p.owner_references), id(p.labels))] = who
            requests = asked.get(id(p.requests))
            if requests is None or requests[0] is not p.requests:
                requests = asked[id(p.requests)] = (p.requests, dict(
                    (r, p.requests[r]) for r in ("cpu", "memory") if p.requests.get(r)))
            info = out[key] = {"labels": labels[1], "owner": who[2], "workload": who[3],
                               "priority": p.priority or 0, "boundBeforeRun": bool(p.node_name),
                               "requests": requests[1]}
            if who[2] or who[3] != p.name:  # (a workload named after the pod is the pod's own)
                made[kind] = (p.labels, p.owner_references, p.requests, info)
        if p.scheduling_gates:
            out[key] = {**info, "gates": [getattr(g, "name", g) for g in p.scheduling_gates]}
        if p.node_name:
            gone = evicted_by.get(key)
            entry = {"pod": key, "startNode": p.node_name,
                     "node": None if gone else p.node_name, "evicted": bool(gone)}
            if gone:
                entry["evictedBy"] = gone
            bound.append(entry)
    return out, bound


def counts_json(pods: list[dict], bound: list[dict], evicted: list[str], ignored: list[dict]) -> dict:
    """The run's totals, from its ``pods`` rows (each pod pending at the start), ``boundPods``,
    ``evicted`` and ``ignored``: ``outcomes`` maps each outcome present to its number of pods."""
    outcomes: dict[str, int] = {}
    scheduled = 0
    for row in pods:
        outcomes[row["outcome"]] = outcomes.get(row["outcome"], 0) + 1
        scheduled += bool(row.get("node"))
    return {"pendingAtStart": len(pods), "scheduled": scheduled, "pendingAtEnd": len(pods) - scheduled,
            "outcomes": dict(sorted(outcomes.items())), "boundBefore": len(bound),
            "boundBeforeEvicted": sum(1 for b in bound if b["evicted"]), "evicted": len(evicted),
            "ignored": len(ignored)}


def pods_per_domain_json(node_infos: Iterable[NodeInfo]) -> dict[str, dict]:
    """label key -> {"domains": value -> pods on the nodes with that value (zero included),
    "withoutLabel": pods on nodes without the key}, for every label key of the nodes."""
    by_key: dict[str, dict[str, int]] = {}  # (each node's labels read once, not once per key)
    total = 0
    for ni in node_infos:
        n = len(ni.pods)
        total += n
        for key, value in ni.node.labels.items():
            domains = by_key.get(key)
            if domains is None:
                domains = by_key[key] = {}
            domains[value] = domains.get(value, 0) + n
    return {key: {"domains": dict(sorted(domains.items())), "withoutLabel": total - sum(domains.values())}
            for key, domains in sorted(by_key.items())}


def spread_domains_json(pods: Iterable[Pod], profiles: Mapping, objects,
                        node_infos: list[NodeInfo], matching=None, domain_counts=None
                        ) -> tuple[list[dict], dict[str, list[int]]]:
    """(constraints, pod key -> indices into them) for the pods pending at the start whose
    profile runs PodTopologySpread (own constraints or cluster defaults). Pods of one
    workload share the loader's objects, so each distinct group is counted once.
    ``matching``: as cal_pre_filter_state's (per-node counts the caller keeps).
    ``domain_counts(pod, action, constraints)``: PreFilter's per-domain counts of the
    constraints (one dict each), where the caller keeps them (the columnar simulation's
    counters); None: counted here."""
    plugins: dict[str, PodTopologySpread | None] = {}
    groups: dict[tuple, list] = {}  # the loader's shared objects -> [indices, workloads, the shared workload]
    counted: dict[tuple, list[int]] = {}  # what counting depends on -> indices
    entries: dict[tuple, int] = {}
    out: list[dict] = []
    by_pod: dict[str, list[int]] = {}
    for pod in pods:
        if pod.node_name:
            continue
        pl = _plugin(plugins, profiles, objects, pod.scheduler_name)
        if pl is None:
            continue
        key = (pod.scheduler_name, pod.namespace, id(pod.topology_spread_constraints),
               id(pod.labels), id(pod.owner_references), id(pod.affinity),
               id(pod.node_selector), id(pod.tolerations))
        group = groups.get(key)
        if group is None:
            group = groups[key] = [_indices(pl, pod, node_infos, counted, entries, out, matching,
                                            domain_counts), set(), None]
        found, named = group[0], group[1]  # (named: the group's workloads, each added to its constraints once)
        if found:
            w = group[2] or workload_of(pod)
            if w != pod.name:  # (an owner's or the labels': objects the key names, so the group's pods share it)
                group[2] = w
            if w not in named:
                named.add(w)
                for i in found:
                    workloads = out[i]["workloads"]
                    if w not in workloads:
                        workloads.append(w)
            by_pod[pod.key] = found
    return out, by_pod


def _plugin(cache: dict, profiles: Mapping, objects, name: str) -> PodTopologySpread | None:
    if name not in cache:
        profile = profiles.get(name)
        cache[name] = None if profile is None or \
            PodTopologySpread.NAME not in profile.all_plugins() else PodTopologySpread(
                profile.args.get(PodTopologySpread.NAME),
                SimpleNamespace(objects=objects, fast=False))
    return cache[name]


def _indices(pl: PodTopologySpread, pod: Pod, node_infos: list[NodeInfo],
             counted: dict[tuple, list[int]], entries: dict[tuple, int], out: list[dict],
             matching=None, domain_counts=None) -> list[int]:
    """Indices of the pod's constraints in ``out``, counted once per distinct set of
    constraints, namespace and (where a policy honours them) node affinity and tolerations."""
    by_action = [(a, pl.get_constraints(pod, a)) for a in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)]
    cs = [c for _, constraints in by_action for c in constraints]
    if not cs:
        return []
    honor_affinity = any(c.node_affinity_policy == HONOR for c in cs)
    honor_taints = any(c.node_taints_policy == HONOR for c in cs)
    key = (pod.namespace, tuple((c.topology_key, str(c.selector), c.max_skew, c.min_domains,
                                 c.when_unsatisfiable, c.node_affinity_policy,
                                 c.node_taints_policy, c.origin) for c in cs),
           repr((pod.node_selector, pod.affinity)) if honor_affinity else None,
           repr(pod.tolerations) if honor_taints else None)
    found = counted.get(key)
    if found is None:
        found = counted[key] = [i for action, constraints in by_action if constraints
                                for i in _count(pod, action, constraints, node_infos, entries, out,
                                                matching, domain_counts)]
    return found


def _count(pod: Pod, action: str, constraints: list[Constraint], node_infos: list[NodeInfo],
           entries: dict[tuple, int], out: list[dict], matching=None, domain_counts=None) -> list[int]:
    """Count one action's constraints as PreFilter does (nodes with every one of their
    topology keys, node inclusion policies applied) and add those not seen yet. The global
    minimum is criticalPaths' first (the least count), 0 with fewer domains than minDomains."""
    found = []
    by_constraint = domain_counts(pod, action, constraints) if domain_counts is not None else None
    if by_constraint is None:
        by_constraint = cal_pre_filter_state(pod, constraints, node_infos,
                                             matching=matching).tp_value_to_match_num
    for i, c in enumerate(constraints):
        counts = dict(sorted(by_constraint[i].items()))
        minimum = min(counts.values()) if counts and len(counts) >= c.min_domains else 0
        entry = _entry(pod, c, counts, minimum)
        key = (pod.namespace, c.topology_key, str(c.selector), c.max_skew, c.min_domains,
               c.when_unsatisfiable, c.node_affinity_policy, c.node_taints_policy, c.origin,
               tuple(counts.items()))
        if key not in entries:
            entries[key] = len(out)
            out.append(entry)
        found.append(entries[key])
    return found


def _entry(pod: Pod, c: Constraint, counts: dict[str, int], minimum: int) -> dict:
    """One constraint at the end of the run. The global minimum is Filter's (0 when fewer
    domains than minDomains); a domain's skew is its count minus it, the constraint's skew
    the largest of those (0 without a domain)."""
    skews = {v: n - minimum for v, n in counts.items()}
    skew = max(skews.values(), default=0)
    return {"namespace": pod.namespace, "topologyKey": c.topology_key,
            "selector": str(c.selector), "maxSkew": c.max_skew, "minDomains": c.min_domains,
            "whenUnsatisfiable": c.when_unsatisfiable,
            "nodeAffinityPolicy": c.node_affinity_policy,
            "nodeTaintsPolicy": c.node_taints_policy, "origin": c.origin,
            "workloads": [], "domains": counts, "domainCount": len(counts),
            "globalMinimum": minimum, "minDomainsForcedZero": len(counts) < c.min_domains,
            "skews": skews, "skew": skew, "withinMaxSkew": skew <= c.max_skew,
            "domainsOverMaxSkew": sorted(v for v, n in skews.items() if n > c.max_skew),
            "bandTop": minimum + c.max_skew}
