"""Status codes, extension-point interfaces and small result values.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/interface.go`` (now
``k8s.io/kube-scheduler/framework``). A rejected node is a ``Status`` value, never an
exception; bugs inside a plugin become ``Code.Error`` statuses (upstream ``AsStatus``).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from ..k8s.types import Pod, Scenario
    from .cycle_state import CycleState
    from .types import NodeInfo, PodInfo, QueuedPodInfo

# Score range (framework.MinNodeScore / MaxNodeScore).
MIN_NODE_SCORE = 0
MAX_NODE_SCORE = 100


class Code(enum.IntEnum):
    """framework.Code, same members and order as upstream."""

    Success = 0
    Error = 1
    Unschedulable = 2
    UnschedulableAndUnresolvable = 3
    Wait = 4
    Skip = 5
    Pending = 6


# The members the Status checks compare with, as module names: reading an Enum class's
# attribute costs about 0.1 us, and a cycle makes dozens of these checks.
_SUCCESS, _SKIP = Code.Success, Code.Skip
_REJECTED = (Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending)


@dataclass(frozen=True, slots=True)
class Status:
    """framework.Status: a code, its reasons and the plugin that produced it."""

    code: Code = Code.Success
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    def is_success(self) -> bool:
        return self.code == _SUCCESS

    def is_skip(self) -> bool:
        return self.code == _SKIP

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending (upstream IsRejected)."""
        return self.code in _REJECTED

    def message(self) -> str:
        """Reasons joined with ", " (upstream Status.Message)."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> "Status":
        return Status(self.code, self.reasons, plugin)

    def to_json(self) -> dict:
        """The ``filter`` command's per-node shape."""
        if self.code == Code.Success:
            return {"code": "Success"}
        return {"code": self.code.name, "plugin": self.plugin, "reasons": list(self.reasons)}


SUCCESS = Status()
SKIP = Status(Code.Skip)  # (a frozen value: shared, as SUCCESS is)


def new_status(code: Code, *reasons: str) -> Status:
    """framework.NewStatus."""
    return Status(code, tuple(reasons))


def as_status(err: BaseException) -> Status:
    """framework.AsStatus: an unexpected error as an Error status."""
    return Status(Code.Error, (f"{type(err).__name__}: {err}",))


@dataclass(slots=True)
class NodeScore:
    """framework.NodeScore; score is mutated in place by NormalizeScore."""

    name: str
    score: int


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """framework.PreFilterResult: node_names None means every node."""

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: "PreFilterResult | None") -> "PreFilterResult":
        if other is None or other.all_nodes():
            return self
        if self.all_nodes():
            return other
        return PreFilterResult(self.node_names & other.node_names)


@dataclass(frozen=True, slots=True)
class NominatingInfo:
    """framework.NominatingInfo: mode "Override" sets nominated_node_name, "Noop" keeps it."""

    nominated_node_name: str = ""
    mode: str = "Override"


@dataclass(frozen=True, slots=True)
class PostFilterResult:
    nominating_info: NominatingInfo | None = None


@dataclass
class Diagnosis:
    """framework.Diagnosis: per-node statuses of a failed cycle and the plugins involved."""

    node_to_status: dict[str, Status] = field(default_factory=dict)
    # status for nodes absent from node_to_status (upstream NodeToStatus.absentNodesStatus)
    absent_nodes_status: Status = Status(Code.UnschedulableAndUnresolvable)  # (frozen: shared)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""
    # Set by the columnar path, which counts per status, not per node: the reason ->
    # node count histogram over every node (node_to_status then holds only the
    # Unschedulable nodes), and those nodes' names in node order.
    reasons: dict[str, int] | None = None
    unschedulable_nodes: list[str] | None = None
    # and the lowest priority of the pods on each of those nodes (an int array in the same
    # order): preemption's dry runs then look only at nodes with a pod of lower priority
    unschedulable_lowest: Any = None


# --- Extension points -------------------------------------------------------------------
# Plugins subclass Plugin and implement the methods of the points they serve. A plugin's
# class attribute NAME is its registered name (plugins/names.py).


class Plugin:
    NAME = ""

    def name(self) -> str:
        return self.NAME


class PreEnqueuePlugin(Protocol):
    def pre_enqueue(self, pod: "Pod") -> Status: ...


class QueueSortPlugin(Protocol):
    def less(self, a: "QueuedPodInfo", b: "QueuedPodInfo") -> bool: ...


class PreFilterExtensions(Protocol):
    """Incremental updates of PreFilter state when preemption adds or removes a pod."""

    def add_pod(self, state: "CycleState", pod_to_schedule: "Pod",
                pod_info_to_add: "PodInfo", node_info: "NodeInfo") -> Status: ...

    def remove_pod(self, state: "CycleState", pod_to_schedule: "Pod",
                   pod_info_to_remove: "PodInfo", node_info: "NodeInfo") -> Status: ...


class PreFilterPlugin(Protocol):
    def pre_filter(self, state: "CycleState", pod: "Pod", nodes: Sequence["NodeInfo"]
                   ) -> tuple[PreFilterResult | None, Status]: ...

    def pre_filter_extensions(self) -> PreFilterExtensions | None: ...


class FilterPlugin(Protocol):
    def filter(self, state: "CycleState", pod: "Pod", node_info: "NodeInfo") -> Status: ...


class PostFilterPlugin(Protocol):
    def post_filter(self, state: "CycleState", pod: "Pod", diagnosis: Diagnosis
                    ) -> tuple[PostFilterResult | None, Status]: ...


class PreScorePlugin(Protocol):
    def pre_score(self, state: "CycleState", pod: "Pod", nodes: Sequence["NodeInfo"]
                  ) -> Status: ...


class ScoreExtensions(Protocol):
    def normalize_score(self, state: "CycleState", pod: "Pod",
                        scores: list[NodeScore]) -> Status: ...


class ScorePlugin(Protocol):
    def score(self, state: "CycleState", pod: "Pod", node_info: "NodeInfo"
              ) -> tuple[int, Status]: ...

    def score_extensions(self) -> ScoreExtensions | None: ...


class ReservePlugin(Protocol):
    def reserve(self, state: "CycleState", pod: "Pod", node_name: str) -> Status: ...

    def unreserve(self, state: "CycleState", pod: "Pod", node_name: str) -> None: ...


class BindPlugin(Protocol):
    def bind(self, state: "CycleState", pod: "Pod", node_name: str) -> Status: ...


class Handle(Protocol):
    """framework.Handle: what a plugin may reach besides its arguments.

    ``objects`` is the loaded Scenario (Services, workloads, PDBs, PriorityClasses; never
    read its pods or nodes during a cycle, use ``snapshot_shared_lister``). ``parallelism``
    is kept for parity and unused.
    """

    objects: "Scenario"

    def snapshot_shared_lister(self): ...  # -> framework.snapshot.Snapshot

    def run_filter_plugins_with_nominated_pods(self, state: "CycleState", pod: "Pod",
                                               node_info: "NodeInfo") -> Status: ...

    def run_pre_filter_extension_add_pod(self, state: "CycleState", pod_to_schedule: "Pod",
                                         pod_info_to_add: "PodInfo",
                                         node_info: "NodeInfo") -> Status: ...

    def run_pre_filter_extension_remove_pod(self, state: "CycleState", pod_to_schedule: "Pod",
                                            pod_info_to_remove: "PodInfo",
                                            node_info: "NodeInfo") -> Status: ...

    def run_pre_filter_extension_remove_pods(self, state: "CycleState", pod_to_schedule: "Pod",
                                             infos: "Sequence[PodInfo]",
                                             node_info: "NodeInfo") -> Status:
        """run_pre_filter_extension_remove_pod for each of infos in turn, up to the first
        failure."""
        ...

    def nominated_pods_for_node(self, node_name: str) -> list["PodInfo"]: ...

    def evict(self, victim: "Pod", preemptor: "Pod", node_name: str) -> None:
        """Record a Preempted event and remove the victim from the cluster (the simulated
        apiserver DELETE). Takes effect before the preemptor's next attempt."""
        ...
