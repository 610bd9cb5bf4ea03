"""Manifests as a user gives them: a Pod read back from the cluster (defaults, system
fields, status) against a hand-written update, both parsed with PyYAML."""
from __future__ import annotations

import yaml

from scheduler_core.validation import validate_pod_update

STORED = """
apiVersion: v1
kind: Pod
metadata:
  name: trainer-0
  namespace: ml
  uid: 5f1c2d3e-0000-4000-8000-000000000001
  resourceVersion: "4242"
  creationTimestamp: 2026-11-22T07:00:00Z
  labels: {app: trainer}
spec:
  schedulingGates:
  - name: example.com/quota
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge, g5.2xlarge]}
  containers:
  - name: trainer
    image: registry.example.com/trainer:2.1
    imagePullPolicy: IfNotPresent
    resources:
      requests: {cpu: "2", memory: 8Gi}
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
  dnsPolicy: ClusterFirst
  enableServiceLinks: true
  restartPolicy: Always
  schedulerName: default-scheduler
  securityContext: {}
  terminationGracePeriodSeconds: 30
  tolerations:
  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
status:
  phase: Pending
  qosClass: Burstable
"""

UPDATE = """
apiVersion: v1
kind: Pod
metadata:
  name: trainer-0
  namespace: ml
  labels: {app: trainer}
spec:
  nodeSelector:
    topology.kubernetes.io/zone: eu-west-1a
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge, g5.2xlarge]}
          - {key: example.com/reserved-for, operator: In, values: [team-ml]}
  containers:
  - name: trainer
    image: registry.example.com/trainer:2.1
    resources:
      requests: {cpu: 2000m, memory: 8192Mi}
  tolerations:
  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  - {key: example.com/gpu, operator: Exists, effect: NoSchedule}
"""


def test_releasing_the_gate_with_tighter_placement_is_allowed() -> None:
    assert validate_pod_update(yaml.safe_load(STORED), yaml.safe_load(UPDATE)) == {"allowed": True, "errors": []}


def test_loosening_the_instance_types_is_refused_at_the_term() -> None:
    loosened = yaml.safe_load(UPDATE.replace("values: [g5.xlarge, g5.2xlarge]", "values: [g5.xlarge, g5.2xlarge, m5.large]"))
    assert validate_pod_update(yaml.safe_load(STORED), loosened) == {"allowed": False, "errors": [{
        "field": "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]",
        "type": "FieldValueInvalid",
        "detail": "only additions are allowed (no mutations or deletions)",
    }]}


def test_the_same_change_on_an_ungated_pod_is_refused_with_the_generic_message() -> None:
    ungated = yaml.safe_load(STORED)
    del ungated["spec"]["schedulingGates"]
    result = validate_pod_update(ungated, yaml.safe_load(UPDATE))
    assert [(e["field"], e["type"]) for e in result["errors"]] == [("spec", "FieldValueForbidden")]
    assert result["errors"][0]["detail"].startswith("pod updates may not change fields other than `spec.containers[*].image`")
    assert result["errors"][0]["detail"].endswith('\n+ spec.nodeSelector: {"topology.kubernetes.io/zone":"eu-west-1a"}')
