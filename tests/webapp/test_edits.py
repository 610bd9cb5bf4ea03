"""Quick structured edits: each on a List and on a multi-document stream, errors naming object and field."""

import pytest
import yaml

from webapp.scenarios import engine
from webapp.scenarios.manifests import documents, edits

NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {zone}}}
status:
  allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
"""
RS = """\
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
         labelSelector: {matchLabels: {app: web}}}
"""
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  labels: {{app: web}}
  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u1, controller: true}}]
spec:
  {bind}containers: [{{name: web, image: nginx, resources: {{requests: {{cpu: 100m}}}}}}]
  topologySpreadConstraints:
  - {{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
     labelSelector: {{matchLabels: {{app: web}}}}}}
"""
LONE = """\
apiVersion: v1
kind: Pod
metadata: {name: solo, namespace: default, labels: {app: solo}}
spec:
  containers: [{name: solo, image: nginx}]
"""
# A bare pod without an app label: a workload of its own for the quick edits.
UNLABELLED = """\
apiVersion: v1
kind: Pod
metadata: {name: loner, namespace: default}
spec:
  containers: [{name: loner, image: nginx}]
  schedulingGates: [{name: example.com/hold}]
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway,
     labelSelector: {matchLabels: {app: web}}}
"""
HIGH = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""

DOCS = [NODE.format(name="n1", zone="z1"), NODE.format(name="n2", zone="z2"), RS,
        POD.format(name="web-1", bind="nodeName: n1\n  "), POD.format(name="web-2", bind=""), LONE, UNLABELLED, HIGH]


def multi():
    return "---\n".join(DOCS)


def as_list():
    items = [yaml.safe_load(d) for d in DOCS]
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sort_keys=False)


SHAPES = {"list": as_list, "multi": multi}


def objects_of(text):
    return edits.parse(text)[0]


def find(text, kind, name):
    return next(o for o in objects_of(text) if o["kind"] == kind and o["metadata"]["name"] == name)


def spread(obj):
    spec = obj["spec"]["template"]["spec"] if obj["kind"] != "Pod" else obj["spec"]
    return spec["topologySpreadConstraints"]


CASES = [
    ("set_max_skew", {"op": "set_max_skew", "workload": "ReplicaSet/default/web", "value": 3},
     lambda t: [spread(find(t, "ReplicaSet", "web"))[0]["maxSkew"], spread(find(t, "Pod", "web-2"))[0]["maxSkew"]] == [3, 3]),
    ("set_min_domains", {"op": "set_min_domains", "workload": "app=web", "value": 4},
     lambda t: spread(find(t, "Pod", "web-1"))[0]["minDomains"] == 4),
    ("set_when_unsatisfiable", {"op": "set_when_unsatisfiable", "workload": "ReplicaSet/web", "value": "ScheduleAnyway"},
     lambda t: spread(find(t, "ReplicaSet", "web"))[0]["whenUnsatisfiable"] == "ScheduleAnyway"),
    ("set_topology_key", {"op": "set_topology_key", "workload": "ReplicaSet/web", "value": "kubernetes.io/hostname"},
     lambda t: spread(find(t, "Pod", "web-2"))[0]["topologyKey"] == "kubernetes.io/hostname"),
    ("add_spread", {"op": "add_spread", "workload": "ReplicaSet/web", "topologyKey": "kubernetes.io/hostname", "maxSkew": 2},
     lambda t: spread(find(t, "ReplicaSet", "web"))[1]["topologyKey"] == "kubernetes.io/hostname"),
    ("set_replicas", {"op": "set_replicas", "workload": "ReplicaSet/default/web", "replicas": 5},
     lambda t: find(t, "ReplicaSet", "web")["spec"]["replicas"] == 5),
    ("set_replicas down", {"op": "set_replicas", "workload": "ReplicaSet/web", "replicas": 1},
     lambda t: [o["metadata"]["name"] for o in objects_of(t) if o["kind"] == "Pod"] == ["web-1", "solo", "loner"]),
    ("add_node", {"op": "add_node", "node": "n1", "name": "n3", "zone": "z3"},
     lambda t: find(t, "Node", "n3")["metadata"]["labels"] == {"kubernetes.io/hostname": "n3", "topology.kubernetes.io/zone": "z3"}),
    ("remove_node", {"op": "remove_node", "node": "n1"},
     lambda t: "nodeName" not in find(t, "Pod", "web-1")["spec"] and not any(o["metadata"]["name"] == "n1" for o in objects_of(t))),
    ("remove_zone", {"op": "remove_zone", "zone": "z1"},
     lambda t: [o["metadata"]["name"] for o in objects_of(t) if o["kind"] == "Node"] == ["n2"]
     and "nodeName" not in find(t, "Pod", "web-1")["spec"]),
    ("cordon", {"op": "cordon", "node": "n2"}, lambda t: find(t, "Node", "n2")["spec"]["unschedulable"] is True),
    ("add_taint", {"op": "add_taint", "node": "n2", "key": "gpu", "value": "yes", "effect": "NoSchedule"},
     lambda t: find(t, "Node", "n2")["spec"]["taints"] == [{"key": "gpu", "effect": "NoSchedule", "value": "yes"}]),
    ("set_priority", {"op": "set_priority", "target": "Pod/default/solo", "priority": 1000},
     lambda t: find(t, "Pod", "solo")["spec"]["priority"] == 1000),
    ("add_gate", {"op": "add_gate", "target": "Pod/solo", "name": "wait"},
     lambda t: find(t, "Pod", "solo")["spec"]["schedulingGates"] == [{"name": "wait"}]),
    ("remove_spread", {"op": "remove_spread", "workload": "ReplicaSet/web", "index": 0},
     lambda t: all("topologySpreadConstraints" not in spec for spec in (
         find(t, "ReplicaSet", "web")["spec"]["template"]["spec"], find(t, "Pod", "web-1")["spec"],
         find(t, "Pod", "web-2")["spec"]))),
    ("remove_spread of a bare pod", {"op": "remove_spread", "workload": "Pod/default/loner", "index": 0},
     lambda t: "topologySpreadConstraints" not in find(t, "Pod", "loner")["spec"]
     and len(spread(find(t, "Pod", "web-1"))) == 1),
    ("set_priority class", {"op": "set_priority", "target": "ReplicaSet/web", "priorityClassName": "high"},
     lambda t: [find(t, "ReplicaSet", "web")["spec"]["template"]["spec"]["priorityClassName"],
                find(t, "Pod", "web-2")["spec"]["priorityClassName"]] == ["high", "high"]),
    ("set_priority system class", {"op": "set_priority", "target": "Pod/solo", "priorityClassName": "system-node-critical"},
     lambda t: find(t, "Pod", "solo")["spec"]["priorityClassName"] == "system-node-critical"),
    ("add_spread to a bare pod", {"op": "add_spread", "workload": "Pod/default/solo", "maxSkew": 2},
     lambda t: spread(find(t, "Pod", "solo")) == [{"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone",
                                                  "whenUnsatisfiable": "DoNotSchedule",
                                                  "labelSelector": {"matchLabels": {"app": "solo"}}}]),
    ("remove_gate", {"op": "remove_gate", "target": "Pod/default/loner", "name": "example.com/hold"},
     lambda t: "schedulingGates" not in find(t, "Pod", "loner")["spec"]),
]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name,edit,check", CASES, ids=[c[0] for c in CASES])
def test_it_applies_each_edit_and_keeps_the_shape(shape, name, edit, check):
    text = SHAPES[shape]()
    new = edits.apply_edit(text, edit)
    assert check(new), new
    assert documents.read(new) == documents.parse(new)  # (kept for the next edit: what reading it gives)
    engine.validate(new)  # still a scenario the engine accepts
    assert ("kind: List" in new) == (shape == "list")


@pytest.mark.parametrize("shape", SHAPES)
def test_it_undoes_with_the_inverse_edits(shape):
    text = edits.apply_edit(SHAPES[shape](), {"op": "cordon", "node": "n1"})
    text = edits.apply_edit(text, {"op": "uncordon", "node": "n1"})
    assert "unschedulable" not in find(text, "Node", "n1").get("spec", {})
    text = edits.apply_edit(text, {"op": "add_taint", "node": "n1", "key": "k"})
    text = edits.apply_edit(text, {"op": "remove_taint", "node": "n1", "key": "k"})
    assert find(text, "Node", "n1")["spec"]["taints"] == []
    text = edits.apply_edit(text, {"op": "add_gate", "target": "app=solo", "name": "g"})
    text = edits.apply_edit(text, {"op": "remove_gate", "target": "app=solo", "name": "g"})
    assert "schedulingGates" not in find(text, "Pod", "solo")["spec"]


ERRORS = [
    ({"op": "set_max_skew", "workload": "ReplicaSet/default/nope", "value": 2}, "ReplicaSet/default/nope", "workload"),
    ({"op": "set_max_skew", "workload": "app=ghost", "value": 2}, "pods app=ghost", "workload"),
    ({"op": "cordon", "node": "n9"}, "Node/n9", "node"),
    ({"op": "remove_zone", "zone": "z9"}, "zone z9", "metadata.labels[topology.kubernetes.io/zone]"),
    ({"op": "set_max_skew", "workload": "ReplicaSet/web", "value": "x"}, "ReplicaSet/default/web spec.template", "maxSkew"),
    ({"op": "set_spread", "workload": "ReplicaSet/web", "index": 5, "maxSkew": 2},
     "ReplicaSet/default/web spec.template", "spec.topologySpreadConstraints[5]"),
    ({"op": "add_node", "node": "n1", "name": "n2"}, "Node/n2", "name"),
    ({"op": "explode"}, "edit", "op"),
    ({"op": "remove_spread", "workload": "app=solo", "index": 0}, "Pod/default/solo", "spec.topologySpreadConstraints[0]"),
    ({"op": "remove_spread", "workload": "ReplicaSet/web", "index": 1},
     "ReplicaSet/default/web spec.template", "spec.topologySpreadConstraints[1]"),
    ({"op": "set_priority", "target": "Pod/solo", "priorityClassName": "ghost"}, "Pod/default/solo",
     "spec.priorityClassName"),
    ({"op": "set_priority", "target": "ReplicaSet/web", "priority": 2 ** 31}, "ReplicaSet/default/web spec.template",
     "priority"),
    ({"op": "set_priority", "target": "Pod/solo", "priority": "high"}, "Pod/default/solo", "priority"),
    ({"op": "set_priority", "target": "Pod/solo"}, "Pod/solo", "priority"),
    ({"op": "set_topology_key", "workload": "ReplicaSet/web", "value": "no spaces allowed"}, "ReplicaSet/web",
     "topologyKey"),
    ({"op": "add_gate", "target": "Pod/solo", "name": "not a gate!"}, "Pod/solo", "spec.schedulingGates.name"),
    ({"op": "remove_gate", "target": "Pod/solo", "name": "never-added"}, "Pod/solo", "spec.schedulingGates"),
    ({"op": "add_taint", "node": "n1", "key": "bad key"}, "Node/n1", "spec.taints.key"),
]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("edit,obj,field", ERRORS, ids=[e[0]["op"] + str(i) for i, e in enumerate(ERRORS)])
def test_it_names_the_object_and_field_of_a_bad_edit(shape, edit, obj, field):
    with pytest.raises(edits.EditError) as e:
        edits.apply_edit(SHAPES[shape](), edit)
    assert (e.value.object, e.value.field) == (obj, field)


def test_it_refuses_an_edit_the_engine_rejects():
    with pytest.raises(engine.ScenarioInvalid) as e:
        edits.apply_edit(multi(), {"op": "set_max_skew", "workload": "ReplicaSet/web", "value": 0})
    assert "maxSkew" in (str(e.value) + e.value.field)


def test_it_outlines_workloads_nodes_and_zones():
    outline = edits.outline(multi())
    assert [w["ref"] for w in outline["workloads"]] == ["ReplicaSet/default/web", "app=solo", "Pod/default/loner"]
    assert [w["ref"] for w in outline["controllers"]] == ["ReplicaSet/default/web"]
    assert outline["zones"] == ["z1", "z2"]
    assert [n["name"] for n in outline["nodes"]] == ["n1", "n2"]


def test_it_offers_the_app_label_of_pods_whose_controller_the_dump_leaves_out():
    # `kubectl get pods -o yaml`: pods name their ReplicaSet, which the text does not hold
    owned = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {labels}
  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: frontend-7d9f, uid: u1, controller: true}}]
spec:
  containers: [{{name: c, image: nginx}}]
"""
    text = "---\n".join([NODE.format(name="n1", zone="z1"), owned.format(name="frontend-a", labels="{app: frontend}"),
                         owned.format(name="frontend-b", labels="{app: frontend}"),
                         owned.format(name="unlabelled", labels="{}")])
    outline = edits.outline(text)
    assert [w["ref"] for w in outline["workloads"]] == ["app=frontend"]
    text = edits.apply_edit(text, {"op": "add_spread", "workload": "app=frontend", "maxSkew": 1,
                                   "topologyKey": "topology.kubernetes.io/zone"})
    assert [len(find(text, "Pod", name)["spec"].get("topologySpreadConstraints") or [])
            for name in ("frontend-a", "frontend-b", "unlabelled")] == [1, 1, 0]


def test_it_outlines_pods_priority_classes_and_node_keys():
    outline = edits.outline(multi())
    assert [p["ref"] for p in outline["pods"]] == ["Pod/default/web-1", "Pod/default/web-2", "Pod/default/solo",
                                                   "Pod/default/loner"]
    assert outline["pods"][3]["gates"] == ["example.com/hold"]
    assert outline["priority_classes"] == [{"name": "high", "value": 1000, "globalDefault": False}]
    assert outline["node_keys"] == ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]


@pytest.mark.parametrize("shape", SHAPES)
def test_removing_one_constraint_keeps_the_others(shape):
    text = edits.apply_edit(SHAPES[shape](), {"op": "add_spread", "workload": "ReplicaSet/web",
                                              "topologyKey": "kubernetes.io/hostname", "maxSkew": 3})
    text = edits.apply_edit(text, {"op": "remove_spread", "workload": "ReplicaSet/web", "index": 0})
    for obj in (find(text, "ReplicaSet", "web"), find(text, "Pod", "web-1")):
        assert [(c["topologyKey"], c["maxSkew"]) for c in spread(obj)] == [("kubernetes.io/hostname", 3)]


def test_a_number_overrides_the_class_and_keeps_it():
    text = edits.apply_edit(multi(), {"op": "set_priority", "target": "Pod/solo", "priorityClassName": "high"})
    assert "priority" not in find(text, "Pod", "solo")["spec"]  # the class's value applies
    text = edits.apply_edit(text, {"op": "set_priority", "target": "Pod/solo", "priority": -5})
    assert (find(text, "Pod", "solo")["spec"]["priority"], find(text, "Pod", "solo")["spec"]["priorityClassName"]) \
        == (-5, "high")


ALIASED = """\
kind: List
apiVersion: v1
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {topology.kubernetes.io/zone: z1}},
   status: {allocatable: {cpu: "4", pods: "110"}}}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: web, namespace: default}
  spec:
    replicas: 1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: nginx}]
        topologySpreadConstraints: &spread
        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
           labelSelector: {matchLabels: {app: web}}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-1
    namespace: default
    labels: {app: web}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u1, controller: true}]
  spec:
    containers: [{name: web, image: nginx}]
    topologySpreadConstraints: *spread
"""


def test_an_edit_of_a_template_leaves_pods_that_alias_it_alone():
    # kubectl never writes anchors, but people do.
    new = edits.apply_edit(ALIASED, {"op": "remove_spread", "workload": "ReplicaSet/web", "index": 0})
    assert not find(new, "Pod", "web-1")["spec"].get("topologySpreadConstraints")
    assert "*" not in new
    new = edits.apply_edit(ALIASED, {"op": "remove_spread", "workload": "Pod/default/web-1", "index": 0})
    assert len(spread(find(new, "ReplicaSet", "web"))) == 1  # the template it aliased keeps its constraint


def test_an_edit_keeps_the_other_documents_and_comments_as_written():
    text = "# team cluster, edited by hand\n" + multi().replace(
        "kind: ReplicaSet\n", "kind: ReplicaSet  # the web tier\n")
    new = edits.apply_edit(text, {"op": "cordon", "node": "n2"})
    assert find(new, "Node", "n2")["spec"]["unschedulable"] is True
    assert new.startswith("# team cluster, edited by hand\n" + NODE.format(name="n1", zone="z1") + "---\n")
    assert "kind: ReplicaSet  # the web tier\n" in new  # untouched documents stay as written
    assert new.endswith(UNLABELLED + "---\n" + HIGH)
    assert objects_of(new)[2:] == objects_of(text)[2:]


@pytest.mark.parametrize("op", ["cordon", "uncordon"])
def test_a_node_already_so_is_left_as_written(op):
    n2 = NODE.format(name="n2", zone="z2")
    text = "# ours\n" + (multi().replace(n2, n2 + "spec: {unschedulable: true}  # drained\n") if op == "cordon"
                         else multi())
    assert edits.apply_edit(text, {"op": op, "node": "n2"}) == text


def test_an_edit_keeps_the_comment_a_list_opens_with():
    text = "# exported with kubectl get -o yaml\n# zone c is the new one\n" + as_list()
    new = edits.apply_edit(text, {"op": "cordon", "node": "n1"})
    assert new.startswith("# exported with kubectl get -o yaml\n# zone c is the new one\napiVersion: v1\n")
    assert find(new, "Node", "n1")["spec"]["unschedulable"] is True


def test_an_edit_that_adds_a_document_writes_the_stream_anew_with_its_opening_comment():
    text = "# hand-written\n" + multi()
    new = edits.apply_edit(text, {"op": "add_node", "node": "n1", "name": "n3"})
    assert new.startswith("# hand-written\n")
    assert find(new, "Node", "n3")["metadata"]["labels"]["kubernetes.io/hostname"] == "n3"


@pytest.mark.parametrize("shape", SHAPES)
def test_an_edit_writes_timestamps_back_as_they_were_written(shape):
    stamped = [d.replace("metadata: {name: high}", "metadata: {name: high, creationTimestamp: 2026-11-01T10:00:00Z}")
               for d in DOCS]
    text = "---\n".join(stamped) if shape == "multi" else yaml.dump(
        {"apiVersion": "v1", "kind": "List", "items": [yaml.safe_load(d) for d in stamped]}, sort_keys=False)
    assert "2026-11-01 10:00:00" in text or "2026-11-01T10:00:00Z" in text
    new = edits.apply_edit(text.replace("2026-11-01 10:00:00+00:00", "2026-11-01T10:00:00Z"),
                           {"op": "cordon", "node": "n2"})
    assert find(new, "PriorityClass", "high")["metadata"]["creationTimestamp"] == "2026-11-01T10:00:00Z"
    assert "2026-11-01 10:00:00" not in new  # not re-formatted as a Python datetime
    engine.validate(new)


def test_a_node_copied_in_a_typed_list_dump_gets_its_daemonset_pod():
    # a dump as the raw API writes it: typed lists, items without kind
    text = """\
{"kind": "NodeList", "apiVersion": "v1", "items": [
  {"metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
   "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "110"}}}]}
{"kind": "DaemonSetList", "apiVersion": "apps/v1", "items": [
  {"metadata": {"name": "agent", "namespace": "kube-system", "uid": "ds-1"},
   "spec": {"selector": {"matchLabels": {"app": "agent"}},
            "template": {"metadata": {"labels": {"app": "agent"}},
                         "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "800m"}}}]}}}}]}
{"kind": "PodList", "apiVersion": "v1", "items": [
  {"metadata": {"name": "agent-x1", "namespace": "kube-system",
                "ownerReferences": [{"kind": "DaemonSet", "name": "agent", "uid": "ds-1", "controller": true}]},
   "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "800m"}}}]}},
  {"metadata": {"name": "web", "namespace": "default"},
   "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}}]}
"""
    assert engine.simulate(text)["pods"][0]["outcome"] == "Unschedulable"  # n1 is full
    new = edits.apply_edit(text, {"op": "add_node", "node": "n1", "name": "n2"})
    placed = {p["pod"].rsplit("-", 1)[0]: p["node"] for p in engine.simulate(new)["pods"]}
    # the new node gets the DaemonSet's pod (first in file order), and web no longer fits there
    assert placed == {"kube-system/agent": "n2", "default/web": None}


def kubectl_list():
    """A List in kubectl's layout (items at column 0), its items written as the documents above are (flow
    mappings) and one commented: what writing an item anew would change."""
    items = "".join("- " + d.replace("\n", "\n  ").rstrip(" ") for d in DOCS)
    items = items.replace("- apiVersion: scheduling.k8s.io/v1\n", "- apiVersion: scheduling.k8s.io/v1  # ours\n")
    return "# kubectl get nodes,pods,rs,pc -o yaml\napiVersion: v1\nitems:\n" + items + \
        "kind: List\nmetadata:\n  resourceVersion: \"\"\n"


@pytest.mark.parametrize("name,edit,check", CASES, ids=[c[0] for c in CASES])
def test_an_edit_of_a_kubectl_list_keeps_every_item_it_left_unchanged_as_written(name, edit, check):
    text = kubectl_list()
    new = edits.apply_edit(text, edit)
    assert check(new), new
    before, after = objects_of(text), objects_of(new)
    rewritten = edits.dump(*edits.parse(new))  # the same objects, every item written anew
    assert objects_of(rewritten) == after
    assert yaml.safe_load(new) == yaml.safe_load(rewritten)
    kept = [d for d, obj in zip(DOCS, before) if obj in after]
    assert kept and all(("- " + d.replace("\n", "\n  ").rstrip(" ")).replace(
        "- apiVersion: scheduling.k8s.io/v1\n", "- apiVersion: scheduling.k8s.io/v1  # ours\n") in new
        for d in kept)
    # the documents kept for the next edit of the new text are the ones reading it gives
    assert documents.read(new) == documents.parse(new)
    assert new.startswith("# kubectl get nodes,pods,rs,pc -o yaml\napiVersion: v1\nitems:\n- ")
    assert new.endswith("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
    engine.validate(new)


def forget_every_text():
    """As in a web process that has read no text yet."""
    documents._memo.clear()
    documents._latest = (None, None, False)
    engine._fast_latest = (None, None)


LATER = {"op": "add_taint", "node": "n1", "key": "later", "effect": "NoSchedule"}
SHARED_CASES = CASES + [
    ("uncordon", {"op": "uncordon", "node": "n1"}, lambda t: "unschedulable" not in find(t, "Node", "n1")["spec"]),
    ("remove_taint", {"op": "remove_taint", "node": "n1", "key": "old"},
     lambda t: find(t, "Node", "n1")["spec"]["taints"] == []),
    ("set_spread", {"op": "set_spread", "workload": "app=web", "maxSkew": 2, "minDomains": 2},
     lambda t: spread(find(t, "Pod", "web-1"))[0]["minDomains"] == 2),
]


def test_the_table_of_edits_of_a_shared_text_has_every_op():
    assert {edit["op"] for _, edit, _ in SHARED_CASES} == set(edits.OPS)


@pytest.mark.parametrize("shape", [*SHAPES, "kubectl list"])
@pytest.mark.parametrize("name,edit,check", SHARED_CASES, ids=[c[0] for c in SHARED_CASES])
def test_an_edit_leaves_the_text_it_started_from_as_later_readers_read_it(shape, name, edit, check):
    # A quick edit works on the documents this process keeps of the text (shared with pages and the next
    # edit), copying only the objects it changes: the text's documents must come out of it untouched.
    text = {**SHAPES, "kubectl list": kubectl_list}[shape]()
    tainted = edits.apply_edit(edits.apply_edit(text, {"op": "add_taint", "node": "n1", "key": "old"}),
                               {"op": "cordon", "node": "n1"})  # (for remove_taint and uncordon)
    forget_every_text()
    expected = edits.apply_edit(tainted, LATER)  # a later edit of the same text, in a process that has read nothing
    forget_every_text()
    documents.read(tainted)  # a page showed the text: its documents are kept in this process
    new = edits.apply_edit(tainted, edit)
    assert check(new), new
    assert documents.read(tainted) == documents.parse(tainted)  # read again: as written, not as edited
    assert edits.apply_edit(tainted, LATER) == expected  # and edited again: from the text as written


@pytest.mark.parametrize("name,edit,check", SHARED_CASES, ids=[c[0] for c in SHARED_CASES])
def test_the_edit_after_an_edit_of_a_kubectl_list_writes_what_a_process_reading_its_text_writes(name, edit, check):
    # (the first edit tells the next where it put the new text's items, instead of the next finding them)
    tainted = edits.apply_edit(edits.apply_edit(kubectl_list(), {"op": "add_taint", "node": "n1", "key": "old"}),
                               {"op": "cordon", "node": "n1"})  # (remove_taint's and uncordon's)
    new = edits.apply_edit(tainted, edit)
    node = next(o["metadata"]["name"] for o in objects_of(new) if o["kind"] == "Node")
    later = {**LATER, "node": node}
    then = edits.apply_edit(new, later)
    forget_every_text()
    assert edits.apply_edit(new, later) == then
    assert "  # ours\n" in then  # (an item neither edit changed, as written)


# kubectl's own layout and quoting (double quotes, block style), which the project's writer does not use: a pod of a
# workload, its node, and what an edit must find written in other ways.
KUBECTL_POD = """\
- apiVersion: v1
  kind: Pod
  metadata:
    annotations:
      note: "keep: this"
    creationTimestamp: "2026-11-01T00:00:0{i}Z"
    labels:
      app: web
    name: web-{i}
    namespace: default
  spec:
    containers:
    - image: nginx
      name: web
      resources:
        requests:
          cpu: "1"
    priority: 0
{spread}  status:
    phase: Pending
"""
BLOCK_SPREAD = """\
    topologySpreadConstraints:
    - labelSelector:
        matchLabels:
          app: web
      maxSkew: 1
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: DoNotSchedule
"""
KUBECTL_NODE = """\
- apiVersion: v1
  kind: Node
  metadata:
    creationTimestamp: "2026-11-01T00:00:00Z"
    labels:
      kubernetes.io/hostname: n1
      topology.kubernetes.io/zone: z1
    name: n1
  spec:
    podCIDR: 10.0.0.0/24
  status:
    allocatable:
      cpu: "8"
      memory: 16Gi
      pods: "110"
"""


def kubectl_pods(*spreads):
    pods = "".join(KUBECTL_POD.format(i=i, spread=s) for i, s in enumerate(spreads))
    return "apiVersion: v1\nitems:\n" + KUBECTL_NODE + pods + "kind: List\nmetadata:\n  resourceVersion: \"\"\n"


def changed_lines(before, after):
    import difflib

    return [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def test_an_edit_of_a_kubectl_list_writes_anew_only_the_entry_it_changed_in_each_item():
    text = kubectl_pods(BLOCK_SPREAD, BLOCK_SPREAD, BLOCK_SPREAD)
    new = edits.apply_edit(text, {"op": "set_spread", "workload": "app=web", "index": 0, "maxSkew": 3})
    assert [spread(find(new, "Pod", f"web-{i}"))[0]["maxSkew"] for i in range(3)] == [3, 3, 3]
    # (the entry is written in the project's key order: the constraint's keys as the pod had them)
    assert changed_lines(text, new) == ["-      maxSkew: 1", "+      maxSkew: 3"] * 3
    new = edits.apply_edit(new, {"op": "cordon", "node": "n1"})
    assert changed_lines(text, new)[:2] == ["+    unschedulable: true", "-      maxSkew: 1"]  # (the node: one line)
    assert new.count('creationTimestamp: "2026-11-01T00:00:0') == 4  # (kubectl's quotes, in every item)


# Entries the edit changes written in ways only a parse finds: each pod is written anew, and reads back as edited.
WRITTEN_OTHERWISE = [
    ("a comment among the constraints",
     BLOCK_SPREAD.replace("    - labelSelector:", "    # zones\n    - labelSelector:")),
    ("constraints in flow style",
     "    topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone,\n"
     "        whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}]\n"),
    ("constraints indented under their key", "    topologySpreadConstraints:\n" + "".join(
        "  " + line + "\n" for line in BLOCK_SPREAD.splitlines()[1:])),
    ("a block scalar beside them", BLOCK_SPREAD + "    hostname: |\n      web\n"),
]


@pytest.mark.parametrize("name,entry", WRITTEN_OTHERWISE, ids=[c[0] for c in WRITTEN_OTHERWISE])
@pytest.mark.parametrize("edit", [{"op": "set_spread", "workload": "app=web", "index": 0, "maxSkew": 3},
                                  {"op": "remove_spread", "workload": "app=web", "index": 0},
                                  {"op": "set_priority", "target": "app=web", "priority": 5},
                                  {"op": "add_gate", "target": "app=web", "name": "hold"}], ids=lambda e: e["op"])
def test_an_edit_of_a_kubectl_list_reads_back_as_edited_however_the_entry_was_written(name, entry, edit):
    text = kubectl_pods(entry, BLOCK_SPREAD)
    new = edits.apply_edit(text, edit)
    rewritten = edits.dump(*edits.parse(new))  # the edited objects, every item written anew
    assert yaml.load(new, Loader=documents._ReadLoader) == yaml.load(rewritten, Loader=documents._ReadLoader)
    assert yaml.load(new, Loader=documents._ReadLoader)["items"] == documents.parse(new)[0]["items"]
    assert len(changed_lines(text, new)) < len(changed_lines(text, rewritten))  # (the other pod: its entry only)


def test_a_list_whose_items_share_anchors_is_written_anew():
    text = kubectl_list().replace("metadata: {labels: {app: web}}", "metadata: {labels: &web {app: web}}", 1)
    text = text.replace("metadata: {name: solo, namespace: default, labels: {app: solo}}",
                        "metadata: {name: solo, namespace: default, labels: *web}")
    new = edits.apply_edit(text, {"op": "cordon", "node": "n2"})
    assert "*web" not in new and "&web" not in new
    assert find(new, "Pod", "solo")["metadata"]["labels"] == {"app": "web"}


SWEEP_CELLS = [
    [{"op": "set_max_skew", "workload": "ReplicaSet/web", "value": 3},
     {"op": "set_min_domains", "workload": "ReplicaSet/web", "value": 2}],
    [{"op": "add_spread", "workload": "app=web", "topologyKey": "kubernetes.io/hostname", "maxSkew": 2},
     {"op": "set_max_skew", "workload": "app=web", "index": 1, "value": 4},
     {"op": "remove_spread", "workload": "app=web", "index": 0}],
]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("cell", range(len(SWEEP_CELLS)))
def test_a_sweep_cells_edits_write_the_text_that_one_edit_at_a_time_writes(shape, cell):
    text, one_at_a_time = SHAPES[shape](), SHAPES[shape]()
    for edit in SWEEP_CELLS[cell]:
        one_at_a_time = edits.apply_edit(one_at_a_time, edit)
    assert edits.apply_edits(text, SWEEP_CELLS[cell]) == one_at_a_time


def test_a_sweep_cells_edits_name_the_edit_that_does_not_apply():
    with pytest.raises(edits.EditError) as e:
        edits.apply_edits(multi(), [{"op": "set_max_skew", "workload": "ReplicaSet/web", "value": 3},
                                    {"op": "set_max_skew", "workload": "ReplicaSet/nope", "value": 3}])
    assert "ReplicaSet/default/nope" in str(e.value)


def test_the_cells_of_a_sweep_read_their_revisions_text_once(monkeypatch):
    text = as_list() + "# a text no other test reads\n"
    reads = []
    real = engine.parse_fast
    monkeypatch.setattr(engine, "parse_fast", lambda t, **kw: reads.append(t) or real(t, **kw))
    for cell in SWEEP_CELLS:
        edits.apply_edits(text, cell)
    assert reads.count(text) == 1


def test_quick_edits_in_a_row_check_the_scenario_a_fresh_load_gives():
    # Each edit's check takes over what the engine decoded from the objects the edit left alone.
    import scheduler_core

    forget_every_text()
    engine.forget_decoded()
    text = kubectl_list()
    for edit in ({"op": "set_priority", "target": "Pod/default/solo", "priority": 7},
                 {"op": "cordon", "node": "n1"},
                 {"op": "set_max_skew", "workload": "app=web", "value": 2},
                 {"op": "remove_node", "node": "n2"}):
        loaded = []
        text = edits.apply_edit(text, edit, checked=lambda new, scenario: loaded.append(scenario))
        fresh = scheduler_core.load_scenario(text)
        assert (loaded[0].nodes, loaded[0].pods) == (fresh.nodes, fresh.pods), edit
    assert [p.priority for p in fresh.pods if p.name == "solo"] == [7]


def test_a_quick_edit_that_writes_a_nul_into_a_value_is_refused_naming_the_field():
    forget_every_text()
    text = edits.apply_edit(kubectl_list(), {"op": "cordon", "node": "n1"})  # (the next check takes this one's over)
    with pytest.raises(engine.ScenarioInvalid) as e:
        edits.apply_edit(text, {"op": "add_taint", "node": "n2", "key": "k", "value": "a\x00b"})
    assert "NUL" in str(e.value) and "spec.taints.0.value" in str(e.value)


# --- the edit's targets found in a loaded scenario, as in the documents ----------------------------------------------
def _targets_cluster():
    def rs(name, ns, app):
        return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": ns},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": app}}, "template": {
                    "metadata": {"labels": {"app": app}},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}], "topologySpreadConstraints": [
                        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                         "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": app}}}]}}}}

    def pod(name, ns, labels, owner=None):
        meta = {"name": name, "namespace": ns, "labels": labels}
        if owner:
            meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner, "uid": "u",
                                        "controller": True}]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}

    return [yaml.safe_load(NODE.format(name="n1", zone="a")),
            rs("web", "default", "web"), pod("web-0", "default", {"app": "web"}, "web"),
            pod("web-1", "default", {"app": "web", "tier": "x"}, "web"),
            rs("web", "other", "web"), pod("web-0", "other", {"app": "web"}, "web"),
            pod("web-1", "other", {"app": "web"}, "web"),
            pod("solo", "other", {"app": "web", "tier": "x"}), rs("idle", "default", "idle")]


@pytest.mark.parametrize("workload", [
    "app=web", "tier=x", "app=idle", "ReplicaSet/default/web", "default/web", "web", "other/web", "Pod/other/solo",
    "Pod/default/web-1", "ReplicaSet/default/idle", "app=none", "ReplicaSet/default/nope", "Pod/default/nope",
    "StatefulSet/default/web", "Deployment/default/web", "",
])
def test_an_edit_finds_in_a_loaded_scenario_the_pods_and_workloads_it_finds_in_the_documents(workload):
    objects = _targets_cluster()
    scenario = engine.load(yaml.safe_dump_all(objects))
    try:
        controllers, group = edits.workload_targets(objects, workload)
        expected = (sorted(f"{edits.ns_of(p)}/{edits.meta(p)['name']}" for p in group),
                    sorted((c["kind"], edits.ns_of(c), edits.meta(c)["name"]) for c in controllers))
    except edits.EditError:
        expected = None
    found = edits.scenario_targets(workload, scenario.pods, scenario.workloads)
    written = {f"{edits.ns_of(o)}/{edits.meta(o)['name']}" for o in edits.pods(objects)}
    assert (found if found is None else (sorted(k for k in found[0] if k in written), sorted(found[1]))) == expected
    if found is not None and set(found[0]) - written:  # pods the load made from a template: left to the documents
        assert edits.scenario_with_fields(scenario, (workload, 0, {"max_skew": 2})) is None


@pytest.mark.parametrize("edit, expected", [
    ({"op": "set_spread", "workload": "app=web", "index": "0", "maxSkew": "3"}, ("app=web", 0, {"max_skew": 3})),
    ({"op": "set_spread", "workload": "app=web", "minDomains": "unset", "whenUnsatisfiable": "ScheduleAnyway"},
     ("app=web", 0, {"min_domains": None, "when_unsatisfiable": "ScheduleAnyway"})),
    ({"op": "set_spread", "workload": "app=web", "index": 1, "minDomains": "2", "topologyKey": "example.com/rack"},
     ("app=web", 1, {"min_domains": 2, "topology_key": "example.com/rack"})),
    ({"op": "set_spread", "workload": "app=web", "index": "0"}, None),  # (nothing to set)
    ({"op": "set_spread", "workload": "app=web", "maxSkew": "two"}, None),  # (refused when applied)
    ({"op": "set_spread", "workload": "app=web", "topologyKey": "-bad-"}, None),
    ({"op": "set_spread", "workload": "app=web", "index": "-1", "maxSkew": "2"}, None),
    ({"op": "add_spread", "workload": "app=web", "maxSkew": "2"}, None),
    ({"op": "set_priority", "target": "app=web", "priority": "5"}, None),
])
def test_only_a_change_of_an_existing_constraint_s_fields_is_set_without_the_documents(edit, expected):
    assert edits.spread_fields(edit) == expected
