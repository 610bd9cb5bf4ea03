"""Typed plugin args (kube-scheduler v1.34 pkg/scheduler/apis/config/types_pluginargs.go).

Defaults are written out here, each with the upstream default it mirrors
(pkg/scheduler/apis/config/v1/defaults.go). ``config.py`` parses a
KubeSchedulerConfiguration's pluginConfig into these.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .k8s.types import (LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE, SCHEDULE_ANYWAY,
                        TopologySpreadConstraint)

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    name: str
    weight: int = 1


@dataclass(frozen=True, slots=True)
class UtilizationShapePoint:
    utilization: int  # 0..100
    score: int  # 0..10 (MaxCustomPriorityScore)


@dataclass(frozen=True, slots=True)
class ScoringStrategy:
    type: str = LEAST_ALLOCATED  # upstream default LeastAllocated
    resources: tuple[ResourceSpec, ...] = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
    shape: tuple[UtilizationShapePoint, ...] = ()  # RequestedToCapacityRatio only


@dataclass(frozen=True, slots=True)
class NodeResourcesFitArgs:
    ignored_resources: tuple[str, ...] = ()
    ignored_resource_groups: tuple[str, ...] = ()
    scoring_strategy: ScoringStrategy = field(default_factory=ScoringStrategy)


@dataclass(frozen=True, slots=True)
class NodeResourcesBalancedAllocationArgs:
    resources: tuple[ResourceSpec, ...] = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


@dataclass(frozen=True, slots=True)
class InterPodAffinityArgs:
    hard_pod_affinity_weight: int = 1  # upstream default 1 (range 0..100)
    ignore_preferred_terms_of_existing_pods: bool = False


# pkg/scheduler/framework/plugins/podtopologyspread/plugin.go systemDefaultConstraints
SYSTEM_DEFAULT_CONSTRAINTS = (
    TopologySpreadConstraint(max_skew=3, topology_key=LABEL_HOSTNAME,
                             when_unsatisfiable=SCHEDULE_ANYWAY),
    TopologySpreadConstraint(max_skew=5, topology_key=LABEL_TOPOLOGY_ZONE,
                             when_unsatisfiable=SCHEDULE_ANYWAY),
)


@dataclass(frozen=True, slots=True)
class PodTopologySpreadArgs:
    default_constraints: tuple[TopologySpreadConstraint, ...] = ()
    defaulting_type: str = SYSTEM_DEFAULTING  # upstream default System


@dataclass(frozen=True, slots=True)
class NodeAffinityArgs:
    added_affinity: object | None = None  # k8s.types.NodeAffinity


@dataclass(frozen=True, slots=True)
class DefaultPreemptionArgs:
    min_candidate_nodes_percentage: int = 10  # upstream default 10
    min_candidate_nodes_absolute: int = 100  # upstream default 100
