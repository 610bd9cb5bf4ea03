"""Each shipped example shows what its comment says, as the engine computes it."""

from collections import Counter

import difflib

import pytest
import yaml

from webapp.scenarios import engine
from webapp.scenarios.manifests import edits
from webapp.scenarios.manifests import summary as manifests
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR


def simulate(name):
    return engine.simulate((EXAMPLES_DIR / f"{name}.yaml").read_text(), "", seed=0)


def placements(result):
    return Counter(p["node"] for p in result["pods"] if p["outcome"] == "Scheduled")


def zone_of(name, node):
    return {n["name"]: n["zone"] for n in manifests.nodes((EXAMPLES_DIR / f"{name}.yaml").read_text())}[node]


@pytest.mark.parametrize("path", sorted(EXAMPLES_DIR.glob("*.yaml")), ids=lambda p: p.stem)
def test_it_ships_kubectl_style_lists(path):
    document = yaml.safe_load(path.read_text())
    assert document["kind"] == "List" and document["apiVersion"] == "v1"
    for item in document["items"]:
        assert {"apiVersion", "kind"} <= set(item)
        if item["kind"] == "Pod":
            requests = item["spec"]["containers"][0]["resources"]["requests"]
            assert {"cpu", "memory"} <= set(requests)
        if item["kind"] == "Node":
            assert {"cpu", "memory", "pods"} <= set(item["status"]["allocatable"])


@pytest.mark.parametrize("path", sorted(EXAMPLES_DIR.glob("*.yaml")), ids=lambda p: p.stem)
def test_its_examples_have_no_yaml_anchors_as_kubectl_writes_none(path):
    # (an anchor shares one value among pods: an edit of one writes them all out again, every alias expanded)
    assert [e for e in yaml.parse(path.read_text()) if getattr(e, "anchor", None)] == []


@pytest.mark.parametrize("name,workload,field,old,new", [
    ("zone-spreading", "ReplicaSet/default/web-7c9f8d6b5d", "maxSkew", 1, 2),
    ("min-domains", "ReplicaSet/default/api-5b7d9c8f4", "minDomains", 5, 3),
])
def test_a_spread_edit_of_an_example_changes_only_that_fields_lines(name, workload, field, old, new):
    text = (EXAMPLES_DIR / f"{name}.yaml").read_text()
    edited = edits.apply_edit(text, {"op": "set_spread", "workload": workload, "index": 0, field: new})
    changed = [f"{line[0]} {line[1:].strip()}" for line in difflib.unified_diff(text.splitlines(), edited.splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    pods = text.count(f"{field}: {old}")  # (the template's and each pod's)
    assert pods > 1 and sorted(changed) == sorted([f"- {field}: {old}", f"+ {field}: {new}"] * pods)


def test_it_spreads_web_evenly_over_three_zones():
    result = simulate("zone-spreading")
    per_zone = Counter({"eu-west-1a": 2, "eu-west-1b": 1})  # already running
    for node, n in placements(result).items():
        per_zone[zone_of("zone-spreading", node)] += n
    assert per_zone == {"eu-west-1a": 3, "eu-west-1b": 3, "eu-west-1c": 3}


def test_it_leaves_four_of_ten_pending_with_min_domains():
    result = simulate("min-domains")
    assert Counter(p["outcome"] for p in result["pods"]) == {"Scheduled": 6, "Unschedulable": 4}
    assert placements(result) == {"node-a": 2, "node-b": 2, "node-c": 2}


def test_it_applies_the_cluster_default_constraints():
    result = simulate("default-spreading")
    zones = Counter(zone_of("default-spreading", node) for node in placements(result).elements())
    # Two already run in eu-west-1a; maxSkew 1 sends the four others to b and c.
    assert zones == {"eu-west-1b": 2, "eu-west-1c": 2}


def test_it_preempts_a_batch_pod_and_nominates_node_a():
    result = simulate("preemption")
    assert [e["node"] for e in result["events"] if e["reason"] == "Nominated"] == ["node-a"]
    assert len(result["evicted"]) == 1 and result["evicted"][0].startswith("default/batch-")
    assert result["pods"][0]["outcome"] == "Scheduled" and result["pods"][0]["node"] == "node-a"


def test_it_holds_back_the_gated_pods():
    outcomes = {p["pod"].split("-")[0]: p["outcome"] for p in simulate("gated-pods")["pods"]}
    assert Counter(p["outcome"] for p in simulate("gated-pods")["pods"]) == {"Gated": 3, "Scheduled": 2}
    assert outcomes["default/db"] == "Gated" and outcomes["default/worker"] == "Scheduled"


def test_it_leaves_web_1_pending_between_its_zonal_volume_and_the_zone_spread():
    result = simulate("zonal-volumes")
    outcomes = {p["pod"]: (p["outcome"], p["node"]) for p in result["pods"]}
    assert outcomes["default/web-0"] == ("Scheduled", "node-a")  # its volume is in 1a
    assert outcomes["default/web-1"][0] == "Unschedulable"
    assert outcomes["default/web-2"][1] in {"node-b", "node-c"}
    web1 = next(p for p in result["pods"] if p["pod"] == "default/web-1")
    assert web1["message"].startswith(
        "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, "
        "2 node(s) had volume node affinity conflict.")
    explained = result["explanations"]["default/web-1"]["plugins"]["VolumeBinding"]
    assert explained["claims"][0]["volumeZone"] == "eu-west-1a"


def test_its_what_if_deleting_the_stale_claim_runs_one_web_pod_per_zone():
    document = yaml.safe_load((EXAMPLES_DIR / "zonal-volumes.yaml").read_text())
    document["items"] = [i for i in document["items"]
                         if i["metadata"]["name"] not in ("data-web-1", "pvc-7c1e")]
    result = engine.simulate(yaml.safe_dump(document), "", seed=0)
    assert Counter(p["outcome"] for p in result["pods"]) == {"Scheduled": 3}
    zones = {zone_of("zonal-volumes", p["node"]) for p in result["pods"]}
    assert zones == {"eu-west-1a", "eu-west-1b", "eu-west-1c"}
