"""DaemonSet pods for the nodes that lack one, as the DaemonSet controller makes them.

Mirrors pkg/controller/daemon (v1.34): for each node, ``NodeShouldRunDaemonPod``
decides with the template's nodeName, required node affinity and nodeSelector, and the
node's NoSchedule / NoExecute taints against the template's tolerations plus those the
controller adds (util.AddOrUpdateDaemonPodTolerations). A node has a daemon pod when a
pod of the DaemonSet (an owner reference names it) is bound to it, or pending with a
node affinity naming it. The pod created for a node carries a required node affinity on
``metadata.name`` (util.ReplaceDaemonSetPodNodeNameNodeAffinity, since v1.12), so
kube-scheduler binds it through the normal scheduling cycle (a new node of a what-if
gets its daemon pods).
"""
from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Iterable

from .k8s import types as t
from .k8s.nodeaffinity import RequiredNodeAffinity
from .k8s.taints import do_not_schedule_taints_filter, find_matching_untolerated_taint
from .workloads import _ALPHANUMS

# util.AddOrUpdateDaemonPodTolerations: (key, effect), operator Exists, no time limit.
DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", t.NO_EXECUTE),
    ("node.kubernetes.io/unreachable", t.NO_EXECUTE),
    ("node.kubernetes.io/disk-pressure", t.NO_SCHEDULE),
    ("node.kubernetes.io/memory-pressure", t.NO_SCHEDULE),
    ("node.kubernetes.io/pid-pressure", t.NO_SCHEDULE),
    ("node.kubernetes.io/unschedulable", t.NO_SCHEDULE),
)
# added only to pods with hostNetwork
NETWORK_UNAVAILABLE = ("node.kubernetes.io/network-unavailable", t.NO_SCHEDULE)
METADATA_NAME = "metadata.name"  # metav1.ObjectNameField


def _add_or_update(tolerations: tuple[t.Toleration, ...], new: t.Toleration
                   ) -> tuple[t.Toleration, ...]:
    """v1helper.AddOrUpdateTolerationInPodSpec: replace the toleration with the same key,
    operator, value and effect (MatchToleration), else append."""
    same = (new.key, new.operator, new.value, new.effect)
    out, found = [], False
    for tol in tolerations:
        if (tol.key, tol.operator, tol.value, tol.effect) == same:
            out.append(new)
            found = True
        else:
            out.append(tol)
    return tuple(out) if found else tuple(out) + (new,)


def daemon_tolerations(template: t.Pod, host_network: bool) -> tuple[t.Toleration, ...]:
    """The template's tolerations with the controller's own (the not-ready and
    unreachable ones replace DefaultTolerationSeconds' 300 s versions: no limit)."""
    tols = template.tolerations
    extra = DAEMON_TOLERATIONS + ((NETWORK_UNAVAILABLE,) if host_network else ())
    for key, effect in extra:
        tols = _add_or_update(tols, t.Toleration(key, "Exists", "", effect))
    return tols


def should_run(template: t.Pod, node: t.Node) -> bool:
    """NodeShouldRunDaemonPod's predicates for a template already carrying the daemon
    tolerations: nodeName, required node affinity with nodeSelector, and taints."""
    if template.node_name and template.node_name != node.name:
        return False
    if not RequiredNodeAffinity.from_pod(template).match(node):
        return False
    return find_matching_untolerated_taint(node.taints, template.tolerations,
                                           do_not_schedule_taints_filter) is None


def target_node(pod: t.Pod) -> str:
    """util.GetTargetNodeName: the bound node, else the ``metadata.name`` In value of
    the required node affinity ("" when none)."""
    if pod.node_name:
        return pod.node_name
    na = pod.affinity.node_affinity if pod.affinity else None
    if na is None or na.required is None:
        return ""
    for term in na.required.node_selector_terms:
        for req in term.match_fields:
            if req.key == METADATA_NAME and req.operator == "In" and len(req.values) == 1:
                return req.values[0]
    return ""


def _owned_by(pod: t.Pod, ds: t.Workload) -> bool:
    """An owner reference names the DaemonSet (the controller's own pods also say
    ``controller: true``; a hand-written file may not)."""
    return pod.namespace == ds.namespace and any(
        r.kind == "DaemonSet" and r.name == ds.name for r in pod.owner_references)


def for_node(template: t.Pod, node: str) -> t.Affinity:
    """util.ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes
    one term, ``metadata.name In [node]``; preferred terms and pod (anti-)affinity stay."""
    term = t.NodeSelectorTerm((), (t.NodeSelectorRequirement(METADATA_NAME, "In", (node,)),))
    aff = template.affinity or t.Affinity()
    na = aff.node_affinity or t.NodeAffinity()
    return replace(aff, node_affinity=replace(na, required=t.NodeSelector((term,))))


def _name(ds: t.Workload, node: str, taken: set[str]) -> str:
    """``<daemonset>-<5 chars>``, derived from the node so a run repeats."""
    i = 0
    while True:
        digest = hashlib.sha256(f"{ds.namespace}/{ds.name}/{node}/{i}".encode()).digest()
        name = f"{ds.name}-" + "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in digest[:5])
        if name not in taken:
            taken.add(name)
            return name
        i += 1


def missing_pods(ds: t.Workload, ts: float, nodes: Iterable[t.Node], pods: list[t.Pod],
                 host_network: bool = False) -> list[t.Pod]:
    """The pending pods the DaemonSet controller would create: one per eligible node
    without a pod of this DaemonSet, in node order (``host_network``: the template's)."""
    if ds.template is None:
        return []
    template = replace(ds.template, tolerations=daemon_tolerations(ds.template, host_network))
    have = {target_node(p) for p in pods if _owned_by(p, ds)}
    taken = {p.name for p in pods if p.namespace == ds.namespace}
    ref = t.OwnerReference("apps/v1", "DaemonSet", ds.name, ds.uid, True)
    out = []
    for node in nodes:
        if node.name in have or not should_run(template, node):
            continue
        name = _name(ds, node.name, taken)
        out.append(replace(template, name=name, namespace=ds.namespace,
                           uid=f"generated-{name}", owner_references=(ref,),
                           creation_timestamp=ts, node_name="", nominated_node_name="",
                           phase="Pending", affinity=for_node(template, node.name)))
    return out
