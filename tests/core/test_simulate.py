"""The scheduling loop end to end on small scenarios."""
from __future__ import annotations

import pytest

from scheduler_core.api import run_filter, run_score, simulate
from scheduler_core.scenario import load_scenario


def node(name: str, cpu: str = "2", zone: str = "a") -> str:
    return f"""---
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, zone: {zone}}}}}
status: {{allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}
"""


def pod(name: str, cpu: str = "100m", extra_spec: str = "", labels: str = "{}",
        priority: int = 0, node_name: str = "", created: str = "2026-01-01T00:00:00Z") -> str:
    bound = f"\n  nodeName: {node_name}" if node_name else ""
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, labels: {labels}, creationTimestamp: "{created}", uid: uid-{name}}}
spec:
  priority: {priority}
  containers: [{{name: c, resources: {{requests: {{cpu: {cpu}}}}}}}]{bound}
  {extra_spec}
"""


def test_schedule_fail_and_gate_in_first_attempt_order() -> None:
    s = load_scenario(node("n1", cpu="1") + pod("big", cpu="2") + pod("small", priority=5)
                      + pod("gated", extra_spec="schedulingGates: [{name: wait}]"))
    r = simulate(s)
    assert r["pods"] == [
        {"pod": "default/small", "outcome": "Scheduled", "node": "n1"},
        {"pod": "default/big", "outcome": "Unschedulable", "node": None, "nominatedNode": None,
         "message": "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
                    "available: 1 Preemption is not helpful for scheduling."},
        {"pod": "default/gated", "outcome": "Gated", "node": None},
    ]
    assert r["evicted"] == []
    assert [(e["reason"], e["pod"]) for e in r["events"]] == [
        ("Scheduled", "default/small"), ("FailedScheduling", "default/big")]


def test_preemption_evicts_nominates_and_binds() -> None:
    s = load_scenario(node("n1", cpu="1") + pod("victim", cpu="800m", node_name="n1")
                      + pod("vip", cpu="500m", priority=100))
    r = simulate(s)
    assert r["pods"] == [{"pod": "default/vip", "outcome": "Scheduled", "node": "n1"}]
    assert r["evicted"] == ["default/victim"]
    assert [(e["cycle"], e["reason"], e["pod"]) for e in r["events"]] == [
        (1, "FailedScheduling", "default/vip"), (1, "Nominated", "default/vip"),
        (1, "Preempted", "default/victim"), (2, "Scheduled", "default/vip")]
    assert (r["cycles"][1]["nominatedNodeTried"], r["cycles"][1]["nodesEvaluated"]) == ("n1", 1)
    assert r["nodes"][0]["pods"] == ["default/vip"]


def test_pod_rejected_by_affinity_is_retried_after_a_bind() -> None:
    affinity = ("affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                "[{topologyKey: zone, labelSelector: {matchLabels: {app: db}}}]}}")
    s = load_scenario(node("n1") + pod("web", priority=10, extra_spec=affinity)
                      + pod("db", labels="{app: db}"))
    r = simulate(s)
    assert [(c["pod"], c["result"]) for c in r["cycles"]] == [
        ("default/web", "Unschedulable"), ("default/db", "Scheduled"),
        ("default/web", "Scheduled")]
    assert [p["outcome"] for p in r["pods"]] == ["Scheduled", "Scheduled"]


def test_seed_makes_ties_repeatable() -> None:
    s = load_scenario("".join(node(f"n{i}") for i in range(4)) + pod("p"))
    runs = {simulate(s, seed=3)["pods"][0]["node"] for _ in range(3)}
    assert len(runs) == 1


def test_scale_to_n_creates_pending_pods_from_the_template() -> None:
    rs = """---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
"""
    r = simulate(load_scenario(node("n1") + rs))
    assert [(p["pod"], p["outcome"]) for p in r["pods"]] == [
        ("default/web-0", "Scheduled"), ("default/web-1", "Scheduled"),
        ("default/web-2", "Unschedulable")]


def test_detail_off_skips_per_node_verdicts() -> None:
    r = simulate(load_scenario(node("n1") + pod("p")), detail=False)
    assert "explanations" not in r and "filter" not in r["cycles"][0]


def test_run_filter_and_run_score_shapes() -> None:
    s = load_scenario(node("n1", cpu="1") + node("n2") + pod("p", cpu="1500m"))
    assert run_filter(s, "default/p") == {"pod": "default/p", "nodes": {
        "n1": {"code": "UnschedulableAndUnresolvable", "plugin": "NodeResourcesFit",
               "reasons": ["Insufficient cpu"]},
        "n2": {"code": "Success"}}}
    scored = run_score(s, "p")
    assert list(scored["nodes"]) == ["n2"]
    plugins = scored["nodes"]["n2"]["plugins"]
    weights = {"TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1,
               "PodTopologySpread": 2, "InterPodAffinity": 2,
               "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1}
    assert scored["nodes"]["n2"]["total"] == sum(v * weights[k] for k, v in plugins.items())


def test_terminating_pending_pod_is_skipped_and_unknown_scheduler_is_ignored() -> None:
    terminating = pod("t").replace("uid: uid-t}", "uid: uid-t, deletionTimestamp: "
                                   "\"2026-01-01T00:00:00Z\"}")
    other = pod("o", extra_spec="schedulerName: my-scheduler")
    r = simulate(load_scenario(node("n1") + terminating + other))
    assert r["pods"] == [{"pod": "default/t", "outcome": "Unschedulable", "node": None,
                          "nominatedNode": None,
                          "message": "skip schedule deleting pod: default/t"},
                         ]
    # another scheduler's pod is not pending for kube-scheduler: kept out of "pods"
    assert r["ignored"] == [{"pod": "default/o", "reason": "schedulerName \"my-scheduler\" "
                             "matches no profile: another scheduler's pod, which kube-scheduler "
                             "never tries"}]
    assert r["warnings"] == ["scenario.yaml: Pod default/o: spec.schedulerName: 'my-scheduler' "
                             "matches no profile of the configuration; kube-scheduler leaves "
                             "the pod to that scheduler, so it is not simulated (listed under "
                             "\"ignored\")"]


def test_second_profile_schedules_its_pods() -> None:
    cfg = """---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: no-scoring
  plugins:
    score: {disabled: [{name: "*"}]}
"""
    r = simulate(load_scenario(node("n1") + node("n2") + pod("o", extra_spec="schedulerName: "
                                                             "no-scoring") + cfg))
    assert r["pods"][0]["outcome"] == "Scheduled"
    assert r["explanations"]["default/o"]["scores"] == {
        "count": 0, "plugins": [], "weights": {}, "skipped": [], "nodes": [], "tie": None}


def test_a_pod_scheduled_during_the_run_and_then_preempted_is_marked() -> None:
    affinity = ("affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                "[{topologyKey: zone, labelSelector: {matchLabels: {app: db}}}]}}")
    s = load_scenario(node("n1", cpu="1")
                      + pod("vip", cpu="500m", priority=100, extra_spec=affinity,
                            created="2026-01-01T00:00:00Z")
                      + pod("db", labels="{app: db}", priority=100, created="2026-01-02T00:00:00Z")
                      + pod("first", cpu="800m", priority=1))
    r = simulate(s)
    # vip waits for db; first binds while vip backs off; then vip preempts first.
    assert r["pods"] == [
        {"pod": "default/vip", "outcome": "Scheduled", "node": "n1"},
        {"pod": "default/db", "outcome": "Scheduled", "node": "n1"},
        {"pod": "default/first", "outcome": "Scheduled", "node": "n1", "evicted": True}]
    assert r["evicted"] == ["default/first"]


def test_no_nodes_is_an_error_that_clears_the_nomination() -> None:
    nominated = pod("p") + "status: {nominatedNodeName: gone}\n"
    r = simulate(load_scenario(nominated))
    assert r["pods"] == [{"pod": "default/p", "outcome": "Unschedulable", "node": None,
                          "nominatedNode": None,
                          "message": "no nodes available to schedule pods"}]


def test_detail_failed_explains_only_the_pods_left_pending() -> None:
    s = load_scenario(node("n1", cpu="1") + pod("big", cpu="2") + pod("small", priority=5))
    r = simulate(s, detail="failed")
    assert list(r["explanations"]) == ["default/big"]
    assert r["explanations"]["default/big"]["rejected"][0]["reasons"] == ["Insufficient cpu"]


def test_detail_names_the_pods_to_explain() -> None:
    s = load_scenario(node("n1", cpu="1") + pod("big", cpu="2") + pod("small", priority=5))
    r = simulate(s, detail=["default/small"])
    assert list(r["explanations"]) == ["default/small"]
    assert r["explanations"]["default/small"]["result"] == "Scheduled"


def test_a_preemption_is_kept_after_the_preemptor_lands() -> None:
    s = load_scenario(node("n1", cpu="1") + pod("low", cpu="1", node_name="n1")
                      + pod("hi", cpu="1", priority=100))
    r = simulate(s, detail="failed")
    assert "default/hi" not in r["explanations"]  # its latest cycle scheduled it
    assert (r["preemptions"]["default/hi"]["chosen"], r["evicted"]) == ("n1", ["default/low"])


ANTI_AFFINITY = ("affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                 "[{topologyKey: kubernetes.io/hostname, labelSelector: {matchExpressions: "
                 "[{key: app, operator: Exists}]}%s}]}}")


def ns_pod(name: str, namespace: str, app: str, extra_spec: str) -> str:
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: {namespace}, labels: {{app: {app}}}, uid: uid-{name}}}
spec:
  containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]
  {extra_spec}
"""


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("first, second", [
    # the same written anti-affinity in two namespaces: each term selects its own pod's one
    (("a", "ns1", "web", ANTI_AFFINITY % ""), ("b", "ns2", "web", ANTI_AFFINITY % "")),
    # the same written term with matchLabelKeys: each pod's own label value is folded in
    (("a", "default", "x", ANTI_AFFINITY % ", matchLabelKeys: [app]"),
     ("b", "default", "y", ANTI_AFFINITY % ", matchLabelKeys: [app]")),
])
def test_pods_sharing_written_affinity_keep_their_own_namespace_and_label_keys(
        first, second, fast) -> None:
    s = load_scenario(node("n1") + ns_pod(*first) + ns_pod(*second))
    r = simulate(s, fast=fast)
    assert [(p["pod"], p["outcome"], p["node"]) for p in r["pods"]] == [
        (f"{first[1]}/a", "Scheduled", "n1"), (f"{second[1]}/b", "Scheduled", "n1")]


@pytest.mark.parametrize("fast", [True, False])
def test_pods_sharing_written_anti_affinity_in_one_namespace_repel_each_other(fast) -> None:
    s = load_scenario(node("n1") + ns_pod("a", "ns1", "web", ANTI_AFFINITY % "")
                      + ns_pod("b", "ns1", "web", ANTI_AFFINITY % ""))
    r = simulate(s, fast=fast)
    assert [(p["pod"], p["outcome"]) for p in r["pods"]] == [
        ("ns1/a", "Scheduled"), ("ns1/b", "Unschedulable")]



@pytest.mark.parametrize("fast", [True, False])
def test_what_a_program_says_it_froze_stays_frozen_through_loads_and_runs_and_is_never_counted(monkeypatch, fast) -> None:
    """A web process says when it holds objects frozen (frozen_elsewhere): the engine then leaves them
    frozen and does not count them (gc.get_freeze_count walks every one: 0.12 s a call with 3 million)."""
    import gc
    from scheduler_core import scenario_io
    for key in ("told", "elsewhere", "engine"):
        monkeypatch.setitem(scenario_io._FROZEN, key, scenario_io._FROZEN[key])

    def counted():
        raise AssertionError("the engine counted the frozen objects")

    text = node("n1") + pod("a") + pod("b", cpu="5")
    kept = [[i] for i in range(1000)]  # (what the program froze)
    gc.freeze()
    scenario_io.frozen_elsewhere(True)
    try:
        with monkeypatch.context() as m:
            m.setattr(gc, "get_freeze_count", counted)
            result = simulate(load_scenario(text), fast=fast)
        assert [p["outcome"] for p in result["pods"]] == ["Scheduled", "Unschedulable"]
        assert gc.isenabled() and not any(o is kept for o in gc.get_objects())  # (still frozen)
    finally:
        gc.unfreeze()
        scenario_io.frozen_elsewhere(False)
    with monkeypatch.context() as m:  # (told that nothing is frozen: a run freezes and unfreezes its own)
        m.setattr(gc, "get_freeze_count", counted)
        simulate(load_scenario(text), fast=fast)
    assert any(o is kept for o in gc.get_objects()) and gc.get_freeze_count() == 0

@pytest.mark.parametrize("fast", [True, False])
def test_a_run_leaves_the_cycle_collector_as_it_found_it(fast) -> None:
    import gc
    before = (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled())
    s = load_scenario(node("n1") + pod("a") + pod("b", cpu="5"))
    simulate(s, fast=fast)
    assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before
    with pytest.raises(AttributeError):
        simulate(None, fast=fast)  # (a run that fails too)
    assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before


def test_a_load_leaves_the_cycle_collector_and_what_another_froze_as_it_found_them(monkeypatch) -> None:
    """A web process keeps large results frozen (webapp/scenarios/frozen.py): a scenario loaded there
    must not let them go back to the collector's scans. (Here the program did not say what it froze.)"""
    import gc
    from scheduler_core import scenario_io
    monkeypatch.setitem(scenario_io._FROZEN, "told", False)
    text = node("n1") + pod("a") + pod("b", cpu="5")
    before = (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled())
    load_scenario(text)
    assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before
    kept = [[i] for i in range(1000)]  # (what another part of the process froze)
    gc.freeze()
    try:
        assert gc.get_freeze_count() >= len(kept)
        load_scenario(text)
        assert gc.isenabled()
        assert not any(o is kept for o in gc.get_objects())  # (frozen objects are in no generation)
    finally:
        gc.unfreeze()
    assert any(o is kept for o in gc.get_objects())
