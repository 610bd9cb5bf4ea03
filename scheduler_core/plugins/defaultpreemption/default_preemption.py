"""DefaultPreemption: the PostFilter plugin that preempts lower-priority pods.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/defaultpreemption/
default_preemption.go`` (PostFilter, calculateNumCandidates, GetOffsetAndNumCandidates,
SelectVictimsOnNode, PodEligibleToPreemptOthers). The random offset of the candidate
search comes from ``handle.rng`` (a seeded ``random.Random``) when the handle has one,
else it is 0. "Terminating by preemption" (podTerminatingByPreemption) is a deletionTimestamp
and a DisruptionTarget condition that is True with reason PreemptionByScheduler.
"""
from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any, Sequence

from ...config_args import DefaultPreemptionArgs
from ...framework.interface import SUCCESS, Code, Diagnosis, Plugin, PostFilterResult, Status, new_status
from ...framework.types import NodeInfo, PodInfo, pod_used_ports
from ...k8s.types import PREEMPT_NEVER, Pod
from ..names import (DEFAULT_PREEMPTION, NODE_AFFINITY, NODE_NAME, NODE_PORTS, NODE_RESOURCES_FIT,
                     NODE_UNSCHEDULABLE, NODE_VOLUME_LIMITS, POD_TOPOLOGY_SPREAD, TAINT_TOLERATION,
                     VOLUME_BINDING, VOLUME_RESTRICTIONS, VOLUME_ZONE)
from ..noderesources.fit import PRE_FILTER_STATE_KEY as FIT_STATE_KEY
from ..podtopologyspread.plugin import PRE_FILTER_STATE_KEY as SPREAD_STATE_KEY
from ..registry import FILTER, PRE_FILTER
from .candidates import PDB, filter_pods_with_pdb_violation, sort_by_importance
from .explain import trace_to_json
from .preemption import Evaluator, PreemptionTrace

def pod_terminating_by_preemption(p: Pod) -> bool:
    """podTerminatingByPreemption: deleted, and its DisruptionTarget condition says the
    scheduler preempted it (a pod deleted for another reason does not count)."""
    return p.deletion_timestamp is not None and \
        p.disruption_target_reason == POD_REASON_PREEMPTION_BY_SCHEDULER


if TYPE_CHECKING:  # pragma: no cover
    from ...framework.cycle_state import CycleState

# Reason strings copied from default_preemption.go (v1.34).
ERR_REASON_PREEMPTION_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
ERR_REASON_TERMINATING_ON_NOMINATED = "not eligible due to a terminating pod on the nominated node."
ERR_REASON_NO_VICTIMS = "No preemption victims found for incoming pod"
_NO_VICTIMS = new_status(Code.UnschedulableAndUnresolvable, ERR_REASON_NO_VICTIMS)


_LOWEST = attrgetter("lowest_priority")


def _pods_below(node_info: NodeInfo, priority: int) -> list[PodInfo]:
    """The node's pods of lower priority than priority, in pod order (a new list), kept on the
    NodeInfo, and shared with its clones, until its pods change: a node is tried again in
    every cycle whose preemptor has that priority."""
    below = node_info.below
    if below is None:
        below = node_info.below = {}
    found = below.get(priority)
    if found is None:
        found = below[priority] = [pi for pi in node_info.pods if pi.pod.priority < priority]
    return list(found)


def _take_off_below(node_info: NodeInfo, priority: int, potential: list[PodInfo]) -> PodInfo | None:
    """node_info.remove_pod_infos(potential), potential being the node's pods of lower priority
    than priority (_pods_below's list): set from the node without them that _node_without_below
    keeps, so a node tried again in a later cycle is not worked out pod by pod again."""
    found = _node_without_below(node_info, priority, potential)
    if found is None:  # (one of them is not on the node: taken off in turn, to say which)
        return node_info.remove_pod_infos(potential)
    node_info.take_pods_of(found[0])
    return None


def _node_without_below(node_info: NodeInfo, priority: int, potential: list[PodInfo]
                        ) -> tuple[NodeInfo, dict] | None:
    """A NodeInfo of the node without its pods of lower priority than priority (potential,
    _pods_below's list), not to be changed, and a memo for the filters that answer for it; both
    kept beside that list (shared with the node's clones) until the node's pods change. None
    when one of them is not on the node after all."""
    below = node_info.below  # (_pods_below's: the node's pods have not changed since)
    key = (_WITHOUT, priority)
    found = below.get(key) if below is not None else None
    if found is None:
        left = node_info.clone()
        if left.remove_pod_infos(potential) is not None:
            return None
        found = (left, {})
        if below is not None:
            below[key] = found
    return found


# Filter plugins that read the node alone, never its pods; volume plugins (neutral to pods
# without volumes); PreFilter plugins whose AddPod/RemovePod leave their state as it is for pods
# _resources_only lets through
_NODE_ONLY = frozenset({NODE_NAME, NODE_UNSCHEDULABLE, TAINT_TOLERATION, NODE_AFFINITY})
_VOLUMES = frozenset({VOLUME_RESTRICTIONS, NODE_VOLUME_LIMITS, VOLUME_BINDING, VOLUME_ZONE})
_NEUTRAL_EXTENSIONS = frozenset({POD_TOPOLOGY_SPREAD})


# a key of NodeInfo.below (with a priority): whether only NodeResourcesFit sees the node's pods
# below it, for the question asked (see DefaultPreemption._resources_only)
_BLIND = "blind"

# keys of NodeInfo.below: a priority -> the pods below it; (_WITHOUT, priority) -> _node_without_below's
# NodeInfo of the node without them and its memo
_WITHOUT = "without"
# ... and (_USED, priority) -> what the node's pods request without them (DefaultPreemption._rejected_by_fit)
_USED = "used"
# a key of _node_without_below's memo (with NodeResourcesFit, priority, request and PDBs): the
# victims select_victims_by_resources chose there
_VICTIMS = "victims"
# ... and (_FIT, NodeResourcesFit, priority, request) -> DefaultPreemption._rejected_by_fit's answer
_FIT = "fit"


# k8s.io/api/core/v1 PodReasonPreemptionByScheduler
POD_REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
PREEMPTION_PREFIX = "preemption: "

# CycleState key under which PostFilter keeps its trace for explain().
STATE_KEY = "PostFilter" + DEFAULT_PREEMPTION


class _ChangeError(Exception):
    """A failed NodeInfo or PreFilterExtensions update during victim selection."""


class DefaultPreemption(Plugin):
    """default_preemption.go DefaultPreemption (PostFilter)."""

    NAME = DEFAULT_PREEMPTION

    def __init__(self, args: DefaultPreemptionArgs | None, handle: Any) -> None:
        self.args = args or DefaultPreemptionArgs()
        self.handle = handle
        self.evaluator = Evaluator(self.NAME, handle, self)
        self._plan: tuple | None = None  # (state, pod, _resources_only_plan's) of the last dry run
        self._nominated: tuple | None = None  # (state, pod, _nominated_here's) of the last dry run
        self._fit_plan: tuple | None = None  # (state, pod, _fit_first's, its index) of the last dry run
        self._questions: dict[tuple, tuple] = {}  # _resources_only_plan's questions, one object each
        # (state, pod, node) whose screen found every Filter plugin passing it without its victims
        self._passes: tuple | None = None
        self._pdbs: tuple | None = None  # (a dry run's PDB list, what of it decides the victims)
        self._request: tuple | None = None  # (a dry run's state, _request_key's answer)
        # (state, pod, the handle's filter_status_without_pods, whether it is fast, _nominated_here's)
        # of the last dry run: rejected_without_victims is asked of each node a dry run passes
        self._walk: tuple | None = None
        # (state, pod, _fit_first's, the key of its verdicts kept with a node) of the last dry run
        self._verdict: tuple | None = None

    def post_filter(self, state: "CycleState", pod: Pod, diagnosis: Diagnosis
                    ) -> tuple[PostFilterResult | None, Status]:
        """DefaultPreemption.PostFilter: Evaluator.Preempt, message prefixed "preemption: "."""
        trace = PreemptionTrace()
        state.write(STATE_KEY, trace)
        result, status = self.evaluator.preempt(state, pod, diagnosis, trace)
        msg = status.message()
        if msg:
            return result, new_status(status.code, PREEMPTION_PREFIX + msg)
        return result, status

    def explain(self, state: "CycleState", pod: Pod) -> dict | None:
        """Candidates, victims, PDB violations, why each candidate lost, the evictions."""
        try:
            trace = state.read(STATE_KEY)
        except KeyError:
            return None
        return trace_to_json(trace)

    # --- preemption.Interface ---------------------------------------------------------

    def calculate_num_candidates(self, num_nodes: int) -> int:
        """calculateNumCandidates: pct of nodes, at least the absolute minimum, at most all."""
        n = num_nodes * self.args.min_candidate_nodes_percentage // 100
        n = max(n, self.args.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """GetOffsetAndNumCandidates: a random offset in [0, num_nodes) and the count."""
        rng = getattr(self.handle, "rng", None)
        offset = rng.randrange(num_nodes) if rng is not None and num_nodes > 0 else 0
        return offset, self.calculate_num_candidates(num_nodes)

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status
                                       ) -> tuple[bool, str]:
        """PodEligibleToPreemptOthers: not with preemptionPolicy Never, nor while a
        lower-priority pod is terminating on the pod's (still usable) nominated node."""
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, ERR_REASON_PREEMPTION_POLICY_NEVER
        nom = pod.nominated_node_name
        if not nom or nominated_node_status.code == Code.UnschedulableAndUnresolvable:
            return True, ""
        node_info = self.handle.snapshot_shared_lister().node_info_map.get(nom)
        if node_info is not None:
            for pi in node_info.pods:
                if pi.pod.priority < pod.priority and pod_terminating_by_preemption(pi.pod):
                    return False, ERR_REASON_TERMINATING_ON_NOMINATED
        return True, ""

    def no_victims_status(self, pod: Pod, node_info: NodeInfo) -> Status | None:
        """SelectVictimsOnNode's status for a node without a pod of lower priority than
        pod (None when it has one): the dry run then clones neither node nor state. The
        lowest priority on each snapshot node is kept until its pods change
        (``NodeInfo.lowest_priority``): a dry run asks it of every node, every cycle."""
        if node_info.lowest_pod_priority() < pod.priority:
            return None
        return _NO_VICTIMS

    def nodes_with_lower_priority(self, pod: Pod, nodes: Sequence[NodeInfo]
                                  ) -> tuple[Sequence[bool], Status]:
        """For each node, whether it holds a pod of lower priority than pod (no_victims_status
        is None), for all nodes at once, and the status of the others: the dry run then
        visits only those. Nodes listed with the lowest priority of their pods (``lowest``,
        the columnar path's array) are answered from it."""
        listed = getattr(nodes, "lowest", None)
        if listed is not None:
            return listed < pod.priority, _NO_VICTIMS
        lows = list(map(_LOWEST, nodes))
        if None in lows:  # (nodes whose pods changed since they were last asked)
            for i, low in enumerate(lows):
                if low is None:
                    lows[i] = nodes[i].lowest_pod_priority()
        return list(map(pod.priority.__gt__, lows)), _NO_VICTIMS

    def rejected_without_victims(self, state: "CycleState", pod: Pod, node_info: NodeInfo,
                                 seen: Status | None = None, after_fit=None) -> Status | None:
        """The status select_victims_on_node gives node_info when the pod still does not fit
        with every pod of lower priority off (as most nodes of a busy cluster do), told without
        cloning the state or the node: the filters answer for a kept copy of the node without
        those pods, the plugins whose state RemovePod would change answering from the state as
        it is (``Framework.filter_status_without_pods``). None when it must be tried.

        ``seen``: the node's status in the failed cycle. When a plugin other than
        NodeResourcesFit gave it and none but NodeResourcesFit can see those pods
        (``_resources_only``), taking them off changes nothing that plugin reads and gives
        NodeResourcesFit only more room: the node is rejected with that status again.

        ``after_fit()``: the status the failed cycle's Filter plugins after NodeResourcesFit gave
        the node (None: they let it through). When NodeResourcesFit rejected it there and lets it
        through without those pods, and none but NodeResourcesFit can see them, the plugins after
        it answer as they did: the node is rejected with their status, or tried."""
        walk = self._walk
        if walk is None or walk[0] is not state or walk[1] is not pod:  # (once per dry run)
            fast = getattr(self.handle, "fast", False)
            walk = self._walk = (state, pod, getattr(self.handle, "filter_status_without_pods", None),
                                 fast, self._nominated_here(state, pod) if fast else None)
        _, _, screen, fast, here = walk
        below = node_info.below
        potential = below.get(pod.priority) if below is not None else None
        if potential is None and screen is not None:  # (the node's pods changed since it was tried)
            potential = _pods_below(node_info, pod.priority)
        if screen is None or not potential:
            return None
        # whether some pod is nominated to the node, and one would be added to it (None: not known,
        # each helper then asks the handle)
        nominated = adds = None
        if here is not None:
            name = node_info.name
            if name in here[1]:  # (none of the answers below holds)
                return self._rejected_with_nominated(state, pod, node_info, potential, seen)
            nominated, adds = name in here[0], False
        if seen is not None and seen.plugin and seen.plugin != NODE_RESOURCES_FIT and \
                seen.code != Code.Error and fast and \
                self._resources_only(state, pod, node_info, potential, nominated) is not None:
            return seen
        passed = 0  # the Filter plugins known to pass the node without potential (the first ones)
        if seen is not None and seen.plugin == NODE_RESOURCES_FIT and seen.code == Code.Unschedulable \
                and fast:
            st = self._rejected_by_fit(state, pod, node_info, potential, adds)
            if st is not None:
                if st.code:
                    return st
                if after_fit is not None and \
                        self._resources_only(state, pod, node_info, potential, nominated) is not None:
                    st = after_fit()
                    if st is None:  # (every plugin passes the node without them: told to the try)
                        self._passes = (state, pod, node_info)
                    return st if st is not None and st.code != Code.Error else None
                passed = self._fit_plan[3] + 1  # (NodeResourcesFit and every plugin before it)
        found = _node_without_below(node_info, pod.priority, potential)
        if found is None:
            return None
        st = screen(state, pod, found[0], potential, found[1], passed) if passed else \
            screen(state, pod, found[0], potential, found[1])
        return st if st is not None and st.code != Code.Error else None

    def _rejected_by_fit(self, state: "CycleState", pod: Pod, node_info: NodeInfo,
                         potential: list[PodInfo], adds: bool | None = None) -> Status | None:
        """rejected_without_victims for a node NodeResourcesFit rejected in the failed cycle (so
        every Filter plugin before it passed), when each of those reads the node alone or its
        host ports (taking pods off frees ports only) and no nominated pod would be added to it:
        NodeResourcesFit's rejection of the node without potential, worked out from its requests
        less theirs (kept with the node until its pods change) instead of a NodeInfo without them
        run through the filters. None where that does not hold (the caller then asks the filters),
        and SUCCESS where NodeResourcesFit would let the node through: every Filter plugin up to it
        then passes the node without potential (the caller asks only those after it). ``adds``:
        whether a nominated pod would be added to the node, when the caller has looked it up."""
        known = self._verdict
        if known is None or known[0] is not state or known[1] is not pod:  # (once per dry run)
            fit = self._fit_first(state, pod)
            known = self._verdict = (state, pod, fit, None if fit is None else (
                _FIT, id(fit), pod.priority, self._request_key(state)))  # (kept with the node's pods)
        _, _, fit, verdict = known
        below = node_info.below
        if fit is None or below is None:
            return None
        if adds is None:
            here = self._nominated_here(state, pod)
            adds = (node_info.name in here[1]) if here is not None else \
                self.handle.adds_nominated_pods(pod, node_info.name)
        if adds:
            return None
        if verdict[3] is not None and verdict in below:
            return below[verdict]
        key = (_USED, pod.priority)
        used = below.get(key)
        if used is None:
            used = node_info.requested.clone()
            for pi in potential:  # (as NodeInfo.remove_pod_infos takes their requests off)
                used.add_map(pi.requests, -1)
            below[key] = used
        st = fit.status_of(state, node_info.allocatable, used, len(node_info.pods) - len(potential))
        st = st.with_plugin(NODE_RESOURCES_FIT) if st.is_rejected() else \
            SUCCESS if st.is_success() else None
        if verdict[3] is not None:
            below[verdict] = st
        return st

    def _rejected_with_nominated(self, state: "CycleState", pod: Pod, node_info: NodeInfo,
                                 potential: list[PodInfo], seen: Status | None) -> Status | None:
        """rejected_without_victims for a node where RunFilterPluginsWithNominatedPods adds pods
        nominated to it, when no Filter plugin but NodeResourcesFit sees the node's pods of lower
        priority (``_resources_only``): the PreFilter extensions' RemovePod then leaves the state
        as it is, and every other plugin's verdict, with the nominated pods and without, is the
        one it gave in the failed cycle (``seen``), which added the same nominated pods.

        So a node another plugin rejected there is rejected with that status again; one that
        NodeResourcesFit rejected there (every plugin before it passing) is rejected by it again
        when the nominated pods' requests leave no room either, worked out from the requests.
        Otherwise the filters (with the nominated pods) answer as they do for the kept copy of the
        node without those pods and the state itself, which run_filter_plugins_with_nominated_pods
        clones only to add the nominated pods: neither the node is cloned to take its pods off nor
        the state to take them off it. The rejection, or None where the node passes (its victims
        are then worked out on clones) or that does not hold."""
        fit = self._resources_only(state, pod, node_info, potential, nominated=False)
        if fit is None:
            return None
        if seen is not None and seen.plugin and seen.plugin != NODE_RESOURCES_FIT and \
                seen.code != Code.Error:
            return seen
        found = _node_without_below(node_info, pod.priority, potential)
        if found is None:
            return None
        without = found[0]
        if seen is not None and seen.plugin == NODE_RESOURCES_FIT and seen.code == Code.Unschedulable:
            added = [pi for pi in self.handle.nominated_pods_for_node(node_info.name) or ()
                     if pi.pod.priority >= pod.priority and pi.pod.key != pod.key]
            used = without.requested.clone()
            for pi in added:  # (as NodeInfo.add_pod_info accounts them)
                used.add_map(pi.requests)
            st = fit.status_of(state, without.allocatable, used, len(without.pods) + len(added))
            if st.is_rejected():
                return st.with_plugin(NODE_RESOURCES_FIT)
        st = self.handle.run_filter_plugins_with_nominated_pods(state, pod, without)
        return st if st.is_rejected() else None

    def _nominated_here(self, state: "CycleState", pod: Pod) -> tuple | None:
        """(the nodes some pod is nominated to, those where RunFilterPluginsWithNominatedPods would
        add one for pod), worked out once per dry run (nominations do not change during one); None
        when the handle cannot list them."""
        known = self._nominated
        if known is not None and known[0] is state and known[1] is pod:
            return known[2]
        names = getattr(self.handle, "nominated_nodes", None)
        here = None
        if names is not None:
            nominated = frozenset(names())
            here = (nominated, frozenset(n for n in nominated if self.handle.adds_nominated_pods(pod, n)))
        self._nominated = (state, pod, here)
        return here

    def _fit_first(self, state: "CycleState", pod: Pod):
        """The NodeResourcesFit plugin when every Filter plugin before it is skipped, reads the
        node alone or its host ports, else None; once per dry run (``_fit_plan`` keeps it, with
        its place among the Filter plugins)."""
        known = self._fit_plan
        if known is not None and known[0] is state and known[1] is pod:
            return known[2]
        found, at = None, -1
        points = getattr(self.handle, "points", None)
        skip = state.skip_filter_plugins
        for i, pl in enumerate(points[FILTER] if points is not None else ()):
            if pl.NAME == NODE_RESOURCES_FIT:
                if not (skip and pl.NAME in skip) and hasattr(pl, "status_of"):
                    found, at = pl, i
                break
            if not (skip and pl.NAME in skip or pl.NAME in _NODE_ONLY or pl.NAME == NODE_PORTS):
                break
        self._fit_plan = (state, pod, found, at)
        return found

    def _request_key(self, state: "CycleState") -> tuple | None:
        """The pod's request as NodeResourcesFit sees it (what its verdicts and the victims by
        resources depend on), as a key; None without its PreFilter state. Once per dry run."""
        known = self._request
        if known is None or known[0] is not state:
            try:
                r = state.read(FIT_STATE_KEY).request
                key = (r.milli_cpu, r.memory, r.ephemeral_storage,
                       tuple(sorted(r.scalar_resources.items())))
            except KeyError:
                key = None
            known = self._request = (state, key)
        return known[1]

    def select_victims_on_node(self, state: "CycleState", pod: Pod, node_info: NodeInfo,
                               pdbs: Sequence[PDB]) -> tuple[list[Pod], int, Status, dict]:
        """SelectVictimsOnNode on a cloned state and NodeInfo: (victims, #PDB violations,
        status, victim key -> violated PDB keys)."""
        potential = _pods_below(node_info, pod.priority)
        if not potential:
            return [], 0, _NO_VICTIMS, {}
        try:
            absent = _take_off_below(node_info, pod.priority, potential)  # (all at once: see _remove_pod)
            if absent is not None:
                raise _ChangeError(f"no corresponding pod {absent.pod.name} in pods of node "
                                   f"{node_info.name}")
            # (the extensions read the node, not its pods)
            st = self.handle.run_pre_filter_extension_remove_pods(state, pod, potential, node_info)
            if not st.is_success():
                raise _ChangeError(st.message())
            st = self.handle.run_filter_plugins_with_nominated_pods(state, pod, node_info)
            if not st.is_success():
                return [], 0, st, {}
            return self._reprieve(state, pod, node_info, potential, pdbs)
        except _ChangeError as err:
            return [], 0, Status(Code.Error, (str(err),)), {}

    def select_victims_by_resources(self, state: "CycleState", pod: Pod, node_info: NodeInfo,
                                    pdbs: Sequence[PDB]) -> tuple[list[Pod], int, Status, dict] | None:
        """select_victims_on_node when putting the node's lower-priority pods back can change
        NodeResourcesFit's verdict alone (every other Filter plugin reads neither those pods nor
        anything their AddPod/RemovePod would change: ``_resources_only``) and no nominated pod
        would be added to the node: the same victims, worked out from the node without them,
        neither the state nor the node cloned, each pod's requests put back in turn and
        NodeResourcesFit asked after each (every other plugin's verdict stays the one it gave
        with all of them off).
        None where that does not hold, and on the reference path (a framework not ``fast``, which
        tests hold this one against): the caller then runs select_victims_on_node."""
        if not getattr(self.handle, "fast", False):
            return None
        potential = _pods_below(node_info, pod.priority)
        fit = self._resources_only(state, pod, node_info, potential)
        if fit is None:
            return None
        found = _node_without_below(node_info, pod.priority, potential)
        if found is None:
            return None
        without = found[0]  # (not to be changed: the filters only read it)
        known, self._passes = self._passes, None
        if known is None or known[0] is not state or known[1] is not pod or known[2] is not node_info:
            st = self.handle.run_filter_plugins(state, pod, without)
            if not st.is_success():
                return [], 0, st, {}
        # the victims depend on the node's pods (this memo lives with them), the pod's request as
        # NodeResourcesFit sees it, its priority and the PDBs' allowances: kept per those
        request = self._request_key(state)
        key = None if request is None else (_VICTIMS, id(fit), pod.priority, request,
                                            self._pdb_key(pdbs))
        hit = found[1].get(key) if key is not None else None
        if hit is not None:
            return list(hit[0]), hit[1], Status(), dict(hit[2])
        alloc, used, held = without.allocatable, without.requested.clone(), [len(without.pods)]

        def fits(pi: PodInfo) -> bool:  # (the pod's requests back on the node; off again if the pod no longer fits)
            used.add_map(pi.requests)
            if fit.passes(state, alloc, used, held[0] + 1):
                held[0] += 1
                return True
            used.add_map(pi.requests, -1)
            return False
        victims, n_pdb, st, why = self._reprieve_with(potential, pdbs, fits)
        if key is not None:
            found[1][key] = (list(victims), n_pdb, dict(why))
        return victims, n_pdb, st, why

    def _pdb_key(self, pdbs: Sequence[PDB]) -> tuple:
        """What of a dry run's PDBs decides which victims violate them (each one's key and the
        disruptions it allows), worked out once per dry run."""
        known = self._pdbs
        if known is None or known[0] is not pdbs:
            known = self._pdbs = (pdbs, tuple((p.key, p.disruptions_allowed) for p in pdbs))
        return known[1]

    def _resources_only(self, state: "CycleState", pod: Pod, node_info: NodeInfo,
                        potential: list[PodInfo] | None, nominated: bool | None = None):
        """The NodeResourcesFit plugin when it alone can tell a change of the potential victims
        on node_info (see select_victims_by_resources), else None; also None for a node some pod
        is nominated to. ``nominated``: whether one is, when the caller has looked it up (False
        also where the caller accounts for the nominated pods itself)."""
        if not potential:
            return None
        if nominated is None:
            here = self._nominated_here(state, pod)
            nominated = (node_info.name in here[0]) if here is not None else \
                bool(self.handle.nominated_pods_for_node(node_info.name))
        if nominated:
            return None
        plan = self._plan
        if plan is None or plan[0] is not state or plan[1] is not pod:
            plan = self._plan = (state, pod, self._resources_only_plan(state, pod))
        found = plan[2]
        if found is None:
            return None
        fit, ports, volumes, constraints, kinds, asked = found
        below = node_info.below  # (potential is its list: the node's pods have not changed)
        known = below.get((_BLIND, pod.priority)) if below is not None else None
        if known is not None and known[0] is asked:  # (the same question of the same pods)
            return fit if known[1] else None
        blind = self._blind_to_all(pod, potential, ports, volumes, constraints, kinds)
        if below is not None:
            below[(_BLIND, pod.priority)] = (asked, blind)
        return fit if blind else None

    @staticmethod
    def _blind_to_all(pod: Pod, potential: list[PodInfo], ports: bool, volumes: bool,
                      constraints: tuple, kinds: dict) -> bool:
        """Whether no Filter plugin but NodeResourcesFit sees any of potential: none holds a host
        port (when ports count), none has a volume (when volumes do), none is of pod's namespace
        and matched by one of its hard spread constraints. ``kinds`` keeps the answer per kind of
        pod (what it depends on: the pods of a workload share their labels and containers)."""
        for pi in potential:
            p = pi.pod
            key = (p.namespace, id(p.labels), id(p.containers), id(p.init_containers), bool(p.volumes))
            blind = kinds.get(key)
            if blind is None:
                blind = kinds[key] = not (
                    ports and any(x.host_port > 0 for x in pod_used_ports(p))
                    or volumes and p.volumes
                    or constraints and p.namespace == pod.namespace and
                    any(c.selector.matches(p.labels) for c in constraints))
            if not blind:
                return False
        return True

    def _resources_only_plan(self, state: "CycleState", pod: Pod):
        """What _resources_only asks of each potential victim in this cycle: (the
        NodeResourcesFit plugin, whether host ports count, whether volumes do, the hard spread
        constraints that count pods, a memo per kind of pod), or None when some Filter plugin
        that reads a node's pods (InterPodAffinity, unless skipped; a plugin not known here)
        or some AddPod/RemovePod would have to be asked."""
        points = getattr(self.handle, "points", None)
        if points is None:
            return None
        skip = state.skip_filter_plugins
        fit, ports, volumes, constraints = None, False, False, ()
        for pl in points[FILTER]:
            if skip and pl.NAME in skip or pl.NAME in _NODE_ONLY:
                continue
            if pl.NAME == NODE_RESOURCES_FIT:
                fit = pl
            elif pl.NAME == NODE_PORTS:
                ports = True
            elif pl.NAME in _VOLUMES:
                volumes = True
            elif pl.NAME == POD_TOPOLOGY_SPREAD:
                try:  # (without its PreFilter state RemovePod would fail: not told)
                    constraints = tuple(state.read(SPREAD_STATE_KEY).constraints)
                except KeyError:
                    return None
            else:
                return None
        for pl in points[PRE_FILTER]:
            if pl.pre_filter_extensions() is not None and not (skip and pl.NAME in skip) and \
                    pl.NAME not in _NEUTRAL_EXTENSIONS:
                return None
        if fit is None:
            return None
        # one object per question asked of a node's pods (a pod's namespace, whether ports and
        # volumes count, which constraints): a node's answer is kept with it until its pods change
        question = (pod.namespace, ports, volumes, tuple(map(id, constraints)))
        asked = self._questions.get(question)
        if asked is None:
            if len(self._questions) > 1024:
                self._questions.clear()
            asked = self._questions[question] = (question, constraints)  # (keeps their ids theirs)
        return fit, ports, volumes, constraints, {}, asked

    # --- helpers ------------------------------------------------------------------------

    def _reprieve(self, state: "CycleState", pod: Pod, node_info: NodeInfo,
                  potential: list[PodInfo], pdbs: Sequence[PDB]
                  ) -> tuple[list[Pod], int, Status, dict]:
        """Re-add the potential victims, PDB-violating ones first, most important first;
        those after which the pod no longer fits stay victims."""
        return self._reprieve_with(potential, pdbs,
                                   lambda pi: self._reprieve_pod(state, pod, node_info, pi))

    def _reprieve_with(self, potential: list[PodInfo], pdbs: Sequence[PDB], fits
                       ) -> tuple[list[Pod], int, Status, dict]:
        """_reprieve with ``fits(pi)``: put pi back, and take it off again (a victim) when the pod
        no longer fits, saying whether it fits."""
        sort_by_importance(potential, lambda pi: pi.pod)
        violating, non_violating, why = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[PodInfo] = []
        num_violating = 0
        for pi in violating:
            if not fits(pi):
                victims.append(pi)
                num_violating += 1
        for pi in non_violating:
            if not fits(pi):
                victims.append(pi)
        if violating and non_violating:
            sort_by_importance(victims, lambda pi: pi.pod)
        keys = {pi.pod.key for pi in victims}
        return ([pi.pod for pi in victims], num_violating, Status(),
                {k: v for k, v in why.items() if k in keys})

    def _reprieve_pod(self, state: "CycleState", pod: Pod, node_info: NodeInfo,
                      pi: PodInfo) -> bool:
        """reprievePod: add back; if the pod stops fitting, remove again (a victim)."""
        self._add_pod(state, pod, pi, node_info)
        st = self.handle.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        fits = st.is_success()
        if not fits:
            self._remove_pod(state, pod, pi, node_info)
        return fits

    def _remove_pod(self, state: "CycleState", pod: Pod, pi: PodInfo, node_info: NodeInfo) -> None:
        if not node_info.remove_pod(pi.pod):
            raise _ChangeError(f"no corresponding pod {pi.pod.name} in pods of node "
                               f"{node_info.name}")
        st = self.handle.run_pre_filter_extension_remove_pod(state, pod, pi, node_info)
        if not st.is_success():
            raise _ChangeError(st.message())

    def _add_pod(self, state: "CycleState", pod: Pod, pi: PodInfo, node_info: NodeInfo) -> None:
        node_info.add_pod_info(pi)
        st = self.handle.run_pre_filter_extension_add_pod(state, pod, pi, node_info)
        if not st.is_success():
            raise _ChangeError(st.message())

