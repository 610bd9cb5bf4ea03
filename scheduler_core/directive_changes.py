"""A loaded scenario with some objects' scheduling directives changed, without loading it again.

A quick edit of a large cluster (maxSkew of one workload's spread constraint, a gate, a taint on a
node) changes a few thousand of its documents, and only fields the load copies into each object
unchanged: no pod is dropped, added or reordered by them. ``with_changed_documents`` decodes just
the changed documents with the loader's own code and puts their new directives into the scenario
loaded before; the result equals what loading the whole edited text gives (the differential tests
compare the two). Any other change, or a document the load treats as part of something wider, gives
None, and the caller loads the text.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from .errors import ScenarioError
from .k8s import types as t
from .scenario import SYSTEM_PRIORITY_CLASSES, Scenario, _Builder, _resolve_priority, _resolve_template

# The pod fields a scheduling directive lives in. Changing one never changes which pods the load keeps,
# generates or how it orders them (that reads names, owners, labels, nodeName, phase and volumes).
POD_DIRECTIVES = ("topology_spread_constraints", "tolerations", "affinity", "node_selector",
                  "scheduling_gates", "priority", "priority_class_name", "preemption_policy")
NODE_DIRECTIVES = ("taints", "unschedulable")
# Workload kinds whose object the scenario keeps as it reads it (a Deployment's and a DaemonSet's make
# other objects: a ReplicaSet the controller would keep, a pod per node).
WORKLOAD_KINDS = ("ReplicaSet", "ReplicationController", "StatefulSet")
KINDS = ("Pod", "Node") + WORKLOAD_KINDS


def with_changed_documents(scenario: Scenario, docs: Iterable[dict]) -> Scenario | None:
    """``scenario`` with each of ``docs`` (a Pod, Node, ReplicaSet, ReplicationController or StatefulSet
    object of it, as the edited text now writes it) read anew, when each differs from what the scenario
    read only in its scheduling directives (POD_DIRECTIVES, in a workload's pod template too, and
    NODE_DIRECTIVES); None otherwise: another field or kind changed, an object the scenario does not hold
    (a pod dropped or made by the load), a workload whose template made pods, a node change where
    DaemonSets place pods per node, or a document the loader refuses (the text's load says why)."""
    docs = list(docs)
    if not all(isinstance(doc, dict) and doc.get("kind") in KINDS for doc in docs):
        return None
    read = scenario.summary.get("read", {})
    builder = _Builder(scenario.source)
    try:
        for doc in docs:
            builder.add(doc)
    except (ScenarioError, RecursionError):
        return None
    if builder.deployments or builder.daemon_sets or builder.config_doc is not None:
        return None
    if builder.nodes and read.get("DaemonSet"):
        return None  # (a taint decides which nodes a DaemonSet's pods are made for)
    if builder.workloads and read.get("Deployment"):
        return None  # (a ReplicaSet's owner decides whether a Deployment makes one: not in what is read)
    classes = {**SYSTEM_PRIORITY_CLASSES, **scenario.priority_classes}
    try:
        pods = _pods(scenario, builder, classes)
        nodes = _nodes(scenario, builder)
        workloads = _workloads(scenario, builder, classes)
    except ScenarioError:
        return None
    if pods is None or nodes is None or workloads is None:
        return None
    return replace(scenario, pods=pods, nodes=nodes, workloads=workloads)



def _directives(old, new, fields: tuple[str, ...]) -> dict:
    """The directive fields whose value changed (the old value kept where it is equal: what the
    scheduling loop matches by identity stays shared with the objects that were not changed)."""
    return {name: getattr(new, name) for name in fields if getattr(new, name) != getattr(old, name)}


def _pods(scenario: Scenario, builder: _Builder, classes) -> tuple[t.Pod, ...] | None:
    if not builder.raw_pods:
        return scenario.pods
    where = {p.key: i for i, p in enumerate(scenario.pods)}
    pods = list(scenario.pods)
    for _, d, raw in builder.raw_pods:
        i = where.get(raw.key)
        if i is None:
            return None
        old = pods[i]
        if old.uid.startswith("generated-"):
            return None  # (a pod the load made has no document of its own)
        new = _resolve_priority(d, raw, classes, file_index=old.file_index)
        if not t.same_but(old, new, POD_DIRECTIVES):
            return None
        changed = _directives(old, new, POD_DIRECTIVES)
        if changed:
            pods[i] = t.replace_pod(old, **changed)
    return tuple(pods)


def _nodes(scenario: Scenario, builder: _Builder) -> tuple[t.Node, ...] | None:
    if not builder.nodes:
        return scenario.nodes
    where = {n.name: i for i, n in enumerate(scenario.nodes)}
    nodes = list(scenario.nodes)
    for read in builder.nodes:
        i = where.get(read.name)
        if i is None:
            return None
        old = nodes[i]
        if not t.same_but(old, replace(read, file_index=old.file_index), NODE_DIRECTIVES):
            return None
        changed = _directives(old, read, NODE_DIRECTIVES)
        if changed:
            nodes[i] = replace(old, **changed)
    return tuple(nodes)


def _workloads(scenario: Scenario, builder: _Builder, classes) -> tuple[t.Workload, ...] | None:
    if not builder.workloads:
        return scenario.workloads
    where = {(w.kind, w.namespace, w.name): i for i, w in enumerate(scenario.workloads)}
    made = {entry["owner"] for entry in scenario.summary.get("added", ())}
    workloads = list(scenario.workloads)
    for _, read, _ in builder.workloads:
        i = where.get((read.kind, read.namespace, read.name))
        if i is None or f"{read.kind} {read.namespace}/{read.name}" in made:
            return None  # (pods made from the template would change with it)
        old = workloads[i]
        template = _resolve_template(read, classes, builder.file)
        if not t.same_but(old, replace(read, template=old.template), ("template",)):
            return None
        if (old.template is None) != (template is None):
            return None
        if template is None:
            continue
        if not t.same_but(old.template, template, POD_DIRECTIVES):
            return None
        changed = _directives(old.template, template, POD_DIRECTIVES)
        if changed:
            workloads[i] = replace(old, template=t.replace_pod(old.template, **changed))
    return tuple(workloads)


# The fields of a topology spread constraint ``with_spread_fields`` sets (the TopologySpreadConstraint field names).
SPREAD_FIELDS = ("max_skew", "min_domains", "when_unsatisfiable", "topology_key")
_INT32_MAX = 2 ** 31 - 1


def with_spread_fields(scenario: Scenario, pods: Iterable[str], workloads: Iterable[tuple[str, str, str]],
                       index: int, fields: dict) -> Scenario | None:
    """``scenario`` with ``fields`` (SPREAD_FIELDS: a value each, min_domains None to unset it) set in
    topologySpreadConstraints[index] of the pods named (``namespace/name``) and of the pod templates of the
    workloads named ((kind, namespace, name)): what loading the text edited so gives (the differential tests compare
    the two), made without reading a document. None when that text would not load as this scenario with the new
    constraints (a value the API refuses, two constraints of one key and whenUnsatisfiable), or could give more than
    that: a pod or workload the scenario does not hold, one without constraint ``index``, a pod the load made or a
    workload whose template made pods, a scenario that read a Deployment or dropped a pod it read. Pods whose
    constraints were one tuple share the new one, as the loader shares them (the scheduling loop matches templates
    by identity)."""
    if not fields or any(name not in SPREAD_FIELDS for name in fields) or \
            isinstance(index, bool) or not isinstance(index, int) or index < 0:
        return None
    read = scenario.summary.get("read", {})
    made = {entry["owner"] for entry in scenario.summary.get("added", ())}
    kept_pods = sum(1 for p in scenario.pods if not p.uid.startswith("generated-"))
    if read.get("Deployment") or read.get("Pod", 0) != kept_pods or \
            sum(read.get(kind, 0) for kind in WORKLOAD_KINDS) != len(scenario.workloads):
        return None
    new_of: dict[int, tuple] = {}  # id of a constraints tuple -> the tuple with the fields set (None: refused)

    def changed(constraints: tuple) -> tuple | None:
        if id(constraints) not in new_of:  # (the tuple is the scenario's: its id names it throughout)
            new_of[id(constraints)] = _spread_set(constraints, index, fields)
        return new_of[id(constraints)]

    wanted = set(pods)
    out = list(scenario.pods)
    for i, pod in enumerate(out):
        if pod.key not in wanted:
            continue
        wanted.discard(pod.key)
        if pod.uid.startswith("generated-"):
            return None  # (its template's change is the text's)
        new = changed(pod.topology_spread_constraints)
        if new is None:
            return None
        if new is not pod.topology_spread_constraints:
            out[i] = t.replace_pod(pod, topology_spread_constraints=new)
    if wanted:
        return None
    where = {(w.kind, w.namespace, w.name): i for i, w in enumerate(scenario.workloads)}
    controllers = list(scenario.workloads)
    for ref in workloads:
        i = where.get(tuple(ref))
        if i is None or f"{ref[0]} {ref[1]}/{ref[2]}" in made:
            return None
        w = controllers[i]
        if w.template is None:
            return None
        new = changed(w.template.topology_spread_constraints)
        if new is None:
            return None
        if new is not w.template.topology_spread_constraints:
            controllers[i] = replace(w, template=t.replace_pod(w.template, topology_spread_constraints=new))
    return replace(scenario, pods=tuple(out), workloads=tuple(controllers))


def _spread_set(constraints: tuple, index: int, fields: dict) -> tuple | None:
    """constraints with fields set in constraints[index], validated as the loader validates them
    (manifests.read_spread_constraints); the same tuple when nothing changes; None when refused."""
    if index >= len(constraints):
        return None
    old = constraints[index]
    new = replace(old, **fields)
    max_skew, min_domains = new.max_skew, new.min_domains
    if not _int32(max_skew) or max_skew <= 0 or not isinstance(new.topology_key, str) or not new.topology_key:
        return None
    if new.when_unsatisfiable not in (t.DO_NOT_SCHEDULE, t.SCHEDULE_ANYWAY):
        return None
    if min_domains is not None and (not _int32(min_domains) or min_domains <= 0 or
                                    new.when_unsatisfiable != t.DO_NOT_SCHEDULE):
        return None
    if new == old:
        return constraints
    out = constraints[:index] + (new,) + constraints[index + 1:]
    pairs = [(c.topology_key, c.when_unsatisfiable) for c in out]
    return out if len(set(pairs)) == len(pairs) else None


def _int32(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and -_INT32_MAX - 1 <= v <= _INT32_MAX
