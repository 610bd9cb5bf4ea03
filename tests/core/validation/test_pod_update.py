"""Table tests for validate_pod_update: every scheduling-directive rule, allowed and
refused, on gated and ungated Pods, with the full error list (field, type, detail).

Expected messages are spelled out here, copied from kubernetes v1.34
pkg/apis/core/validation/validation.go, so a change in the module's constants shows up.
"""
from __future__ import annotations

import dataclasses

import pytest

from scheduler_core.validation import validate_pod_update

from .builders import make_pod, req, term

INVALID, FORBIDDEN, REQUIRED_VALUE = "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired"
NOT_SUPPORTED, DUPLICATE = "FieldValueNotSupported", "FieldValueDuplicate"
GENERIC = (
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    "`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
)
NODE_SELECTOR_MSG = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
TERMS_MSG = "no additions/deletions to non-empty NodeSelectorTerms list are allowed"
TERM_MSG = "only additions are allowed (no mutations or deletions)"
TOLERATION_MSG = "existing toleration can not be modified except its tolerationSeconds"
TERMS = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
    "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

GATE = "example.com/placement"
POD = make_pod()
GATED = POD.gate(GATE)
ZONE = "topology.kubernetes.io/zone"
IN_ZONE_A = req(ZONE, "In", "zone-a", "zone-b")
SSD = req("disk", "In", "ssd")
GATED_AFFINITY = GATED.required(term(IN_ZONE_A))


def generic(*diff: str) -> tuple:
    """The generic Forbidden error at ``spec`` with our diff lines."""
    return ("spec", FORBIDDEN, "\n".join((GENERIC,) + diff))


@dataclasses.dataclass
class Case:
    name: str
    old: object
    new: object
    want: list = dataclasses.field(default_factory=list)


def _obj(p):
    return p.obj() if hasattr(p, "obj") else p


GATE_CASES = [
    Case("removing one of two gates is allowed", GATED.gate("b.io/two"), GATED),
    Case("removing the last gate is allowed", GATED, POD),
    Case("adding a gate to an ungated pod is refused", POD, GATED, [
        ("spec.schedulingGates[0].name", FORBIDDEN,
         "only deletion is allowed, but found new scheduling gate 'example.com/placement'"),
    ]),
    Case("adding a second gate to a gated pod is refused", GATED, GATED.gate("b.io/two"), [
        ("spec.schedulingGates[1].name", FORBIDDEN, "only deletion is allowed, but found new scheduling gate 'b.io/two'"),
    ]),
    Case("renaming a gate is refused as an addition", GATED, POD.gate("b.io/other"), [
        ("spec.schedulingGates[0].name", FORBIDDEN, "only deletion is allowed, but found new scheduling gate 'b.io/other'"),
    ]),
    Case("a repeated gate name is a duplicate", GATED, GATED.gate(GATE), [
        ("spec.schedulingGates[1]", DUPLICATE, ""),
    ]),
    Case("adding a gate to a bound pod is refused", POD.set("spec.nodeName", "node-1"),
         GATED.set("spec.nodeName", "node-1"), [
        ("spec.schedulingGates[0].name", FORBIDDEN,
         "only deletion is allowed, but found new scheduling gate 'example.com/placement'"),
    ]),
]

NODE_SELECTOR_CASES = [
    Case("gated: nodeSelector key added is allowed", GATED.node_selector(ZONE, "a"),
         GATED.node_selector(ZONE, "a").node_selector("disk", "ssd")),
    Case("gated: nodeSelector set where absent is allowed", GATED, GATED.node_selector(ZONE, "a")),
    Case("gated: nodeSelector value changed is refused", GATED.node_selector(ZONE, "a"),
         GATED.node_selector(ZONE, "b"), [("spec.nodeSelector", INVALID, NODE_SELECTOR_MSG)]),
    Case("gated: nodeSelector key removed is refused", GATED.node_selector(ZONE, "a").node_selector("disk", "ssd"),
         GATED.node_selector("disk", "ssd"), [("spec.nodeSelector", INVALID, NODE_SELECTOR_MSG)]),
    Case("ungated: nodeSelector key added is refused", POD.node_selector(ZONE, "a"),
         POD.node_selector(ZONE, "a").node_selector("disk", "ssd"),
         [generic('+ spec.nodeSelector.disk: "ssd"')]),
    Case("ungated: nodeSelector value changed is refused", POD.node_selector(ZONE, "a"), POD.node_selector(ZONE, "b"),
         [generic(f'- spec.nodeSelector[{ZONE}]: "a"', f'+ spec.nodeSelector[{ZONE}]: "b"')]),
    Case("removing the last gate while adding a nodeSelector key is allowed", GATED, POD.node_selector(ZONE, "a")),
    Case("removing the last gate does not allow changing a value", GATED.node_selector(ZONE, "a"),
         POD.node_selector(ZONE, "b"), [("spec.nodeSelector", INVALID, NODE_SELECTOR_MSG)]),
    Case("gated: an invalid label value is refused", GATED, GATED.node_selector("disk", "fast ssd"), [
        ("spec.nodeSelector", INVALID, LABEL_VALUE_MSG),
    ]),
]

AFFINITY_CASES = [
    Case("gated: required affinity set where there was none is allowed", GATED, GATED.required(term(IN_ZONE_A))),
    Case("gated: requirement added to a term is allowed", GATED_AFFINITY, GATED.required(term(IN_ZONE_A, SSD))),
    Case("gated: matchFields requirement added is allowed", GATED_AFFINITY,
         GATED.required(term(IN_ZONE_A, fields=(req("metadata.name", "In", "node-1"),)))),
    Case("gated: second term tightened is allowed", GATED.required(term(IN_ZONE_A), term(SSD)),
         GATED.required(term(IN_ZONE_A), term(SSD, req("gpu", "Exists")))),
    Case("removing the last gate while tightening affinity is allowed", GATED_AFFINITY,
         POD.required(term(IN_ZONE_A, SSD))),
    Case("gated: term added is refused", GATED_AFFINITY, GATED.required(term(IN_ZONE_A), term(SSD)),
         [(TERMS, INVALID, TERMS_MSG)]),
    Case("gated: term removed is refused", GATED.required(term(IN_ZONE_A), term(SSD)), GATED_AFFINITY,
         [(TERMS, INVALID, TERMS_MSG)]),
    Case("gated: required affinity removed is refused", GATED_AFFINITY, GATED, [(TERMS, INVALID, TERMS_MSG)]),
    Case("gated: requirement removed is refused", GATED.required(term(IN_ZONE_A, SSD)), GATED_AFFINITY,
         [(f"{TERMS}[0]", INVALID, TERM_MSG)]),
    Case("gated: values widened is refused", GATED_AFFINITY,
         GATED.required(term(req(ZONE, "In", "zone-a", "zone-b", "zone-c"))), [(f"{TERMS}[0]", INVALID, TERM_MSG)]),
    Case("gated: values narrowed is still a mutation and refused", GATED_AFFINITY,
         GATED.required(term(req(ZONE, "In", "zone-a"))), [(f"{TERMS}[0]", INVALID, TERM_MSG)]),
    Case("gated: operator changed is refused", GATED_AFFINITY,
         GATED.required(term(req(ZONE, "NotIn", "zone-a", "zone-b"))), [(f"{TERMS}[0]", INVALID, TERM_MSG)]),
    Case("gated: requirement inserted before the existing one is refused", GATED_AFFINITY,
         GATED.required(term(SSD, IN_ZONE_A)), [(f"{TERMS}[0]", INVALID, TERM_MSG)]),
    Case("gated: second term mutated is refused at its index", GATED.required(term(IN_ZONE_A), term(SSD)),
         GATED.required(term(IN_ZONE_A), term(req("disk", "In", "hdd"))), [(f"{TERMS}[1]", INVALID, TERM_MSG)]),
    Case("gated: preferred terms change freely", GATED.preferred(10, term(SSD)),
         GATED.preferred(50, term(IN_ZONE_A)).preferred(1, term(req("gpu", "Exists")))),
    Case("gated: adding node affinity keeps existing pod anti-affinity", GATED.pod_anti_affinity(ZONE, "web"),
         GATED.pod_anti_affinity(ZONE, "web").required(term(IN_ZONE_A))),
    Case("gated: removing pod anti-affinity is refused", GATED.pod_anti_affinity(ZONE, "web"), GATED,
         [generic('- spec.affinity: {"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":'
                  '[{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"topology.kubernetes.io/zone"}]}}')]),
    Case("ungated: requirement added is refused", POD.required(term(IN_ZONE_A)), POD.required(term(IN_ZONE_A, SSD)),
         [generic('- spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]'
                  '.matchExpressions: [{"key":"topology.kubernetes.io/zone","operator":"In","values":["zone-a","zone-b"]}]',
                  '+ spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]'
                  '.matchExpressions: [{"key":"topology.kubernetes.io/zone","operator":"In","values":["zone-a","zone-b"]},'
                  '{"key":"disk","operator":"In","values":["ssd"]}]')]),
    Case("ungated: preferred term changed is refused", POD.preferred(10, term(SSD)), POD.preferred(20, term(SSD)),
         [generic("- spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 10",
                  "+ spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 20")]),
    Case("gated: an added requirement with a bad operator is invalid", GATED_AFFINITY,
         GATED.required(term(IN_ZONE_A, req("disk", "Like", "ssd"))),
         [(f"{TERMS}[0].matchExpressions[1].operator", INVALID, "not a valid selector operator")]),
    Case("gated: an added In requirement without values is required", GATED_AFFINITY,
         GATED.required(term(IN_ZONE_A, req("disk", "In"))),
         [(f"{TERMS}[0].matchExpressions[1].values", REQUIRED_VALUE,
           "must be specified when `operator` is 'In' or 'NotIn'")]),
    Case("gated: a matchFields key other than metadata.name is invalid", GATED,
         GATED.required(term(fields=(req("metadata.uid", "In", "x"),))),
         [(f"{TERMS}[0].matchFields[0].key", INVALID, "not a valid field selector key")]),
    Case("gated: required affinity with no terms is required", GATED,
         GATED.set("spec.affinity", {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}}),
         [(TERMS, REQUIRED_VALUE, "must have at least one node selector term")]),
    Case("gated: preferred weight out of range is invalid", GATED, GATED.preferred(0, term(SSD)),
         [("spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight", INVALID,
           "must be in the range 1-100")]),
    Case("gated: selector and affinity errors come in upstream order", GATED.node_selector(ZONE, "a").required(term(SSD)),
         GATED.node_selector(ZONE, "b").required(term(req("disk", "In", "hdd"))),
         [("spec.nodeSelector", INVALID, NODE_SELECTOR_MSG), (f"{TERMS}[0]", INVALID, TERM_MSG)]),
    Case("gated: a refused selector change and another field change give two errors",
         GATED.node_selector(ZONE, "a"), GATED.node_selector(ZONE, "b").set("spec.restartPolicy", "Never"),
         [("spec.nodeSelector", INVALID, NODE_SELECTOR_MSG),
          generic('- spec.restartPolicy: "Always"', '+ spec.restartPolicy: "Never"')]),
]

TOLERATION_CASES = [
    Case("toleration added is allowed", POD.toleration("a", value="x", effect="NoSchedule"),
         POD.toleration("a", value="x", effect="NoSchedule").toleration("b", "Exists")),
    Case("toleration added to a gated pod is allowed", GATED, GATED.toleration("b", "Exists")),
    Case("toleration removed is refused", POD.toleration("a", value="x"), POD, [("spec.tolerations", FORBIDDEN, TOLERATION_MSG)]),
    Case("toleration value changed is refused", POD.toleration("a", value="x"), POD.toleration("a", value="y"),
         [("spec.tolerations", FORBIDDEN, TOLERATION_MSG)]),
    Case("tolerationSeconds may change", POD.toleration("a", "Exists", effect="NoExecute", seconds=300),
         POD.toleration("a", "Exists", effect="NoExecute", seconds=30)),
    Case("an added toleration with an unknown operator is not supported", POD, POD.toleration("a", "Gt", value="1"),
         [("spec.tolerations[0].operator", NOT_SUPPORTED, 'supported values: "Equal", "Exists"')]),
    Case("tolerationSeconds needs effect NoExecute", POD, POD.toleration("a", "Exists", effect="NoSchedule", seconds=5),
         [("spec.tolerations[0].effect", INVALID, "effect must be 'NoExecute' when `tolerationSeconds` is set")]),
    Case("an empty key needs operator Exists", POD, POD.toleration("", "Equal"),
         [("spec.tolerations[0].operator", INVALID,
           'operator must be Exists when `key` is empty, which means "match all values and all keys"')]),
    Case("an unknown taint effect is not supported", POD, POD.toleration("a", "Exists", effect="NoRun"),
         [("spec.tolerations[0].effect", NOT_SUPPORTED, 'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"')]),
]

OTHER_SPEC_CASES = [
    Case("no change is allowed", GATED_AFFINITY, GATED_AFFINITY),
    Case("an explicit default equals an absent field", POD, POD.set("spec.restartPolicy", "Always")
         .set("spec.terminationGracePeriodSeconds", 30).set("spec.dnsPolicy", "ClusterFirst")),
    Case("restartPolicy changed is refused with the generic message", POD, POD.set("spec.restartPolicy", "Never"),
         [generic('- spec.restartPolicy: "Always"', '+ spec.restartPolicy: "Never"')]),
    Case("restartPolicy changed on a gated pod is refused too", GATED, GATED.set("spec.restartPolicy", "OnFailure"),
         [generic('- spec.restartPolicy: "Always"', '+ spec.restartPolicy: "OnFailure"')]),
    Case("container resources changed are refused", POD.set("spec.containers", [{"name": "app", "image": "x:1",
         "resources": {"requests": {"cpu": "1"}}}]), POD.set("spec.containers", [{"name": "app", "image": "x:1",
         "resources": {"requests": {"cpu": "2"}}}]),
         [generic('- spec.containers[0].resources.requests.cpu: "1"', '+ spec.containers[0].resources.requests.cpu: "2"')]),
    Case("equal quantities written differently are no change", POD.set("spec.containers", [{"name": "app",
         "image": "x:1", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]), POD.set("spec.containers", [
         {"name": "app", "image": "x:1", "resources": {"requests": {"cpu": "1000m", "memory": "1024Mi"}}}])),
    Case("image changed is allowed", make_pod(image="nginx:1.25"), make_pod(image="nginx:1.26")),
    Case("an empty image is required", POD, make_pod(image=""), [("spec.containers[0].image", REQUIRED_VALUE, "")]),
    Case("container added is refused", POD, POD.container("sidecar", "busybox:1"),
         [("spec.containers", FORBIDDEN, "pod updates may not add or remove containers")]),
    Case("nodeName set on a gated pod is refused", GATED, GATED.set("spec.nodeName", "node-1"),
         [generic('+ spec.nodeName: "node-1"')]),
    Case("activeDeadlineSeconds lowered is allowed", POD.set("spec.activeDeadlineSeconds", 60),
         POD.set("spec.activeDeadlineSeconds", 30)),
    Case("activeDeadlineSeconds raised is refused", POD.set("spec.activeDeadlineSeconds", 30),
         POD.set("spec.activeDeadlineSeconds", 60),
         [("spec.activeDeadlineSeconds", INVALID, "must be less than or equal to previous value")]),
    Case("activeDeadlineSeconds unset is refused", POD.set("spec.activeDeadlineSeconds", 30), POD,
         [("spec.activeDeadlineSeconds", INVALID, "must not update from a positive integer to nil value")]),
    Case("a negative grace period may become 1", POD.set("spec.terminationGracePeriodSeconds", -1),
         POD.set("spec.terminationGracePeriodSeconds", 1)),
]

METADATA_CASES = [
    Case("labels changed are allowed", POD, POD.label("app", "web")),
    Case("name changed is refused", POD, POD.name("q"), [("metadata.name", INVALID, "field is immutable")]),
    Case("namespace changed is refused", POD, POD.namespace("prod"), [("metadata.namespace", INVALID, "field is immutable")]),
    Case("an absent namespace is the default one", POD.namespace(None), POD),
    Case("name removed is refused twice over", POD, POD.name(None), [
        ("metadata.name", INVALID, "field is immutable"),
        ("metadata.name", REQUIRED_VALUE, "name or generateName is required"),
    ]),
    Case("uid left out of the new manifest is kept", POD.set("metadata.uid", "u-1"), POD),
    Case("uid changed is refused", POD.set("metadata.uid", "u-1"), POD.set("metadata.uid", "u-2"),
         [("metadata.uid", INVALID, "field is immutable")]),
    Case("creationTimestamp is the server's", POD.set("metadata.creationTimestamp", "2026-11-22T07:00:00Z"),
         POD.set("metadata.creationTimestamp", "2000-01-01T00:00:00Z")),
    Case("an invalid label value is refused once", POD, POD.label("app", "-web"),
         [("metadata.labels", INVALID, LABEL_VALUE_MSG)]),
]

JUNK_CASES = [
    Case("new pod that is not a mapping", POD, ["not", "a", "pod"],
         [("", INVALID, "must be an object (a Pod manifest)")]),
    Case("old pod that is not a mapping", None, POD, [("", INVALID, "old pod: must be an object (a Pod manifest)")]),
    Case("spec that is a list", POD, POD.set("spec", [1]), [("spec", INVALID, "must be an object")]),
    Case("nodeSelector that is a list", GATED, GATED.set("spec.nodeSelector", ["zone=a"]),
         [("spec.nodeSelector", INVALID, "must be a map of string keys to string values")]),
    Case("nodeSelector with a number value", GATED, GATED.node_selector("rack", 7),
         [("spec.nodeSelector", INVALID, "must be a map of string keys to string values")]),
    Case("requirement values that are numbers", GATED, GATED.required(term(req("cores", "Gt", 4))),
         [(f"{TERMS}[0].matchExpressions[0].values[0]", INVALID, "must be a string")]),
    Case("nodeSelectorTerms that is a mapping", GATED,
         GATED.set("spec.affinity", {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                                      {"nodeSelectorTerms": {"a": 1}}}}),
         [(TERMS, INVALID, "must be a list")]),
    Case("tolerationSeconds as a string", POD, POD.toleration("a", "Exists", effect="NoExecute", seconds="30"),
         [("spec.tolerations[0].tolerationSeconds", INVALID, "must be an integer")]),
    Case("tolerationSeconds as a boolean", POD, POD.toleration("a", "Exists", effect="NoExecute", seconds=True),
         [("spec.tolerations[0].tolerationSeconds", INVALID, "must be an integer")]),
    Case("a gate that is a string", GATED, GATED.set("spec.schedulingGates", ["example.com/placement"]),
         [("spec.schedulingGates[0]", INVALID, "must be an object")]),
    Case("junk in the old pod is named as such", GATED.set("spec.tolerations", "all"), GATED,
         [("spec.tolerations", INVALID, "old pod: must be a list")]),
    Case("null fields are unset fields", GATED.set("spec.nodeSelector", None),
         GATED.set("spec", {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}],
                            "schedulingGates": [{"name": GATE}], "nodeSelector": None, "tolerations": None,
                            "affinity": None})),
]

ALL_CASES = GATE_CASES + NODE_SELECTOR_CASES + AFFINITY_CASES + TOLERATION_CASES + OTHER_SPEC_CASES + METADATA_CASES + JUNK_CASES


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.name)
def test_validate_pod_update(case: Case) -> None:
    got = validate_pod_update(_obj(case.old), _obj(case.new))
    want = [{"field": f, "type": t, "detail": d} for f, t, d in case.want]
    assert got == {"allowed": not want, "errors": want}


def test_case_names_are_unique() -> None:
    names = [c.name for c in ALL_CASES]
    assert len(names) == len(set(names))
