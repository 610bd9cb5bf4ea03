"""PodTopologySpread's explanation for the dashboard, built from the cycle's states.

Not an upstream file: it reads the preFilterState / preScoreState that ``filtering.go`` and
``scoring.go`` compute and lays them out as JSON-serializable data, per constraint: where
it came from, each domain's matching count and skew, the global minimum and whether
minDomains forced it to 0, and which nodes are left out of counting and why. The size is
bounded whatever the cluster: at most ``trace.MAX_DOMAINS`` domains and, per reason,
``trace.MAX_NODE_NAMES`` node names with the full count.

The columnar path (``columnar/plugins/podtopologyspread.py``) builds the same JSON from
its arrays through ``constraint_json``/``ignored_json``.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from ...k8s.nodeaffinity import RequiredNodeAffinity
from ...k8s.taints import do_not_schedule_taints_filter, find_matching_untolerated_taint
from ...k8s.types import HONOR, LABEL_HOSTNAME, Node, Pod
from ...trace import MAX_DOMAINS, MAX_NODE_NAMES
from .common import Constraint
from .filtering import PreFilterState, self_match_num
from .scoring import PreScoreState

REASON_NODE_AFFINITY = "node affinity"
REASON_TAINTS = "taints"


def missing_label_reason(key: str) -> str:
    return f"missing label {key}"


def first_missing_key(node: Node, constraints: Sequence[Constraint]) -> str | None:
    """The first constraint key the node lacks, else None."""
    for c in constraints:
        if c.topology_key not in node.labels:
            return c.topology_key
    return None


def policy_reason(c: Constraint, pod: Pod, node: Node, required: RequiredNodeAffinity
                  ) -> str | None:
    """Why matchNodeInclusionPolicies leaves the node out of counting, else None."""
    if c.node_affinity_policy == HONOR and not required.match(node):
        return REASON_NODE_AFFINITY
    if c.node_taints_policy == HONOR and find_matching_untolerated_taint(
            node.taints, pod.tolerations, do_not_schedule_taints_filter) is not None:
        return REASON_TAINTS
    return None


def constraint_header(c: Constraint, pod: Pod) -> dict:
    """The constraint as the scheduler uses it, and where it came from."""
    return {
        "origin": c.origin, "selectorFrom": list(c.selector_sources),
        "topologyKey": c.topology_key, "maxSkew": c.max_skew, "minDomains": c.min_domains,
        "whenUnsatisfiable": c.when_unsatisfiable, "selector": str(c.selector),
        "nodeAffinityPolicy": c.node_affinity_policy,
        "nodeTaintsPolicy": c.node_taints_policy, "selfMatch": self_match_num(c, pod),
    }


def domains_json(counts: Mapping[str, int], self_match: int, minimum: int, max_skew: int) -> dict:
    """``shown_domains_json`` of every domain, sorted by value."""
    values = sorted(counts)
    return shown_domains_json([(v, counts[v]) for v in values[:MAX_DOMAINS]], len(values), self_match,
                              minimum, max_skew)


def shown_domains_json(shown: Sequence[tuple[str, int]], total: int, self_match: int, minimum: int,
                       max_skew: int) -> dict:
    """domains (value -> count), skews (value -> count + selfMatch - minimum: the skew placing the
    pod there would make), fitsMaxSkew (value -> that skew <= maxSkew), of at most MAX_DOMAINS
    shown domains; domainCount is the full number; bandTop the most matching pods a domain may
    hold with the pod (minimum + maxSkew)."""
    skews = {v: n + self_match - minimum for v, n in shown}
    return {"domains": dict(shown), "skews": skews,
            "fitsMaxSkew": {v: skew <= max_skew for v, skew in skews.items()},
            "bandTop": minimum + max_skew,
            "domainCount": total, "domainsTruncated": total > len(shown)}


def ignored_json(groups: Iterable[tuple[str, int, list[str]]]) -> list[dict]:
    """Reason groups (reason, node count, node names in node order), most nodes first."""
    return [{"reason": r, "count": n, "nodes": names[:MAX_NODE_NAMES]}
            for r, n, names in sorted(groups, key=lambda g: (-g[1], g[0]))]


def by_domain_json(counts: Mapping[str, Mapping[str, int]]) -> dict:
    """domain -> reason -> ignored nodes in that domain (first MAX_DOMAINS domains)."""
    return {v: dict(sorted(counts[v].items())) for v in sorted(counts)[:MAX_DOMAINS]}


def _group(reasons: Iterable[tuple[Node, str, str | None]]
           ) -> tuple[list[tuple[str, int, list[str]]], dict[str, dict[str, int]]]:
    """(node, reason, domain) in node order -> reason groups and per-domain counts."""
    names: dict[str, list[str]] = {}
    by_domain: dict[str, dict[str, int]] = {}
    for node, reason, domain in reasons:
        names.setdefault(reason, []).append(node.name)
        if domain is not None:
            d = by_domain.setdefault(domain, {})
            d[reason] = d.get(reason, 0) + 1
    return [(r, len(v), v) for r, v in names.items()], by_domain


def _not_counted(c: Constraint, constraints: Sequence[Constraint], pod: Pod,
                 nodes: Sequence[Node], required: RequiredNodeAffinity, require_all: bool):
    for node in nodes:
        missing = first_missing_key(node, constraints) if require_all else None
        reason = missing_label_reason(missing) if missing else \
            policy_reason(c, pod, node, required)
        if reason:
            yield node, reason, node.labels.get(c.topology_key)


def explain_hard(s: PreFilterState, i: int, pod: Pod, nodes: Sequence[Node],
                 required: RequiredNodeAffinity) -> dict:
    """One DoNotSchedule constraint: domains, global minimum, skews, nodes not counted."""
    c = s.constraints[i]
    min_match = s.min_match_num(i, c.min_domains)
    groups, by_domain = _group(_not_counted(c, s.constraints, pod, nodes, required, True))
    return {
        **constraint_header(c, pod),
        **domains_json(s.tp_value_to_match_num[i], self_match_num(c, pod), min_match, c.max_skew),
        "globalMinimum": min_match,
        "minDomainsForcedZero": len(s.tp_value_to_match_num[i]) < c.min_domains,
        "ignored": ignored_json(groups),
        "ignoredByDomain": by_domain_json(by_domain),
    }


def _soft_counts(s: PreScoreState, i: int) -> dict[str, int]:
    if s.constraints[i].topology_key == LABEL_HOSTNAME:
        return dict(s.hostname_counts[i])
    return dict(s.topology_value_to_pod_counts[i])


def explain_soft(s: PreScoreState, i: int, pod: Pod, nodes: Sequence[Node],
                 required: RequiredNodeAffinity, require_all: bool) -> dict:
    """One ScheduleAnyway constraint: domain counts over all nodes for the scored nodes'
    domains, the normalizing weight, scored nodes ignored, nodes not counted."""
    c = s.constraints[i]
    counts = _soft_counts(s, i)
    minimum = min(counts.values()) if counts else 0
    missing = [(n, missing_label_reason(first_missing_key(n, s.constraints) or c.topology_key),
                None) for n in nodes if n.name in s.ignored_nodes]  # in node order
    ignored, _ = _group(missing)
    groups, by_domain = _group(_not_counted(c, s.constraints, pod, nodes, required,
                                            require_all))
    return {
        **constraint_header(c, pod),
        **domains_json(counts, self_match_num(c, pod), minimum, c.max_skew),
        "globalMinimum": minimum,
        "topologyNormalizingWeight": s.topology_normalizing_weight[i],
        "ignoredScoredNodes": ignored_json(ignored),
        "ignored": ignored_json(groups),
        "ignoredByDomain": by_domain_json(by_domain),
    }


def explain(pre_filter: PreFilterState | None, pre_score: PreScoreState | None, pod: Pod,
            nodes: Sequence[Node], require_all: bool = True) -> dict:
    """{"constraints": [...]}: hard constraints (from PreFilter) then soft (from PreScore)."""
    required = RequiredNodeAffinity.from_pod(pod)
    out = []
    if pre_filter is not None:
        out += [explain_hard(pre_filter, i, pod, nodes, required)
                for i in range(len(pre_filter.constraints))]
    if pre_score is not None:
        out += [explain_soft(pre_score, i, pod, nodes, required, require_all)
                for i in range(len(pre_score.constraints))]
    return {"constraints": out}
