"""A loaded scenario with changed scheduling directives equals the edited text loaded again.

``with_changed_documents`` puts the new directives of a few documents into the scenario loaded
before; for every change it takes, the scenario (and what the simulation makes of it) must be the
one loading the whole edited text gives. Every other change gives None, so that the text is loaded.
"""
from __future__ import annotations

import copy

import pytest
import yaml

from scheduler_core.api import simulate
from scheduler_core.directive_changes import with_changed_documents, with_spread_fields
from scheduler_core.scenario import load_scenario
from tests.bench.generate import generate, to_yaml

ZONE = "topology.kubernetes.io/zone"


def _node(name, zone, **spec):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {ZONE: zone, "kubernetes.io/hostname": name}},
            "spec": spec, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _spread(app, skew=1):
    return [{"maxSkew": skew, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": app}}}]


def _pod_spec(app, **extra):
    return {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}],
            "topologySpreadConstraints": _spread(app), **extra}


def _pod(name, app, owner=None, node="", **extra):
    meta = {"name": name, "namespace": "default", "labels": {"app": app},
            "creationTimestamp": f"2026-01-01T00:00:{len(name):02d}Z"}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1],
                                    "uid": f"uid-{owner[1]}", "controller": True}]
    spec = _pod_spec(app, **extra)
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": "Running" if node else "Pending"}}


def _workload(kind, name, app, replicas):
    return {"apiVersion": "apps/v1", "kind": kind,
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app}},
                     "template": {"metadata": {"labels": {"app": app}}, "spec": _pod_spec(app)}}}


def _objects(*extra):
    return [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 10},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
         "value": 1000},
        _node("n1", "a"), _node("n2", "a"), _node("n3", "b", taints=[{"key": "gpu", "effect": "NoSchedule"}]),
        _node("n4", "c"),
        _workload("ReplicaSet", "web", "web", 3),
        _pod("web-1", "web", ("ReplicaSet", "web"), node="n1"),
        _pod("web-2", "web", ("ReplicaSet", "web"), priorityClassName="low"),
        _pod("web-3", "web", ("ReplicaSet", "web"), schedulingGates=[{"name": "wait"}]),
        _workload("ReplicaSet", "api", "api", 3),  # one pod listed: the load makes two more
        _pod("api-1", "api", ("ReplicaSet", "api")),
        _pod("solo", "solo", priorityClassName="high"),
        *extra,
    ]


def _find(objects, kind, name):
    return next(o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name)


def _change(kind, name, change):
    def edit(objects):
        obj = _find(objects, kind, name)
        change(obj)
        return [obj]
    return edit


def _pods_of(app, change, template=None):
    def edit(objects):
        changed = [o for o in objects if o["kind"] == "Pod" and o["metadata"]["labels"].get("app") == app]
        if template:
            changed.append(_find(objects, *template))
        for obj in changed:
            change(obj["spec"]["template"]["spec"] if obj["kind"] != "Pod" else obj["spec"])
        return changed
    return edit


def _set(path, value):
    def change(obj):
        *parents, last = path
        for key in parents:
            obj = obj.setdefault(key, {}) if not isinstance(obj, list) else obj[key]
        obj[last] = value
    return change


def _pop(*path):
    def change(obj):
        *parents, last = path
        for key in parents:
            obj = obj[key]
        obj.pop(last)
    return change


# (what the edit is, the objects, the edit: changes objects in place and returns the documents it changed)
TAKEN = [
    ("maxSkew of a workload's pods and template", _objects(),
     _pods_of("web", _set(("topologySpreadConstraints", 0, "maxSkew"), 2), template=("ReplicaSet", "web"))),
    ("a second spread constraint on a pod", _objects(),
     _change("Pod", "solo", _set(("spec", "topologySpreadConstraints"),
                                 _spread("solo") + [{**_spread("solo")[0], "topologyKey": "kubernetes.io/hostname"}]))),
    ("whenUnsatisfiable and minDomains", _objects(),
     _pods_of("web", lambda spec: spec["topologySpreadConstraints"][0].update(
         whenUnsatisfiable="DoNotSchedule", minDomains=3))),
    ("a spread constraint removed", _objects(), _change("Pod", "solo", _pop("spec", "topologySpreadConstraints"))),
    ("a gate removed", _objects(), _change("Pod", "web-3", _pop("spec", "schedulingGates"))),
    ("a gate added", _objects(), _change("Pod", "solo", _set(("spec", "schedulingGates"), [{"name": "hold"}]))),
    ("a priority number", _objects(), _change("Pod", "web-2", _set(("spec", "priority"), 5000))),
    ("another PriorityClass", _objects(), _change("Pod", "solo", _set(("spec", "priorityClassName"), "low"))),
    ("a system PriorityClass", _objects(),
     _change("Pod", "web-2", _set(("spec", "priorityClassName"), "system-cluster-critical"))),
    ("a toleration", _objects(), _change("Pod", "solo", _set(("spec", "tolerations"),
                                                           [{"key": "gpu", "operator": "Exists"}]))),
    ("a nodeSelector", _objects(), _change("Pod", "web-2", _set(("spec", "nodeSelector"), {ZONE: "c"}))),
    ("required node affinity", _objects(), _change("Pod", "solo", _set(("spec", "affinity"), {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["b"]}]}]}}}))),
    ("a node tainted", _objects(), _change("Node", "n4", _set(("spec", "taints"),
                                                            [{"key": "maint", "effect": "NoSchedule"}]))),
    ("a node's taint removed", _objects(), _change("Node", "n3", _pop("spec", "taints"))),
    ("a node cordoned", _objects(), _change("Node", "n1", _set(("spec", "unschedulable"), True))),
    ("nothing changed in the document", _objects(), _change("Pod", "solo", lambda obj: None)),
]

REFUSED = [
    ("a pod's labels", _objects(), _change("Pod", "solo", _set(("metadata", "labels", "app"), "other"))),
    ("a pod's nodeName", _objects(), _change("Pod", "web-1", _pop("spec", "nodeName"))),
    ("a pod's requests", _objects(), _change("Pod", "solo", lambda obj: obj["spec"]["containers"][0].update(
        resources={"requests": {"cpu": "2"}}))),
    ("a node's labels", _objects(), _change("Node", "n1", _set(("metadata", "labels", ZONE), "c"))),
    ("a node's allocatable", _objects(), _change("Node", "n1", _set(("status", "allocatable", "cpu"), "8"))),
    ("a template whose workload made pods", _objects(),
     _pods_of("api", _set(("topologySpreadConstraints", 0, "maxSkew"), 2), template=("ReplicaSet", "api"))),
    ("a workload's replicas", _objects(), _change("ReplicaSet", "web", _set(("spec", "replicas"), 4))),
    ("a pod not in the scenario", _objects(),
     lambda objects: [_pod("new", "web", ("ReplicaSet", "web"))]),
    ("a PriorityClass that does not exist", _objects(),
     _change("Pod", "solo", _set(("spec", "priorityClassName"), "nope"))),
    ("a maxSkew the loader refuses", _objects(), _change("Pod", "solo", _set(
        ("spec", "topologySpreadConstraints", 0, "maxSkew"), 0))),
    ("a kind it does not take", _objects(), _change("PriorityClass", "low", _set(("value",), 20))),
    ("a node's taint where DaemonSets place pods", _objects({
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}},
                 "template": {"metadata": {"labels": {"app": "agent"}}, "spec": _pod_spec("agent")}}}),
     _change("Node", "n4", _set(("spec", "taints"), [{"key": "maint", "effect": "NoSchedule"}]))),
    ("a ReplicaSet where Deployments are read", _objects({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "front", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "front"}},
                 "template": {"metadata": {"labels": {"app": "front"}}, "spec": _pod_spec("front")}}}),
     _change("ReplicaSet", "web", lambda obj: obj["spec"]["template"]["spec"]["topologySpreadConstraints"][0]
             .update(maxSkew=3))),
]


def _load(objects):
    return load_scenario(to_yaml(objects), "scenario.yaml")


def _edited(objects, edit):
    before = _load(objects)
    objects = copy.deepcopy(objects)
    changed = edit(objects)
    return before, changed, objects


@pytest.mark.parametrize("objects,edit", [c[1:] for c in TAKEN], ids=[c[0] for c in TAKEN])
def test_changed_directives_give_the_scenario_the_edited_text_loads(objects, edit):
    before, changed, after = _edited(objects, edit)
    spliced = with_changed_documents(before, changed)
    loaded = _load(after)
    assert spliced == loaded
    assert simulate(spliced, seed=1) == simulate(loaded, seed=1)


@pytest.mark.parametrize("objects,edit", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_other_changes_are_left_to_a_load_of_the_text(objects, edit):
    before, changed, _ = _edited(objects, edit)
    assert with_changed_documents(before, changed) is None


def test_the_scenario_changed_is_left_as_it_was():
    objects = _objects()
    before = _load(objects)
    kept = copy.deepcopy(before)
    _, changed, _ = _edited(objects, _change("Node", "n1", _set(("spec", "unschedulable"), True)))
    assert with_changed_documents(before, changed) is not None
    assert before == kept


@pytest.mark.parametrize("seed", [0, 1])
def test_a_dense_cluster_with_preemption_simulates_the_same_either_way(seed):
    """A generated cluster (bound pods, pod affinity, two priorities): one app's spread constraints, a
    priority and a gate changed on thousands of documents at once, as the draft editor's quick edits do."""
    objects = generate("dense-60x400", seed=seed).objects
    before = _load(objects)
    objects = copy.deepcopy(objects)
    changed = []
    pods = [o for o in objects if o["kind"] == "Pod"]
    app = pods[0]["metadata"]["labels"]["app"]
    for pod in pods:
        spec = pod["spec"]
        if pod["metadata"]["labels"].get("app") == app and spec.get("topologySpreadConstraints"):
            spec["topologySpreadConstraints"][0]["maxSkew"] += 1
            changed.append(pod)
        elif not spec.get("nodeName") and len(changed) % 7 == 0:
            spec["priority"] = 1_000_000
            changed.append(pod)
        elif spec.get("schedulingGates"):
            spec.pop("schedulingGates")
            changed.append(pod)
    node = next(o for o in objects if o["kind"] == "Node")
    node.setdefault("spec", {})["unschedulable"] = True
    changed.append(node)
    spliced = with_changed_documents(before, changed)
    loaded = _load(objects)
    assert spliced is not None and spliced == loaded
    assert simulate(spliced, seed=seed) == simulate(loaded, seed=seed)


# --- with_spread_fields: a spread constraint's fields set without the documents -----------------------------------
WEB = (["default/web-1", "default/web-2", "default/web-3"], [("ReplicaSet", "default", "web")])
SOLO = (["default/solo"], [])


def _two_constraints(objects):
    solo = _find(objects, "Pod", "solo")
    solo["spec"]["topologySpreadConstraints"] = _spread("solo") + [
        {**_spread("solo")[0], "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}]
    return objects


def _constraint_of(targets, index, **raw):
    """The documents' edit: raw fields set in topologySpreadConstraints[index] of the pods and templates named
    (a None value removes the field), as the draft editor's set_spread writes them."""
    def edit(objects):
        pods, workloads = targets
        for obj in objects:
            meta = obj.get("metadata", {})
            ref = (obj["kind"], meta.get("namespace"), meta.get("name"))
            if obj["kind"] == "Pod" and f"{ref[1]}/{ref[2]}" in pods or ref in workloads:
                spec = obj["spec"]["template"]["spec"] if obj["kind"] != "Pod" else obj["spec"]
                c = spec["topologySpreadConstraints"][index]
                for k, v in raw.items():
                    if v is None:
                        c.pop(k, None)
                    else:
                        c[k] = v
    return edit


# (what changes, the objects, the targets, the index, the engine's fields, the same change in the documents' words)
SPREAD_TAKEN = [
    ("maxSkew of a workload's pods and template", _objects(), WEB, 0, {"max_skew": 2}, {"maxSkew": 2}),
    ("minDomains set", _objects(), WEB, 0, {"min_domains": 3}, {"minDomains": 3}),
    ("whenUnsatisfiable", _objects(), WEB, 0, {"when_unsatisfiable": "ScheduleAnyway"},
     {"whenUnsatisfiable": "ScheduleAnyway"}),
    ("topologyKey", _objects(), SOLO, 0, {"topology_key": "kubernetes.io/hostname"},
     {"topologyKey": "kubernetes.io/hostname"}),
    ("the second constraint of two", _two_constraints(_objects()), SOLO, 1,
     {"max_skew": 3, "when_unsatisfiable": "DoNotSchedule", "min_domains": 2},
     {"maxSkew": 3, "whenUnsatisfiable": "DoNotSchedule", "minDomains": 2}),
    ("minDomains unset where none is set", _objects(), SOLO, 0, {"min_domains": None}, {"minDomains": None}),
    ("a value it already has", _objects(), WEB, 0, {"max_skew": 1}, {"maxSkew": 1}),
    ("one pod of a workload", _objects(), (["default/web-2"], []), 0, {"max_skew": 4}, {"maxSkew": 4}),
]

SPREAD_REFUSED = [
    ("maxSkew 0", _objects(), SOLO, 0, {"max_skew": 0}),
    ("maxSkew past int32", _objects(), SOLO, 0, {"max_skew": 2 ** 31}),
    ("maxSkew a bool", _objects(), SOLO, 0, {"max_skew": True}),
    ("minDomains with ScheduleAnyway", _objects(), SOLO, 0,
     {"when_unsatisfiable": "ScheduleAnyway", "min_domains": 2}),
    ("minDomains 0", _objects(), SOLO, 0, {"min_domains": 0}),
    ("an unknown whenUnsatisfiable", _objects(), SOLO, 0, {"when_unsatisfiable": "Sometimes"}),
    ("an empty topologyKey", _objects(), SOLO, 0, {"topology_key": ""}),
    ("two constraints of one key and whenUnsatisfiable", _two_constraints(_objects()), SOLO, 1,
     {"topology_key": ZONE, "when_unsatisfiable": "DoNotSchedule"}),
    ("a constraint index the pods lack", _objects(), SOLO, 1, {"max_skew": 2}),
    ("a field it does not set", _objects(), SOLO, 0, {"label_selector": None}),
    ("a pod not in the scenario", _objects(), (["default/nope"], []), 0, {"max_skew": 2}),
    ("a workload not in the scenario", _objects(), ([], [("StatefulSet", "default", "web")]), 0, {"max_skew": 2}),
    ("a workload whose template made pods", _objects(), ([], [("ReplicaSet", "default", "api")]), 0,
     {"max_skew": 2}),
    ("a scenario that read a Deployment", _objects({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "front", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "front"}},
                 "template": {"metadata": {"labels": {"app": "front"}}, "spec": _pod_spec("front")}}}),
     SOLO, 0, {"max_skew": 2}),
    ("a scenario that dropped a pod it read", _objects({
        **_pod("done", "solo"), "status": {"phase": "Succeeded"}}), SOLO, 0, {"max_skew": 2}),
]


@pytest.mark.parametrize("objects,targets,index,fields,raw", [c[1:] for c in SPREAD_TAKEN],
                         ids=[c[0] for c in SPREAD_TAKEN])
def test_spread_fields_set_give_the_scenario_the_edited_text_loads(objects, targets, index, fields, raw):
    before, _, after = _edited(objects, lambda objs: _constraint_of(targets, index, **raw)(objs) or [])
    made = with_spread_fields(before, *targets, index, fields)
    loaded = _load(after)
    assert made == loaded
    assert simulate(made, seed=1) == simulate(loaded, seed=1)


@pytest.mark.parametrize("objects,targets,index,fields", [c[1:] for c in SPREAD_REFUSED],
                         ids=[c[0] for c in SPREAD_REFUSED])
def test_spread_fields_the_text_would_refuse_or_could_change_more_give_none(objects, targets, index, fields):
    assert with_spread_fields(_load(objects), *targets, index, fields) is None


def test_pods_that_shared_constraints_share_the_new_ones():
    made = with_spread_fields(_load(_objects()), *WEB, 0, {"max_skew": 2})
    web = [p for p in made.pods if p.labels["app"] == "web"]
    template = next(w.template for w in made.workloads if w.name == "web")
    assert all(p.topology_spread_constraints is template.topology_spread_constraints for p in web)
    assert web[0].topology_spread_constraints[0].max_skew == 2


@pytest.mark.parametrize("seed", [0, 1])
def test_a_dense_cluster_s_spread_fields_set_simulate_as_the_edited_text(seed):
    """Thousands of pods of one app, bound and pending, in a generated cluster with pod affinity and preemption."""
    objects = generate("dense-60x400", seed=seed).objects
    before = _load(objects)
    pods = [o for o in objects if o["kind"] == "Pod"]
    app = next(p["metadata"]["labels"]["app"] for p in pods if p["spec"].get("topologySpreadConstraints"))
    mine = [p for p in pods if p["metadata"]["labels"].get("app") == app]
    keys = [f'{p["metadata"]["namespace"]}/{p["metadata"]["name"]}' for p in mine]
    skew = mine[0]["spec"]["topologySpreadConstraints"][0]["maxSkew"] + 1
    objects = copy.deepcopy(objects)
    _constraint_of((keys, []), 0, maxSkew=skew)(objects)
    made = with_spread_fields(before, keys, [], 0, {"max_skew": skew})
    loaded = _load(objects)
    assert made == loaded
    assert simulate(made, seed=seed) == simulate(loaded, seed=seed)
