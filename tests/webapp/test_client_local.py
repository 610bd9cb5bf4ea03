"""`whatif check --local`: the engine in-process, for pipelines with no Whatif server (no database here)."""

import json
import subprocess
import sys

from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR

from .conftest import ROOT

ZONE = "topology.kubernetes.io/zone"


def whatif(*args):
    return subprocess.run([sys.executable, "-m", "webapp.client", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin"})


def test_it_fails_when_pods_stay_pending_and_names_the_constraint():
    p = whatif("check", "--local", EXAMPLES_DIR / "min-domains.yaml", "--spread", ZONE)
    assert p.returncode == 1, p.stderr
    assert "scheduled 6, pending 4, gated 0, evicted 0" in p.stdout
    assert "eu-west-1a=3, eu-west-1b=3, eu-west-1c=3" in p.stdout


def test_it_passes_when_every_pod_is_scheduled():
    p = whatif("--json", "check", "--local", EXAMPLES_DIR / "zone-spreading.yaml", "--spread", ZONE)
    assert p.returncode == 0, p.stderr
    body = json.loads(p.stdout)
    assert (body["passed"], body["scheduled"], body["pending"], body["spread"]) == (True, 6, [], [])


def test_it_can_allow_pending_pods_and_fail_only_on_spread():
    gated = whatif("check", "--local", EXAMPLES_DIR / "gated-pods.yaml", "--allow-pending")
    assert gated.returncode == 0, gated.stderr
    spread = whatif("check", "--local", EXAMPLES_DIR / "min-domains.yaml", "--allow-pending", "--spread", ZONE)
    assert spread.returncode == 1
    assert spread.stdout.strip().endswith("FAILED: 4 pod(s) cannot be placed within a chosen spread constraint's maxSkew")


def test_it_joins_several_files(tmp_path):
    nodes, pods = tmp_path / "nodes.yaml", tmp_path / "pods.yaml"
    nodes.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '1', pods: '10'}}\n")
    pods.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  containers:\n  - name: c\n"
                    "    resources: {requests: {cpu: '2'}}\n")
    p = whatif("check", "--local", nodes, pods)
    assert p.returncode == 1
    assert "default/big: 0/1 nodes are available: 1 Insufficient cpu." in p.stdout


def test_it_names_the_file_object_and_field_of_bad_manifests(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  priority: high\n")
    p = whatif("check", "--local", bad)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.startswith(f"error: {bad}: Pod default/p: spec.priority")


def test_it_rejects_a_spread_key_no_pod_uses():
    p = whatif("check", "--local", EXAMPLES_DIR / "zone-spreading.yaml", "--spread", "zone")
    assert p.returncode == 2
    assert p.stderr == f"error: no pod has a topology spread constraint on zone; keys in use: {ZONE}\n"


SKEWED = """
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a, labels: {topology.kubernetes.io/zone: za}},
   status: {allocatable: {cpu: "8", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b, labels: {topology.kubernetes.io/zone: zb}},
   spec: {taints: [{key: maintenance, effect: NoSchedule}]},
   status: {allocatable: {cpu: "8", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: old-1, labels: {app: web}}, spec: {nodeName: a, containers: [{name: c}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: old-2, labels: {app: web}}, spec: {nodeName: a, containers: [{name: c}]}}
- apiVersion: v1
  kind: Pod
  metadata: {name: new, labels: {app: web}}
  spec:
    containers: [{name: c}]
    topologySpreadConstraints:
    - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway,
       labelSelector: {matchLabels: {app: web}}}
"""


def test_it_fails_when_a_constraint_ends_above_its_max_skew_though_every_pod_scheduled(tmp_path):
    # ScheduleAnyway never leaves a pod pending (zb's only node is tainted, and the spread counts it as a
    # domain): only the engine's final count shows the skew
    path = tmp_path / "skewed.yaml"
    path.write_text(SKEWED)
    p = whatif("check", "--local", path, "--spread", ZONE, "--junit", tmp_path / "r.xml")
    assert p.returncode == 1, p.stdout + p.stderr
    assert ("skew: topology.kubernetes.io/zone (app=web, ScheduleAnyway): skew 3 > maxSkew 1 at the end of the "
            "run (matching pods: za=3, zb=0)") in p.stdout
    assert p.stdout.strip().endswith("FAILED: 1 chosen spread constraint(s) end the run above their maxSkew")
    assert 'failures="1"' in (tmp_path / "r.xml").read_text()
