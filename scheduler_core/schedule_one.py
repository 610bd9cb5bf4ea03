"""One scheduling cycle: filter, score, select a host.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/schedule_one.go``: schedulePod,
findNodesThatFitPod (with the KEP-1923 nominated-node fast path), findNodesThatPassFilters
(numFeasibleNodesToFind and the rotating nextStartNodeIndex), prioritizeNodes and
selectHost (ties broken by one draw of the caller's seeded generator).
Filters run sequentially, i.e. as upstream does with parallelism 1.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from .framework.cycle_state import CycleState
from .framework.fit_error import ERR_NO_NODES_AVAILABLE, FitError
from .framework.interface import Code, Diagnosis, Status
from .framework.runtime import Framework, NodePluginScores
from .framework.snapshot import Snapshot
from .framework.types import NodeInfo
from .k8s.types import Pod

# schedule_one.go
MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


class SchedulingError(Exception):
    """A cycle that failed with an Error status (not a FitError)."""

    def __init__(self, status: Status) -> None:
        self.status = status
        super().__init__(status.message())


@dataclass
class CycleRecord:
    """What one cycle saw, for the trace: per node filter verdicts and scores."""

    nominated_node_tried: str = ""
    nominated_node_fit: bool | None = None
    nodes_evaluated: int = 0
    filter: dict[str, Status] = field(default_factory=dict)
    scores: dict[str, NodePluginScores] = field(default_factory=dict)


@dataclass
class ScheduleResult:
    """ScheduleResult (schedule_one.go): the chosen node and how many nodes were looked at."""

    suggested_host: str
    evaluated_nodes: int
    feasible_nodes: int


def num_feasible_nodes_to_find(percentage: int | None, num_all_nodes: int) -> int:
    """numFeasibleNodesToFind: all nodes below 100; else the (adaptive) percentage,
    at least 100 nodes. percentage None or 0 means adaptive: 50 - n/125, floor 5."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = percentage or 0
    if pct == 0:
        pct = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    num = num_all_nodes * pct // 100
    return max(num, MIN_FEASIBLE_NODES_TO_FIND)


class Scheduler:
    """The state kube-scheduler keeps across cycles: nextStartNodeIndex, the global
    percentageOfNodesToScore and the tie-breaking generator."""

    def __init__(self, percentage_of_nodes_to_score: int | None = None,
                 rng: random.Random | None = None) -> None:
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.next_start_node_index = 0
        self.rng = rng or random.Random(0)

    def schedule_pod(self, fwk: Framework, state: CycleState, pod: Pod, snapshot: Snapshot,
                     record: CycleRecord | None = None) -> ScheduleResult:
        """schedulePod: raises FitError (no feasible node) or SchedulingError."""
        record = record if record is not None else CycleRecord()
        fwk.set_snapshot(snapshot)
        if snapshot.num_nodes() == 0:
            raise SchedulingError(Status(Code.Error, (ERR_NO_NODES_AVAILABLE,)))
        feasible, diagnosis = self.find_nodes_that_fit_pod(fwk, state, pod, snapshot, record)
        record.nodes_evaluated = len(feasible) + len(diagnosis.node_to_status)
        if not feasible:
            raise FitError(pod, snapshot.num_nodes(), diagnosis)
        if len(feasible) == 1:
            return ScheduleResult(feasible[0].name, 1 + len(diagnosis.node_to_status), 1)
        scores = self.prioritize_nodes(fwk, state, pod, feasible, record)
        host = self.select_host(scores)
        return ScheduleResult(host, len(feasible) + len(diagnosis.node_to_status), len(feasible))

    def find_nodes_that_fit_pod(self, fwk: Framework, state: CycleState, pod: Pod,
                                snapshot: Snapshot, record: CycleRecord
                                ) -> tuple[list[NodeInfo], Diagnosis]:
        """findNodesThatFitPod: PreFilter, the nominated node first, then the rest."""
        diagnosis = Diagnosis()
        all_nodes = snapshot.list()
        pre_res, unsched_plugins, rejected = run_pre_filter_step(fwk, state, pod, diagnosis)
        if rejected is not None:
            for ni in all_nodes:
                record.filter[ni.name] = rejected
            return [], diagnosis
        if pod.nominated_node_name:
            feasible = self._evaluate_nominated_node(fwk, state, pod, snapshot, diagnosis, record)
            if feasible:
                return feasible, diagnosis
        nodes = all_nodes
        if pre_res is not None and not pre_res.all_nodes():
            nodes = [snapshot.node_info_map[n] for n in _ordered(pre_res.node_names, snapshot)]
            absent = diagnosis.absent_nodes_status = absent_status(unsched_plugins)
            for ni in all_nodes:
                if ni.name not in pre_res.node_names:
                    record.filter[ni.name] = absent
        feasible = self.find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes, record)
        processed = len(feasible) + len(diagnosis.node_to_status)
        self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        return feasible, diagnosis

    def _evaluate_nominated_node(self, fwk: Framework, state: CycleState, pod: Pod,
                                 snapshot: Snapshot, diagnosis: Diagnosis,
                                 record: CycleRecord) -> list[NodeInfo]:
        """evaluateNominatedNode (KEP-1923 PreferNominatedNode)."""
        record.nominated_node_tried = pod.nominated_node_name
        ni = snapshot.node_info_map.get(pod.nominated_node_name)
        if ni is None:
            record.nominated_node_fit = False
            return []
        feasible = self.find_nodes_that_pass_filters(fwk, state, pod, diagnosis, [ni], record)
        record.nominated_node_fit = bool(feasible)
        return feasible

    def find_nodes_that_pass_filters(self, fwk: Framework, state: CycleState, pod: Pod,
                                     diagnosis: Diagnosis, nodes: list[NodeInfo],
                                     record: CycleRecord) -> list[NodeInfo]:
        """findNodesThatPassFilters: from nextStartNodeIndex until enough are feasible."""
        n = len(nodes)
        to_find = num_feasible_nodes_to_find(self._percentage(fwk), n)
        if not fwk.has_score_plugins():
            to_find = 1
        if not fwk.has_filter_plugins():
            return [nodes[(self.next_start_node_index + i) % n] for i in range(min(to_find, n))]
        feasible: list[NodeInfo] = []
        for i in range(n):
            ni = nodes[(self.next_start_node_index + i) % n]
            st = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
            record.filter[ni.name] = st
            if st.code == Code.Error:
                raise SchedulingError(st)
            if st.is_success():
                feasible.append(ni)
                if len(feasible) >= to_find:
                    break
            else:
                diagnosis.node_to_status[ni.name] = st
                _add_plugin_status(diagnosis, st)
        return feasible

    def _percentage(self, fwk: Framework) -> int | None:
        pct = fwk.percentage_of_nodes_to_score()
        return pct if pct is not None else self.percentage_of_nodes_to_score

    def prioritize_nodes(self, fwk: Framework, state: CycleState, pod: Pod,
                         nodes: list[NodeInfo], record: CycleRecord) -> list[NodePluginScores]:
        """prioritizeNodes: without score plugins every node scores 1."""
        if not fwk.has_score_plugins():
            return [NodePluginScores(ni.name, {}, 1) for ni in nodes]
        st = fwk.run_pre_score_plugins(state, pod, nodes)
        if not st.is_success():
            raise SchedulingError(st)
        scores, st = fwk.run_score_plugins(state, pod, nodes)
        if not st.is_success():
            raise SchedulingError(st)
        for s in scores:
            record.scores[s.name] = s
        return scores

    def select_host(self, scores: list[NodePluginScores]) -> str:
        """selectHost: the highest total. Upstream breaks ties by reservoir sampling over
        the scored nodes; here one draw of the seeded generator picks among the tied nodes
        (in evaluation order), the same uniform choice with one draw per cycle."""
        best = max(s.total for s in scores)
        ties = [s for s in scores if s.total == best]
        return ties[self.draw(len(ties))].name

    def draw(self, ties: int) -> int:
        """Which of ``ties`` tied nodes selectHost takes: no draw for a single one (both
        cycles call this, so they consume the generator alike)."""
        return 0 if ties == 1 else self.rng.randrange(ties)


def run_pre_filter_step(fwk, state: CycleState, pod: Pod, diagnosis: Diagnosis):
    """findNodesThatFitPod's PreFilter step, shared by both cycles: (PreFilterResult, the
    plugins that rejected, the rejecting Status or None). A rejection is recorded in the
    diagnosis (it applies to every node); any other failure raises SchedulingError."""
    pre_res, s, unsched = fwk.run_pre_filter_plugins(state, pod)
    diagnosis.unschedulable_plugins = set(unsched)
    if s.is_success():
        return pre_res, unsched, None
    if not s.is_rejected():
        raise SchedulingError(s)
    diagnosis.absent_nodes_status = s
    diagnosis.pre_filter_msg = s.message()
    _add_plugin_status(diagnosis, s)
    return pre_res, unsched, s


def absent_status(unsched_plugins) -> Status:
    """The status of the nodes a PreFilterResult leaves out."""
    return Status(Code.UnschedulableAndUnresolvable, (
        f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(unsched_plugins))}]",))


def _add_plugin_status(d: Diagnosis, st: Status) -> None:
    """Diagnosis.AddPluginStatus."""
    if not st.plugin:
        return
    if st.is_rejected():
        d.unschedulable_plugins.add(st.plugin)
    if st.code == Code.Pending:
        d.pending_plugins.add(st.plugin)


def _ordered(names, snapshot: Snapshot) -> list[str]:
    """PreFilterResult node names in snapshot order (upstream iterates a set)."""
    return [ni.name for ni in snapshot.list() if ni.name in names]
