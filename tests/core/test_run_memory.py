"""A run that takes over the cycles of the run before it (scheduler_core/run_memory.py).

After a quick edit of some pods' scheduling directives, ``simulate(..., memory=)`` does again, from the memory,
the cycles before the first one an edited pod could change, and runs the rest itself. Its result must be the one a
run from the start gives, byte for byte: placements, messages, events, explanations, preemptions, the final state.
The clusters are generated (bound pods at production density, pod affinity, two priorities, preemption).
"""
from __future__ import annotations

import json
from functools import lru_cache

import pytest

from scheduler_core import RunMemory, simulate, with_spread_fields
from scheduler_core.k8s.types import Toleration, replace_pod
from scheduler_core.scenario import load_scenario
from tests.bench.generate import generate, to_yaml


@lru_cache(maxsize=None)
def _cluster(seed: int):
    return load_scenario(to_yaml(generate("dense-60x400", seed=seed).objects), "scenario.yaml")


def _app(pod) -> str:
    return pod.labels.get("app", "")


def _spread(app: str, **fields):
    """``fields`` set in constraint 0 of every pod of the app, bound and pending, as the draft editor's edit does."""
    def edit(s):
        keys = [p.key for p in s.pods if _app(p) == app and p.topology_spread_constraints]
        return with_spread_fields(s, keys, [], 0, fields)
    return edit


def _pending(app: str, **changes):
    """The app's pending pods with ``changes`` (shared among them, as the loader shares a workload's objects)."""
    def edit(s):
        return _replaced(s, lambda p: _app(p) == app and not p.node_name, changes)
    return edit


def _replaced(s, which, changes):
    from dataclasses import replace
    return replace(s, pods=tuple(replace_pod(p, **changes) if which(p) else p for p in s.pods))


TOLERATE_POOL = (Toleration(key="pool", operator="Exists", effect="NoSchedule"),)

# (edit, whether the run after it takes cycles over: the edited app's first pod is far enough in the queue)
EDITS = {
    "batch maxSkew + 1": (_spread("batch", max_skew=2), True),
    "batch ScheduleAnyway": (_spread("batch", when_unsatisfiable="ScheduleAnyway"), True),
    "indexer maxSkew 3": (_spread("indexer", max_skew=3), True),
    "worker's pending pods tolerate the pool taint": (_pending("worker", tolerations=TOLERATE_POOL), True),
    "batch's pending pods on linux nodes only": (_pending("batch", node_selector={"kubernetes.io/os": "linux"}),
                                                 True),
    "analytics' pending pods without affinity": (_pending("analytics", affinity=None), True),
    "checkout (first in the queue) maxSkew + 1": (_spread("checkout", max_skew=2), False),
}


def _json(result) -> str:
    return json.dumps(result)  # (not sorted: the result's order is part of what a run gives)


def _taken_over(before, after) -> int:
    """How many of the first cycles the run after took from the run before (the same outcome objects)."""
    n = 0
    for a, b in zip(before.outcomes, after.outcomes):
        if a is not b:
            break
        n += 1
    return n


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", list(EDITS))
def test_a_run_after_an_edit_gives_what_a_run_from_the_start_gives(seed, name):
    edit, takes_over = EDITS[name]
    scenario = _cluster(seed)
    memory = RunMemory()
    simulate(scenario, seed=seed, detail="failed", memory=memory)
    before = memory.last
    edited = edit(scenario)
    assert edited is not None and edited != scenario
    got = simulate(edited, seed=seed, detail="failed", memory=memory)
    assert _json(got) == _json(simulate(edited, seed=seed, detail="failed"))
    assert (_taken_over(before, memory.last) > 0) == takes_over


@pytest.mark.parametrize("detail", [True, False, "failed"])
def test_edits_in_a_row_each_give_what_a_run_from_the_start_gives(detail):
    """Three edits one after another, each run taking over from the one before (itself partly taken over)."""
    scenario = _cluster(0)
    memory = RunMemory()
    simulate(scenario, seed=0, detail=detail, memory=memory)
    for skew in (2, 3, 1):
        scenario = _spread("batch", max_skew=skew)(scenario)
        before = memory.last
        got = simulate(scenario, seed=0, detail=detail, memory=memory)
        assert _taken_over(before, memory.last) > 0
        assert _json(got) == _json(simulate(scenario, seed=0, detail=detail))


def test_the_reference_path_takes_over_alike():
    scenario = _cluster(1)
    memory = RunMemory()
    simulate(scenario, seed=1, detail="failed", fast=False, memory=memory)
    before = memory.last
    edited = _spread("batch", max_skew=3)(scenario)
    got = simulate(edited, seed=1, detail="failed", fast=False, memory=memory)
    assert _taken_over(before, memory.last) > 0
    assert _json(got) == _json(simulate(edited, seed=1, detail="failed"))


def _taint_first_node(s):
    from dataclasses import replace
    from scheduler_core.k8s.types import Taint
    node = s.nodes[0]
    return replace(s, nodes=(replace(node, taints=node.taints + (Taint(key="gone", effect="NoSchedule"),)),)
                   + s.nodes[1:])


# Changes a cycle before the edited pods' first could read: the next run starts from the start.
NOT_TAKEN_OVER = {
    "a pending pod's priority": lambda s: _replaced(s, lambda p: _app(p) == "analytics", {"priority": 10**6}),
    "a node's taint": _taint_first_node,
    "a bound pod's affinity": lambda s: _replaced(s, lambda p: _app(p) == "checkout" and p.node_name,
                                                  {"affinity": None}),
    "a bound pod's tolerations": lambda s: _replaced(s, lambda p: _app(p) == "batch" and p.node_name,
                                                     {"tolerations": TOLERATE_POOL}),
}


@pytest.mark.parametrize("name", list(NOT_TAKEN_OVER))
def test_changes_other_cycles_read_start_the_run_from_the_start(name):
    scenario = _cluster(0)
    memory = RunMemory()
    simulate(scenario, seed=0, detail="failed", memory=memory)
    before = memory.last
    edited = NOT_TAKEN_OVER[name](scenario)
    assert edited != scenario
    got = simulate(edited, seed=0, detail="failed", memory=memory)
    assert _taken_over(before, memory.last) == 0
    assert _json(got) == _json(simulate(edited, seed=0, detail="failed"))


def test_another_seed_or_detail_starts_from_the_start():
    scenario = _cluster(0)
    memory = RunMemory()
    simulate(scenario, seed=0, detail="failed", memory=memory)
    before = memory.last
    simulate(scenario, seed=1, detail="failed", memory=memory)
    assert _taken_over(before, memory.last) == 0
    before = memory.last
    simulate(scenario, seed=1, detail=True, memory=memory)
    assert _taken_over(before, memory.last) == 0


def test_a_memory_that_parts_from_the_run_is_dropped_and_the_run_starts_again():
    """A remembered cycle of another pod than the queue pops (which the comparison rules out) is caught: the result
    is still the run from the start's."""
    scenario = _cluster(0)
    memory = RunMemory()
    simulate(scenario, seed=0, detail="failed", memory=memory)
    outcomes = memory.last.outcomes
    outcomes[3], outcomes[4] = outcomes[4], outcomes[3]
    edited = _spread("batch", max_skew=2)(scenario)
    got = simulate(edited, seed=0, detail="failed", memory=memory)
    assert _json(got) == _json(simulate(edited, seed=0, detail="failed"))
    assert memory.last is not None and memory.last.outcomes[3].pod != outcomes[3].pod


def test_the_edited_scenario_read_again_from_disk_takes_over_as_well():
    """A worker that reads the edited scenario from its disk cache holds equal objects, not the same ones."""
    import pickle
    scenario = _cluster(0)
    memory = RunMemory()
    simulate(scenario, seed=0, detail="failed", memory=memory)
    before = memory.last
    edited = pickle.loads(pickle.dumps(_spread("batch", max_skew=2)(scenario)))
    got = simulate(edited, seed=0, detail="failed", memory=memory)
    assert _taken_over(before, memory.last) > 0
    assert _json(got) == _json(simulate(edited, seed=0, detail="failed"))
