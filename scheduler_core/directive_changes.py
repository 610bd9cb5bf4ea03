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
from operator import attrgetter
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


_OTHERS: dict[tuple[type, tuple[str, ...]], attrgetter] = {}


def _same_but(old, new, fields: tuple[str, ...]) -> bool:
    """old and new are equal in every field but ``fields``."""
    others = _OTHERS.get((type(old), fields))
    if others is None:
        others = _OTHERS[type(old), fields] = attrgetter(*(n for n in old.__slots__ if n not in fields))
    return others(old) == others(new)


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
        if not _same_but(old, new, POD_DIRECTIVES):
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
        if not _same_but(old, replace(read, file_index=old.file_index), NODE_DIRECTIVES):
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
        if not _same_but(old, replace(read, template=old.template), ("template",)):
            return None
        if (old.template is None) != (template is None):
            return None
        if template is None:
            continue
        if not _same_but(old.template, template, POD_DIRECTIVES):
            return None
        changed = _directives(old.template, template, POD_DIRECTIVES)
        if changed:
            workloads[i] = replace(old, template=t.replace_pod(old.template, **changed))
    return tuple(workloads)
