"""Equal pods failing in a row, on the columnar path and on the reference.

The columnar simulation works a failed cycle out once and gives an equal pod (the same spec
apart from its name, UID, age and images) the same failure while no pod is bound or removed
and no nomination changes (scheduler_core/columnar/equivalence.py). The reference runs every
cycle. Both must print the same result: messages, events, explanations, and each
preemption dry run from the offset it drew.
"""
from __future__ import annotations

import pytest
import yaml

from scheduler_core.api import simulate
from scheduler_core.scenario import load_scenario
from tests.core.test_columnar import same


def _node(i: int, pods: str = "10") -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": pods}}}


def _pod(name: str, cpu: str, priority: int, node: str = "", image: str = "app:1",
         **spec) -> dict:
    body = {"priority": priority, "containers": [{"name": "c", "image": image, "resources": {
        "requests": {"cpu": cpu, "memory": "64Mi"}}}], **spec}
    if node:
        body["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": name, "namespace": "default", "labels": {"app": name.split("-")[0]}},
        "spec": body}


def _full_nodes(first: int, last: int) -> list[dict]:
    """Nodes n<first>..n<last-1>, 4 cpus each, full: a 2-cpu pod of priority 1000 and a 2-cpu
    pod of priority 10 on each."""
    items = [_node(i) for i in range(first, last)]
    items += [_pod(f"keep-{i}", "2", 1000, f"n{i}") for i in range(first, last)]
    items += [_pod(f"low-{i}", "2", 10, f"n{i}") for i in range(first, last)]
    return items


NEVER = {"preemptionPolicy": "Never"}


def _in_vain() -> list[dict]:
    """Six batch pods of 3 cpus (each its own image): evicting a node's 2-cpu pod of lower
    priority leaves 2 cpus, so every dry run walks all 12 nodes in vain."""
    return _full_nodes(0, 12) + [_pod(f"batch-{i}", "3", 500, image=f"etl:{i}") for i in range(6)]


def _bind_between() -> list[dict]:
    """n0 holds 2 cpus free and room for one pod more; "small" takes it between two equal
    batch pods, so the second is rejected on n0 for its pod count as well."""
    items = [_node(0, pods="3"), _pod("keep-0", "1", 1000, "n0"), _pod("keep-0b", "1", 1000, "n0")]
    items += _full_nodes(1, 12)
    items += [_pod("batch-a", "3", 500, **NEVER), _pod("small-a", "1", 500, **NEVER),
              _pod("batch-b", "3", 500, **NEVER)]
    return items


def _preemption_between() -> list[dict]:
    """Two equal 2-cpu pods of priority 500 that may not preempt fail; a pod of priority 100
    then evicts a node's 2-cpu pod of priority 10. The eviction sends the failed pods back to
    the queue; the first takes the freed cpus (the nominated pod, of lower priority, does not
    hold them against it)."""
    return _full_nodes(0, 12) + [_pod("batch-a", "2", 500, **NEVER),
                                 _pod("batch-b", "2", 500, **NEVER),
                                 _pod("mid-a", "1", 100)]


def _run_both(items: list[dict], detail=True) -> tuple[dict, dict]:
    s = load_scenario(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}),
                      filename="cluster.yaml")
    return simulate(s, seed=1, detail=detail, fast=True), simulate(s, seed=1, detail=detail, fast=False)


def _outcomes(result: dict) -> dict[str, tuple]:
    return {p["pod"]: (p["outcome"], p.get("node"), p.get("message")) for p in result["pods"]}


def test_equal_pods_that_fail_alike_each_walk_the_dry_run_from_their_own_offset() -> None:
    fast, ref = _run_both(_in_vain())
    assert same(fast, ref)
    batch = [f"default/batch-{i}" for i in range(6)]
    assert {_outcomes(fast)[k][2] for k in batch} == {
        "0/12 nodes are available: 12 Insufficient cpu. "
        "preemption: 0/12 nodes are available: 12 Insufficient cpu."}
    walks = [fast["preemptions"][k] for k in batch]
    assert all(w["evaluatedCount"] == 12 and not w["candidates"] for w in walks)
    assert len({w["offset"] for w in walks}) > 1  # the seed draws different starts
    for w in walks:  # each walk starts at its offset, in node order from there
        assert w["evaluated"][0] == w["potentialNodes"][w["offset"]]


@pytest.mark.parametrize("detail", [False, "failed", ("default/batch-3", "default/batch-5")],
                         ids=["no explanations", "failed pods explained", "two pods explained"])
def test_equal_failing_pods_print_the_same_result_at_every_detail(detail) -> None:
    fast, ref = _run_both(_in_vain(), detail)
    assert same(fast, ref)
    if detail and detail != "failed":
        assert set(fast["explanations"]) == set(detail)


def test_a_pod_bound_between_two_equal_pods_changes_the_second_ones_diagnosis() -> None:
    fast, ref = _run_both(_bind_between())
    assert same(fast, ref)
    out = _outcomes(fast)
    assert out["default/small-a"][:2] == ("Scheduled", "n0")
    assert out["default/batch-a"][2] == "0/12 nodes are available: 12 Insufficient cpu. " \
        "preemption: not eligible due to preemptionPolicy=Never."
    assert out["default/batch-b"][2] == "0/12 nodes are available: 1 Too many pods, " \
        "12 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."


def test_an_eviction_after_two_equal_pods_failed_lets_the_first_be_scheduled() -> None:
    fast, ref = _run_both(_preemption_between())
    assert same(fast, ref)
    cycles = [(c["pod"], c["result"], c.get("node")) for c in fast["cycles"]]
    freed = "n" + fast["evicted"][0].rsplit("-", 1)[1]  # low-<i> ran on n<i>
    assert cycles[:4] == [("default/batch-a", "Unschedulable", None),
                          ("default/batch-b", "Unschedulable", None),
                          ("default/mid-a", "Unschedulable", None),
                          ("default/batch-a", "Scheduled", freed)]
