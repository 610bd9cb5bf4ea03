"""Workload expansion: "scale to N" as a what-if.

When a ReplicaSet, StatefulSet or ReplicationController asks for more replicas than
the scenario has pods owned by it (ownerReferences kind + name), the missing pods are
created from its template as pending pods, the way its controller would create them
(pkg/controller/replicaset, statefulset: names ``<name>-<ordinal>`` for StatefulSets,
``<name>-<5 random chars>`` otherwise; here the chars are derived from a hash so runs
repeat). They come right after the workload in file order.
"""
from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Mapping

from .errors import ScenarioError
from .k8s import labels as klabels
from .k8s import types as t

# k8s.io/apimachinery/pkg/util/rand alphanums: no vowels, no confusable digits.
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


def suffix(name: str, index: int) -> str:
    """Five deterministic lowercase chars for the index-th generated pod of ``name``."""
    digest = hashlib.sha256(f"{name}/{index}".encode()).digest()
    return "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in digest[:5])


# apps/v1 DefaultDeploymentUniqueLabelKey
POD_TEMPLATE_HASH = "pod-template-hash"


def template_hash(w: t.Workload) -> str:
    """A stand-in for controller.ComputeHash: ten deterministic chars from the
    Deployment's identity (upstream hashes the template; only stability matters here)."""
    digest = hashlib.sha256(f"{w.namespace}/{w.name}/template".encode()).digest()
    return "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in digest[:10])


def replica_set_for(deploy: t.Workload, by_owner: Mapping[str, list[t.Pod]] | None = None
                    ) -> t.Workload:
    """The ReplicaSet a Deployment's controller keeps when the file has none of its
    ReplicaSets: selector and template labels gain ``pod-template-hash``
    (pkg/controller/deployment/sync.go getNewReplicaSet). When pods of the Deployment's
    ReplicaSets are in the file (``running_hashes``), it is the ReplicaSet of the newest
    of them, so they count as its replicas; the replicas of its other ReplicaSets (a
    rollout under way) are taken off its own. Otherwise the hash is made up.
    ``by_owner``: the pods of the Deployment's namespace by controlling ReplicaSet name."""
    running = running_hashes(deploy, by_owner or {})
    h, others = template_hash(deploy), 0
    if running:
        h = max(running, key=lambda k: (running[k][1], running[k][0]))
        others = sum(n for k, (n, _) in running.items() if k != h)
    sel = deploy.selector or t.LabelSelector()
    selector = replace(sel, match_labels={**sel.match_labels, POD_TEMPLATE_HASH: h})
    template = deploy.template
    if template is not None:
        template = replace(template, labels={**template.labels, POD_TEMPLATE_HASH: h})
    replicas = None if deploy.replicas is None else max(0, deploy.replicas - others)
    return t.Workload("ReplicaSet", f"{deploy.name}-{h}", deploy.namespace,
                      f"generated-{deploy.name}-{h}", selector, replicas, template)


def running_hashes(deploy: t.Workload, by_owner: Mapping[str, list[t.Pod]]
                   ) -> dict[str, tuple[int, float]]:
    """{pod-template-hash: (active pods, newest creation time)} of the pods that belong to
    the Deployment through a ReplicaSet missing from the file: controlled by a ReplicaSet
    named ``<deployment>-<hash>``, in its namespace, selected by its selector, with the
    ``pod-template-hash`` label (when set) equal to that hash; as the Deployment
    controller adopts them (getReplicaSetsForDeployment, then the ReplicaSet's pods)."""
    prefix = f"{deploy.name}-"
    selector = klabels.selector_from_label_selector(deploy.selector)
    out: dict[str, tuple[int, float]] = {}
    for owner, pods in by_owner.items():
        h = owner[len(prefix):]
        if not owner.startswith(prefix) or not h:
            continue
        for p in pods:
            if p.deletion_timestamp is not None or p.labels.get(POD_TEMPLATE_HASH, h) != h \
                    or not selector.matches(p.labels):
                continue
            n, newest = out.get(h, (0, 0.0))
            out[h] = (n + 1, max(newest, p.creation_timestamp))
    return out


def pods_by_replica_set(pods) -> dict[str, dict[str, list[t.Pod]]]:
    """{namespace: {ReplicaSet name: pods it controls}} (controller owner references)."""
    out: dict[str, dict[str, list[t.Pod]]] = {}
    for p in pods:
        ref = next((r for r in p.owner_references if r.controller), None)
        if ref is not None and ref.kind == "ReplicaSet":
            out.setdefault(p.namespace, {}).setdefault(ref.name, []).append(p)
    return out


# Far above the largest cluster measured (README "Benchmarks": 15,000 pods on 5,000 nodes).
MAX_PODS = 100_000


def _too_many(w: t.Workload, file: str) -> ScenarioError:
    kind, name = w.kind, w.name
    if w.uid.startswith("generated-"):  # the ReplicaSet made for a Deployment: name the Deployment
        kind, name = "Deployment", w.name.rsplit("-", 1)[0]
    return ScenarioError(file, f"{kind} {w.namespace}/{name}", "spec.replicas",
                         f"Invalid value: {w.replicas}: a scenario holds at most {MAX_PODS:,} pods")


def _owned(pod: t.Pod, w: t.Workload) -> bool:
    return pod.namespace == w.namespace and any(
        r.kind == w.kind and r.name == w.name for r in pod.owner_references)


def _missing_pods(w: t.Workload, ts: float, pods: list[t.Pod]) -> list[t.Pod]:
    owned = [p for p in pods if _owned(p, w)]
    if w.kind != "StatefulSet":  # controller.FilterActivePods: terminating pods don't count
        owned = [p for p in owned if p.deletion_timestamp is None]
    missing = (w.replicas or 0) - len(owned)
    if w.template is None or missing <= 0:
        return []
    taken = {p.name for p in pods if p.namespace == w.namespace}
    ref = t.OwnerReference("apps/v1" if w.kind != "ReplicationController" else "v1",
                           w.kind, w.name, w.uid, True)
    out: list[t.Pod] = []
    for name in _names(w, taken, missing):
        out.append(replace(w.template, name=name, namespace=w.namespace, uid=f"generated-{name}",
                           owner_references=(ref,), creation_timestamp=ts, node_name="",
                           nominated_node_name="", phase="Pending"))
    return out


def _names(w: t.Workload, taken: set[str], count: int) -> list[str]:
    names: list[str] = []
    i = 0
    while len(names) < count:
        name = f"{w.name}-{i}" if w.kind == "StatefulSet" else f"{w.name}-{suffix(w.name, i)}"
        if name not in taken:
            names.append(name)
            taken.add(name)
        i += 1
    return names


def expand_workloads(pods: list[tuple[int, t.Pod]],
                     workloads: list[tuple[int, t.Workload, float]],
                     generated: list[tuple[int, list[t.Pod]]] = (), file: str = "") -> list[t.Pod]:
    """All pods in file order, generated pods placed right after their workload
    (``generated``: pods made elsewhere, e.g. DaemonSet pods, by their owner's order). A
    scenario holds at most MAX_PODS pods: a workload whose replicas would pass it is refused
    before any pod is made (``replicas: 1000000000000`` would fill the memory)."""
    existing = [p for _, p in pods]
    keyed: list[tuple[int, int, t.Pod]] = [(o, 0, p) for o, p in pods]
    if len(existing) + sum(w.replicas or 0 for _, w, _ in workloads) > MAX_PODS:  # (rare: count precisely)
        total = len(existing)
        for _, w, _ in workloads:
            total += max(0, (w.replicas or 0) - sum(1 for p in existing if _owned(p, w)))
            if total > MAX_PODS:
                raise _too_many(w, file)
    for order, w, ts in workloads:
        for k, p in enumerate(_missing_pods(w, ts, existing), start=1):
            keyed.append((order, k, p))
    for order, made in generated:
        for k, p in enumerate(made, start=1):
            keyed.append((order, k, p))
    keyed.sort(key=lambda x: (x[0], x[1]))
    return [p for _, _, p in keyed]
