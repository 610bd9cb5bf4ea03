"""Queueing hints for an assigned pod being added (a bind) or deleted (an eviction).

Mirrors kube-scheduler v1.34's ``isSchedulableAfterPodChange`` of
``plugins/podtopologyspread/plugin.go`` and ``plugins/interpodaffinity/plugin.go`` for the
AssignedPodAdd event: a pod rejected by one of them is worth retrying only when the new
pod could change that plugin's verdict. When in doubt (spread constraints that come from
the cluster defaults) the hint says Queue, as upstream does for errors.
"""
from __future__ import annotations

from .framework.types import new_affinity_term
from .k8s import labels as klabels
from .k8s.types import DO_NOT_SCHEDULE, Pod
from .plugins import names


def spread_hint(pending: Pod, added: Pod) -> bool:
    """PodTopologySpread: same namespace and the added pod's labels match a DoNotSchedule
    constraint's selector (default constraints: always Queue)."""
    if added.namespace != pending.namespace:
        return False
    hard = [c for c in pending.topology_spread_constraints
            if c.when_unsatisfiable == DO_NOT_SCHEDULE]
    if not pending.topology_spread_constraints:
        return True  # defaulted constraints: their selectors depend on Services/workloads
    return any(klabels.selector_from_label_selector(c.label_selector).matches(added.labels)
               for c in hard or pending.topology_spread_constraints)


def inter_pod_affinity_hint(pending: Pod, added: Pod) -> bool:
    """InterPodAffinity: the added pod matches one of the pending pod's required affinity
    terms (namespace selectors are not consulted, as upstream passes no labels)."""
    aff = pending.affinity.pod_affinity if pending.affinity else None
    if aff is None:
        return False
    return any(new_affinity_term(pending, t).matches(added, None) for t in aff.required)


ASSIGNED_POD_ADD_HINTS = {
    names.POD_TOPOLOGY_SPREAD: spread_hint,
    names.INTER_POD_AFFINITY: inter_pod_affinity_hint,
}


def worth_retrying_after_bind(pending: Pod, rejectors: set[str], added: Pod) -> bool:
    """Whether a bind of ``added`` moves ``pending`` out of the unschedulable pool: no
    rejector recorded (an error), or one rejector's hint says Queue."""
    if not rejectors:
        return True
    return any(ASSIGNED_POD_ADD_HINTS[p](pending, added)
               for p in rejectors if p in ASSIGNED_POD_ADD_HINTS)


# Plugins that register only Node events (v1.34 EventsToRegister): deleting a pod never
# changes their verdict.
NODE_ONLY_PLUGINS = frozenset({names.NODE_AFFINITY, names.TAINT_TOLERATION,
                               names.NODE_UNSCHEDULABLE, names.NODE_NAME})


def _has_host_ports(pod: Pod) -> bool:
    return any(p.host_port > 0 for c in pod.containers for p in c.ports)


def worth_retrying_after_delete(pending: Pod, rejectors: set[str], deleted: Pod) -> bool:
    """Whether deleting ``deleted`` moves ``pending`` out of the pool: any rejector that
    can react to an AssignedPodDelete (NodePorts only when the pod held host ports)."""
    if not rejectors:
        return True
    for p in rejectors:
        if p in NODE_ONLY_PLUGINS:
            continue
        if p == names.NODE_PORTS and not _has_host_ports(deleted):
            continue
        return True
    return False
