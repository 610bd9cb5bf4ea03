"""PodTopologySpread's explanation for the dashboard, built from the cycle's states.

Not an upstream file: it reads the preFilterState / preScoreState that ``filtering.go`` and
``scoring.go`` compute and lays them out as JSON-serializable data (per constraint: where
it came from, each domain's count, eligible domains, ignored nodes and why, the global
minimum and whether minDomains forced it to 0, and the skew a placement would cause).
"""
from __future__ import annotations

from typing import Sequence

from ...k8s.nodeaffinity import RequiredNodeAffinity
from ...k8s.taints import do_not_schedule_taints_filter, find_matching_untolerated_taint
from ...k8s.types import HONOR, LABEL_HOSTNAME, Node, Pod
from .common import Constraint
from .filtering import PreFilterState, self_match_num
from .scoring import PreScoreState, score_for_count

REASON_NODE_AFFINITY = "node affinity"
REASON_TAINTS = "taints"


def missing_label_reason(node: Node, constraints: Sequence[Constraint]) -> str | None:
    """"missing label <key>" for the first constraint key the node lacks, else None."""
    for c in constraints:
        if c.topology_key not in node.labels:
            return f"missing label {c.topology_key}"
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


def ignored_for_counting(c: Constraint, constraints: Sequence[Constraint], pod: Pod,
                         nodes: Sequence[Node], required: RequiredNodeAffinity,
                         require_all: bool = True, memo: dict | None = None
                         ) -> dict[str, str]:
    """Nodes whose pods are not counted for c: node name -> reason. With ``memo`` (fast
    path) the answer is reused while the key and the very same Node objects recur."""
    if memo is None:
        return _ignored_for_counting(c, constraints, pod, nodes, required, require_all)
    key = (c, tuple(constraints), required,
           pod.tolerations if c.node_taints_policy == HONOR else None, require_all)
    try:
        hit = memo.get(key)
    except TypeError:  # unhashable: no memo
        return _ignored_for_counting(c, constraints, pod, nodes, required, require_all)
    if hit is None or len(hit[0]) != len(nodes) or \
            not all(a is b for a, b in zip(hit[0], nodes)):
        if len(memo) >= 256:
            memo.clear()
        hit = memo[key] = (tuple(nodes), _ignored_for_counting(c, constraints, pod, nodes,
                                                               required, require_all))
    return dict(hit[1])


def _ignored_for_counting(c: Constraint, constraints: Sequence[Constraint], pod: Pod,
                          nodes: Sequence[Node], required: RequiredNodeAffinity,
                          require_all: bool) -> dict[str, str]:
    out = {}
    for node in nodes:
        reason = missing_label_reason(node, constraints) if require_all else None
        reason = reason or policy_reason(c, pod, node, required)
        if reason:
            out[node.name] = reason
    return out


def explain_hard(s: PreFilterState, i: int, pod: Pod, nodes: Sequence[Node],
                 required: RequiredNodeAffinity, memo: dict | None = None) -> dict:
    """One DoNotSchedule constraint: domains, global minimum, per-node skew."""
    c = s.constraints[i]
    counts = s.tp_value_to_match_num[i]
    min_match = s.min_match_num(i, c.min_domains)
    self_match = self_match_num(c, pod)
    per_node = {}
    for node in nodes:
        val = node.labels.get(c.topology_key)
        if val is None:
            per_node[node.name] = {"domain": None, "skew": None, "fits": False}
            continue
        skew = counts.get(val, 0) + self_match - min_match
        per_node[node.name] = {"domain": val, "matchNum": counts.get(val, 0),
                               "skew": skew, "fits": skew <= c.max_skew}
    return {
        **constraint_header(c, pod),
        "domains": dict(sorted(counts.items())),
        "eligibleDomains": sorted(counts),
        "domainCount": len(counts),
        "ignoredNodes": ignored_for_counting(c, s.constraints, pod, nodes, required, True, memo),
        "globalMinimum": min_match,
        "minDomainsForcedZero": len(counts) < c.min_domains,
        "nodes": per_node,
    }


def _soft_counts(s: PreScoreState, i: int) -> dict[str, int]:
    c = s.constraints[i]
    if c.topology_key == LABEL_HOSTNAME:
        return dict(s.hostname_counts[i])
    return dict(s.topology_value_to_pod_counts[i])


def explain_soft(s: PreScoreState, i: int, pod: Pod, nodes: Sequence[Node],
                 required: RequiredNodeAffinity, require_all: bool,
                 memo: dict | None = None) -> dict:
    """One ScheduleAnyway constraint: domain counts over all nodes, weight, per-node skew."""
    c = s.constraints[i]
    counts = _soft_counts(s, i)
    weight = s.topology_normalizing_weight[i]
    min_count = min(counts.values()) if counts else 0
    self_match = self_match_num(c, pod)
    by_name = {n.name: n for n in nodes}
    per_node = {}
    for name in s.filtered_nodes:
        node = by_name.get(name)
        val = node.labels.get(c.topology_key) if node is not None else None
        if name in s.ignored_nodes or val is None:
            per_node[name] = {"domain": val, "ignored": name in s.ignored_nodes}
            continue
        cnt = counts.get(name if c.topology_key == LABEL_HOSTNAME else val, 0)
        per_node[name] = {"domain": val, "ignored": False, "count": cnt,
                          "skew": cnt + self_match - min_count,
                          "score": score_for_count(cnt, c.max_skew, weight)}
    return {
        **constraint_header(c, pod),
        "domains": dict(sorted(counts.items())),
        "eligibleDomains": sorted(counts),
        "domainCount": len(counts),
        "ignoredNodes": {n: missing_label_reason(by_name[n], s.constraints) or "missing label"
                         for n in sorted(s.ignored_nodes) if n in by_name},
        "notCounted": ignored_for_counting(c, s.constraints, pod, nodes, required, require_all,
                                           memo),
        "topologyNormalizingWeight": weight,
        "globalMinimum": min_count,
        "nodes": per_node,
    }


def explain(pre_filter: PreFilterState | None, pre_score: PreScoreState | None, pod: Pod,
            nodes: Sequence[Node], require_all: bool = True, memo: dict | None = None) -> dict:
    """{"constraints": [...]}: hard constraints (from PreFilter) then soft (from PreScore);
    ``memo``: see ignored_for_counting."""
    required = RequiredNodeAffinity.from_pod(pod)
    out = []
    if pre_filter is not None:
        out += [explain_hard(pre_filter, i, pod, nodes, required, memo)
                for i in range(len(pre_filter.constraints))]
    if pre_score is not None:
        out += [explain_soft(pre_score, i, pod, nodes, required, require_all, memo)
                for i in range(len(pre_score.constraints))]
    return {"constraints": out}
