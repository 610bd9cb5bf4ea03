"""The dashboard's view models, over real engine results of the shipped examples."""

import pytest

from webapp.front import results
from webapp.scenarios import engine
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR


def example(name):
    text = (EXAMPLES_DIR / f"{name}.yaml").read_text()
    return engine.simulate(text), engine.pod_metadata(text)


@pytest.fixture(scope="module")
def min_domains():
    return example("min-domains")


@pytest.fixture(scope="module")
def preemption():
    return example("preemption")


def test_it_groups_nodes_into_zone_domains_with_workload_chips(min_domains):
    result, meta = min_domains
    view = results.topology(result, results.ZONE_KEY, meta=meta)
    assert [(d["name"], d["count"]) for d in view["domains"]] == [
        ("eu-west-1a", 2), ("eu-west-1b", 2), ("eu-west-1c", 2)]
    assert len(view["pending"]) == 4
    assert {c["status"] for c in view["pending"]} == {"Unschedulable"}
    assert view["legend"] == [{"workload": "ReplicaSet/api-5b7d9c8f4", "colour": results.colour("ReplicaSet/api-5b7d9c8f4")}]


def test_it_switches_the_topology_key_to_hostname(min_domains):
    result, meta = min_domains
    view = results.topology(result, "kubernetes.io/hostname", meta=meta)
    assert [d["name"] for d in view["domains"]] == ["node-a", "node-b", "node-c"]
    assert results.topology_keys(result)[:3] == [results.ZONE_KEY, "kubernetes.io/hostname",
                                                 "topology.kubernetes.io/region"]


def test_it_gives_a_workload_the_same_colour_everywhere():
    assert results.colour("ReplicaSet/api") == results.colour("ReplicaSet/api")
    assert results.workload_of("default/x", {"default/x": {"labels": {"app": "web"}, "owner": ""}}) == "app=web"
    assert results.workload_of("default/x", {}) == "x"


def test_it_explains_the_spread_constraint_with_the_min_domains_shortfall(min_domains):
    result, _ = min_domains
    pod, cycle, constraints = results.spread_constraints(result)
    assert pod == "default/api-5b7d9c8f4-e1f2g" and cycle["cycle"] == 10
    view = results.spread_view(constraints[0], result)
    assert view["globalMinimum"] == 0 and view["band_max"] == 2
    assert [(d["name"], d["count"], d["skew"], d["fits"], d["counted"]) for d in view["domains"]] == [
        ("eu-west-1a", 2, 3, False, True), ("eu-west-1b", 2, 3, False, True), ("eu-west-1c", 2, 3, False, True)]
    assert view["min_domains_sentence"].startswith("3 of 5 domains: global minimum treated as 0")


def test_it_marks_nodes_without_the_label_as_ignored():
    constraint = {"topologyKey": "zone", "maxSkew": 1, "globalMinimum": 0, "domains": {"a": 1},
                  "ignored": [{"reason": "node affinity", "count": 1, "nodes": ["n2"]},
                              {"reason": "missing label zone", "count": 1, "nodes": ["n3"]}],
                  "ignoredByDomain": {"b": {"node affinity": 1}}, "selfMatch": 1}
    result = {"nodes": [{"name": "n1", "labels": {"zone": "a"}}, {"name": "n2", "labels": {"zone": "b"}},
                        {"name": "n3", "labels": {}}]}
    view = results.spread_view(constraint, result)
    rows = {d["name"]: d for d in view["domains"]}
    assert rows["b"]["counted"] is False and rows["b"]["skew"] is None and rows["b"]["why"] == ["1 node: node affinity"]
    assert {"node": "n3", "reason": "missing label zone", "count": 1} in view["ignored"]


def test_it_names_a_few_nodes_of_a_large_ignored_group():
    constraint = {"topologyKey": "zone", "maxSkew": 1, "domains": {"a": 0},
                  "ignored": [{"reason": "taints", "count": 250, "nodes": [f"n{i}" for i in range(100)]}]}
    view = results.spread_view(constraint, {"nodes": []})
    assert view["ignored"] == [{"node": "n0, n1, n2, n3, n4 and 245 more", "reason": "taints",
                                "count": 250}]


def test_it_words_each_failing_constraint_as_a_sentence(min_domains):
    result, _ = min_domains
    x = results.explanation(result, "default/api-5b7d9c8f4-e1f2g")
    assert x["message"].startswith("0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints")
    assert ("zone eu-west-1a already has 2 matching pods; placing the pod there (node-a) would make skew 3 > maxSkew 2."
            in x["sentences"])
    assert x["plugins"] == ["PodTopologySpread"]
    assert [row["node"] for row in x["filter"]] == ["node-a", "node-b", "node-c"]
    assert not any(row["passed"] for row in x["filter"])


def test_it_shows_the_scores_of_feasible_nodes():
    result = {"pods": [{"pod": "d/p", "outcome": "Scheduled", "node": "b"}],
              "cycles": [{"cycle": 1, "pod": "d/p", "attempt": 1, "result": "Scheduled", "node": "b"}],
              "explanations": {"d/p": {
                  "cycle": 1, "nodes": 2, "evaluated": 2, "feasible": 2, "rejected": [], "passed": ["a", "b"],
                  "scores": {"count": 2, "plugins": ["X"], "nodes": [
                      {"node": "b", "total": 90, "plugins": {"X": 90}},
                      {"node": "a", "total": 10, "plugins": {"X": 10}}]}}}}
    x = results.explanation(result, "d/p")
    assert [(r["node"], r["total"], r["plugins"]) for r in x["scores"]] == [("b", 90, [90]), ("a", 10, [10])]
    assert [(r["node"], r["passed"]) for r in x["filter"]] == [("a", True), ("b", True)]
    assert results.explanation(result, "d/missing") is None


def test_it_summarises_rejected_nodes_by_verdict():
    result = {"pods": [{"pod": "d/p", "outcome": "Unschedulable", "node": None}],
              "cycles": [{"cycle": 3, "pod": "d/p", "attempt": 1, "result": "Unschedulable"}],
              "explanations": {"d/p": {
                  "cycle": 3, "nodes": 5000, "evaluated": 5000, "feasible": 0, "passed": [],
                  "rejected": [{"code": "Unschedulable", "plugin": "NodeResourcesFit",
                                "reasons": ["Insufficient cpu"], "count": 4200,
                                "nodes": [f"n{i}" for i in range(100)]}],
                  "scores": {"count": 0, "plugins": [], "nodes": []}}}}
    x = results.explanation(result, "d/p")
    assert x["groups"] == [{"code": "Unschedulable", "plugin": "NodeResourcesFit",
                            "reasons": "Insufficient cpu", "count": 4200,
                            "nodes": "n0, n1, n2, n3, n4 and 4195 more"}]
    assert x["filter_partial"] and len(x["filter"]) == 100
    assert "4200 nodes (n0, n1, n2, n3, n4 and 4195 more): NodeResourcesFit says Insufficient cpu." in x["sentences"]


def test_it_shows_the_nomination_with_victims_before_and_after(preemption):
    result, _ = preemption
    nom = results.explanation(result, "default/checkout-3c5e7a9b2-x3y4z")["nomination"]
    assert nom["node"] == "node-a" and nom["victims"] == ["default/batch-4f6c8d7b9-m6n7p"]
    assert nom["before"] == ["default/batch-4f6c8d7b9-j4k5l", "default/batch-4f6c8d7b9-m6n7p"]
    assert nom["after"] == ["default/batch-4f6c8d7b9-j4k5l"]


def test_it_replays_events_to_the_state_after_a_step(preemption, min_domains):
    result, meta = preemption
    nodes, pending = results.placements(result, 0)
    assert nodes["node-a"] == ["default/batch-4f6c8d7b9-j4k5l", "default/batch-4f6c8d7b9-m6n7p"]
    assert pending == ["default/checkout-3c5e7a9b2-x3y4z"]
    view = results.topology(result, results.ZONE_KEY, meta=meta, step=1)
    assert view["pending"][0]["status"] == "Unschedulable"
    assert view["pending"][0]["nominated"] == "node-a"
    nodes, pending = results.placements(result, 2)
    assert "default/checkout-3c5e7a9b2-x3y4z" in nodes["node-a"] and pending == []
    result, _ = min_domains
    nodes, pending = results.placements(result, 3)
    assert sum(len(p) for p in nodes.values()) == 3 and len(pending) == 7


def test_it_draws_requested_vs_allocatable_bars():
    bars = results.node_bars({"allocatable": {"cpu": 2000, "memory": 8 << 30, "pods": 110},
                              "requested": {"cpu": 1900, "memory": 2 << 30, "pods": 2}})
    assert [(b["resource"], b["requested"], b["allocatable"], b["pct"], b["level"]) for b in bars] == [
        ("cpu", "1.9 cores", "2 cores", 95, "full"), ("memory", "2 GiB", "8 GiB", 25, "ok"), ("pods", "2", "110", 2, "ok")]


def test_it_steps_through_cycles(min_domains):
    result, _ = min_domains
    first = results.timeline(result)
    assert first["step"] == 1 and first["prev"] is None and first["next"] == 2
    last = results.timeline(result, 99)
    assert last["step"] == 10 and last["next"] is None and last["cycle"]["result"] == "Unschedulable"
    assert results.timeline({"cycles": []})["cycle"] is None
