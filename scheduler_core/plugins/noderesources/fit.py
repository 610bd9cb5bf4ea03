"""NodeResourcesFit plugin.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/noderesources/fit.go``.
Filter reports every insufficient resource in upstream order (pods, cpu, memory,
ephemeral-storage, then scalar resources; Go ranges over a map there, we sort by name).
The status is Unschedulable, or UnschedulableAndUnresolvable when some request exceeds
the node's whole allocatable (preemption cannot help).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...config_args import (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO,
                            NodeResourcesFitArgs)
from ...framework.cycle_state import CycleState
from ...framework.interface import SUCCESS, Code, PreFilterResult, Plugin, Status, new_status
from ...framework.types import NodeInfo, Resource
from ...k8s.types import CPU, EPHEMERAL_STORAGE, MEMORY, Pod
from ..names import NODE_RESOURCES_FIT
from .least_allocated import least_resource_scorer
from .most_allocated import most_resource_scorer
from .requested_to_capacity_ratio import requested_to_capacity_ratio_scorer
from .resource_allocation import (ResourceAllocationScorer, is_extended_resource_name,
                                  is_scalar_resource_name, score_all_from_state)

PRE_FILTER_STATE_KEY = "PreFilter" + NODE_RESOURCES_FIT
PRE_SCORE_STATE_KEY = "PreScore" + NODE_RESOURCES_FIT

# fit.go fitsRequest reasons (v1.34); scalar resources use "Insufficient <name>"
ERR_REASON_TOO_MANY_PODS = "Too many pods"
ERR_REASON_INSUFFICIENT = "Insufficient {}"


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    """fit.InsufficientResource: what was short on the node, and whether it can ever fit."""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    request: Resource  # computePodResourceRequest: cpu/memory/ephemeral and scalar requests

    def clone(self) -> "_PreFilterState":
        return self


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    pod_requests: tuple[int, ...]  # one entry per scoring-strategy resource, same order


def compute_pod_resource_request(pod: Pod) -> Resource:
    """computePodResourceRequest: Resource.SetMaxResource of PodRequests (scalars only)."""
    r = Resource()
    for name, v in pod.requests.items():
        if name == CPU:
            r.milli_cpu = v
        elif name == MEMORY:
            r.memory = v
        elif name == EPHEMERAL_STORAGE:
            r.ephemeral_storage = v
        elif is_scalar_resource_name(name):
            r.scalar_resources[name] = v
    return r


def _ignored(name: str, ignored: frozenset[str], ignored_groups: frozenset[str]) -> bool:
    """An extended resource listed in ignoredResources, or whose domain (the part before
    "/") is listed in ignoredResourceGroups."""
    if not is_extended_resource_name(name):
        return False
    return name in ignored or name.split("/")[0] in ignored_groups


def _check(name: str, want: int, used: int, cap: int) -> InsufficientResource | None:
    if want > 0 and want > cap - used:
        return InsufficientResource(name, ERR_REASON_INSUFFICIENT.format(name), want, used, cap,
                                    want > cap)
    return None


def fits_request(req: Resource, node_info: NodeInfo, ignored: frozenset[str] = frozenset(),
                 ignored_groups: frozenset[str] = frozenset()) -> list[InsufficientResource]:
    """fitsRequest: every resource the node cannot give the pod, in upstream order."""
    return insufficient(req, node_info.allocatable, node_info.requested, len(node_info.pods),
                        ignored, ignored_groups)


def insufficient(req: Resource, alloc: Resource, used: Resource, n_pods: int,
                 ignored: frozenset[str] = frozenset(),
                 ignored_groups: frozenset[str] = frozenset()) -> list[InsufficientResource]:
    """fits_request for a node of allocatable alloc holding n_pods pods that request used."""
    out: list[InsufficientResource] = []
    if n_pods + 1 > alloc.allowed_pod_number:
        out.append(InsufficientResource("pods", ERR_REASON_TOO_MANY_PODS, 1, n_pods,
                                        alloc.allowed_pod_number))
    if not (req.milli_cpu or req.memory or req.ephemeral_storage or req.scalar_resources):
        return out
    for name, want, u, cap in ((CPU, req.milli_cpu, used.milli_cpu, alloc.milli_cpu),
                               (MEMORY, req.memory, used.memory, alloc.memory),
                               (EPHEMERAL_STORAGE, req.ephemeral_storage, used.ephemeral_storage,
                                alloc.ephemeral_storage)):
        ir = _check(name, want, u, cap)
        if ir is not None:
            out.append(ir)
    for name in sorted(req.scalar_resources):
        want = req.scalar_resources[name]
        if want == 0 or _ignored(name, ignored, ignored_groups):
            continue
        ir = _check(name, want, used.scalar_resources.get(name, 0),
                    alloc.scalar_resources.get(name, 0))
        if ir is not None:
            out.append(ir)
    return out


def _status(short: list[InsufficientResource]) -> Status:
    """Filter's status from the resources a node cannot give: every one a reason, unresolvable when
    one is above the node's whole allocatable."""
    if not short:
        return SUCCESS
    code = Code.UnschedulableAndUnresolvable if any(i.unresolvable for i in short) \
        else Code.Unschedulable
    return new_status(code, *(i.reason for i in short))


def fits(pod: Pod, node_info: NodeInfo) -> list[InsufficientResource]:
    """fit.Fits: fitsRequest for a pod with nothing ignored."""
    return fits_request(compute_pod_resource_request(pod), node_info)


def new_scorer(args: NodeResourcesFitArgs) -> ResourceAllocationScorer:
    """nodeResourceStrategyTypeMap: the scorer for the configured strategy."""
    st = args.scoring_strategy
    res = tuple(st.resources)
    if st.type == LEAST_ALLOCATED:
        fn = least_resource_scorer(res)
    elif st.type == MOST_ALLOCATED:
        fn = most_resource_scorer(res)
    elif st.type == REQUESTED_TO_CAPACITY_RATIO:
        if not st.shape:  # ValidateNodeResourcesFitArgs: shape is required
            raise ValueError("scoringStrategy.requestedToCapacityRatio.shape: Required value")
        fn = requested_to_capacity_ratio_scorer(res, st.shape)
    else:
        raise ValueError(f"scoring strategy {st.type} is not supported")
    return ResourceAllocationScorer(st.type, fn, res, use_requested=False)


class Fit(Plugin):
    """noderesources.Fit (NodeResourcesFit)."""

    NAME = NODE_RESOURCES_FIT

    def __init__(self, args: NodeResourcesFitArgs | None, handle=None) -> None:
        args = args if args is not None else NodeResourcesFitArgs()
        self.handle = handle
        self.ignored_resources = frozenset(args.ignored_resources)
        self.ignored_resource_groups = frozenset(args.ignored_resource_groups)
        self.scorer = new_scorer(args)

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status]:
        """PreFilter: the pod's requests, once."""
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(compute_pod_resource_request(pod)))
        return None, SUCCESS

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter: all insufficient resources as reasons of one status."""
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return new_status(Code.Error, f'error reading "{PRE_FILTER_STATE_KEY}" from '
                                          "cycleState: not found")
        return _status(fits_request(s.request, node_info, self.ignored_resources,
                                    self.ignored_resource_groups))

    def status_of(self, state: CycleState, alloc: Resource, used: Resource, n_pods: int) -> Status:
        """Filter's status for a node of allocatable alloc holding n_pods pods that request used
        (preemption asks it of a node without its pods of lower priority, without a NodeInfo of it)."""
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return new_status(Code.Error, f'error reading "{PRE_FILTER_STATE_KEY}" from '
                                          "cycleState: not found")
        return _status(insufficient(s.request, alloc, used, n_pods, self.ignored_resources,
                                    self.ignored_resource_groups))

    def passes(self, state: CycleState, alloc: Resource, used: Resource, n_pods: int) -> bool:
        """Whether Filter passes a node of allocatable alloc holding n_pods pods that request
        used (preemption's reprieve asks it as it puts pods back, without a NodeInfo)."""
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return False  # (Filter's Error)
        return not insufficient(s.request, alloc, used, n_pods, self.ignored_resources,
                                self.ignored_resource_groups)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """PreScore: the pod's (non-zero) request per scoring resource."""
        state.write(PRE_SCORE_STATE_KEY,
                    _PreScoreState(self.scorer.calculate_pod_resource_request_list(pod)))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        """Score: the configured strategy, 0..100."""
        try:
            reqs = state.read(PRE_SCORE_STATE_KEY).pod_requests
        except KeyError:
            reqs = self.scorer.calculate_pod_resource_request_list(pod)
        return self.scorer.score(node_info, reqs)

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                    ) -> list[int] | None:
        """Score for all nodes at once (fast path); None: use the per-node Score."""
        return score_all_from_state(state, PRE_SCORE_STATE_KEY, self.scorer, nodes)

    def score_extensions(self) -> None:
        return None

    def explain(self, state: CycleState, pod: Pod) -> dict | None:
        """The pod's requests as Filter and Score saw them."""
        out: dict = {"scoringStrategy": self.scorer.name}
        try:
            r = state.read(PRE_FILTER_STATE_KEY).request
            out["filterRequests"] = {CPU: r.milli_cpu, MEMORY: r.memory,
                                     EPHEMERAL_STORAGE: r.ephemeral_storage,
                                     **r.scalar_resources}
        except KeyError:
            pass
        try:
            reqs = state.read(PRE_SCORE_STATE_KEY).pod_requests
            out["scoreRequests"] = {r.name: v for r, v in zip(self.scorer.resources, reqs)}
        except KeyError:
            pass
        return out
