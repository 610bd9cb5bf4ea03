"""Cluster dumps as people publish them, for the webapp tests (the engine's own are in tests/core/dumps)."""

# What the raw API and `kubectl cluster-info dump` write: typed lists whose items carry no kind,
# one after the other, with Events nobody schedules.
TYPED_LISTS = """\
{"kind": "NodeList", "apiVersion": "v1", "items": [
  {"metadata": {"name": "node-a"}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}]}
{"kind": "PodList", "apiVersion": "v1", "items": [
  {"metadata": {"name": "web-1", "namespace": "shop"}, "spec": {"nodeName": "node-a", "containers": [{"name": "c"}]}},
  {"metadata": {"name": "web-2", "namespace": "shop"}, "spec": {"containers": [{"name": "c"}]}}]}
{"kind": "EventList", "apiVersion": "v1", "items": [%s]}
""" % ", ".join(f'{{"metadata": {{"name": "e{i}", "namespace": "shop"}}}}' for i in range(84))

LOAD_SUMMARY = {
    "file": "scenario.yaml",
    "read": {"Node": 1, "Pod": 2},
    "ignored": [{"kind": "Event", "reason": "kind not read by the scheduler", "count": 84,
                 "examples": ["shop/e0", "shop/e1", "shop/e2"]}],
    "added": [],
    "warnings": ["scenario.yaml: Event: 84 objects ignored (shop/e0, shop/e1, shop/e2 and 81 more): "
                 "kind not read by the scheduler"],
}

# `kubectl get pods -A -o yaml`: pods bound to nodes, and no node.
PODS_ONLY = """\
apiVersion: v1
kind: PodList
items:
- metadata: {name: a, namespace: default}
  spec: {nodeName: node-1, containers: [{name: c}]}
"""

# A pod of another scheduler beside one of kube-scheduler's.
FOREIGN = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-a}
  status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: job-0, namespace: batch}
  spec: {schedulerName: volcano, containers: [{name: c}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: ours, namespace: batch}
  spec: {containers: [{name: c}]}
"""
