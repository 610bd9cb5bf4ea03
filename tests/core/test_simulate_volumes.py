"""Volume-aware scheduling end to end: scenarios with claims through ``simulate``.

Claims are bound as their pod binds (later pods see them), unbound Immediate claims keep
a pod pending, a bound zonal volume beats a zone spread, configuration can disable the
volume plugins, and the fast path hands scenarios with volumes to the reference path
with equal results.
"""
from __future__ import annotations

import textwrap

import pytest

from scheduler_core.errors import ScenarioError
from scheduler_core.scenario import load_scenario
from scheduler_core.simulate import _columnar, simulate

ZONE = "topology.kubernetes.io/zone"


def node(name: str, zone: str, cpu: str = "4") -> str:
    return f"""
- apiVersion: v1
  kind: Node
  metadata: {{name: {name}, labels: {{{ZONE}: {zone}, kubernetes.io/hostname: {name}}}}}
  status: {{allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}"""


def pod(name: str, *claims: str, prio: int = 0, extra: str = "") -> str:
    vols = ", ".join(f"{{name: v{i}, persistentVolumeClaim: {{claimName: {c}}}}}"
                     for i, c in enumerate(claims))
    return f"""
- apiVersion: v1
  kind: Pod
  metadata: {{name: {name}, labels: {{app: web}}}}
  spec: {{priority: {prio}, containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}],
          volumes: [{vols}] {extra}}}"""


def claim(name: str, cls: str = "zonal", volume: str = "", modes: str = "ReadWriteOnce") -> str:
    bound = (f"volumeName: {volume}, " if volume else "")
    ann = "{pv.kubernetes.io/bind-completed: 'yes'}" if volume else "{}"
    return f"""
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {{name: {name}, annotations: {ann}}}
  spec: {{{bound}storageClassName: {cls}, accessModes: [{modes}],
          resources: {{requests: {{storage: 1Gi}}}}}}"""


def pv(name: str, zone: str, claim_name: str = "", cls: str = "zonal") -> str:
    ref = f"claimRef: {{namespace: default, name: {claim_name}}}," if claim_name else ""
    return f"""
- apiVersion: v1
  kind: PersistentVolume
  metadata: {{name: {name}}}
  spec: {{{ref} capacity: {{storage: 5Gi}}, accessModes: [ReadWriteOnce, ReadWriteMany],
          storageClassName: {cls},
          nodeAffinity: {{required: {{nodeSelectorTerms: [{{matchExpressions:
            [{{key: {ZONE}, operator: In, values: [{zone}]}}]}}]}}}}}}"""


CLASSES = f"""
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {{name: zonal}}
  provisioner: ebs.csi.aws.com
  volumeBindingMode: WaitForFirstConsumer
  allowedTopologies: [{{matchLabelExpressions: [{{key: {ZONE}, values: [a, b, c]}}]}}]
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {{name: now}}
  provisioner: ebs.csi.aws.com
  volumeBindingMode: Immediate"""

SPREAD = (", topologySpreadConstraints: [{maxSkew: 1, topologyKey: " + ZONE +
          ", whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}]")


def scenario(*items: str, config: str = "") -> str:
    return "apiVersion: v1\nkind: List\nitems:" + "".join(items) + config


def outcomes(result: dict) -> dict:
    return {p["pod"]: p["node"] or p.get("message") for p in result["pods"]}


THREE_ZONES = (node("a1", "a"), node("b1", "b"), node("c1", "c"))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_claim_bound_by_one_pod_pins_the_next_pod_to_its_zone(seed: int) -> None:
    # p1 must go to zone b; it provisions "shared" there; p2 (queued after it) must follow
    text = scenario(*THREE_ZONES, CLASSES, claim("shared", modes="ReadWriteMany"),
                    pod("p1", "shared", prio=10, extra=", nodeSelector: {" + ZONE + ": b}"),
                    pod("p2", "shared"))
    result = simulate(load_scenario(text), seed=seed)
    assert outcomes(result) == {"default/p1": "b1", "default/p2": "b1"}
    assert result["volumes"]["bindings"] == [{"claim": "default/shared",
                                              "volume": "pvc-default-shared", "node": "b1",
                                              "provisioned": True}]


STATIC_CLASS = """
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: static}
  provisioner: kubernetes.io/no-provisioner
  volumeBindingMode: WaitForFirstConsumer"""


def test_a_static_volume_is_bound_and_used_up() -> None:
    # one free static volume, in zone c: the first claim takes it, the second finds none
    text = scenario(*THREE_ZONES, STATIC_CLASS, pv("pv-c", "c", cls="static"),
                    claim("c1", cls="static"), claim("c2", cls="static"),
                    pod("p1", "c1", prio=10), pod("p2", "c2"))
    result = simulate(load_scenario(text))
    assert outcomes(result) == {
        "default/p1": "c1",
        "default/p2": "0/3 nodes are available: 3 node(s) didn't find available persistent "
                      "volumes to bind. preemption: 0/3 nodes are available: 3 Preemption is "
                      "not helpful for scheduling."}
    assert result["volumes"]["bindings"] == [{"claim": "default/c1", "volume": "pv-c",
                                              "node": "c1", "provisioned": False}]


def test_an_unbound_immediate_claim_keeps_the_pod_pending() -> None:
    result = simulate(load_scenario(scenario(*THREE_ZONES, CLASSES, claim("fast", cls="now"),
                                             pod("p", "fast"))))
    assert outcomes(result) == {"default/p": (
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")}


def test_a_missing_claim_keeps_the_pod_pending_with_upstream_words() -> None:
    result = simulate(load_scenario(scenario(*THREE_ZONES, CLASSES, pod("p", "nope"))))
    assert outcomes(result)["default/p"].startswith(
        '0/3 nodes are available: persistentvolumeclaim "nope" not found.')


ZONAL_CONFLICT = (*THREE_ZONES, CLASSES, pv("pv-a0", "a", "d0"), pv("pv-a1", "a", "d1"),
                  claim("d0", volume="pv-a0"), claim("d1", volume="pv-a1"),
                  pod("w0", "d0", prio=10, extra=SPREAD), pod("w1", "d1", extra=SPREAD))


def test_a_bound_zonal_volume_and_a_zone_spread_leave_the_pod_pending() -> None:
    result = simulate(load_scenario(scenario(*ZONAL_CONFLICT)))
    assert outcomes(result) == {
        "default/w0": "a1",
        "default/w1": "0/3 nodes are available: 1 node(s) didn't match pod topology spread "
                      "constraints, 2 node(s) had volume node affinity conflict. preemption: "
                      "0/3 nodes are available: 1 No preemption victims found for incoming pod, "
                      "2 Preemption is not helpful for scheduling."}


DISABLE_VOLUMES = """
- apiVersion: kubescheduler.config.k8s.io/v1
  kind: KubeSchedulerConfiguration
  profiles:
  - plugins:
      multiPoint:
        disabled: [{name: VolumeBinding}, {name: VolumeZone}]"""


def test_configuration_can_disable_the_volume_plugins() -> None:
    text = scenario(*ZONAL_CONFLICT[:-1], pod("w1", "d1"), config=DISABLE_VOLUMES)
    result = simulate(load_scenario(text))
    assert outcomes(result)["default/w1"] in {"a1", "b1", "c1"}
    assert "VolumeBinding" not in str(result["explanations"])


def test_statefulset_claim_templates_make_the_claims_of_new_pods() -> None:
    sts = """
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: db}
  spec:
    replicas: 2
    selector: {matchLabels: {app: db}}
    template:
      metadata: {labels: {app: db}}
      spec: {containers: [{name: c}]}
    volumeClaimTemplates:
    - metadata: {name: data}
      spec: {storageClassName: zonal, accessModes: [ReadWriteOnce],
             resources: {requests: {storage: 1Gi}}}"""
    s = load_scenario(scenario(*THREE_ZONES, CLASSES, sts))
    assert [(p.name, [v.claim_name for v in p.volumes]) for p in s.pods] == \
        [("db-0", ["data-db-0"]), ("db-1", ["data-db-1"])]
    result = simulate(s)
    assert sorted(b["claim"] for b in result["volumes"]["bindings"]) == \
        ["default/data-db-0", "default/data-db-1"]


@pytest.mark.parametrize("items", [ZONAL_CONFLICT, (*THREE_ZONES, CLASSES, claim("s"),
                                                    pod("p1", "s"), pod("p2", "s"))],
                         ids=["zonal conflict", "shared claim"])
def test_the_fast_path_leaves_volumes_to_the_reference_path_with_equal_results(items) -> None:
    s = load_scenario(scenario(*items))
    assert _columnar(s, 0, True) is None
    assert simulate(s, fast=True) == simulate(s, fast=False)


def test_scenarios_without_volumes_keep_the_columnar_path() -> None:
    s = load_scenario(scenario(*THREE_ZONES, pod("p").replace("volumes: []", "volumes: [{name: "
                                                                "tmp, emptyDir: {}}]")))
    assert _columnar(s, 0, True) is not None


BAD = [
    ("a waiting claim naming a missing class", scenario(claim("c", cls="gold")),
     "scenario.yaml: PersistentVolumeClaim default/c: spec.storageClassName: Not found: "
     "\"gold\": no StorageClass with that name in the scenario"),
    ("a volume claimed by two claims", scenario(CLASSES, pv("pv1", "a"), claim("c1", volume="pv1"),
                                                claim("c2", volume="pv1")),
     "scenario.yaml: PersistentVolumeClaim default/c2: spec.volumeName: Invalid value: \"pv1\": "
     "PersistentVolume pv1 is already bound to PersistentVolumeClaim default/c1"),
    ("a claim naming a volume bound to another claim",
     scenario(CLASSES, pv("pv1", "a", "other"), claim("c1", volume="pv1")),
     "scenario.yaml: PersistentVolumeClaim default/c1: spec.volumeName: Invalid value: \"pv1\": "
     "PersistentVolume pv1 is bound to PersistentVolumeClaim default/other"),
    ("a negative capacity", textwrap.dedent("""
        apiVersion: v1
        kind: PersistentVolume
        metadata: {name: pv1}
        spec: {capacity: {storage: -1Gi}}"""),
     "scenario.yaml: PersistentVolume pv1: spec.capacity.storage: Invalid value: \"-1Gi\": "
     "must be greater than or equal to 0"),
    ("a negative request", textwrap.dedent("""
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {name: c}
        spec: {resources: {requests: {storage: -5}}}"""),
     "scenario.yaml: PersistentVolumeClaim default/c: spec.resources.requests.storage: Invalid "
     "value: \"-5\": must be greater than or equal to 0"),
    ("an unknown binding mode", textwrap.dedent("""
        apiVersion: storage.k8s.io/v1
        kind: StorageClass
        metadata: {name: x}
        provisioner: p
        volumeBindingMode: Later"""),
     "scenario.yaml: StorageClass x: volumeBindingMode: Unsupported value: \"Later\": supported "
     "values: \"Immediate\", \"WaitForFirstConsumer\""),
    ("an unknown access mode", scenario(claim("c", modes="ReadSometimes")),
     "scenario.yaml: PersistentVolumeClaim default/c: spec.accessModes[0]: Unsupported value: "
     "\"ReadSometimes\": supported values: \"ReadWriteOnce\", \"ReadOnlyMany\", "
     "\"ReadWriteMany\", \"ReadWriteOncePod\""),
    ("a pod volume without a claim name", scenario(pod("p").replace(
        "volumes: []", "volumes: [{name: d, persistentVolumeClaim: {}}]")),
     "scenario.yaml: Pod default/p: spec.volumes[0].persistentVolumeClaim.claimName: Required "
     "value"),
    ("a class without provisioner", textwrap.dedent("""
        apiVersion: storage.k8s.io/v1
        kind: StorageClass
        metadata: {name: x}"""),
     "scenario.yaml: StorageClass x: provisioner: Required value"),
]


@pytest.mark.parametrize("text,message", [(t, m) for _, t, m in BAD], ids=[b[0] for b in BAD])
def test_bad_storage_input_names_the_object_and_field(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario(text)
    assert str(e.value) == message


def test_a_dump_without_storage_objects_schedules_as_before_with_a_warning() -> None:
    # kubectl get nodes,pods,statefulsets ... prints no claims: nothing says where volumes are
    s = load_scenario(scenario(*THREE_ZONES, pod("p", "data-p")))
    assert s.pods[0].volumes == ()
    assert s.warnings == (
        "scenario.yaml: 1 pending pod(s) use PersistentVolumeClaims (e.g. default/p) but the "
        "scenario has no PersistentVolumeClaim, PersistentVolume or StorageClass: volume "
        "constraints were not applied (add them: kubectl get pvc,pv,storageclasses,csinodes "
        "-A -o yaml)",)
    assert outcomes(simulate(s))["default/p"] in {"a1", "b1", "c1"}
    assert "volumes" not in simulate(s)
