"""NodeInfo accounting as the filters see it (framework/types.go NodeInfo.AddPod/RemovePod)."""
import dataclasses

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.types import NodeInfo, PodKind, new_pod_info
from scheduler_core.framework.interface import Code
from scheduler_core.k8s.types import Container, ContainerPort, LabelSelector
from scheduler_core.plugins.nodeports.node_ports import NodePorts
from tests.core.wrappers import make_node, make_pod, node_infos

SIDECAR = Container("proxy", restart_policy="Always", ports=(ContainerPort(8080, 8080),))
PLAIN_INIT = Container("setup", ports=(ContainerPort(8080, 8080),))


def _port_filter(bound, remove_after_add=False):
    ni = node_infos([make_node("n1").obj()], [bound])[0]
    if remove_after_add:
        ni.remove_pod(bound)
    pod = make_pod("p").host_port(8080).obj()
    state = CycleState()
    plugin = NodePorts(None, None)
    plugin.pre_filter(state, pod, [ni])
    return plugin.filter(state, pod, ni).code


@pytest.mark.parametrize("init,removed,want", [
    (SIDECAR, False, Code.Unschedulable),
    (PLAIN_INIT, False, Code.Success),
    (SIDECAR, True, Code.Success),
], ids=["a bound pod's sidecar host port is in use",
        "a finished init container's host port is free",
        "removing the pod frees its sidecar port"])
def test_sidecar_host_ports_are_used_ports(init, removed, want):
    bound = make_pod("b").node("n1").init_container(init).obj()
    assert _port_filter(bound, removed) == want


def test_remove_pod_restores_requested_resources():
    bound = make_pod("b").node("n1").req(cpu=500, memory=1024).obj()
    ni = node_infos([make_node("n1").obj()], [bound])[0]
    assert (ni.requested.milli_cpu, ni.requested.memory, len(ni.pods)) == (500, 1024, 1)
    assert ni.remove_pod(bound) is True
    assert (ni.requested.milli_cpu, ni.requested.memory, len(ni.pods)) == (0, 0, 0)
    assert ni.remove_pod(bound) is False


def _snapshot_of(ni):
    return ([p.pod.key for p in ni.pods], [p.pod.key for p in ni.pods_with_affinity],
            [p.pod.key for p in ni.pods_with_required_anti_affinity],
            ni.requested.milli_cpu, ni.requested.memory, ni.non_zero_requested.milli_cpu,
            ni.generation, ni.used_ports.ports)


@pytest.mark.parametrize("same_objects", [True, False], ids=["the node's own infos", "infos made again"])
@pytest.mark.parametrize("removed", [[0], [3, 1], [5, 0, 2], [1, 2, 3, 4], [5, 4, 3, 2, 1, 0], []],
                         ids=lambda r: f"remove {r}")
def test_removing_many_pods_at_once_leaves_what_removing_them_one_by_one_leaves(removed, same_objects):
    """Preemption takes every lower-priority pod off a node at once (remove_pod_infos): the node's
    pod lists, in their order, its requests and ports must be what remove_pod gives one by one."""
    sel = LabelSelector(match_labels={"app": "web"})
    pods = [make_pod(f"p{i}").node("n1").req(cpu=100 * (i + 1), memory=10 * i).host_port(8000 + i)
            .labels({"app": "web"}) for i in range(6)]
    pods[1] = pods[1].pod_affinity("zone", sel)
    pods[2] = pods[2].pod_anti_affinity("kubernetes.io/hostname", sel)
    pods[4] = pods[4].pod_anti_affinity("kubernetes.io/hostname", sel).pod_affinity("zone", sel)
    bound = [p.obj() for p in pods]
    one_by_one = node_infos([make_node("n1").obj()], bound)[0]
    at_once = one_by_one.clone()
    infos = [next(p for p in one_by_one.pods if p.pod.name == f"p{i}") for i in removed]
    if not same_objects:  # (found by their pods' keys, as remove_pod finds them)
        infos = [new_pod_info(pi.pod) for pi in infos]
    for pi in infos:
        assert one_by_one.remove_pod(pi.pod)
    assert at_once.remove_pod_infos(infos) is None
    assert _snapshot_of(at_once) == _snapshot_of(one_by_one)


def test_removing_a_pod_that_is_not_on_the_node_names_it():
    ni = node_infos([make_node("n1").obj()], [make_pod("b").node("n1").obj()])[0]
    other = node_infos([make_node("n2").obj()], [make_pod("x").node("n2").obj()])[0].pods[0]
    assert ni.remove_pod_infos([other]).pod.name == "x"
    assert [p.pod.name for p in ni.pods] == ["b"]


def _bound_pods(case):
    sel = LabelSelector(match_labels={"app": "web"})
    pods = [make_pod(f"p{i}").node("n1").labels({"app": "web"}) for i in range(5)]
    if case == "its own requests each":
        pods = [p.req(cpu=100 * (i + 1), memory=7 * i) for i, p in enumerate(pods)]
    elif case == "scalar resources and host ports":
        pods = [p.req(cpu=50, **{"example.com/gpu": i % 2 + 1}).host_port(9000 + i)
                for i, p in enumerate(pods)]
    elif case == "two priorities":
        pods = [p.req(cpu=100, memory=8).priority(1000 if i % 2 else -5) for i, p in enumerate(pods)]
    elif case == "pod affinity and anti-affinity":
        pods[1] = pods[1].pod_affinity("zone", sel)
        pods[3] = pods[3].pod_anti_affinity("kubernetes.io/hostname", sel)
        pods[4] = pods[4].pod_anti_affinity("kubernetes.io/hostname", sel).pod_affinity("zone", sel)
    infos = [new_pod_info(p.obj()) for p in pods]
    if case == "one requests mapping shared by a workload's pods":
        shared = new_pod_info(make_pod("w").req(cpu=300, memory=64).obj())
        infos = [dataclasses.replace(pi, requests=shared.requests,
                                     non_zero_requests=shared.non_zero_requests)
                 if i != 2 else pi for i, pi in enumerate(infos)]
    return infos


def _kinds_of(infos):
    """Each info's PodKind, one per distinct (requests, terms) objects as build_node_infos shares
    them, and the infos as those kinds make them."""
    kinds, out = {}, []
    for pi in infos:
        key = (id(pi.requests), id(pi.required_affinity_terms), id(pi.required_anti_affinity_terms),
               id(pi.preferred_affinity_terms), pi.pod.priority, id(pi.pod.containers))
        if key not in kinds:
            kinds[key] = PodKind(pi)
        out.append(kinds[key])
    return [k.info_for(pi.pod) for k, pi in zip(out, infos)], out


@pytest.mark.parametrize("case", [
    "its own requests each", "one requests mapping shared by a workload's pods",
    "scalar resources and host ports", "pod affinity and anti-affinity", "two priorities", "no pods"])
def test_adding_the_bound_pods_at_once_leaves_what_adding_them_one_by_one_leaves(case):
    """A run starts with every bound pod added to its node at once (add_pod_infos, told each pod's
    PodKind by build_node_infos): the lists, the sums (requests summed once per shared mapping),
    the ports, the lowest priority and the generation must be what add_pod_info gives pod by pod."""
    infos = [] if case == "no pods" else _bound_pods(case)
    one_by_one, at_once = NodeInfo(make_node("n1").obj()), NodeInfo(make_node("n1").obj())
    for pi in infos:
        one_by_one.add_pod_info(pi)
    at_once.lowest_pod_priority()  # (worked out before: adding pods must forget it)
    made, kinds = _kinds_of(infos)
    assert [dataclasses.astuple(pi) for pi in made] == [dataclasses.astuple(pi) for pi in infos]
    at_once.add_pod_infos(made, kinds)
    assert _snapshot_of(at_once) + (at_once.requested.scalar_resources,
                                    at_once.non_zero_requested.memory) == \
        _snapshot_of(one_by_one) + (one_by_one.requested.scalar_resources,
                                    one_by_one.non_zero_requested.memory)
    assert at_once.lowest_pod_priority() == one_by_one.lowest_pod_priority()
