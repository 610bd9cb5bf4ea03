"""The PodTopologySpread plugin: spreads pods over topology domains.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/podtopologyspread/plugin.go``
(New, systemDefaultConstraints) and the extension-point methods of ``filtering.go`` and
``scoring.go``; the computations live in ``filtering``/``scoring``, shared ones in
``common``, the dashboard's explanation in ``explain``.
"""
from __future__ import annotations

from typing import Sequence

from ...config_args import SYSTEM_DEFAULT_CONSTRAINTS, SYSTEM_DEFAULTING, PodTopologySpreadArgs
from ...framework.cycle_state import CycleState
from ...framework.interface import (SKIP, SUCCESS, Code, NodeScore, Plugin, PreFilterResult, Status,
                                    as_status)
from ...framework.types import NodeInfo, PodInfo
from ...k8s.types import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY, Pod
from .. import names
from . import explain as explain_mod
from .common import Constraint, build_default_constraints, filter_topology_spread_constraints
from .domain_cache import DomainCountCache
from .filtering import (ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH,
                        PreFilterState, cal_pre_filter_state, filter_node, filter_node_without,
                        update_with_pod)
from .scoring import (PreScoreState, count_all_nodes, init_pre_score_state, normalize_scores,
                      raw_score)

__all__ = ["PodTopologySpread", "ERR_REASON_CONSTRAINTS_NOT_MATCH",
           "ERR_REASON_NODE_LABEL_NOT_MATCH"]

PRE_FILTER_STATE_KEY = "PreFilter" + names.POD_TOPOLOGY_SPREAD
PRE_SCORE_STATE_KEY = "PreScore" + names.POD_TOPOLOGY_SPREAD


class PodTopologySpread(Plugin):
    """PodTopologySpread (plugin.go): PreFilter/Filter for DoNotSchedule constraints,
    PreScore/Score/NormalizeScore for ScheduleAnyway ones, cluster defaults otherwise."""

    NAME = names.POD_TOPOLOGY_SPREAD

    def __init__(self, args: PodTopologySpreadArgs | None, handle) -> None:
        args = args if args is not None else PodTopologySpreadArgs()
        self.handle = handle
        # fast path: domain counts kept across cycles (None: recount every cycle)
        fast = getattr(handle, "fast", False)
        self.filter_counts = DomainCountCache() if fast else None
        self.score_counts = DomainCountCache() if fast else None
        self.default_constraints = tuple(args.default_constraints)
        self.system_defaulted = args.defaulting_type == SYSTEM_DEFAULTING
        if self.system_defaulted:
            self.default_constraints = SYSTEM_DEFAULT_CONSTRAINTS

    # --- constraints -------------------------------------------------------------------

    def get_constraints(self, pod: Pod, action: str) -> list[Constraint]:
        """getConstraints / initPreScoreState: the pod's own constraints for action, or the
        cluster defaults when the pod has none."""
        if pod.topology_spread_constraints:
            return filter_topology_spread_constraints(
                pod.topology_spread_constraints, pod.labels, action)
        objects = getattr(self.handle, "objects", None)
        return build_default_constraints(
            self.default_constraints, pod, getattr(objects, "services", ()),
            getattr(objects, "workloads", ()), action)

    # --- PreFilter / Filter --------------------------------------------------------------

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status]:
        """PreFilter: count matching pods per domain; Skip without hard constraints."""
        try:
            s = cal_pre_filter_state(pod, self.get_constraints(pod, DO_NOT_SCHEDULE), nodes,
                                     self.filter_counts)
        except Exception as e:  # a bug, reported the way AsStatus does
            return None, as_status(e)
        if not s.constraints:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, SUCCESS

    def pre_filter_extensions(self) -> "PodTopologySpread":
        return self

    def _pre_filter_state(self, state: CycleState) -> PreFilterState:
        """getPreFilterState; KeyError carries upstream's error text."""
        try:
            return state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            msg = f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found'
            raise KeyError(msg) from None

    @staticmethod
    def _pre_score_state(state: CycleState) -> PreScoreState:
        """getPreScoreState; KeyError carries upstream's error text."""
        try:
            return state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            msg = f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found'
            raise KeyError(msg) from None

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status:
        """AddPod: count a pod preemption puts back on node_info."""
        return self._update(state, pod_to_schedule, pod_info_to_add, node_info, 1)

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status:
        """RemovePod: uncount a victim preemption removes from node_info."""
        return self._update(state, pod_to_schedule, pod_info_to_remove, node_info, -1)

    def _update(self, state: CycleState, pod: Pod, pi: PodInfo, node_info: NodeInfo,
                delta: int) -> Status:
        try:
            s = self._pre_filter_state(state)
        except KeyError as e:
            return _error(e)
        update_with_pod(s, pi.pod, pod, node_info.node, delta)
        return SUCCESS

    def filter_without_pods(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                            removed: Sequence[PodInfo], memo: dict) -> Status | None:
        """Filter as it would answer once RemovePod had taken each of removed off node_info
        (node_info is the node without them already), the state left as it is; None without
        the PreFilter state (the real RemovePod then says what is wrong)."""
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return None
        if not s.constraints:
            return SUCCESS
        return filter_node_without(s, pod, node_info.node, removed, memo)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter: check each hard constraint's skew on this node's domain, in order."""
        try:
            s = self._pre_filter_state(state)
        except KeyError as e:
            return _error(e)
        if not s.constraints:
            return SUCCESS
        return filter_node(s, pod, node_info.node)

    # --- PreScore / Score / NormalizeScore -----------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """PreScore: count matching pods over all nodes for the filtered nodes' domains."""
        all_nodes = self.handle.snapshot_shared_lister().list()
        if not all_nodes:
            return SKIP
        s = PreScoreState(self.get_constraints(pod, SCHEDULE_ANYWAY))
        if not s.constraints:
            return SKIP
        # Only non-system-default spreading requires every topology key on a node, so
        # nodes without a zone label still get hostname spreading.
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        init_pre_score_state(s, nodes, require_all)
        count_all_nodes(s, pod, all_nodes, require_all, self.score_counts)
        state.write(PRE_SCORE_STATE_KEY, s)
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        """Score: the node's weighted matching counts (lower is better before normalizing)."""
        try:
            s = self._pre_score_state(state)
        except KeyError as e:
            return 0, _error(e)
        return raw_score(s, pod, node_info), SUCCESS

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                    ) -> list[int] | None:
        """Score for all nodes at once (fast path); None: use the per-node Score."""
        try:
            s = self._pre_score_state(state)
        except KeyError:
            return None
        return [raw_score(s, pod, ni) for ni in nodes]

    def score_extensions(self) -> "PodTopologySpread":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        """NormalizeScore: fewer matching pods -> higher score, ignored nodes 0."""
        try:
            s = self._pre_score_state(state)
        except KeyError as e:
            return _error(e)
        normalize_scores(s, scores)
        return SUCCESS

    # --- dashboard -----------------------------------------------------------------------

    def explain(self, state: CycleState, pod: Pod) -> dict | None:
        """What the cycle's states say: per constraint the domains, counts and skews."""
        pre_filter = _read(state, PRE_FILTER_STATE_KEY)
        pre_score = _read(state, PRE_SCORE_STATE_KEY)
        if pre_filter is None and pre_score is None:
            return None
        nodes = [ni.node for ni in self.handle.snapshot_shared_lister().list() if ni.node]
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        return explain_mod.explain(pre_filter, pre_score, pod, nodes, require_all)


def _error(e: KeyError) -> Status:
    """fwk.AsStatus of a missing-state error, with upstream's message."""
    return Status(Code.Error, (e.args[0],))


def _read(state: CycleState, key: str):
    try:
        return state.read(key)
    except KeyError:
        return None
