"""Real cluster dumps, read as kubectl reads them.

The fixtures in ``dumps/`` are modelled on what people publish: typed lists whose items
carry no kind (the raw API, ``kubectl cluster-info dump``), Deployments whose
ReplicaSets were not exported, byte-order marks, DaemonSets, pods-only dumps and pods of
another scheduler.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from scheduler_core import ScenarioError, load_scenario, simulate
from scheduler_core.cli import main
from scheduler_core.k8s.types import Toleration

D = Path(__file__).parent / "dumps"


def run_cli(capsys, *argv: str) -> tuple[int, dict | None, list[str]]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else None), err.splitlines()


def placements(result: dict) -> dict[str, str | None]:
    return {p["pod"]: p.get("node") for p in result["pods"]}


# --- typed lists, byte-order marks ---------------------------------------------------------
def test_typed_list_items_take_their_kind_from_the_list(capsys) -> None:
    # two typed lists, one after the other, as `kubectl cluster-info dump` prints them
    code, doc, err = run_cli(capsys, "simulate", str(D / "typed-lists.json"))
    assert (code, err) == (0, [])
    assert placements(doc) == {"shop/pending": "node-b"}  # node-a is full of the bound pod


def test_an_item_of_a_plain_list_without_kind_is_still_refused() -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario('{"kind": "List", "items": [{"metadata": {"name": "x", "namespace": "y"}}]}')
    assert str(e.value) == "scenario.yaml: object #1 (y/x): kind: Required value"


@dataclass
class Encoded:
    name: str
    encode: object  # text -> bytes


ENCODINGS = [
    Encoded("UTF-8 with a byte-order mark", lambda s: b"\xef\xbb\xbf" + s.encode()),
    Encoded("UTF-16 little-endian, as Windows PowerShell writes", lambda s: s.encode("utf-16")),
    Encoded("UTF-16 big-endian with a byte-order mark",
            lambda s: b"\xfe\xff" + s.encode("utf-16-be")),
]


@pytest.mark.parametrize("case", ENCODINGS, ids=lambda c: c.name)
@pytest.mark.parametrize("fixture", ["typed-lists.json", "missing-replicaset.yaml"])
def test_a_file_with_a_byte_order_mark_is_read(case: Encoded, fixture: str, tmp_path,
                                               capsys) -> None:
    text = (D / fixture).read_text()
    path = tmp_path / fixture
    path.write_bytes(case.encode(text.replace("\n", "\r\n")))
    code, doc, err = run_cli(capsys, "simulate", str(path))
    plain = run_cli(capsys, "simulate", str(D / fixture))
    assert (code, err) == (0, [])
    assert placements(doc) == placements(plain[1])


def test_text_that_is_neither_utf8_nor_utf16_is_bad_input(tmp_path, capsys) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("kind: Node\nmetadata: {name: n\xe9}\n".encode("latin-1"))
    code, doc, err = run_cli(capsys, "simulate", str(path))
    assert (code, doc) == (2, None)
    assert err == [f"error: {path}: cannot read: not UTF-8 text, nor UTF-16 with a "
                   "byte-order mark (byte 29)"]


def test_a_pasted_text_keeps_no_byte_order_mark() -> None:
    s = load_scenario("\ufeff" + (D / "typed-lists.json").read_text())
    assert [n.name for n in s.nodes] == ["node-a", "node-b"]


# --- Deployments whose ReplicaSets are not in the file ---------------------------------------
def test_running_pods_of_a_missing_replicaset_count_as_the_deployments_replicas() -> None:
    r = simulate(load_scenario((D / "missing-replicaset.yaml").read_text()))
    # 3 replicas, 2 running: one pod is added, from the running ReplicaSet
    assert [p["pod"].rsplit("-", 1)[0] for p in r["pods"]] == ["shop/web-5d4f8c7b9d"]
    assert r["pods"][0]["outcome"] == "Scheduled"


@dataclass
class Rollout:
    name: str
    replicas: int
    pods: list[tuple[str, str]]  # (ReplicaSet hash, pod-template-hash label or "")
    added: int


ROLLOUTS = [
    Rollout("every replica running adds nothing", 2, [("aaa11", "aaa11"), ("aaa11", "aaa11")], 0),
    Rollout("a rollout's old and new pods together count", 3,
            [("old22", "old22"), ("new33", "new33")], 1),
    Rollout("a pod without the hash label is matched by its ReplicaSet's name", 2,
            [("bbb44", "")], 1),
    Rollout("a pod whose hash label disagrees with its owner is not the Deployment's", 1,
            [("ccc55", "zzz99")], 1),
    Rollout("scale to 5 adds the three missing", 5, [("ddd66", "ddd66")] * 2, 3),
]


def _rollout_yaml(case: Rollout) -> str:
    out = ["apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
           "status: {allocatable: {cpu: '8', memory: 8Gi, pods: '110'}}\n",
           f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n"
           f"  replicas: {case.replicas}\n  selector: {{matchLabels: {{app: web}}}}\n"
           "  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c}]}}\n"]
    for i, (h, label) in enumerate(case.pods):
        labels = f"{{app: web, pod-template-hash: {label}}}" if label else "{app: web}"
        out.append(f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-{h}-{i}\n"
                   f"  labels: {labels}\n  creationTimestamp: '2026-01-0{i + 1}T00:00:00Z'\n"
                   f"  ownerReferences: [{{kind: ReplicaSet, name: web-{h}, controller: true}}]\n"
                   "spec: {nodeName: n, containers: [{name: c}]}\n")
    return "---\n".join(out)


@pytest.mark.parametrize("case", ROLLOUTS, ids=lambda c: c.name)
def test_only_missing_replicas_are_added(case: Rollout) -> None:
    s = load_scenario(_rollout_yaml(case))
    assert sum(1 for p in s.pods if not p.node_name) == case.added


# --- DaemonSets ----------------------------------------------------------------------------
def test_a_daemonset_gets_a_pod_on_each_eligible_node_that_lacks_one() -> None:
    r = simulate(load_scenario((D / "daemonset.yaml").read_text()))
    # has-one has its pod; gpu's taint is not tolerated; windows fails the nodeSelector;
    # the controller's own tolerations let a pod onto the cordoned node
    assert sorted(placements(r).values()) == ["cordoned", "new"]
    assert all(p["outcome"] == "Scheduled" and p["pod"].startswith("kube-system/proxy-")
               for p in r["pods"])


def test_a_daemon_pod_is_pinned_to_its_node_and_carries_the_controllers_tolerations() -> None:
    s = load_scenario((D / "daemonset.yaml").read_text())
    pod = next(p for p in s.pods if not p.node_name)
    terms = pod.affinity.node_affinity.required.node_selector_terms
    assert [(r.key, r.operator, r.values) for r in terms[0].match_fields] == [
        ("metadata.name", "In", ("cordoned",))]
    assert pod.tolerations == (
        Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute"),
        Toleration("node.kubernetes.io/unreachable", "Exists", "", "NoExecute"),
        Toleration("node.kubernetes.io/disk-pressure", "Exists", "", "NoSchedule"),
        Toleration("node.kubernetes.io/memory-pressure", "Exists", "", "NoSchedule"),
        Toleration("node.kubernetes.io/pid-pressure", "Exists", "", "NoSchedule"),
        Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"))
    assert (pod.priority, pod.owner_references[0].kind) == (2000001000, "DaemonSet")


def test_a_daemon_pod_that_does_not_fit_its_node_stays_pending_there() -> None:
    text = (D / "daemonset.yaml").read_text().replace(
        "  metadata: {name: new, labels: {kubernetes.io/os: linux}}\n"
        "  status: {allocatable: {cpu: \"2\"",
        "  metadata: {name: new, labels: {kubernetes.io/os: linux}}\n"
        "  status: {allocatable: {cpu: \"50m\"")
    r = simulate(load_scenario(text))
    stuck = [p for p in r["pods"] if p["outcome"] == "Unschedulable"]
    # NodeAffinity's PreFilter narrows the pod to its node (the matchFields term)
    assert [p["message"] for p in stuck] == [
        "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't satisfy plugin(s) "
        "[NodeAffinity]. preemption: 0/5 nodes are available: 5 Preemption is not helpful for "
        "scheduling."]


# --- pods-only dumps, foreign schedulers -------------------------------------------------------
def test_a_pods_only_dump_is_refused(capsys) -> None:
    code, doc, err = run_cli(capsys, "simulate", str(D / "pods-only.yaml"))
    assert (code, doc) == (2, None)
    assert err == [f"error: {D}/pods-only.yaml: the file has 2 pod(s) bound to nodes (node-1, "
                   "node-2) but no Node objects: add the nodes (kubectl get nodes -o yaml) to "
                   "simulate"]


def test_pods_bound_to_one_missing_node_are_one_warning() -> None:
    pods = "".join(f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\n"
                   "spec: {nodeName: gone, containers: [{name: c}]}\n" for i in range(5))
    s = load_scenario("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n" + pods)
    assert s.warnings == ("scenario.yaml: Pod default/p0, default/p1, default/p2 and 2 more: "
                          "spec.nodeName: node 'gone' is not in the scenario; 5 pods ignored",)


def test_another_schedulers_pod_is_ignored_not_pending(capsys) -> None:
    code, doc, err = run_cli(capsys, "simulate", str(D / "foreign-scheduler.yaml"))
    assert code == 0
    assert doc["pods"] == [{"pod": "batch/ours", "outcome": "Scheduled", "node": "node-a"}]
    assert doc["ignored"] == [{"pod": "batch/volcano-job-0", "reason": (
        "schedulerName \"volcano\" matches no profile: another scheduler's pod, which "
        "kube-scheduler never tries")}]
    assert err == [f"warning: {D}/foreign-scheduler.yaml: Pod batch/volcano-job-0: "
                   "spec.schedulerName: 'volcano' matches no profile of the configuration; "
                   "kube-scheduler leaves the pod to that scheduler, so it is not simulated "
                   "(listed under \"ignored\")"]


# --- warnings and the summary ------------------------------------------------------------------
EVENTS = "".join(f"---\napiVersion: v1\nkind: Event\nmetadata: {{name: e{i}, namespace: shop}}\n"
                 for i in range(84))


def test_ignored_objects_are_one_line_per_kind_and_the_summary_counts_them() -> None:
    s = load_scenario((D / "missing-replicaset.yaml").read_text() + EVENTS
                      + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: done}\n"
                        "spec: {containers: [{name: c}]}\nstatus: {phase: Succeeded}\n")
    assert s.warnings == ("scenario.yaml: Event: 84 objects ignored (shop/e0, shop/e1, shop/e2 "
                          "and 81 more): kind not read by the scheduler",)
    assert s.summary == {
        "file": "scenario.yaml",
        "read": {"Node": 1, "Deployment": 1, "Pod": 3},
        "ignored": [
            {"kind": "Event", "reason": "kind not read by the scheduler", "count": 84,
             "examples": ["shop/e0", "shop/e1", "shop/e2"]},
            {"kind": "Pod", "reason": "phase Succeeded: a finished pod holds no resources",
             "count": 1, "examples": ["default/done"]}],
        "added": [{"owner": "ReplicaSet shop/web-5d4f8c7b9d", "pods": 1}],
        "warnings": list(s.warnings)}


@dataclass
class Bad:
    name: str
    manifest: str
    error: str


WORKLOAD = """apiVersion: {api}
kind: {kind}
metadata: {{name: w}}
spec:
  {selector}
  template: {{metadata: {{labels: {{app: w}}}}, spec: {{containers: [{{name: c}}]}}}}
"""

REFUSED = [
    Bad("an apps/v1 Deployment needs a selector",
        WORKLOAD.format(api="apps/v1", kind="Deployment", selector=""),
        "scenario.yaml: Deployment default/w: spec.selector: Required value"),
    Bad("an apps/v1 DaemonSet needs a selector",
        WORKLOAD.format(api="apps/v1", kind="DaemonSet", selector=""),
        "scenario.yaml: DaemonSet default/w: spec.selector: Required value"),
    Bad("an apps/v1 selector must select the template",
        WORKLOAD.format(api="apps/v1", kind="ReplicaSet",
                        selector="selector: {matchLabels: {app: other}}"),
        "scenario.yaml: ReplicaSet default/w: spec.template.metadata.labels: Invalid value: "
        "{'app': 'w'}: `selector` does not match template `labels`"),
]


@pytest.mark.parametrize("case", REFUSED, ids=lambda c: c.name)
def test_workloads_the_apiserver_refuses_are_refused(case: Bad) -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario(case.manifest)
    assert str(e.value) == case.error


def test_a_removed_api_version_is_read_with_a_warning() -> None:
    s = load_scenario(WORKLOAD.format(api="extensions/v1beta1", kind="Deployment", selector="")
                      + "---\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\n"
                        "metadata: {name: b}\nspec: {minAvailable: 1, selector: {}}\n")
    assert s.warnings == (
        "scenario.yaml: Deployment default/w: apiVersion: extensions/v1beta1 is no longer "
        "served since Kubernetes v1.16 (kube-apiserver v1.34 refuses it); read as apps/v1",
        "scenario.yaml: PodDisruptionBudget default/b: apiVersion: policy/v1beta1 is no longer "
        "served since Kubernetes v1.25 (kube-apiserver v1.34 refuses it); read as policy/v1")
    # extensions/v1beta1 defaulted the selector from the template's labels
    assert [p.labels["app"] for p in s.pods] == ["w"]


def test_claims_without_any_storage_object_are_one_warning_and_left_out() -> None:
    sts = """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 0
  selector: {matchLabels: {app: db}}
  template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c}]}}
  volumeClaimTemplates: [{metadata: {name: data}}]
---
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers: [{name: c}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: data}}]
"""
    assert load_scenario(sts).warnings == (
        "scenario.yaml: 1 pending pod(s) use PersistentVolumeClaims (e.g. default/app) but the "
        "scenario has no PersistentVolumeClaim, PersistentVolume or StorageClass: volume "
        "constraints were not applied (add them: kubectl get pvc,pv,storageclasses,csinodes -A "
        "-o yaml)",)


@dataclass
class Daemon:
    name: str
    node: str  # the node's spec and labels, in flow style
    pod_spec: str  # extra fields of the DaemonSet's pod template spec
    runs: bool


DAEMONS = [
    Daemon("a plain node runs it", "{}", "", True),
    Daemon("network-unavailable is tolerated with hostNetwork",
           "{taints: [{key: node.kubernetes.io/network-unavailable, effect: NoSchedule}]}",
           "hostNetwork: true,", True),
    Daemon("network-unavailable is not tolerated without hostNetwork",
           "{taints: [{key: node.kubernetes.io/network-unavailable, effect: NoSchedule}]}", "",
           False),
    Daemon("a PreferNoSchedule taint does not keep it off", "{taints: [{key: k, effect: "
           "PreferNoSchedule}]}", "", True),
    Daemon("a NoExecute taint it does not tolerate keeps it off",
           "{taints: [{key: k, effect: NoExecute}]}", "", False),
    Daemon("its own toleration lets it on", "{taints: [{key: k, effect: NoExecute}]}",
           "tolerations: [{key: k, operator: Exists}],", True),
    Daemon("a required node affinity that excludes the node keeps it off", "{}",
           "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
           "{nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, "
           "operator: NotIn, values: [n]}]}]}}},", False),
]


@pytest.mark.parametrize("case", DAEMONS, ids=lambda c: c.name)
def test_the_daemonset_controller_decides_per_node(case: Daemon) -> None:
    text = f"""apiVersion: v1
kind: Node
metadata: {{name: n, labels: {{kubernetes.io/hostname: n}}}}
spec: {case.node}
status: {{allocatable: {{cpu: "1", memory: 1Gi, pods: "10"}}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: d}}
spec:
  selector: {{matchLabels: {{app: d}}}}
  template: {{metadata: {{labels: {{app: d}}}}, spec: {{{case.pod_spec} containers: [{{name: c}}]}}}}
"""
    r = simulate(load_scenario(text))
    assert [p["outcome"] for p in r["pods"]] == (["Scheduled"] if case.runs else [])


# --- all of it at once: a support bundle ---------------------------------------------------------
BUNDLE = D / "support-bundle.json"  # UTF-8 BOM, typed lists one after the other, as an EKS bundle
NEW_NODE = """
{"kind": "Node", "apiVersion": "v1", "metadata": {"name": "ip-10-0-3-1.ec2.internal",
 "labels": {"kubernetes.io/os": "linux"}},
 "status": {"allocatable": {"cpu": "1930m", "memory": "3388360Ki", "pods": "29"}}}
"""


def test_a_support_bundle_simulates_with_nothing_moved_and_nothing_invented(capsys) -> None:
    code, doc, err = run_cli(capsys, "simulate", str(BUNDLE))
    assert (code, doc["pods"], doc["evicted"], doc["ignored"]) == (0, [], [], [])
    # db-0's claim is not warned about: it is bound, so no volume decides where it goes
    assert [line.split(": ")[2] for line in err] == ["Event", "ConfigMap"]


def test_a_node_added_to_a_support_bundle_gets_its_daemonset_pods() -> None:
    text = BUNDLE.read_bytes().decode("utf-8-sig")
    r = simulate(load_scenario(text.replace("\n{\n    \"kind\": \"PodList\"",
                                            NEW_NODE + "\n{\n    \"kind\": \"PodList\"", 1)))
    assert sorted((p["pod"].split("/")[1].rsplit("-", 1)[0], p["node"]) for p in r["pods"]) == [
        ("aws-node", "ip-10-0-3-1.ec2.internal"), ("kube-proxy", "ip-10-0-3-1.ec2.internal")]
