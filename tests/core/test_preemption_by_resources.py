"""Preemption's victims worked out by NodeResourcesFit alone (``select_victims_by_resources``).

When putting a node's lower-priority pods back can change no Filter plugin's verdict but
NodeResourcesFit's, the fast path reprieves them on one copy of the node, asking that plugin
only. Each case runs the simulation with the shortcut and without it: the results, explanations
and preemption traces must be the same, and the shortcut must answer exactly where it may.
"""
from __future__ import annotations

import json

import pytest
import yaml

from scheduler_core.api import simulate
from scheduler_core.plugins.defaultpreemption.default_preemption import DefaultPreemption
from scheduler_core.scenario import load_scenario
from tests.bench.generate import generate, to_yaml

ZONE = "topology.kubernetes.io/zone"


def _node(name: str, zone: str, cpu: str = "4") -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {ZONE: zone, "kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "20"}}}


def _pod(name: str, cpu: str, priority: int, node: str = "", app: str = "batch",
         host_port: int = 0, nominated: str = "", started: str = "", extra: dict | None = None) -> dict:
    container: dict = {"name": "c", "resources": {"requests": {"cpu": cpu}}}
    if host_port:
        container["ports"] = [{"containerPort": host_port, "hostPort": host_port}]
    spec: dict = {"containers": [container], "priority": priority, **(extra or {})}
    if node:
        spec["nodeName"] = node
    doc = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "default", "labels": {"app": app}}, "spec": spec}
    status = {}
    if nominated:
        status["nominatedNodeName"] = nominated
    if started:
        status["startTime"] = started
    if status:
        doc["status"] = status
    return doc


def _spread(app: str) -> dict:
    return {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": ZONE,
                                           "whenUnsatisfiable": "DoNotSchedule",
                                           "labelSelector": {"matchLabels": {"app": app}}}]}


def _anti_affinity(app: str) -> dict:
    return {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}}


def _cluster(victims: list[dict], preemptors: list[dict], extra: list[dict] = ()) -> str:
    nodes = [_node(f"n{i}", "a" if i % 2 else "b") for i in range(4)]
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                           "items": nodes + victims + list(extra) + preemptors})


def _full_nodes(**kw) -> list[dict]:
    """Every node full with low-priority pods: 1 + 1 + 2 cpu each, started in turn."""
    return [_pod(f"low-{n}-{k}", cpu, 10 + k, node=f"n{n}", started=f"2026-01-0{k + 1}T00:00:00Z", **kw)
            for n in range(4) for k, cpu in enumerate(("1", "1", "2"))]


CASES = [
    pytest.param(_cluster(_full_nodes(), [_pod("web", "2", 1000, app="web")]), True,
                 id="victims that only take cpu: the shortcut answers"),
    pytest.param(_cluster(_full_nodes(), [_pod("web", "3", 1000, app="web", extra=_spread("web"))]),
                 True, id="a spread constraint whose selector no victim matches: it answers"),
    pytest.param(_cluster(_full_nodes(app="web"),
                          [_pod("web", "2", 1000, app="web", extra=_spread("web"))]),
                 False, id="victims the preemptor's spread constraint counts: not told"),
    pytest.param(_cluster(_full_nodes(host_port=8080), [_pod("web", "2", 1000, app="web")]), True,
                 id="victims holding a host port the preemptor does not want: it answers"),
    pytest.param(_cluster(_full_nodes(host_port=8080), [_pod("web", "2", 1000, app="web", host_port=8080)]),
                 False, id="victims holding a host port, a preemptor that wants one: not told"),
    pytest.param(_cluster(_full_nodes(), [_pod("web", "2", 1000, app="web", extra=_anti_affinity("web"))]),
                 False, id="a preemptor with required pod anti-affinity: not told"),
    pytest.param(_cluster(_full_nodes(), [_pod("web", "2", 1000, app="web")],
                          [_pod(f"nom-{n}", "1", 2000, app="nom", nominated=f"n{n}") for n in range(4)]),
                 None, id="nodes with nominated pods: not told there"),
]


def _run(text: str, monkeypatch, use: bool) -> tuple[str, list]:
    answers = []
    real = DefaultPreemption.select_victims_by_resources

    def counted(self, state, pod, node_info, pdbs):
        found = real(self, state, pod, node_info, pdbs) if use else None
        answers.append(found is not None)
        return found

    monkeypatch.setattr(DefaultPreemption, "select_victims_by_resources", counted)
    result = simulate(load_scenario(text, filename="case.yaml"), seed=1, detail=True)
    return json.dumps(result, sort_keys=True, default=str), answers


@pytest.mark.parametrize("text, answers", CASES)
def test_victims_by_resources_are_the_victims_of_the_full_reprieve(text, answers, monkeypatch) -> None:
    short, asked = _run(text, monkeypatch, use=True)
    full, _ = _run(text, monkeypatch, use=False)
    assert short == full
    result = json.loads(short)
    assert result["evicted"], "the case must preempt"
    assert asked, "the dry run must try a node"
    if answers is not None:
        assert set(asked) == {answers}
    else:  # (the preemptor does not fit beside a nominated pod of higher priority: never told)
        assert not any(asked)


@pytest.mark.parametrize("size, seed", [
    pytest.param("dense-60x300", 1, id="dense: batch pods preempted by the regular workloads"),
    pytest.param("dense-40x200", 5, id="another seed and size"),
])
def test_dense_clusters_preempt_the_same_pods_by_resources(size, seed, monkeypatch) -> None:
    """The bench's dense preset, where most dry-run tries are answered by the shortcut."""
    text = to_yaml(generate(size, seed).objects)
    short, asked = _run(text, monkeypatch, use=True)
    full, _ = _run(text, monkeypatch, use=False)
    assert short == full
    assert True in asked and False in asked
    assert json.loads(short)["evicted"]


def _run_seen(text: str, monkeypatch, use: bool, after: bool = False) -> tuple[str, list]:
    """The simulation with the dry run's screen told the failed cycle's status of each node, or
    not (``use``), and what the screen answered from it; with ``after``, told instead (the
    status kept) the failed cycle's verdict of the plugins after NodeResourcesFit, or not."""
    answered = []
    real = DefaultPreemption.rejected_without_victims

    def screen(self, state, pod, node_info, seen=None, after_fit=None):
        if after:
            told = []
            ask = None if not use or after_fit is None else lambda: told.append(after_fit()) or told[0]
            st = real(self, state, pod, node_info, seen, ask)
            answered.append(bool(told) and st is told[0])
            return st
        st = real(self, state, pod, node_info, seen if use else None)
        answered.append(st is not None and st is seen)
        return st

    monkeypatch.setattr(DefaultPreemption, "rejected_without_victims", screen)
    result = simulate(load_scenario(text, filename="case.yaml"), seed=1, detail=True)
    return json.dumps(result, sort_keys=True, default=str), answered


@pytest.mark.parametrize("text, used", [
    *[pytest.param(case.values[0], None, id=case.id) for case in CASES],
    pytest.param(to_yaml(generate("dense-60x300", 1).objects), True, id="dense-60x300"),
    pytest.param(to_yaml(generate("dense-40x200", 5).objects), True, id="dense-40x200"),
])
def test_a_node_another_plugin_rejected_is_rejected_again_without_its_victims(text, used, monkeypatch) -> None:
    """A node the failed cycle rejected by a plugin other than NodeResourcesFit, whose
    lower-priority pods only NodeResourcesFit sees, is rejected with that status by the dry run
    without running the filters again: results and traces as when the filters run."""
    told, answered = _run_seen(text, monkeypatch, use=True)
    ran, _ = _run_seen(text, monkeypatch, use=False)
    assert told == ran
    if used:
        assert True in answered and False in answered


@pytest.mark.parametrize("size, seed", [("dense-60x300", 1), ("dense-40x200", 5)])
def test_a_node_that_fits_without_its_victims_keeps_the_failed_cycles_verdict_of_the_plugins_after_fit(
        size, seed, monkeypatch) -> None:
    """A node NodeResourcesFit rejected in the failed cycle, which it lets through without the
    lower-priority pods only it sees, is rejected by the dry run with the status the plugins after
    NodeResourcesFit gave it in that cycle (PodTopologySpread here), without running them again:
    results and traces as when they run."""
    text = to_yaml(generate(size, seed).objects)
    told, answered = _run_seen(text, monkeypatch, use=True, after=True)
    ran, _ = _run_seen(text, monkeypatch, use=False, after=True)
    assert told == ran
    assert True in answered


def _pdb(app: str, min_available: int) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": app, "namespace": "default"},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": app}}}}


def test_victims_kept_with_a_node_are_chosen_again_only_under_the_same_disruption_budgets(monkeypatch) -> None:
    """Three equal preemptors in a row over nodes full of pods a budget covers: the victims each node
    gives are kept with it while its pods do not change, but the budget allows one disruption before
    the first preemption and none after, so the later dry runs count violations again."""
    text = _cluster(_full_nodes(app="db"), [_pod(f"web-{i}", "2", 1000, app="web") for i in range(3)],
                    [_pdb("db", 11)])
    short, asked = _run(text, monkeypatch, use=True)
    full, _ = _run(text, monkeypatch, use=False)
    assert short == full
    result = json.loads(short)
    assert len(result["evicted"]) >= 4 and True in asked
    allowed = [attempt["pdbs"][0]["disruptionsAllowed"] for attempt in result["preemptions"].values()]
    assert allowed[0] == 1 and 0 in allowed


def _run_nominated(text: str, monkeypatch, use: bool) -> tuple[str, set[str]]:
    """The simulation with the dry run told, for a node some pod of at least the preemptor's
    priority is nominated to, its rejection without cloning it (``use``), or not (the node is then
    tried on clones), and how the nodes were answered: "seen" (the failed cycle's status again),
    "told" (another rejection) or "tried"."""
    answered = set()
    real = DefaultPreemption._rejected_with_nominated

    def told(self, state, pod, node_info, potential, seen):
        st = real(self, state, pod, node_info, potential, seen) if use else None
        answered.add("tried" if st is None else "seen" if st is seen else "told")
        return st

    monkeypatch.setattr(DefaultPreemption, "_rejected_with_nominated", told)
    result = simulate(load_scenario(text, filename="case.yaml"), seed=1, detail=True)
    assert result["evicted"], "the case must preempt"
    return json.dumps(result, sort_keys=True, default=str), answered


def _nominated(cpu: str, app: str = "nom", nodes: int = 4) -> list[dict]:
    return [_pod(f"nom-{n}", cpu, 2000, app=app, nominated=f"n{n}") for n in range(nodes)]


@pytest.mark.parametrize("text, answers", [
    pytest.param(_cluster(_full_nodes(), [_pod("web", "2", 1000, app="web")], _nominated("1")),
                 {"tried"}, id="room beside the nominated pod: tried"),
    pytest.param(_cluster(_full_nodes(), [_pod("web", "2", 1000, app="web")], _nominated("3")),
                 {"told"}, id="no room beside the nominated pod: rejected by NodeResourcesFit"),
    pytest.param(_cluster(_full_nodes(), [_pod("web", "2", 1000, app="web", extra=_spread("web"))],
                          _nominated("1", app="web", nodes=3)),
                 {"told", "tried"}, id="nominated pods the spread constraint counts"),
    pytest.param(to_yaml(generate("dense-60x300", 1).objects), {"told", "tried"}, id="dense-60x300"),
    pytest.param(to_yaml(generate("dense-40x200", 5).objects), {"seen", "told", "tried"},
                 id="dense-40x200"),
])
def test_a_node_with_nominated_pods_is_rejected_without_clones_as_on_them(text, answers,
                                                                           monkeypatch) -> None:
    """A node where the filters would add nominated pods, whose lower-priority pods only
    NodeResourcesFit sees: rejected with the failed cycle's status of another plugin, by the
    nominated pods' requests, or by the filters run on the kept copy of the node without its
    victims; tried on clones where it passes. Results and traces as when every such node is
    tried on clones."""
    short, answered = _run_nominated(text, monkeypatch, use=True)
    full, _ = _run_nominated(text, monkeypatch, use=False)
    assert short == full
    assert answered == answers
