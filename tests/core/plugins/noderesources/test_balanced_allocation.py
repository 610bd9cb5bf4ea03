"""NodeResourcesBalancedAllocation PreScore and Score.

Cases from "Resource Bin Packing" and re-expressed from upstream
noderesources/balanced_allocation_test.go; scores worked out by hand in comments.
"""
from dataclasses import dataclass

import pytest

from scheduler_core.config_args import NodeResourcesBalancedAllocationArgs, ResourceSpec
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import SUCCESS, Code, Status
from scheduler_core.k8s.types import Pod
from scheduler_core.plugins.noderesources import BalancedAllocation
from scheduler_core.plugins.noderesources.balanced_allocation import balanced_resource_scorer
from tests.core.wrappers import GI, make_node, make_pod, node_infos


def sized(name, cpu, memory, **extra):
    return make_node(name).capacity(cpu=cpu, memory=memory, **extra).obj()


THREE = NodeResourcesBalancedAllocationArgs((ResourceSpec("cpu"), ResourceSpec("memory"),
                                             ResourceSpec("ephemeral-storage")))


@dataclass
class Case:
    name: str
    pod: Pod
    nodes: list
    want: object
    bound: tuple = ()
    args: NodeResourcesBalancedAllocationArgs | None = None


# balanced_allocation_test.go's cpuOnly (bound to n1) and cpuAndMemory (bound to n2) pods
def cpu_only(node: str = "") -> Pod:
    w = make_pod("cpu-only").req(1000, 0).req(2000, 0)
    return (w.node(node) if node else w).obj()


def cpu_and_memory(node: str = "") -> Pod:
    w = make_pod("cpu-and-memory").req(1000, 2000).req(2000, 3000)
    return (w.node(node) if node else w).obj()


UPSTREAM_BOUND = (cpu_only("n1"), cpu_and_memory("n2"))
GPU = "nvidia.com/gpu"

CASES = [
    # upstream "resources requested, pods scheduled with resources":
    # n1 .6 and .25 -> std .175 -> 82; n2 .6 and .5 -> std .05 -> 95
    Case("bound pods and the pod are both counted", cpu_and_memory(),
         [sized("n1", 10000, 20000), sized("n2", 10000, 20000)], [("n1", 82), ("n2", 95)],
         bound=UPSTREAM_BOUND),
    # upstream "... differently sized nodes": n2 .6 and .2 -> std .2 -> 80
    Case("bound pods on differently sized nodes", cpu_and_memory(),
         [sized("n1", 10000, 20000), sized("n2", 10000, 50000)], [("n1", 82), ("n2", 80)],
         bound=UPSTREAM_BOUND),
    # upstream "requested resources at node capacity": n1 1 and 0 -> 50; n2 1 and .5 -> 75
    Case("requests at node capacity", cpu_only(),
         [sized("n1", 6000, 10000), sized("n2", 6000, 10000)], [("n1", 50), ("n2", 75)],
         bound=UPSTREAM_BOUND),
    # upstream "node without the scalar resource should skip the scalar resource":
    # .857 and .125 -> std .366 -> 63 on both nodes; the unrequested gpu is left out
    Case("an unrequested scalar resource is skipped", cpu_and_memory(),
         [sized("n1", 3500, 40000, **{GPU: 8}), sized("n2", 3500, 40000)],
         [("n1", 63), ("n2", 63)],
         args=NodeResourcesBalancedAllocationArgs((ResourceSpec("cpu"), ResourceSpec("memory"),
                                                   ResourceSpec(GPU)))),
    # n1: 3000/4000=.75 and 5000/10000=.5 -> std .125 -> 87; n2: .5 and .5 -> 100
    Case("equal fractions score 100", make_pod("p").req(3000, 5000).obj(),
         [sized("n1", 4000, 10000), sized("n2", 6000, 10000)], [("n1", 87), ("n2", 100)]),
    Case("a best-effort pod is skipped", make_pod("p").obj(), [sized("n1", 4000, 10000)],
         "skip"),
    # bound pod cpu 1000 mem 2000 + pod the same: .5 and .4 -> std .05 -> 95
    Case("bound pods' requests count", make_pod("p").req(1000, 2000).obj(),
         [sized("n", 4000, 10000)], [("n", 95)],
         bound=(make_pod("e").node("n").req(1000, 2000).obj(),)),
    # real requests, not the 100m/200Mi defaults: the bound pod adds nothing
    Case("bound pods without requests add nothing", make_pod("p").req(2000, 5000).obj(),
         [sized("n", 4000, 10000)], [("n", 100)], bound=(make_pod("e").node("n").obj(),)),
    Case("a fraction above 1 is capped", make_pod("p").req(5000, 5000).obj(),
         [sized("n", 4000, 10000)], [("n", 75)]),
    # cpu 1000/4000=.25, memory 0 -> std .125 -> 87
    Case("a cpu-only pod is still scored", make_pod("p").req(1000).obj(),
         [sized("n", 4000, 10000)], [("n", 87)]),
    # .5, .5, .2: mean .4, variance .02, std .1414 -> 85
    Case("three resources use the full standard deviation",
         make_pod("p").req(2000, 5 * GI, ephemeral_storage=20 * GI).obj(),
         [sized("n", 4000, 10 * GI)], [("n", 85)], args=THREE),
    # the node's allocatable 0 for a resource leaves it out: one fraction -> std 0
    Case("a resource the node lacks is left out",
         make_pod("p").req(1000, **{"example.com/foo": 1}).obj(),
         [sized("n", 4000, 10000)], [("n", 100)],
         args=NodeResourcesBalancedAllocationArgs((ResourceSpec("cpu"),
                                                   ResourceSpec("example.com/foo")))),
]


def run(pl, case):
    infos = node_infos(case.nodes, list(case.bound))
    state = CycleState()
    st = pl.pre_score(state, case.pod, infos)
    if st == Status(Code.Skip):
        return "skip"
    assert st == SUCCESS
    out = []
    for ni in infos:
        s, st = pl.score(state, case.pod, ni)
        assert st == SUCCESS
        out.append((ni.name, s))
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_score(case):
    assert run(BalancedAllocation(case.args, None), case) == case.want


def test_scorer_truncates_like_go():
    # fractions .5 and .4 -> (1 - 0.04999...) * 100 = 95.000...01 -> 95
    assert balanced_resource_scorer([2000, 4000], [4000, 10000]) == 95
    assert balanced_resource_scorer([1, 2], [3, 3]) == 83  # std 1/6 -> 83.33
