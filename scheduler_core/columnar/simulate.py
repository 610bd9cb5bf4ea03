"""The scheduling loop with the columnar cycle plugged in.

The reference ``simulation.Simulation`` (queue, binds, failures, preemption, evictions,
events, results) drives the cycle; only the cycle itself (PreFilter to selectHost) runs
over the node table. The NodeInfos stay in step with the table, because preemption's dry
runs (DefaultPreemption, ``preemption.go``) and InterPodAffinity use the reference
plugins on them, through one Snapshot that lives for the whole simulation.
"""
from __future__ import annotations

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.fit_error import FitError
from ..framework.interface import SKIP, SUCCESS, Code
from ..framework.runtime import Framework, run_pre_filter
from ..framework.snapshot import Snapshot
from ..framework.types import PodInfo, QueuedPodInfo, new_pod_info, pod_info_parse_error
from ..k8s.types import Pod
from ..plugins import registry as reg
from ..plugins.defaultpreemption.default_preemption import STATE_KEY as PREEMPTION_KEY
from ..plugins.defaultpreemption.explain import trace_to_json
from ..plugins.interpodaffinity.filtering import PRE_FILTER_STATE_KEY as AFFINITY_STATE_KEY
from ..plugins.interpodaffinity.plugin import InterPodAffinity
from ..plugins.names import DEFAULT_PREEMPTION
from ..plugins.podtopologyspread.filtering import CriticalPaths, PreFilterState
from ..plugins.podtopologyspread.plugin import PRE_FILTER_STATE_KEY, PodTopologySpread
from ..plugins.volumerestrictions.volume_restrictions import uses_volumes
from ..simulation import SCHEDULED, Simulation
from .. import trace
from .context import Context
from .equivalence import FailedCycle, FailedCycles, replayable
from .runtime import ColumnarFramework, Unsupported
from .schedule_one import ColumnarRecord, ColumnarScheduler


class ColumnarSimulation(Simulation):
    """Simulation whose cycles run over a Context (raises runtime.Unsupported for a
    profile with a plugin the columnar path lacks)."""

    def __init__(self, scenario, seed: int = 0, detail=True, memory=None) -> None:
        if uses_volumes(scenario.pods):  # the volume plugins run node by node only
            raise Unsupported("volumes")
        super().__init__(scenario, seed, detail, fast=True, memory=memory)
        self.ctx = Context(list(self.node_infos.values()))
        self.columnar = {name: ColumnarFramework(fwk, self.ctx)
                         for name, fwk in self.frameworks.items()}
        self.cscheduler = ColumnarScheduler(self.scheduler, self.ctx, self.nominator)
        self.snapshot = Snapshot(self.node_infos.values())
        self.snapshot.changed = []
        for fwk in self.frameworks.values():
            fwk.set_snapshot(self.snapshot)
        self._listed = 0  # how much of snapshot.changed _refresh_snapshot has looked at
        self._members = None  # the affinity lists, and the ids of their NodeInfos
        self.failed_cycles = FailedCycles(self.nominator)
        # this cycle: where it started, its record, the failure it replays or records
        self._since, self._record = None, None
        self._replay: FailedCycle | None = None
        self._replay_trace = None
        self._recorded: FailedCycle | None = None

    # --- the cycle's hooks ----------------------------------------------------------------
    def _new_record(self) -> ColumnarRecord:
        return ColumnarRecord()

    def _schedule_pod(self, fwk: Framework, state: CycleState, pod: Pod,
                      record: ColumnarRecord):
        """schedulePod over the node table (the Snapshot only serves the reference
        plugins preemption runs)."""
        self._refresh_snapshot()
        self._since, self._record, self._recorded = self.failed_cycles.moment(), record, None
        replay = self._replay = self.failed_cycles.find(pod, self._explained(pod, failed=True))
        if replay is not None:  # (equivalence.py) the same failure, the start index moved as by it
            record.nodes_evaluated = replay.evaluated
            sched = self.scheduler
            sched.next_start_node_index = \
                (sched.next_start_node_index + replay.evaluated) % self.ctx.table.n
            raise replay.error.with_traceback(None)  # (a raise adds its frames to the traceback)
        # a cycle that schedules the pod is explained only as detail says: if not, its feasible
        # nodes may be found by walking the nodes (ColumnarScheduler._walk)
        record.walked = not self._explained(pod, failed=False)
        return self.cscheduler.schedule_pod(self.columnar[pod.scheduler_name], state, pod, record)

    def _fit_failure(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, pod: Pod,
                     fe: FitError, cyc: dict) -> None:
        """PostFilter on the reference plugins: a reference PreFilter state for the dry
        runs when some node may be helped by preemption, then the failure. A failure that
        changed nothing is recorded for an equal pod's cycle (equivalence.py)."""
        if self._replay is not None:
            self._replay_failure(fwk, state, qpi, pod, cyc)
            return
        nominated, trace, error = None, None, False
        if fwk.has_post_filter_plugins():
            ref_state = CycleState()
            if _preemption_might_help(fe):
                self._reference_pre_filter(fwk, state, ref_state, pod)
            result, st = fwk.run_post_filter_plugins(ref_state, pod, fe.diagnosis)
            fe.diagnosis.post_filter_msg = st.message()
            error = st.code == Code.Error
            if result is not None:
                nominated = result.nominating_info
            try:
                trace = ref_state.read(PREEMPTION_KEY)
                state.write(PREEMPTION_KEY, trace)
            except KeyError:
                pass
        message, plugins = str(fe), set(fe.diagnosis.unschedulable_plugins)
        self._failure(qpi, pod, message, plugins, cyc, nominated)
        if not error and replayable(nominated, trace):
            evaluated = self._record.nodes_evaluated
            self._recorded = self.failed_cycles.add(pod, self._since, lambda spec: FailedCycle(
                spec, fe, evaluated, message, plugins, nominated, trace))

    def _replay_failure(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo,
                        pod: Pod, cyc: dict) -> None:
        """The recorded failure again; preemption's dry run walked from a new draw."""
        replay = self._replay
        trace = replay.trace
        if replay.walk is not None:
            offset, num = fwk.plugins[DEFAULT_PREEMPTION].get_offset_and_num_candidates(
                len(trace.potential_nodes))
            trace = replay.trace_from(offset, num)
        self._replay_trace = trace
        if trace is not None:
            state.write(PREEMPTION_KEY, trace)
        self._failure(qpi, pod, replay.message, set(replay.plugins), cyc, replay.nominating)

    def _reference_pre_filter(self, fwk: Framework, state: CycleState, ref_state: CycleState,
                              pod: Pod) -> None:
        """The reference PreFilter state preemption's dry runs need, as the reference
        cycle would have written it; PodTopologySpread's comes from this cycle's columnar
        counts instead of a recount (``_SpreadFromColumns``), and InterPodAffinity's is the one
        this cycle's PreFilter wrote (``_AffinityFromColumns``)."""
        plugins = [_SpreadFromColumns(state) if pl.NAME == PodTopologySpread.NAME else
                   _AffinityFromColumns(state, pl) if pl.NAME == InterPodAffinity.NAME else pl
                   for pl in fwk.points[reg.PRE_FILTER]]
        run_pre_filter(plugins, ref_state, pod, self.snapshot.list())
        fwk.start_static_memo(pod, ref_state.skip_filter_plugins)

    # --- the run before's cycles taken over (run_memory.py) ------------------------------------
    def _checkpoint(self) -> tuple:
        """With the failed cycles recorded since the last change (equivalence.py): the run that takes over
        at this checkpoint replays them as this one would."""
        return super()._checkpoint() + (self.failed_cycles.kept(),)

    def _restore(self, checkpoint: tuple) -> None:
        super()._restore(checkpoint)
        self.failed_cycles.take_over(checkpoint[2])

    # --- keeping the table, the NodeInfos and the Snapshot in step -------------------------
    def _bound(self, node: str, pi: PodInfo) -> None:
        self.ctx.table.add_pod(self.ctx.table.index[node], pi)
        self.snapshot.changed.append(self.node_infos[node])
        self.failed_cycles.changes += 1

    def _removed(self, node: str, victim: Pod) -> None:
        self.ctx.table.remove_pod(self.ctx.table.index[node], new_pod_info(victim))
        self.snapshot.changed.append(self.node_infos[node])
        self.failed_cycles.changes += 1

    def _refresh_snapshot(self) -> None:
        """The Snapshot's "nodes with pods with (anti-)affinity" lists, after a change: the
        lists hold the NodeInfos themselves, so they are rebuilt only when a node changed
        since the last refresh has joined or left one of them."""
        s = self.snapshot
        log = s.changed
        if self._listed == len(log):
            return
        changed = log[self._listed:]
        self._listed = len(log)
        listed = (s.have_pods_with_affinity_node_info_list,
                  s.have_pods_with_required_anti_affinity_node_info_list)
        members = self._members
        if members is None or members[0] is not listed[0] or members[1] is not listed[1]:
            members = self._members = (listed[0], listed[1], {id(ni) for ni in listed[0]},
                                       {id(ni) for ni in listed[1]})
        with_affinity, with_anti = members[2], members[3]
        for ni in changed:  # (a loop, not all() over a generator: one node changed a cycle, as a rule)
            if bool(ni.pods_with_affinity) != (id(ni) in with_affinity) or \
                    bool(ni.pods_with_required_anti_affinity) != (id(ni) in with_anti):
                break
        else:
            return
        s.have_pods_with_affinity_node_info_list = [
            ni for ni in s.node_info_list if ni.pods_with_affinity]
        s.have_pods_with_required_anti_affinity_node_info_list = [
            ni for ni in s.node_info_list if ni.pods_with_required_anti_affinity]
        self._members = None

    def _matching_counts(self):
        """The node table's matching-pod counts (its nodes are node_infos', in the same order)."""
        table = self.ctx.table
        return lambda selector, namespace: table.matcher(namespace, selector).counts.tolist()

    def _domain_counts(self):
        """The columnar PodTopologySpread's domain counters, as its PreFilter reads them (every
        topology key required); None for a profile without it or constraints it reads otherwise."""
        def counts(pod: Pod, action: str, constraints: list) -> list[dict[str, int]] | None:
            cfwk = self.columnar.get(pod.scheduler_name)
            pl = cfwk.plugins.get(PodTopologySpread.NAME) if cfwk is not None else None
            if pl is None:
                return None
            cons, _, counters, _ = pl._setup(pod, action, True)
            if list(cons) != list(constraints):
                return None
            # (in the order of the domains' names, the order spread_domains_json lists them in)
            return [dict(zip(map(col.values.__getitem__, dc.present_sorted.tolist()),
                             dc.cnt[dc.present_sorted].tolist())) for _, col, dc in counters]
        return counts

    # --- explanation ---------------------------------------------------------------------
    def _explain(self, fwk: Framework, state: CycleState, pod: Pod, record: ColumnarRecord,
                 cyc: dict) -> dict:
        """trace.explanation_json from the record, equal to the reference's."""
        if self._replay is not None:  # the recorded one, of this cycle and its dry run
            out = dict(self._replay.explanation, cycle=cyc["cycle"], attempt=cyc["attempt"])
            trace = self._replay_trace
            if trace is not None and trace is not self._replay.trace:
                out["plugins"] = dict(out["plugins"])
                out["plugins"][DEFAULT_PREEMPTION] = trace_to_json(trace)
            return out
        out = self._explain_record(state, pod, record, cyc)
        if self._recorded is not None:
            self._recorded.explanation = out
        return out

    def _explain_record(self, state: CycleState, pod: Pod, record: ColumnarRecord,
                        cyc: dict) -> dict:
        cfwk = self.columnar[pod.scheduler_name]
        if record.filters is None and record.filters_again is not None:
            self.cscheduler.filters_again(record)  # (a walked cycle whose bind failed)
        else:
            self.cscheduler.scores_again(cfwk, state, pod, record)  # (a cycle scored for its totals only)
        table, statuses = self.ctx.table, self.ctx.statuses
        groups = []
        if record.pre_filter_status is not None:
            groups.append((record.pre_filter_status, table.n,
                           table.names[:trace.MAX_NODE_NAMES]))
        if record.absent is not None and len(record.absent[1]):
            st, idx = record.absent
            groups.append((st, len(idx), table.names_of(idx[:trace.MAX_NODE_NAMES])))
        failed, ids = record.diagnosed or (record.failed, None)
        if record.absent is not None and len(failed):  # a nominated node outside the
            inside = ~np.isin(failed, record.absent[1])  # PreFilterResult: absent
            failed = failed[inside]
            ids = None if ids is None else ids[inside]
        if len(failed):
            if ids is None:
                ids = record.filters.statuses(failed)
            counts = np.bincount(ids)
            if counts[0] == 0 and 4 * len(failed) >= table.n:  # (a failed cycle: most nodes, each
                by_node = np.zeros(table.n, ids.dtype)  # rejected once) grouped in node order at once
                by_node[failed] = ids
                for s in counts.nonzero()[0]:
                    first = (by_node == s).nonzero()[0][:trace.MAX_NODE_NAMES]
                    groups.append((statuses.get(int(s)), int(counts[s]), table.names_of(first)))
            else:
                for s in counts.nonzero()[0]:
                    nodes = failed[ids == s]
                    groups.append((statuses.get(int(s)), len(nodes),
                                   table.names_of(_smallest(nodes, trace.MAX_NODE_NAMES))))
        passed = table.names_of(_smallest(record.feasible, trace.MAX_NODE_NAMES))
        chosen = cyc.get("node") if cyc.get("result") == SCHEDULED else None
        return trace.explanation_json(
            cyc, table.n, len(record.feasible), trace.rejected_json(groups), passed,
            _scores_json(cfwk, table, record, chosen), cfwk.explain(state, pod))


def _scores_json(cfwk: ColumnarFramework, table, record: ColumnarRecord,
                 chosen: str | None) -> dict:
    """trace.scores_json over arrays: the best MAX_SCORED (stable), the chosen one in."""
    if record.scores is None:
        return trace.scores_json([], [], None)
    plugins, arrays, totals, raws = record.scores
    order = _best(totals, trace.MAX_SCORED)
    feasible = record.feasible
    if chosen is not None and record.chosen not in order:
        order.append(record.chosen)
    per_plugin = [a[order].tolist() if isinstance(a, np.ndarray) else [a] * len(order)
                  for a in arrays]
    per_raw = [np.asarray(a)[order].tolist() if isinstance(a, np.ndarray) else [a] * len(order)
               for a in raws]
    nodes = table.names_of(feasible[order])
    tied = (totals == totals.max()).nonzero()[0]
    skipped = [pl.NAME for pl in cfwk.score_plugins if pl.NAME not in plugins]
    return trace.scores_shape(
        plugins, [(nodes[j], t, [p[j] for p in per_plugin], [r[j] for r in per_raw])
                  for j, t in enumerate(totals[order].tolist())],
        len(feasible), cfwk.profile.weights, skipped,
        trace.tie_json(len(tied), table.names_of(feasible[tied[:trace.MAX_NODE_NAMES]]),
                       chosen))


class _AffinityFromColumns:
    """InterPodAffinity's reference PreFilter for preemption's dry runs: the state this cycle's
    PreFilter wrote (the columnar plugin asks the reference one, over the same nodes and
    Snapshot, and nothing has changed since), Skip where this cycle's PreFilter skipped the
    plugin, else the reference PreFilter itself. The dry runs change clones of it only."""

    NAME = InterPodAffinity.NAME

    def __init__(self, columnar_state: CycleState, ref) -> None:
        self.columnar_state, self.ref = columnar_state, ref

    def pre_filter(self, state: CycleState, pod: Pod, nodes):
        try:
            s = self.columnar_state.read(AFFINITY_STATE_KEY)
        except KeyError:
            # the columnar PreFilter skips a pod without required terms while no bound pod has
            # required anti-affinity, as the reference one would over the same Snapshot: asking
            # that one again would only bring its pod counts up to every bind since it last ran
            # (all a failed cycle's PreFilter cost, in a cluster without such pods). A pod whose
            # terms do not parse is still left to it (its status is not a Skip).
            skipped = self.columnar_state.skip_filter_plugins
            if skipped and self.NAME in skipped and not pod_info_parse_error(pod):
                return None, SKIP
            return self.ref.pre_filter(state, pod, nodes)
        state.write(AFFINITY_STATE_KEY, s)
        return None, SUCCESS


class _SpreadFromColumns:
    """PodTopologySpread's reference PreFilter (calPreFilterState) answered from the
    columnar PreFilter state of the same cycle: the same constraints, per-domain counts in
    the counting loop's insertion order, and criticalPaths built from them."""

    NAME = PodTopologySpread.NAME

    def __init__(self, columnar_state: CycleState) -> None:
        self.columnar_state = columnar_state

    def pre_filter(self, state: CycleState, pod: Pod, nodes):
        try:
            hard = self.columnar_state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return None, SKIP
        s = PreFilterState([h.c for h in hard.constraints], [], [])
        for h in hard.constraints:
            values = h.column.values
            counts = {values[v]: int(h.cnt[v]) for v in h.counter.insertion_order.tolist()}
            paths = CriticalPaths()
            for value, num in counts.items():
                paths.update(value, num)
            s.tp_value_to_match_num.append(counts)
            s.critical_paths.append(paths)
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, SUCCESS


def _smallest(idx: np.ndarray, k: int) -> np.ndarray:
    """The k smallest of idx (distinct node indices), in order, without sorting them all."""
    if len(idx) <= k:
        return np.sort(idx)
    return np.sort(np.partition(idx, k - 1)[:k])


def _best(totals: np.ndarray, k: int) -> list[int]:
    """Positions of the k highest totals, ties in position order (a stable sort's first
    k), without sorting them all."""
    if len(totals) <= k:
        return np.argsort(-totals, kind="stable").tolist()
    kth = np.partition(totals, len(totals) - k)[len(totals) - k]
    above = (totals > kth).nonzero()[0]
    chosen = np.concatenate((above, (totals == kth).nonzero()[0][:k - len(above)]))
    return chosen[np.lexsort((chosen, -totals[chosen]))].tolist()


def _preemption_might_help(fe: FitError) -> bool:
    """Some node is Unschedulable (not Unresolvable): the dry runs need PreFilter state."""
    d = fe.diagnosis
    if d.absent_nodes_status.code == Code.Unschedulable:
        return True
    if d.unschedulable_nodes is not None:  # (node_to_status holds those nodes only)
        return bool(d.unschedulable_nodes)
    return any(st.code == Code.Unschedulable for st in d.node_to_status.values())

