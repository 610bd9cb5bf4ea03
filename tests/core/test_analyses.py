"""Capacity, drain and tuning answers on small clusters worked out by hand; every
candidate and every answer is a real run of the scheduling cycle."""
from __future__ import annotations

import pytest

from scheduler_core.analyses import capacity, drain, tuning
from scheduler_core.analyses.common import pending, run
from scheduler_core.scenario import load_scenario


def node(name, zone, cpu="4", memory="8Gi", itype="m5.xlarge", price=None):
    price_label = f", whatif.io/hourly-price: '{price}'" if price is not None else ""
    return f"""---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{topology.kubernetes.io/zone: {zone}, kubernetes.io/hostname: {name}, node.kubernetes.io/instance-type: {itype}{price_label}}}
status: {{allocatable: {{cpu: "{cpu}", memory: {memory}, pods: "110"}}}}
"""


def pod(name, cpu="1", memory="1Gi", node_name="", app="web", spread="", owner="ReplicaSet"):
    bound = f"\n  nodeName: {node_name}" if node_name else ""
    owner_ref = (f"\n  ownerReferences: [{{apiVersion: apps/v1, kind: {owner}, name: {app}, "
                 f"uid: u-{app}, controller: true}}]" if owner else "")
    return f"""---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {{app: {app}}}{owner_ref}
spec:{bound}
  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "{cpu}", memory: {memory}}}}}}}]{spread}
"""


def pdb(name, min_available, app="web"):
    return f"""---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: {name}}}
spec: {{minAvailable: {min_available}, selector: {{matchLabels: {{app: {app}}}}}}}
"""


SPREAD_MIN5 = """
  topologySpreadConstraints:
  - {maxSkew: 1, minDomains: 5, topologyKey: topology.kubernetes.io/zone,
     whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}"""


def scenario(*docs):
    return load_scenario("".join(docs))


# (case, scenario docs, extra zones, expected sentence, nodes added)
CAPACITY = [
    ("cpu short by two pods", [node("n1", "a")] + [pod(f"p{i}", cpu="3", owner="") for i in range(3)],
     [], "add 2 × m5.xlarge in a", 2),
    ("cheaper shape wins at equal count",
     [node("n1", "a", itype="big", price=2), node("n2", "a", cpu="1", itype="small", price=1),
      pod("p0", cpu="1", owner=""), pod("p1", cpu="1", owner=""), pod("p2", cpu="1", owner=""),
      pod("p3", cpu="1", owner=""), pod("p4", cpu="1", owner=""), pod("p5", cpu="1", owner="")],
     [], "add 1 × small in a", 1),
    ("3 zones, maxSkew 1, minDomains 5: two nodes in two new zones",
     [node("n-a", "a"), node("n-b", "b"), node("n-c", "c")]
     + [pod(f"w{i}", cpu="100m", memory="100Mi", spread=SPREAD_MIN5) for i in range(5)],
     ["d", "e"], "add 1 × m5.xlarge in d, 1 × m5.xlarge in e", 2),
    ("nothing pending", [node("n1", "a"), pod("p0", owner="")], [], "no node needs adding", 0),
]


@pytest.mark.parametrize("case,docs,extra,sentence,added", CAPACITY, ids=[c[0] for c in CAPACITY])
def test_capacity_search_answer_is_verified_by_a_run(case, docs, extra, sentence, added):
    sc = scenario(*docs)
    templates = capacity.templates_from_nodes(sc.nodes, extra_zones=extra)
    answer = capacity.search_capacity(sc, templates, seed=3)
    assert answer["found"]
    assert answer["sentence"].startswith(sentence)
    assert answer["nodesAdded"] == added
    verified = run(capacity.apply_additions(sc, answer, templates), 3)
    assert pending(verified) == []


def test_capacity_search_is_deterministic_for_a_seed():
    docs = [node("n-a", "a"), node("n-b", "b"), node("n-c", "c")] + [
        pod(f"w{i}", cpu="100m", memory="100Mi", spread=SPREAD_MIN5) for i in range(5)]
    sc = scenario(*docs)
    t = capacity.templates_from_nodes(sc.nodes, extra_zones=["d", "e"])
    assert capacity.search_capacity(sc, t, seed=7) == capacity.search_capacity(sc, t, seed=7)


def test_capacity_search_says_when_no_addition_helps():
    sc = scenario(node("n1", "a", cpu="2"), pod("huge", cpu="8", owner=""))
    answer = capacity.search_capacity(sc, capacity.templates_from_nodes(sc.nodes),
                                      max_per_template=4)
    assert not answer["found"]
    assert answer["sentence"] == ("no addition of up to 4 nodes per template schedules "
                                  "every pending pod")


# (cpu of the pending pod, cpu already bound, copies that fit beside both on a 4-cpu node)
@pytest.mark.parametrize("cpu,bound_cpu,expected", [("1", "1", 2), ("2", "1", 0), ("1", "2", 1)])
def test_max_replicas_is_the_largest_count_that_schedules(cpu, bound_cpu, expected):
    sc = scenario(node("n1", "a"), pod("base", cpu=bound_cpu, node_name="n1", owner=""),
                  pod("one", cpu=cpu, app="api", owner=""))
    assert capacity.max_replicas(sc, "one")["replicas"] == expected


def test_max_replicas_counts_copies_beside_what_already_runs():
    sc = scenario(node("n1", "a"), pod("base", cpu="1", node_name="n1", owner=""))
    answer = capacity.max_replicas(sc, "base")
    assert answer["replicas"] == 3
    assert answer["sentence"] == "3 more replica(s) of default/base fit"


# (case, docs, zone, survives, sentence)
DRAIN = [
    ("room elsewhere", [node("n-a", "a"), node("n-b", "b"), pod("web-1", node_name="n-a"),
                        pod("web-2", node_name="n-b"), pdb("web-pdb", 1)],
     "a", True, "survives losing a"),
    ("PDB minAvailable blocks", [node("n-a", "a"), node("n-b", "b"), pod("web-1", node_name="n-a"),
                                 pod("web-2", node_name="n-b"), pdb("web-pdb", 2)],
     "a", False, "does not survive losing a: PDB web-pdb blocked 1 eviction"),
    ("no room elsewhere", [node("n-a", "a", cpu="2"), node("n-b", "b", cpu="2"),
                           pod("web-1", cpu="2", node_name="n-a"),
                           pod("web-2", cpu="2", node_name="n-b")],
     "b", False, "does not survive losing b: 1 running pod left pending"),
    ("two budgets on one pod refuse its eviction",
     [node("n-a", "a"), node("n-b", "b"), pod("web-1", node_name="n-a"),
      pdb("web-pdb", 0), pdb("all-pdb", 0)],
     "a", False, "does not survive losing a: PDB all-pdb blocked 1 eviction, "
                 "PDB web-pdb blocked 1 eviction"),
    ("a budget with an empty selector guards no pod",
     [node("n-a", "a"), node("n-b", "b"), pod("web-1", node_name="n-a"), pod("web-2", node_name="n-b"),
      pdb("web-pdb", 2).replace("selector: {matchLabels: {app: web}}", "selector: {}")],
     "a", True, "survives losing a"),
    ("a terminating pod is deleted whatever its budget",
     [node("n-a", "a"), node("n-b", "b"), pod("web-2", node_name="n-b"), pdb("web-pdb", 2),
      pod("web-1", node_name="n-a").replace("  labels:", "  deletionTimestamp: '2026-11-24T10:00:00Z'\n  labels:")],
     "a", True, "survives losing a"),
]


@pytest.mark.parametrize("case,docs,zone,survives,sentence", DRAIN, ids=[c[0] for c in DRAIN])
def test_zone_tolerance_reports_each_zone(case, docs, zone, survives, sentence):
    answer = drain.zone_tolerance(scenario(*docs))
    row = next(r for r in answer["zones"] if r["target"] == zone)
    assert row["survives"] is survives
    assert row["sentence"] == sentence


def test_drain_skips_daemonset_pods_and_reports_the_blocked_eviction():
    sc = scenario(node("n-a", "a"), node("n-b", "b"),
                  pod("agent", app="agent", node_name="n-a", owner="DaemonSet"),
                  pod("web-1", node_name="n-a"), pod("web-2", node_name="n-b"), pdb("web-pdb", 2))
    r = drain.drain(sc, ["n-a"])
    assert r["skipped"] == ["default/agent"]
    assert r["blocked"] == [{"pod": "default/web-1", "pdbs": ["default/web-pdb"]}]
    assert r["evicted"] == []


def test_drained_pods_are_rescheduled_by_a_real_run():
    sc = scenario(node("n-a", "a"), node("n-b", "b"), pod("web-1", node_name="n-a"))
    r = drain.drain(sc, ["n-a"])
    assert r["evicted"] == ["default/web-1"]
    placed = {p["pod"]: p["node"] for p in r["result"]["pods"]}
    assert placed["default/web-1"] == "n-b"


def test_tuning_most_allocated_packs_onto_fewer_nodes_than_least_allocated():
    sc = scenario(node("n1", "a"), node("n2", "a"),
                  *[pod(f"p{i}", cpu="500m", memory="1Gi", owner="") for i in range(4)])
    answer = tuning.sweep(sc, tuning.default_candidates())
    used = {r["candidate"]["name"]: r["nodesUsed"] for r in answer["runs"]}
    assert used == {"LeastAllocated": 2, "MostAllocated": 1, "RequestedToCapacityRatio": 1}
    assert answer["best"] == "LeastAllocated"
    least = answer["runs"][0]
    assert least["cpu"] == {"min": 0.25, "max": 0.25, "stddev": 0.0}
    assert least["podsPerNode"] == {"min": 2.0, "max": 2.0, "stddev": 0.0}


def test_tuning_says_when_no_configuration_balances_better_than_another():
    sc = scenario(node("n1", "a"), node("n2", "a"),
                  *[pod(f"p{i}", cpu="500m", memory="1Gi", owner="", node_name=f"n{i % 2 + 1}")
                    for i in range(4)])
    answer = tuning.sweep(sc, tuning.default_candidates())
    assert answer["sentence"] == ("all 3 configurations balance the same: cpu utilisation 25%–25% per "
                                  "node (stddev 0.00); the scoring strategy makes no difference here")
    assert answer["best"] == "LeastAllocated"


# --- the same answers from independent parts (what the web app runs on its workers) ---------
def in_parts(kind, sc, spec, seed=3):
    from scheduler_core.analyses import parts

    planned, answer = parts.plan(kind, sc, spec, seed)
    if answer is not None:
        return answer
    outcomes = [parts.run_part(kind, sc, spec, p, seed) for p in reversed(planned)][::-1]  # any order
    return parts.combine(kind, sc, spec, outcomes)


@pytest.mark.parametrize("case,docs,extra,sentence,added", CAPACITY, ids=[c[0] for c in CAPACITY])
def test_capacity_in_parts_gives_the_sequential_answer_and_nodes_that_verify_it(case, docs, extra, sentence,
                                                                                added):
    from scheduler_core.analyses import parts

    sc = scenario(*docs)
    answer = in_parts("capacity", sc, {"extraZones": extra})
    direct = capacity.search_capacity(sc, capacity.templates_from_nodes(sc.nodes, extra_zones=extra), seed=3)
    assert {k: answer[k] for k in direct} == direct
    objects = parts.verifying_objects("capacity", sc, {"extraZones": extra}, answer)
    if added:
        import yaml

        with_nodes = load_scenario("".join(docs) + "".join("---\n" + yaml.safe_dump(o) for o in objects))
        assert len(with_nodes.nodes) == len(sc.nodes) + added
        assert pending(run(with_nodes, 3)) == []
    else:
        assert objects is None


def test_written_templates_are_read_and_checked():
    from scheduler_core.analyses import parts
    from scheduler_core.errors import ScenarioError

    sc = scenario(node("n1", "a"), *[pod(f"p{i}", cpu="3", owner="") for i in range(3)])
    spec = {"templates": [{"name": "c6i.2xlarge", "zone": "b", "allocatable": {"cpu": "8", "memory": "16Gi"}}]}
    assert in_parts("capacity", sc, spec)["sentence"] == "add 1 × c6i.2xlarge in b"
    with pytest.raises(ScenarioError, match="templates\\[0\\].allocatable.cpu"):
        parts.plan("capacity", sc, {"templates": [{"name": "x", "allocatable": {"cpu": "lots", "memory": "1Gi"}}]})


def test_zones_drain_and_tuning_in_parts_give_the_sequential_answers():
    docs = DRAIN[1][1]
    sc = scenario(*docs)
    zones = in_parts("zones", sc, {})
    assert zones["rows"] == drain.zone_tolerance(sc)["zones"]
    assert in_parts("drain", sc, {"nodes": ["n-a"]})["rows"][0]["blocked"] == [
        {"pod": "default/web-1", "pdbs": ["default/web-pdb"]}]
    tuned = in_parts("tuning", sc, {})
    assert tuned == tuning.sweep(sc, tuning.default_candidates(), seed=3)


@pytest.mark.parametrize("kind,spec,field", [
    ("replicas", {"pod": "default/nope"}, "pod"),
    ("drain", {"nodes": ["n-x"]}, "nodes"),
    ("drain", {}, "nodes"),
    ("tuning", {"candidates": [{"strategy": "Fastest"}]}, "candidates[0].strategy"),
    ("capacity", {"maxPerTemplate": 0}, "maxPerTemplate"),
    ("weather", {}, "kind"),
])
def test_a_bad_analysis_spec_names_its_field(kind, spec, field):
    from scheduler_core.analyses import parts
    from scheduler_core.errors import ScenarioError

    sc = scenario(*DRAIN[1][1])
    with pytest.raises(ScenarioError) as e:
        parts.plan(kind, sc, spec)
    assert e.value.field == field
