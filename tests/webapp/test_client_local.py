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
