"""What PodTopologySpread's filtering and scoring share: constraint building and counting.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/podtopologyspread/common.go``
(topologySpreadConstraint, matchNodeInclusionPolicies, buildDefaultConstraints,
nodeLabelsMatchSpreadConstraints, filterTopologySpreadConstraints,
mergeLabelSetWithSelector, countPodsMatchSelector). Feature gates are those of v1.34,
all on: MinDomains, NodeInclusionPolicy and MatchLabelKeys.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ...framework.types import PodInfo
from ...k8s import labels as klabels
from ...k8s.nodeaffinity import RequiredNodeAffinity
from ...k8s.shared_memo import MISS, IdentityMemo
from ...k8s.taints import do_not_schedule_taints_filter, find_matching_untolerated_taint
from ...k8s.types import HONOR, IGNORE, Node, Pod, TopologySpreadConstraint
from ..helper.spread import default_selector_with_sources

ORIGIN_POD_SPEC = "pod spec"
ORIGIN_CLUSTER_DEFAULT = "cluster default"


@dataclass(frozen=True, slots=True)
class Constraint:
    """common.go topologySpreadConstraint: a constraint with its selector compiled.

    ``when_unsatisfiable``, ``origin`` and ``selector_sources`` are kept for explanations
    only (where the constraint came from, which objects gave a default selector).
    """

    max_skew: int
    topology_key: str
    selector: klabels.Selector
    min_domains: int = 1  # nil minDomains is treated as 1
    node_affinity_policy: str = HONOR  # nil is treated as Honor
    node_taints_policy: str = IGNORE  # nil is treated as Ignore
    when_unsatisfiable: str = ""
    origin: str = ORIGIN_POD_SPEC
    selector_sources: tuple[str, ...] = ()

    def match_node_inclusion_policies(self, pod: Pod, node: Node,
                                      required: RequiredNodeAffinity) -> bool:
        """matchNodeInclusionPolicies: Honor policies exclude nodes the pod can't use."""
        if self.node_affinity_policy == HONOR and not required.match(node):
            return False
        if self.node_taints_policy == HONOR and find_matching_untolerated_taint(
                node.taints, pod.tolerations, do_not_schedule_taints_filter) is not None:
            return False
        return True


def merge_label_set_with_selector(match_labels: Mapping[str, str],
                                  s: klabels.Selector) -> klabels.Selector:
    """mergeLabelSetWithSelector: the pod's matchLabelKeys values AND the selector.

    A Nothing selector (nil labelSelector) stays Nothing; API validation forbids
    matchLabelKeys without a labelSelector anyway.
    """
    if s.nothing:
        return s
    return klabels.selector_from_set(match_labels).add(*s.requirements)


def _compile(c: TopologySpreadConstraint, pod_labels: Mapping[str, str]) -> Constraint:
    selector = klabels.selector_from_label_selector(c.label_selector)
    if c.match_label_keys:
        match_labels = {k: pod_labels[k] for k in c.match_label_keys if k in pod_labels}
        if match_labels:
            selector = merge_label_set_with_selector(match_labels, selector)
    return Constraint(
        max_skew=c.max_skew, topology_key=c.topology_key, selector=selector,
        min_domains=c.min_domains if c.min_domains is not None else 1,
        node_affinity_policy=c.node_affinity_policy or HONOR,
        node_taints_policy=c.node_taints_policy or IGNORE,
        when_unsatisfiable=c.when_unsatisfiable)


def filter_topology_spread_constraints(constraints: Iterable[TopologySpreadConstraint],
                                       pod_labels: Mapping[str, str], action: str
                                       ) -> list[Constraint]:
    """filterTopologySpreadConstraints: the constraints whose whenUnsatisfiable is action,
    compiled, with matchLabelKeys merged (keys the pod lacks are ignored)."""
    return [_compile(c, pod_labels) for c in constraints if c.when_unsatisfiable == action]


def build_default_constraints(default_constraints: Sequence[TopologySpreadConstraint],
                              pod: Pod, services, workloads, action: str) -> list[Constraint]:
    """buildDefaultConstraints: cluster defaults with the selector from the pod's Services
    and controller; none when that selector is empty."""
    constraints = filter_topology_spread_constraints(default_constraints, pod.labels, action)
    if not constraints:
        return []
    found = default_selector_with_sources(pod, services, workloads)
    if found.selector.empty():
        return []
    return [Constraint(c.max_skew, c.topology_key, found.selector, c.min_domains,
                       c.node_affinity_policy, c.node_taints_policy, c.when_unsatisfiable,
                       ORIGIN_CLUSTER_DEFAULT, found.sources) for c in constraints]


def node_labels_match_spread_constraints(node_labels: Mapping[str, str],
                                         constraints: Sequence[Constraint]) -> bool:
    """nodeLabelsMatchSpreadConstraints: the node has ALL the constraints' topology keys."""
    for c in constraints:
        if c.topology_key not in node_labels:
            return False
    return True


def count_pods_match_selector(pod_infos: Iterable[PodInfo], selector: klabels.Selector,
                              ns: str) -> int:
    """countPodsMatchSelector: pods in namespace ns matching selector, terminating excluded.

    v1.34 returns 0 for an empty selector (labelSelector: {}), which therefore counts no
    pod at all (upstream PR #116607; changed after v1.34 by PR #141340).
    """
    if selector.empty():
        return 0
    count = 0
    memo = _MATCHED
    for pi in pod_infos:
        p = pi.pod
        if p.deletion_timestamp is not None or p.namespace != ns:
            continue
        labels = p.labels
        hit = memo.get(selector, labels)
        if hit is MISS:
            hit = memo.put(selector.matches(labels), selector, labels)
        if hit:
            count += 1
    return count


# per (selector, labels) objects: whether it matches (a workload's pods share one labels
# mapping, the loader's, so each node's count asks each pair once)
_MATCHED: IdentityMemo[bool] = IdentityMemo(65536)
