"""The shared scorer of NodeResourcesFit and NodeResourcesBalancedAllocation.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/noderesources/
resource_allocation.go``: per configured resource, the node's allocatable and the
requested amount after adding the pod, handed to a strategy function. ``use_requested``
False (Fit) counts cpu/memory with the non-zero defaults (100m / 200Mi for containers
that omit them, NodeInfo.non_zero_requested); True (BalancedAllocation) counts the real
requests. Resource names follow ``pkg/apis/core/v1/helper`` (IsScalarResourceName...).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from ...config_args import ResourceSpec
from ...framework.interface import SUCCESS, Code, Status, new_status
from ...framework.types import NodeInfo
from ...k8s.resource import NON_ZERO_DEFAULTS, pod_requests
from ...k8s.types import CPU, EPHEMERAL_STORAGE, MEMORY, Pod

# func(requested, allocatable) -> score, one entry per configured resource
Scorer = Callable[[Sequence[int], Sequence[int]], int]


def is_native_resource(name: str) -> bool:
    """IsNativeResource: no domain, or a kubernetes.io domain."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource_name(name: str) -> bool:
    """IsExtendedResourceName: a domain-prefixed name outside kubernetes.io, not requests.*."""
    return not is_native_resource(name) and not name.startswith("requests.")


def is_scalar_resource_name(name: str) -> bool:
    """IsScalarResourceName: extended, hugepages-*, kubernetes.io/* or attachable-volumes-*."""
    return (is_extended_resource_name(name) or name.startswith("hugepages-")
            or "kubernetes.io/" in name or name.startswith("attachable-volumes-"))


@dataclass(frozen=True, slots=True)
class ResourceAllocationScorer:
    """resourceAllocationScorer: name, strategy function, resources and weights."""

    name: str
    scorer: Scorer
    resources: tuple[ResourceSpec, ...]
    use_requested: bool = False

    def pod_requests(self, pod: Pod) -> Mapping[str, int]:
        """resourcehelper.PodRequests, with the non-zero defaults unless use_requested."""
        if self.use_requested:
            return pod.requests
        return pod_requests(pod.containers, pod.init_containers, pod.overhead, NON_ZERO_DEFAULTS)

    def calculate_pod_resource_request_list(self, pod: Pod) -> tuple[int, ...]:
        """calculatePodResourceRequestList: the pod's request per configured resource."""
        reqs = self.pod_requests(pod)
        return tuple(reqs.get(r.name, 0) for r in self.resources)

    @staticmethod
    def is_best_effort_pod(pod_requests: Sequence[int]) -> bool:
        """isBestEffortPod: the pod requests none of the configured resources."""
        return all(r == 0 for r in pod_requests)

    def calculate_resource_allocatable_request(self, node_info: NodeInfo, resource: str,
                                               pod_request: int) -> tuple[int, int]:
        """calculateResourceAllocatableRequest: (allocatable, requested incl. the pod).

        (0, 0) for a scalar resource the pod does not request, or one the node lacks.
        """
        requested = node_info.requested if self.use_requested else node_info.non_zero_requested
        if pod_request == 0 and is_scalar_resource_name(resource):
            return 0, 0
        alloc = node_info.allocatable
        if resource == CPU:
            return alloc.milli_cpu, requested.milli_cpu + pod_request
        if resource == MEMORY:
            return alloc.memory, requested.memory + pod_request
        if resource == EPHEMERAL_STORAGE:
            return alloc.ephemeral_storage, node_info.requested.ephemeral_storage + pod_request
        if resource in alloc.scalar_resources:
            return (alloc.scalar_resources[resource],
                    node_info.requested.scalar_resources.get(resource, 0) + pod_request)
        return 0, 0

    def score(self, node_info: NodeInfo, pod_requests: Sequence[int]) -> tuple[int, Status]:
        """resourceAllocationScorer.score: gather (requested, allocatable) and apply the scorer."""
        if not self.resources:
            return 0, new_status(Code.Error, "resources not found")
        n = len(self.resources)
        requested, allocatable = [0] * n, [0] * n
        for i, r in enumerate(self.resources):
            alloc, req = self.calculate_resource_allocatable_request(node_info, r.name,
                                                                     pod_requests[i])
            if alloc == 0:
                continue
            allocatable[i], requested[i] = alloc, req
        return self.scorer(requested, allocatable), SUCCESS

    def score_all(self, nodes: Sequence[NodeInfo], pod_requests: Sequence[int]
                  ) -> list[int] | None:
        """score over many nodes (the fast path's batch Score); None when one node's
        score is not a success (the caller then takes the per-node path for the error)."""
        out = []
        score = self.score
        for ni in nodes:
            value, st = score(ni, pod_requests)
            if st.code:
                return None
            out.append(value)
        return out


def score_all_from_state(state, key: str, scorer: "ResourceAllocationScorer",
                         nodes) -> list[int] | None:
    """Batch Score from the pod requests PreScore stored under key; None when PreScore
    did not run (the caller then scores node by node, as upstream does)."""
    try:
        reqs = state.read(key).pod_requests
    except KeyError:
        return None
    return scorer.score_all(nodes, reqs)
