"""matchLabelKeys / mismatchLabelKeys of pod (anti-)affinity terms, as the filter sees them.

The apiserver folds them into labelSelector at pod creation; scenarios written by hand
still carry them, so the engine folds them when it compiles a term.
"""
import pytest

import scheduler_core

SCENARIO = """
apiVersion: v1
kind: List
items:
- {{apiVersion: v1, kind: Node, metadata: {{name: n1, labels: {{zone: a}}}},
   status: {{allocatable: {{cpu: "1", memory: 1Gi, pods: "10"}}}}}}
- apiVersion: v1
  kind: Pod
  metadata: {{name: p, labels: {{app: web, ver: "1"}}}}
  spec:
    containers: [{{name: c, image: x}}]
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - topologyKey: zone
          labelSelector: {selector}
          {keys}
- {{apiVersion: v1, kind: Pod, metadata: {{name: q, labels: {{app: web, ver: "{other_ver}"}}}},
   spec: {{nodeName: n1, containers: [{{name: c, image: x}}]}}}}
"""
REJECTED = {"code": "Unschedulable", "plugin": "InterPodAffinity",
            "reasons": ["node(s) didn't match pod anti-affinity rules"]}

CASES = [
    ("matchLabelKeys narrows the selector to the pod's own version",
     "{matchLabels: {app: web}}", "matchLabelKeys: [ver]", "2", {"code": "Success"}),
    ("matchLabelKeys still matches pods of the same version",
     "{matchLabels: {app: web}}", "matchLabelKeys: [ver]", "1", REJECTED),
    ("mismatchLabelKeys excludes pods of the same version",
     "{matchLabels: {app: web}}", "mismatchLabelKeys: [ver]", "1", {"code": "Success"}),
    ("mismatchLabelKeys keeps pods of other versions",
     "{matchLabels: {app: web}}", "mismatchLabelKeys: [ver]", "2", REJECTED),
    ("a key the pod lacks is ignored",
     "{matchLabels: {app: web}}", "matchLabelKeys: [track]", "2", REJECTED),
    ("without labelSelector the keys add nothing (the term selects no pod)",
     "null", "matchLabelKeys: [ver]", "1", {"code": "Success"}),
]


@pytest.mark.parametrize("name,selector,keys,other_ver,want", CASES, ids=[c[0] for c in CASES])
def test_label_keys_are_folded_into_the_term_selector(name, selector, keys, other_ver, want):
    text = SCENARIO.format(selector=selector, keys=keys, other_ver=other_ver)
    result = scheduler_core.run_filter(scheduler_core.load_scenario(text), "default/p")
    assert result["nodes"]["n1"] == want
