"""Scenario loading: quantities, API defaults, priorities, workloads and bad input."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pytest
import yaml

from scheduler_core.errors import ScenarioError
from scheduler_core.k8s import quantity
from scheduler_core.k8s.types import Taint, Toleration, TopologySpreadConstraint
from scheduler_core.scenario import load_scenario

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
"""


def pod_yaml(name: str = "p", spec: str = "containers: [{name: c}]", extra: str = "") -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec: {{{spec}}}
{extra}"""


# --- quantities -----------------------------------------------------------------------
@dataclass
class Q:
    text: object
    exact: Fraction
    milli: int
    value: int


QUANTITIES = [
    Q("500m", Fraction(1, 2), 500, 1),
    Q("1Gi", Fraction(2 ** 30), 2 ** 30 * 1000, 2 ** 30),
    Q("2", Fraction(2), 2000, 2),
    Q("1e3", Fraction(1000), 1_000_000, 1000),
    Q("0.5", Fraction(1, 2), 500, 1),
    Q("100M", Fraction(10 ** 8), 10 ** 11, 10 ** 8),
    Q("1Ki", Fraction(1024), 1_024_000, 1024),
    Q("1.5", Fraction(3, 2), 1500, 2),
    Q("1n", Fraction(1, 10 ** 9), 1, 1),
    Q("250u", Fraction(1, 4000), 1, 1),
    Q(3, Fraction(3), 3000, 3),
    Q("7k", Fraction(7000), 7_000_000, 7000),
    Q("1E-3", Fraction(1, 1000), 1, 1),
]


@pytest.mark.parametrize("q", QUANTITIES, ids=lambda q: f"quantity {q.text}")
def test_quantity_parses_exactly_and_rounds_up(q: Q) -> None:
    exact = quantity.parse_quantity(q.text)
    assert (exact, quantity.milli_value(exact), quantity.value(exact)) == (q.exact, q.milli,
                                                                          q.value)


@pytest.mark.parametrize("text,msg", [
    ("abc", quantity.ERR_FORMAT_WRONG), ("1Xi", quantity.ERR_FORMAT_WRONG),
    ("", quantity.ERR_FORMAT_WRONG), ("1e", quantity.ERR_SUFFIX), (True, quantity.ERR_FORMAT_WRONG),
], ids=["letters", "unknown suffix", "empty", "bare exponent", "boolean"])
def test_bad_quantity_has_upstream_message(text, msg) -> None:
    with pytest.raises(quantity.QuantityError) as e:
        quantity.parse_quantity(text)
    assert str(e.value) == msg


# --- parsing and defaults -------------------------------------------------------------
def test_node_fields_are_parsed_in_engine_units() -> None:
    s = load_scenario(NODE + """---
apiVersion: v1
kind: Node
metadata: {name: n2}
spec:
  unschedulable: true
  taints: [{key: k, value: v, effect: NoSchedule}]
status: {capacity: {cpu: 500m, memory: 1Gi}}
""")
    n1, n2 = s.nodes
    assert dict(n1.allocatable) == {"cpu": 2000, "memory": 4 * 2 ** 30, "pods": 110}
    assert dict(n2.allocatable) == {"cpu": 500, "memory": 2 ** 30}  # capacity fallback
    assert (n2.unschedulable, n2.taints) == (True, (Taint("k", "v", "NoSchedule"),))


def test_pod_defaults_and_requests_from_limits() -> None:
    s = load_scenario(pod_yaml(spec="""containers: [{name: c, resources: {limits: {cpu: "1",
        memory: 1Gi}, requests: {cpu: 250m}}}], tolerations: [{key: k, operator: Exists}]"""))
    p = s.pods[0]
    assert (p.namespace, p.scheduler_name, p.priority, p.preemption_policy) == (
        "default", "default-scheduler", 0, "PreemptLowerPriority")
    assert dict(p.requests) == {"cpu": 250, "memory": 2 ** 30}
    # DefaultTolerationSeconds admission adds the not-ready / unreachable tolerations
    assert p.tolerations == (
        Toleration("k", "Exists"),
        Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300),
        Toleration("node.kubernetes.io/unreachable", "Exists", "", "NoExecute", 300))
    assert s.namespaces["default"] == {"kubernetes.io/metadata.name": "default"}


def test_spread_constraint_is_parsed_as_written() -> None:
    s = load_scenario(pod_yaml(spec="""containers: [{name: c}], topologySpreadConstraints: [
        {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 3,
         labelSelector: {matchLabels: {app: web}}}]"""))
    c = s.pods[0].topology_spread_constraints[0]
    assert (c.max_skew, c.topology_key, c.when_unsatisfiable, c.min_domains,
            c.node_affinity_policy, c.node_taints_policy) == (1, "zone", "DoNotSchedule", 3,
                                                              None, None)
    assert dict(c.label_selector.match_labels) == {"app": "web"}


PRIORITY_CLASSES = """
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: base}
value: 10
globalDefault: true
"""


@pytest.mark.parametrize("spec,want", [
    ("containers: [{name: c}], priorityClassName: high", (1000, "Never")),
    ("containers: [{name: c}]", (10, "PreemptLowerPriority")),
    ("containers: [{name: c}], priority: 5", (5, "PreemptLowerPriority")),
    ("containers: [{name: c}], priorityClassName: system-node-critical", (2000001000,
                                                                          "PreemptLowerPriority")),
], ids=["named class gives value and policy", "global default class applies",
        "spec.priority wins", "built-in system class"])
def test_priority_resolution(spec, want) -> None:
    p = load_scenario(pod_yaml(spec=spec) + PRIORITY_CLASSES).pods[0]
    assert (p.priority, p.preemption_policy) == want


def test_list_items_and_json_and_file_order() -> None:
    text = ('{"apiVersion": "v1", "kind": "List", "items": ['
            '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"}, "spec": {}},'
            '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {}}]}')
    s = load_scenario(text, "s.json")
    assert [(p.name, p.file_index) for p in s.pods] == [("b", 0), ("a", 1)]


def test_unknown_kind_is_a_warning_and_finished_pods_are_ignored() -> None:
    s = load_scenario(NODE + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
                      + "---" + pod_yaml(extra="status: {phase: Succeeded}"))
    assert (s.pods, s.warnings) == ((), ("scenario.yaml: ConfigMap: 1 object ignored (x): "
                                         "kind not read by the scheduler",))


def test_pod_bound_to_missing_node_is_ignored_with_warning() -> None:
    s = load_scenario(NODE + "---" + pod_yaml(spec="containers: [{name: c}], nodeName: ghost"))
    assert s.pods == ()
    assert s.warnings == ("scenario.yaml: Pod default/p: spec.nodeName: node 'ghost' is not "
                          "in the scenario; pod ignored",)


def test_namespace_labels_include_metadata_name() -> None:
    s = load_scenario("apiVersion: v1\nkind: Namespace\nmetadata: {name: team, labels: {a: b}}")
    assert s.namespaces["team"] == {"a": "b", "kubernetes.io/metadata.name": "team"}


# --- workload expansion ---------------------------------------------------------------
RS = """
apiVersion: apps/v1
kind: {kind}
metadata: {{name: web, creationTimestamp: "2026-01-01T00:00:00Z"}}
spec:
  replicas: 3
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}
"""
OWNED = pod_yaml("web-0", extra="") .replace(
    "metadata: {name: web-0}", "metadata: {name: web-0, labels: {app: web}, ownerReferences: "
    "[{apiVersion: apps/v1, kind: StatefulSet, name: web, uid: u}]}")


def test_statefulset_scales_to_missing_ordinals() -> None:
    s = load_scenario(OWNED + "---" + RS.format(kind="StatefulSet"))
    assert [p.name for p in s.pods] == ["web-0", "web-1", "web-2"]
    assert s.pods[1].owner_references[0].kind == "StatefulSet"
    assert s.pods[1].creation_timestamp == 1767225600.0
    assert dict(s.pods[2].requests) == {"cpu": 100}


def test_replicaset_generated_names_are_deterministic() -> None:
    a = load_scenario(RS.format(kind="ReplicaSet"))
    b = load_scenario(RS.format(kind="ReplicaSet"))
    names = [p.name for p in a.pods]
    assert names == [p.name for p in b.pods] and len(set(names)) == 3
    assert all(n.startswith("web-") and len(n) == 9 for n in names)


# apimachinery validation.go messages (v1.34), as the apiserver words them
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
QNAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


# --- bad input -------------------------------------------------------------------------
BAD = [
    ("malformed YAML", "a: [1, 2\n", "scenario.yaml: invalid YAML: did not find expected ',' or "
     "']' (line 2, column 1)"),
    ("a document that is not a mapping", "- 1\n- 2\n", "scenario.yaml: each document must be a "
     "Kubernetes object (a mapping), not list"),
    ("missing kind", "apiVersion: v1\nmetadata: {name: x}\n", "scenario.yaml: object #1 (x): kind: "
     "Required value"),
    ("missing name", "apiVersion: v1\nkind: Pod\nmetadata: {}\n", "scenario.yaml: Pod #1: "
     "metadata.name: Required value: name or generateName is required"),
    ("wrong type", pod_yaml(spec="containers: {name: c}"), "scenario.yaml: Pod default/p: "
     "spec.containers: must be a list, not an object"),
    ("negative quantity", pod_yaml(spec="containers: [{name: c, resources: {requests: "
                                        "{cpu: -1}}}]"),
     "scenario.yaml: Pod default/p: spec.containers[0].resources.requests.cpu: Invalid value: "
     "\"-1\": must be greater than or equal to 0"),
    ("invalid quantity", pod_yaml(spec="containers: [{name: c, resources: {limits: "
                                       "{memory: lots}}}]"),
     "scenario.yaml: Pod default/p: spec.containers[0].resources.limits.memory: Invalid value: "
     "\"lots\": " + quantity.ERR_FORMAT_WRONG),
    ("maxSkew zero", pod_yaml(spec="topologySpreadConstraints: [{maxSkew: 0, topologyKey: z, "
                                   "whenUnsatisfiable: DoNotSchedule}]"),
     "scenario.yaml: Pod default/p: spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: "
     "must be greater than zero"),
    ("unknown whenUnsatisfiable", pod_yaml(spec="topologySpreadConstraints: [{maxSkew: 1, "
                                                "topologyKey: z, whenUnsatisfiable: Maybe}]"),
     "scenario.yaml: Pod default/p: spec.topologySpreadConstraints[0].whenUnsatisfiable: "
     "Unsupported value: \"Maybe\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\""),
    ("minDomains with ScheduleAnyway", pod_yaml(spec="topologySpreadConstraints: [{maxSkew: 1, "
                                                     "topologyKey: z, whenUnsatisfiable: "
                                                     "ScheduleAnyway, minDomains: 2}]"),
     "scenario.yaml: Pod default/p: spec.topologySpreadConstraints[0].minDomains: Invalid value: "
     "2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"),
    ("duplicate constraint pair", pod_yaml(spec="topologySpreadConstraints: [{maxSkew: 1, "
                                                "topologyKey: z, whenUnsatisfiable: "
                                                "DoNotSchedule}, {maxSkew: 2, topologyKey: z, "
                                                "whenUnsatisfiable: DoNotSchedule}]"),
     "scenario.yaml: Pod default/p: spec.topologySpreadConstraints[0].{topologyKey, "
     "whenUnsatisfiable}: Duplicate value: \"{z, DoNotSchedule}\""),
    ("empty topologyKey", pod_yaml(spec="topologySpreadConstraints: [{maxSkew: 1, "
                                        "whenUnsatisfiable: DoNotSchedule}]"),
     "scenario.yaml: Pod default/p: spec.topologySpreadConstraints[0].topologyKey: Required "
     "value: can not be empty"),
    ("matchLabelKeys also in selector", pod_yaml(
        spec="topologySpreadConstraints: [{maxSkew: 1, topologyKey: z, whenUnsatisfiable: "
             "DoNotSchedule, labelSelector: {matchLabels: {app: a}}, matchLabelKeys: [app]}]"),
     "scenario.yaml: Pod default/p: spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid "
     "value: \"app\": exists in both matchLabelKeys and labelSelector"),
    ("bad nodeTaintsPolicy", pod_yaml(spec="topologySpreadConstraints: [{maxSkew: 1, "
                                           "topologyKey: z, whenUnsatisfiable: DoNotSchedule, "
                                           "nodeTaintsPolicy: Always}]"),
     "scenario.yaml: Pod default/p: spec.topologySpreadConstraints[0].nodeTaintsPolicy: "
     "Unsupported value: \"Always\": supported values: \"Honor\", \"Ignore\""),
    ("unknown priority class", pod_yaml(spec="priorityClassName: gold"),
     "scenario.yaml: Pod default/p: spec.priorityClassName: no PriorityClass with name gold was "
     "found"),
    ("duplicate object", pod_yaml() + "---" + pod_yaml(),
     "scenario.yaml: Pod default/p: metadata.name: duplicate object: Pod default/p appears more "
     "than once"),
    ("bad toleration operator", pod_yaml(spec="tolerations: [{key: k, operator: Maybe}]"),
     "scenario.yaml: Pod default/p: spec.tolerations[0].operator: Unsupported value: \"Maybe\": "
     "supported values: \"Equal\", \"Exists\""),
    ("unknown label selector operator", pod_yaml(
        spec="affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
             "[{topologyKey: z, labelSelector: {matchExpressions: [{key: a, operator: Near}]}}]}}"),
     "scenario.yaml: Pod default/p: spec.affinity.podAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0]."
     "operator: Invalid value: \"Near\": not a valid selector operator"),
    ("In without values", pod_yaml(
        spec="affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
             "{nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In}]}]}}}"),
     "scenario.yaml: Pod default/p: spec.affinity.nodeAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]."
     "values: Required value: must be specified when `operator` is 'In' or 'NotIn'"),
    ("Exists with values", pod_yaml(
        spec="topologySpreadConstraints: [{maxSkew: 1, topologyKey: z, whenUnsatisfiable: "
             "DoNotSchedule, labelSelector: {matchExpressions: [{key: a, operator: Exists, "
             "values: [x]}]}}]"),
     "scenario.yaml: Pod default/p: spec.topologySpreadConstraints[0].labelSelector."
     "matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' "
     "or 'DoesNotExist'"),
    ("Gt with two values", pod_yaml(
        spec="affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
             "{nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Gt, values: ['1', "
             "'2']}]}]}}}"),
     "scenario.yaml: Pod default/p: spec.affinity.nodeAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]."
     "values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"),
    ("matchFields on another field", pod_yaml(
        spec="affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
             "{nodeSelectorTerms: [{matchFields: [{key: spec.nodeName, operator: In, "
             "values: [n1]}]}]}}}"),
     "scenario.yaml: Pod default/p: spec.affinity.nodeAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: "
     "Invalid value: \"spec.nodeName\": not a valid field selector key"),
    ("preferred weight out of range", pod_yaml(
        spec="affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
             "[{weight: 101, preference: {matchExpressions: [{key: a, operator: Exists}]}}]}}"),
     "scenario.yaml: Pod default/p: spec.affinity.nodeAffinity."
     "preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be "
     "in the range 1-100"),
    ("pod affinity term without topologyKey", pod_yaml(
        spec="affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
             "[{labelSelector: {}}]}}"),
     "scenario.yaml: Pod default/p: spec.affinity.podAntiAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not "
     "be empty"),
    ("request above limit", pod_yaml(spec="containers: [{name: c, resources: {requests: "
                                          "{cpu: '2'}, limits: {cpu: '1'}}}]"),
     "scenario.yaml: Pod default/p: spec.containers[0].resources.requests[cpu]: Invalid value: "
     "\"2\": must be less than or equal to cpu limit of 1"),
    ("label value not a string", "apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: "
     "{tier: 1}}", "scenario.yaml: Node n: metadata.labels.tier: must be a string, not an "
     "integer"),
    ("bad timestamp", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, creationTimestamp: "
     "yesterday}", "scenario.yaml: Pod default/p: metadata.creationTimestamp: 'yesterday' is not "
     "an RFC3339 timestamp"),
    ("invalid taint value", "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec: {taints: "
     "[{key: k, value: 'a b', effect: NoSchedule}]}", "scenario.yaml: Node n: spec.taints[0].value: "
     "Invalid value: \"a b\": " + LABEL_VALUE_MSG),
    ("invalid Service selector value", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: "
     "{selector: {app: 'a b'}}", "scenario.yaml: Service default/s: spec.selector: Invalid value: "
     "\"a b\": " + LABEL_VALUE_MSG),
    ("bad deletionTimestamp", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, deletionTimestamp: "
     "soon}", "scenario.yaml: Pod default/p: metadata.deletionTimestamp: 'soon' is not an RFC3339 "
     "timestamp"),
    ("bad startTime", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nstatus: {startTime: "
     "later}", "scenario.yaml: Pod default/p: status.startTime: 'later' is not an RFC3339 "
     "timestamp"),
    ("bound pod with scheduling gates", pod_yaml(spec="nodeName: n, schedulingGates: [{name: g}]"),
     "scenario.yaml: Pod default/p: spec.nodeName: Forbidden: cannot be set until all "
     "schedulingGates have been cleared"),
    ("invalid label value in required pod affinity", pod_yaml(
        spec="affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
             "[{topologyKey: z, labelSelector: {matchExpressions: [{key: app, operator: In, "
             "values: ['{{.bad-value.}}']}]}}]}}"),
     "scenario.yaml: Pod default/p: spec.affinity.podAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0]."
     "values[0]: Invalid value: \"{{.bad-value.}}\": " + LABEL_VALUE_MSG),
    ("invalid label value in preferred pod anti-affinity", pod_yaml(
        spec="affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
             "[{weight: 1, podAffinityTerm: {topologyKey: z, labelSelector: {matchLabels: "
             "{app: 'a b'}}}}]}}"),
     "scenario.yaml: Pod default/p: spec.affinity.podAntiAffinity."
     "preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector."
     "matchLabels: Invalid value: \"a b\": " + LABEL_VALUE_MSG),
    ("invalid label key in a pod affinity namespaceSelector", pod_yaml(
        spec="affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
             "[{topologyKey: z, namespaceSelector: {matchExpressions: [{key: 'a/b/c', "
             "operator: Exists}]}}]}}"),
     "scenario.yaml: Pod default/p: spec.affinity.podAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector.matchExpressions[0]."
     "key: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, "
     "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  "
     "or 'my.name',  or '123-abc', regex used for validation is "
     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
     "'/' (e.g. 'example.com/MyName')"),
    ("invalid topologyKey in a pod affinity term", pod_yaml(
        spec="affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
             "[{topologyKey: 'a b', labelSelector: {}}]}}"),
     "scenario.yaml: Pod default/p: spec.affinity.podAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"a b\": "
     "name part " + QNAME_MSG),
    ("invalid label value in required node affinity", pod_yaml(
        spec="affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
             "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, "
             "values: [a, '-b']}]}]}}}"),
     "scenario.yaml: Pod default/p: spec.affinity.nodeAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]."
     "values[1]: Invalid value: \"-b\": " + LABEL_VALUE_MSG),
    ("invalid label value in a spread constraint selector", pod_yaml(
        spec="topologySpreadConstraints: [{maxSkew: 1, topologyKey: z, whenUnsatisfiable: "
             "DoNotSchedule, labelSelector: {matchLabels: {app: 'x y'}}}]"),
     "scenario.yaml: Pod default/p: spec.topologySpreadConstraints[0].labelSelector."
     "matchLabels: Invalid value: \"x y\": " + LABEL_VALUE_MSG),
    ("invalid pod label value", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: "
     "{app: 'a b'}}", "scenario.yaml: Pod default/p: metadata.labels: Invalid value: \"a b\": "
     + LABEL_VALUE_MSG),
    ("invalid nodeSelector value", pod_yaml(spec="nodeSelector: {zone: 'a:b'}"),
     "scenario.yaml: Pod default/p: spec.nodeSelector: Invalid value: \"a:b\": "
     + LABEL_VALUE_MSG),
    ("invalid toleration value", pod_yaml(spec="tolerations: [{key: k, value: 'a b'}]"),
     "scenario.yaml: Pod default/p: spec.tolerations[0].operator: Invalid value: \"a b\": "
     + LABEL_VALUE_MSG),
    ("invalid selector value in a StatefulSet", "apiVersion: apps/v1\nkind: StatefulSet\n"
     "metadata: {name: db}\nspec: {selector: {matchLabels: {app: 'd b'}}}",
     "scenario.yaml: StatefulSet default/db: spec.selector.matchLabels: Invalid value: "
     "\"d b\": " + LABEL_VALUE_MSG),
    ("alias bomb", "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n"
        for i in range(7)), "scenario.yaml: invalid YAML: document contains excessive aliasing"),
    ("a number of 5,000 digits", "a: &x " + "9" * 5000 + "\n",
     "scenario.yaml: invalid YAML: a number too long to read (exceeds the limit (4300 digits) for "
     "integer string conversion)"),
    ("alias inside the node it names", "a: &a [*a]\n",
     "scenario.yaml: invalid YAML: an alias (*name) refers to a node that contains it; the value "
     "would be infinite"),
    ("replicas beyond int32", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\n"
     "spec: {replicas: 1000000000000, template: {spec: {containers: [{name: c}]}}}",
     "scenario.yaml: ReplicaSet default/r: spec.replicas: Invalid value: 1000000000000: must be a "
     "32-bit integer (from -2147483648 to 2147483647)"),
    ("replicas beyond the pod limit", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\n"
     "spec: {replicas: 100001, selector: {matchLabels: {a: b}}, "
     "template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c}]}}}",
     "scenario.yaml: ReplicaSet default/r: spec.replicas: Invalid value: 100001: a scenario holds "
     "at most 100,000 pods"),
    ("cpu request that overflows", pod_yaml(spec="containers: [{name: c, resources: {requests: "
                                                 "{cpu: 1e400}}}]"),
     "scenario.yaml: Pod default/p: spec.containers[0].resources.requests.cpu: Invalid value: "
     "\"1e400\": must be less than or equal to 9007199254740992m"),
    ("maxSkew beyond int32", pod_yaml(spec="topologySpreadConstraints: [{maxSkew: 1.0e+23, "
                                           "topologyKey: z, whenUnsatisfiable: DoNotSchedule}]"),
     "scenario.yaml: Pod default/p: spec.topologySpreadConstraints[0].maxSkew: Invalid value: "
     "1e+23: must be a 32-bit integer (from -2147483648 to 2147483647)"),
]


@pytest.mark.parametrize("text,message", [(t, m) for _, t, m in BAD], ids=[b[0] for b in BAD])
def test_bad_input_raises_scenario_error_naming_file_object_field(text, message) -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario(text)
    assert str(e.value) == message


def test_inline_and_separate_configuration() -> None:
    cfg = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
           "percentageOfNodesToScore: {}\n")
    s = load_scenario(NODE + "---\n" + cfg.format(30), config_text=cfg.format(70))
    assert s.config.percentage_of_nodes_to_score == 70
    with pytest.raises(ScenarioError) as e:
        load_scenario(NODE + "---\n" + cfg.format(30) + "---\n" + cfg.format(20))
    assert str(e.value) == ("scenario.yaml: KubeSchedulerConfiguration: at most one "
                            "KubeSchedulerConfiguration may be given")


def test_default_constraints_tuple_type() -> None:
    # The parsed constraint type is the API value used everywhere.
    s = load_scenario(pod_yaml(spec="topologySpreadConstraints: [{maxSkew: 2, topologyKey: z, "
                                    "whenUnsatisfiable: ScheduleAnyway}]"))
    assert s.pods[0].topology_spread_constraints == (
        TopologySpreadConstraint(2, "z", "ScheduleAnyway"),)


def test_timestamp_like_values_stay_strings_as_in_kubectl() -> None:
    s = load_scenario("apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: "
                      "{built: 2026-01-01}, creationTimestamp: 2026-01-01T00:00:00Z}")
    assert dict(s.nodes[0].labels) == {"built": "2026-01-01"}


def test_deployment_without_replicaset_gets_the_one_its_controller_would_create() -> None:
    s = load_scenario(RS.format(kind="Deployment"))
    (rs,) = s.workloads
    h = rs.name.removeprefix("web-")
    assert (rs.kind, len(h), dict(rs.selector.match_labels)) == (
        "ReplicaSet", 10, {"app": "web", "pod-template-hash": h})
    assert [p.owner_references[0].name for p in s.pods] == [rs.name] * 3
    assert all(p.name.startswith(f"{rs.name}-") and p.labels["pod-template-hash"] == h
               for p in s.pods)


def test_deployment_with_its_replicaset_in_the_scenario_adds_nothing() -> None:
    rs = RS.format(kind="ReplicaSet").replace(
        "metadata: {name: web,", "metadata: {name: web-abc, ownerReferences: [{apiVersion: "
        "apps/v1, kind: Deployment, name: web, uid: d}],")
    s = load_scenario(RS.format(kind="Deployment") + "---" + rs)
    assert [w.name for w in s.workloads] == ["web-abc"]
    assert len(s.pods) == 3


def test_workload_replicas_default_to_one() -> None:
    s = load_scenario(RS.format(kind="StatefulSet").replace("  replicas: 3\n", ""))
    assert [p.name for p in s.pods] == ["web-0"]


@pytest.mark.parametrize("tolerations,added", [
    ("[]", 2), ("[{operator: Exists}]", 0), ("[{key: node.kubernetes.io/not-ready, "
                                            "operator: Exists, effect: NoExecute}]", 1),
    ("[{key: node.kubernetes.io/unreachable, operator: Exists}]", 1),
], ids=["none given: both added", "tolerate everything: none added",
        "not-ready given: unreachable added", "unreachable for any effect: not-ready added"])
def test_default_toleration_seconds_admission(tolerations, added) -> None:
    p = load_scenario(pod_yaml(spec=f"tolerations: {tolerations}")).pods[0]
    given = len(yaml.safe_load(tolerations))
    assert len(p.tolerations) - given == added


def test_host_network_defaults_host_ports_to_container_ports() -> None:
    p = load_scenario(pod_yaml(spec="hostNetwork: true, containers: [{name: c, ports: "
                                    "[{containerPort: 8080}, {containerPort: 9, hostPort: 19, "
                                    "protocol: UDP}]}]")).pods[0]
    assert [(x.container_port, x.host_port, x.protocol) for x in p.containers[0].ports] == [
        (8080, 8080, "TCP"), (9, 19, "UDP")]


def test_pod_level_requests_replace_the_containers_sum() -> None:
    p = load_scenario(pod_yaml(spec="resources: {limits: {memory: 2Gi}, requests: {cpu: '1'}}, "
                                    "overhead: {cpu: 100m}, containers: [{name: c, resources: "
                                    "{requests: {cpu: 200m, memory: 1Gi, ephemeral-storage: 1Gi}}}]"
                               )).pods[0]
    assert dict(p.requests) == {"cpu": 1100, "memory": 2 * 2 ** 30, "ephemeral-storage": 2 ** 30}


def test_terminating_pods_do_not_count_as_replicaset_replicas() -> None:
    owned = pod_yaml("web-old").replace(
        "metadata: {name: web-old}", "metadata: {name: web-old, labels: {app: web}, "
        "deletionTimestamp: '2026-01-01T00:00:00Z', ownerReferences: "
        "[{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u}]}")
    s = load_scenario(owned + "---" + RS.format(kind="ReplicaSet"))
    assert len(s.pods) == 4  # the terminating pod plus three replacements


def test_invalid_label_values_in_preferred_node_affinity_are_accepted_as_upstream_does() -> None:
    scenario = load_scenario(pod_yaml(spec=(
        "affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, "
        "preference: {matchExpressions: [{key: zone, operator: In, values: ['-b']}]}}]}}")))
    assert scenario.pods[0].affinity.node_affinity.preferred[0].weight == 1


def test_pod_status_start_time_and_disruption_target_are_read() -> None:
    s = load_scenario(pod_yaml(extra=(
        "status:\n  startTime: '2026-11-20T10:00:00Z'\n  conditions:\n"
        "  - {type: Ready, status: 'False'}\n"
        "  - {type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler}\n")))
    p = s.pods[0]
    assert (p.start_time, p.disruption_target_reason) == (1795168800.0, "PreemptionByScheduler")
    assert load_scenario(pod_yaml()).pods[0].start_time is None


def test_pods_writing_the_same_affinity_share_one_decoded_value() -> None:
    aff = ("affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
           "[{topologyKey: z, labelSelector: {matchLabels: {app: %s}}}]}}")
    text = "\n---".join(pod_yaml(n, aff % app) for n, app in
                        (("a", "web"), ("b", "web"), ("c", "db")))
    a, b, c = sorted(load_scenario(text).pods, key=lambda p: p.name)
    assert a.affinity is b.affinity
    assert c.affinity != a.affinity


def test_pods_written_alike_but_for_their_node_each_keep_their_node() -> None:
    spec = ("containers: [{name: c, resources: {requests: {cpu: 100m}}}], "
            "tolerations: [{key: k, operator: Exists}]%s")
    text = "\n---".join(pod_yaml(n, spec % node) for n, node in (
        ("a", ", nodeName: n1"), ("b", ", nodeName: n2"), ("c", ""), ("d", ", nodeName: n1, priority: 5")))
    text += "".join(f"\n---\napiVersion: v1\nkind: Node\nmetadata: {{name: {n}}}\n" for n in ("n1", "n2"))
    a, b, c, d = sorted(load_scenario(text).pods, key=lambda p: p.name)
    assert [p.node_name for p in (a, b, c, d)] == ["n1", "n2", "", "n1"]
    assert a.tolerations is b.tolerations is c.tolerations  # (one decoded spec)
    assert (a.requests, d.priority) == ({"cpu": 100}, 5)


@pytest.mark.parametrize("first, second, path", [
    ("'1'", "1", "spec.tolerations[0].value"),  # a string, then the same digits as a number
    ("'true'", "true", "spec.tolerations[0].value"),
    ("'1.5'", "1.5", "spec.tolerations[0].value"),
])
def test_equal_looking_values_of_another_type_are_decoded_on_their_own(first, second,
                                                                        path) -> None:
    text = (pod_yaml("a", f"tolerations: [{{key: k, value: {first}}}]") + "\n---" +
            pod_yaml("b", f"tolerations: [{{key: k, value: {second}}}]"))
    with pytest.raises(ScenarioError) as e:
        load_scenario(text)
    assert str(e.value).startswith(f"scenario.yaml: Pod default/b: {path}: must be a string")
