"""Which pods PodTopologySpread constrains (the dashboard offers their skew): their own
constraints, else the profile's cluster defaults when Services or a controller give a
selector; nothing when the profile leaves the plugin out or lists no defaults."""

import pytest
import yaml

from scheduler_core import load_scenario
from scheduler_core.api import spread_constrained_pods

NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1",
                                              "topology.kubernetes.io/zone": "z1"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
RS = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default"},
      "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
               "template": {"metadata": {"labels": {"app": "web"}},
                            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db", "namespace": "default"},
           "spec": {"selector": {"app": "db"}}}
OWN = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "solo"}}}]


def pod(name, labels, owner=None, constraints=None):
    meta = {"name": name, "namespace": "default", "labels": labels}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner,
                                    "uid": "u1", "controller": True}]
    spec = {"containers": [{"name": "c", "image": "nginx"}]}
    if constraints:
        spec["topologySpreadConstraints"] = constraints
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


PODS = [pod("web-1", {"app": "web"}, owner="web"), pod("db-0", {"app": "db"}),
        pod("solo", {"app": "solo"}, constraints=OWN), pod("bare", {"app": "bare"})]


def profile(plugin_config="", plugins=""):
    return yaml.safe_load(f"""
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
{plugins}{plugin_config}""")


NO_DEFAULTS = """  pluginConfig:
  - name: PodTopologySpread
    args: {defaultingType: List}
"""
WITHOUT_PLUGIN = """  plugins:
    multiPoint:
      disabled: [{name: PodTopologySpread}]
"""

CASES = [
    ("system defaults: controller and Service selectors count", None,
     {"default/web-1", "default/db-0", "default/solo"}),
    ("List defaulting without constraints: only the pod's own", profile(NO_DEFAULTS), {"default/solo"}),
    ("the profile leaves the plugin out: own constraints still listed", profile(plugins=WITHOUT_PLUGIN),
     {"default/solo"}),
]


@pytest.mark.parametrize("name,config,expected", CASES, ids=[c[0] for c in CASES])
def test_spread_constrained_pods(name, config, expected):
    items = [NODE, RS, SERVICE, *PODS] + ([config] if config else [])
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items})
    assert spread_constrained_pods(load_scenario(text)) == expected
