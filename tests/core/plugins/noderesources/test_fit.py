"""NodeResourcesFit Filter (reasons, codes, ignored resources) and Score strategies.

Cases from "Resource Management for Pods and Containers" and "Resource Bin Packing"
(MostAllocated, RequestedToCapacityRatio), re-expressed from upstream
noderesources/fit_test.go, least_allocated_test.go, most_allocated_test.go and
requested_to_capacity_ratio_test.go. Expected scores are worked out by hand in comments.
"""
from dataclasses import dataclass

import pytest

from scheduler_core.config_args import (MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO,
                                        NodeResourcesFitArgs, ResourceSpec, ScoringStrategy,
                                        UtilizationShapePoint)
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import SUCCESS, Code, Status
from scheduler_core.k8s.types import Container, Pod
from scheduler_core.plugins.noderesources import Fit
from tests.core.wrappers import GI, MI, make_node, make_pod, node_infos

FOO = "example.com/foo"
BAR = "example.com/bar"


def unsched(*reasons: str) -> Status:
    return Status(Code.Unschedulable, reasons)


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UnschedulableAndUnresolvable, reasons)


def node(pods: int = 32, **extra):
    return make_node("n").capacity(cpu=10, memory=20, pods=pods, **extra).obj()


def used(cpu: int = 0, memory: int = 0, name: str = "e", **extra) -> Pod:
    return make_pod(name).node("n").req(cpu=cpu, memory=memory, **extra).obj()


@dataclass
class FilterCase:
    name: str
    pod: Pod
    bound: list
    want: Status
    node: object = None
    args: NodeResourcesFitArgs | None = None


FILTER_CASES = [
    FilterCase("a pod without requests fits a full node", make_pod("p").obj(),
               [used(10, 20)], SUCCESS),
    FilterCase("cpu and memory both short are both reported", make_pod("p").req(1, 1).obj(),
               [used(10, 20)], unsched("Insufficient cpu", "Insufficient memory")),
    FilterCase("an exact fit passes", make_pod("p").req(1, 1).obj(), [used(9, 19)], SUCCESS),
    FilterCase("only cpu short", make_pod("p").req(2, 1).obj(), [used(9, 5)],
               unsched("Insufficient cpu")),
    FilterCase("only memory short", make_pod("p").req(1, 2).obj(), [used(5, 19)],
               unsched("Insufficient memory")),
    FilterCase("the largest init container counts",
               make_pod("p").req(1, 1).init_container(
                   Container("init", requests={"cpu": 3, "memory": 1})).obj(),
               [used(8, 19)], unsched("Insufficient cpu")),
    FilterCase("a request beyond allocatable is unresolvable", make_pod("p").req(11, 1).obj(),
               [], unresolvable("Insufficient cpu")),
    FilterCase("one unresolvable reason makes the whole status unresolvable",
               make_pod("p").req(11, 1).obj(), [used(0, 20)],
               unresolvable("Insufficient cpu", "Insufficient memory")),
    FilterCase("the pod count is checked even without requests", make_pod("p").obj(),
               [used()], unsched("Too many pods"), node=node(pods=1)),
    FilterCase("too many pods comes before cpu", make_pod("p").req(3).obj(), [used(8)],
               unsched("Too many pods", "Insufficient cpu"), node=node(pods=1)),
    FilterCase("ephemeral storage beyond allocatable",
               make_pod("p").req(ephemeral_storage=200 * GI).obj(), [],
               unresolvable("Insufficient ephemeral-storage")),
    FilterCase("an extended resource used up by others", make_pod("p").req(**{FOO: 3}).obj(),
               [used(**{FOO: 3})], unsched(f"Insufficient {FOO}"), node=node(**{FOO: 5})),
    FilterCase("an extended resource the node lacks is unresolvable",
               make_pod("p").req(**{BAR: 1}).obj(), [], unresolvable(f"Insufficient {BAR}")),
    FilterCase("ignoredResources skips an extended resource", make_pod("p").req(**{BAR: 1}).obj(),
               [], SUCCESS, args=NodeResourcesFitArgs(ignored_resources=(BAR,))),
    FilterCase("ignoredResourceGroups skips by domain",
               make_pod("p").req(**{BAR: 1, FOO: 1}).obj(), [], SUCCESS,
               args=NodeResourcesFitArgs(ignored_resource_groups=("example.com",))),
    FilterCase("hugepages cannot be ignored", make_pod("p").req(**{"hugepages-2Mi": 2 * MI}).obj(),
               [], unresolvable("Insufficient hugepages-2Mi"),
               args=NodeResourcesFitArgs(ignored_resources=("hugepages-2Mi",))),
    FilterCase("scalar resources are reported in name order",
               make_pod("p").req(**{BAR: 1, "example.com/aaa": 1}).obj(), [],
               unresolvable("Insufficient example.com/aaa", f"Insufficient {BAR}")),
    FilterCase("a zero scalar request is not checked", make_pod("p").req(**{BAR: 0}).obj(), [],
               SUCCESS),
]


@pytest.mark.parametrize("case", FILTER_CASES, ids=lambda c: c.name)
def test_filter(case):
    pl = Fit(case.args, None)
    [ni] = node_infos([case.node or node()], case.bound)
    state = CycleState()
    assert pl.pre_filter(state, case.pod, [ni]) == (None, SUCCESS)
    assert pl.filter(state, case.pod, ni) == case.want


def test_filter_without_pre_filter_is_an_error():
    [ni] = node_infos([node()])
    assert Fit(None, None).filter(CycleState(), make_pod("p").obj(), ni).code == Code.Error


def run_scores(pl, pod, nodes, bound=()):
    infos = node_infos(nodes, list(bound))
    state = CycleState()
    assert pl.pre_score(state, pod, infos) == SUCCESS
    out = []
    for ni in infos:
        s, st = pl.score(state, pod, ni)
        assert st == SUCCESS
        out.append((ni.name, s))
    assert pl.score_extensions() is None
    return out


def sized(name, cpu, memory, **extra):
    return make_node(name).capacity(cpu=cpu, memory=memory, **extra).obj()


TWO_SIZES = [sized("n1", 4000, 10000), sized("n2", 6000, 10000)]
POD_3000_5000 = make_pod("p").req(1000, 2000).req(2000, 3000).obj()
WEIGHTED = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1), ResourceSpec(FOO, 3))


def strategy(type_=None, resources=None, shape=()):
    kw = {}
    if type_:
        kw["type"] = type_
    if resources:
        kw["resources"] = resources
    return NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(**kw, shape=tuple(
        UtilizationShapePoint(u, s) for u, s in shape)))


@dataclass
class ScoreCase:
    name: str
    args: NodeResourcesFitArgs | None
    pod: Pod
    nodes: list
    want: list
    bound: tuple = ()


SCORE_CASES = [
    # n1: cpu (4000-3000)*100/4000=25, mem 50 -> 37; n2: 50, 50 -> 50
    ScoreCase("least allocated prefers the larger node", None, POD_3000_5000, TWO_SIZES,
              [("n1", 37), ("n2", 50)]),
    # least_allocated_test.go "resources requested, pods scheduled with resources, differently
    # sized nodes": n1 cpu (10000-6000)*100/10000=40, mem (20000-5000)/20000=75 -> 57;
    # n2 cpu 40, mem (50000-10000)/50000=80 -> 60
    ScoreCase("least allocated counts bound pods' requests", None, POD_3000_5000,
              [sized("n1", 10000, 20000), sized("n2", 10000, 50000)], [("n1", 57), ("n2", 60)],
              bound=(make_pod("e1").node("n1").req(3000, 0).obj(),
                     make_pod("e2").node("n2").req(3000, 5000).obj())),
    # "requested resources exceed node capacity": an explicit memory 0 stays 0 (no default);
    # n1 cpu 6000>4000 -> 0, mem 100 -> 50; n2 cpu 0, mem 50 -> 25
    ScoreCase("least allocated with requests beyond capacity", None,
              make_pod("p").req(3000, 0).obj(),
              [sized("n1", 4000, 10000), sized("n2", 4000, 10000)], [("n1", 50), ("n2", 25)],
              bound=(make_pod("e1").node("n1").req(3000, 0).obj(),
                     make_pod("e2").node("n2").req(3000, 5000).obj())),
    # "different weight on CPU and memory": (25*1 + 50*2)/3 = 41; (50 + 100)/3 = 50
    ScoreCase("least allocated honours resource weights",
              strategy(resources=(ResourceSpec("memory", 2), ResourceSpec("cpu", 1))),
              POD_3000_5000, TWO_SIZES, [("n1", 41), ("n2", 50)]),
    # "honor extended resource if the pod requests": (50+50+50)/3=50; (50+50+80)/3=60
    ScoreCase("least allocated scores a requested extended resource",
              strategy(resources=(ResourceSpec("cpu"), ResourceSpec("memory"),
                                  ResourceSpec(FOO))),
              make_pod("p").req(3000, 5000, **{FOO: 2}).obj(),
              [sized("n1", 6000, 10000, **{FOO: 4}), sized("n2", 6000, 10000, **{FOO: 10})],
              [("n1", 50), ("n2", 60)]),
    # no requests: 100m / 200Mi defaults; cpu 900*100/1000=90, mem 1848Mi*100/2048Mi=90
    ScoreCase("least allocated uses the non-zero defaults", None, make_pod("p").obj(),
              [sized("n1", 1000, 2 * GI)], [("n1", 90)]),
    # bound pod without requests counts 100m/200Mi: cpu 1400*100/2000=70, mem 2872/4096 -> 70
    ScoreCase("bound pods without requests count their defaults", None,
              make_pod("p").req(500, GI).obj(), [sized("n", 2000, 4 * GI)], [("n", 70)],
              bound=(make_pod("e").node("n").obj(),)),
    ScoreCase("over-requested resources score 0", None, make_pod("p").req(5000, 5000).obj(),
              [sized("n1", 4000, 10000)], [("n1", 25)]),
    # n1: cpu 25, mem 50, foo (4-2)*100/4=50 weight 3 -> (25+50+150)/5=45; n2 lacks foo
    ScoreCase("extended resources are weighted", strategy(resources=WEIGHTED),
              make_pod("p").req(3000, 5000, **{FOO: 2}).obj(),
              [sized("n1", 4000, 10000, **{FOO: 4}), sized("n2", 6000, 10000)],
              [("n1", 45), ("n2", 50)]),
    ScoreCase("an extended resource the pod does not request is left out",
              strategy(resources=WEIGHTED), POD_3000_5000,
              [sized("n1", 4000, 10000, **{FOO: 4})], [("n1", 37)]),
    # n1: cpu 75, mem 50 -> 62; n2: 50, 50 -> 50
    ScoreCase("most allocated prefers the fuller node", strategy(MOST_ALLOCATED),
              POD_3000_5000, TWO_SIZES, [("n1", 62), ("n2", 50)]),
    ScoreCase("most allocated caps requested at capacity", strategy(MOST_ALLOCATED),
              make_pod("p").req(5000, 5000).obj(), [sized("n1", 4000, 10000)], [("n1", 75)]),
    # shape 0->0, 100->10 (x10): n1 75 and 50 -> 62.5 rounds half away from zero to 63
    ScoreCase("requested to capacity ratio rounds the mean",
              strategy(REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 0), (100, 10)]),
              POD_3000_5000, TWO_SIZES, [("n1", 63), ("n2", 50)]),
    # shape 0->10, 100->0: n1 25 and 50 -> 37.5 -> 38
    ScoreCase("requested to capacity ratio with a descending shape",
              strategy(REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 10), (100, 0)]),
              POD_3000_5000, TWO_SIZES, [("n1", 38), ("n2", 50)]),
    # memory utilization 0 scores 0 and drops out of the weights: only cpu 75 counts
    ScoreCase("requested to capacity ratio ignores zero-scoring resources",
              strategy(REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 0), (100, 10)]),
              make_pod("p").req(3000, 0).obj(), [sized("n1", 4000, 10000)], [("n1", 75)]),
    ScoreCase("requested to capacity ratio over capacity uses utilization 100",
              strategy(REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 0), (50, 5), (100, 8)]),
              make_pod("p").req(5000, 5000).obj(), [sized("n1", 4000, 10000)],
              # cpu -> f(100)=80, mem util 50 -> 50: (80+50)/2 = 65
              [("n1", 65)]),
]


@pytest.mark.parametrize("case", SCORE_CASES, ids=lambda c: c.name)
def test_score(case):
    assert run_scores(Fit(case.args, None), case.pod, case.nodes, case.bound) == case.want


@pytest.mark.parametrize("args", [strategy("Bogus"), strategy(REQUESTED_TO_CAPACITY_RATIO)],
                         ids=["unknown strategy", "ratio without shape"])
def test_bad_scoring_strategy_is_rejected(args):
    with pytest.raises(ValueError):
        Fit(args, None)


def test_explain_reports_filter_and_score_requests():
    pl = Fit(None, None)
    pod = make_pod("p").req(500, GI, **{FOO: 1}).obj()
    state = CycleState()
    infos = node_infos([node()])
    pl.pre_filter(state, pod, infos)
    pl.pre_score(state, pod, infos)
    assert pl.explain(state, pod) == {
        "scoringStrategy": "LeastAllocated",
        "filterRequests": {"cpu": 500, "memory": GI, "ephemeral-storage": 0, FOO: 1},
        "scoreRequests": {"cpu": 500, "memory": GI},
    }
