"""One scheduling cycle over node arrays: filter, score, select a host.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/schedule_one.go`` as the reference
``schedule_one.py`` does (schedulePod, findNodesThatFitPod with the KEP-1923
nominated-node fast path, numFeasibleNodesToFind from the rotating nextStartNodeIndex,
prioritizeNodes, selectHost), sharing its ``Scheduler`` state so both paths take the same
nodes in the same order and draw the same random numbers. Every node is filtered at once;
"the first nodes found feasible from nextStartNodeIndex" is then a slice of that array. A
cycle whose explanation is not kept, whose Filter plugins are the usual node-static ones,
NodeResourcesFit and PodTopologySpread, instead walks the nodes from nextStartNodeIndex in one
compiled loop, as upstream does, and stops at numFeasibleNodesToFind (``_walk``).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

# ufunc reductions: the ndarray methods go through Python wrappers, costly a call
_MIN, _MAX = np.minimum.reduce, np.maximum.reduce
_ANY, _ALL = np.logical_or.reduce, np.logical_and.reduce

from ..framework.cycle_state import CycleState
from ..framework.fit_error import ERR_NO_NODES_AVAILABLE, FitError
from ..framework.interface import Code, Diagnosis, Status
from ..framework.runtime import Nominator
from ..framework.types import PodInfo
from ..k8s.types import Pod
from ..plugins.names import NODE_RESOURCES_FIT
from ..schedule_one import (ScheduleResult, Scheduler, SchedulingError, _add_plugin_status,
                            absent_status, num_feasible_nodes_to_find, run_pre_filter_step)
from . import kernels
from .context import Context
from .runtime import ColumnarFramework, FilterResult, ScoreError


_EMPTY = np.zeros(0, np.intp)
_EMPTY.flags.writeable = False


class FailedNodes:
    """The nodes rejected from nextStartNodeIndex up to where the search stopped: a
    rotation of ``subset`` cut at ``stop``, materialized on demand."""

    __slots__ = ("subset", "start", "stop", "ok", "_idx")

    def __init__(self, subset: np.ndarray, start: int, stop: int, ok: np.ndarray | None) -> None:
        self.subset, self.start, self.stop, self.ok = subset, start, stop, ok
        self._idx: np.ndarray | None = None

    def __contains__(self, node: int) -> bool:
        """Whether node was evaluated (and so rejected, for a node known to fail)."""
        where = (self.subset == node).nonzero()[0]
        return bool(len(where)) and (int(where[0]) - self.start) % len(self.subset) < self.stop

    def indices(self) -> np.ndarray:
        if self._idx is None:
            if self.ok is None or self.stop == 0:
                self._idx = np.zeros(0, np.intp)
            else:
                n = len(self.subset)
                positions = (np.arange(self.stop) + self.start) % n
                self._idx = self.subset[positions[~self.ok[positions]]]
        return self._idx


class _NodeToStatus(Mapping):
    """A failed cycle's NodeToStatus for its Unschedulable nodes (name -> Status), in node
    order. Preemption asks it for one node (the pod's nominated one) and lists the names;
    a node is looked up by its index in the sorted node indices, and the dict of thousands
    of entries is made only if something walks it."""

    def __init__(self, names: list[str], idx: np.ndarray, ids: np.ndarray,
                 of_id: dict[int, Status], index: dict[str, int],
                 fr: "FilterResult | None" = None, statuses=None) -> None:
        self._names, self._idx, self._ids, self._of_id, self._index = names, idx, ids, of_id, index
        self._dict: dict[str, Status] | None = None
        self._fr, self._statuses = fr, statuses
        self._fit = next((k for k, (unit, _) in enumerate(fr.units)
                          if unit.NAME == NODE_RESOURCES_FIT), None) if fr is not None else None
        self._after: np.ndarray | None = None
        if self._fit is None:
            self.after_fit = None  # (no NodeResourcesFit verdicts to go past)

    def __getitem__(self, name: str) -> Status:
        i = self._index.get(name)
        if i is not None:
            pos = int(self._idx.searchsorted(i))
            if pos < len(self._ids) and self._idx[pos] == i:
                return self._of_id[int(self._ids[pos])]
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except (KeyError, TypeError):
            return False
        return True

    def __len__(self) -> int:
        return len(self._ids)

    def at(self, k: int) -> Status:
        """The status of the k-th node listed (in node order), without a lookup by name."""
        return self._of_id[int(self._ids[k])]

    def many(self, positions: list[int]) -> list[Status]:
        """at(k) for each k of positions, in their order."""
        of_id = self._of_id
        return [of_id[s] for s in self._ids[positions].tolist()] if positions else []

    def after_fit(self, k: int) -> Status | None:
        """The status the cycle's Filter plugins after NodeResourcesFit gave the k-th node
        listed (the first of them to reject it), None when they all let it through; worked out
        for every node listed at the first call, nominated pods left out."""
        if self._after is None:
            fr, idx = self._fr, self._idx
            after = np.zeros(len(idx), np.int32)
            todo = np.ones(len(idx), bool)
            for unit, o in fr.units[self._fit + 1:]:
                failed = (todo & ~o[idx]).nonzero()[0]
                if len(failed):
                    after[failed] = unit.filter_status(fr.state, fr.pod, idx[failed])
                    todo[failed] = False
            self._after = after
        s = int(self._after[k])
        return self._statuses.get(s) if s else None

    def __iter__(self):
        return iter(self._names)

    def _whole(self) -> dict[str, Status]:
        if self._dict is None:
            self._dict = dict(zip(self._names, map(self._of_id.__getitem__, self._ids.tolist())))
        return self._dict

    def values(self):
        return self._whole().values()

    def items(self):
        return self._whole().items()

    def __eq__(self, other: object) -> bool:
        return self._whole() == (other._whole() if isinstance(other, _NodeToStatus) else other)

    def __repr__(self) -> str:
        return repr(self._whole())


class ColumnarRecord:
    """What one cycle saw, for the explanation: the verdicts as node indices and status
    ids, the feasible nodes in evaluation order, their scores."""

    __slots__ = ("nominated_node_tried", "nominated_node_fit", "nodes_evaluated",
                 "pre_filter_status", "absent", "filters", "failed_of", "extra_failed",
                 "feasible", "scores", "chosen", "diagnosed", "walked", "filters_again")

    def __init__(self) -> None:
        self.nominated_node_tried = ""
        self.nominated_node_fit: bool | None = None
        self.nodes_evaluated = 0
        self.pre_filter_status: Status | None = None  # PreFilter rejected every node
        self.absent: tuple[Status, np.ndarray] | None = None  # outside a PreFilterResult
        self.filters: FilterResult | None = None
        self.failed_of: FailedNodes | None = None  # rejected during the search
        self.extra_failed: int | None = None  # the nominated node, rejected before it
        self.feasible: np.ndarray = _EMPTY
        self.scores: tuple[list[str], list, np.ndarray, list] | None = None
        self.chosen = -1  # the selected node's position among feasible
        # (the rejected nodes, their status ids) as the Diagnosis counted them
        self.diagnosed: tuple[np.ndarray, np.ndarray] | None = None
        # before the cycle, whether it may find its feasible nodes by walking the nodes
        # (ColumnarScheduler._walk; the simulation says so when a successful cycle of the pod is
        # not explained); after it, whether it did. A walked cycle keeps (framework, state, pod)
        # for ColumnarScheduler.filters_again, should its Filter verdicts be asked for after all
        self.walked = False
        self.filters_again: tuple | None = None

    @property
    def failed(self) -> np.ndarray:
        """Every rejected node, in evaluation order (the nominated one last)."""
        idx = self.failed_of.indices() if self.failed_of is not None else np.zeros(0, np.intp)
        return idx if self.extra_failed is None else np.append(idx, self.extra_failed)


class ColumnarScheduler:
    """schedulePod over a Context, with the reference Scheduler's cross-cycle state."""

    def __init__(self, scheduler: Scheduler, ctx: Context, nominator: Nominator) -> None:
        self.scheduler = scheduler
        self.ctx = ctx
        self.nominator = nominator
        self._all = np.arange(ctx.table.n, dtype=np.intp)
        self._nominated_version = -1
        self._nominated: dict[int, tuple[np.ndarray, list[list[PodInfo]]]] = {}
        # (the nodes _nominated_of gave, a template's static verdicts) ids -> (them, whether one of those nodes
        # passes the static filters); emptied with _nominated
        self._static_nominated: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, bool]] = {}
        self._to_find: dict[ColumnarFramework, int] = {}  # numFeasibleNodesToFind of all nodes

    def schedule_pod(self, fwk: ColumnarFramework, state: CycleState, pod: Pod,
                     record: ColumnarRecord) -> ScheduleResult:
        """Raises FitError (no feasible node) or SchedulingError, as the reference."""
        table = self.ctx.table
        if table.n == 0:
            raise SchedulingError(Status(Code.Error, (ERR_NO_NODES_AVAILABLE,)))
        diagnosis = Diagnosis()
        pre_res, unsched, rejected = run_pre_filter_step(fwk, state, pod, diagnosis)
        if rejected is not None:
            record.pre_filter_status = rejected
            raise FitError(pod, table.n, diagnosis)
        totals_only = record.walked  # (a success not explained wants no per-plugin scores)
        if totals_only:
            walked = self._walk(fwk, state, pod, pre_res)
            if walked is not None:
                return self._walked(fwk, state, pod, record, *walked)
        record.walked = False
        fr = fwk.run_filters(state, pod) if fwk.has_filter_plugins() else None
        if fr is not None:
            self._nominated_pods(fr, pod)
        record.filters = fr
        nominated_failed = None
        if pod.nominated_node_name:
            record.nominated_node_tried = pod.nominated_node_name
            i = table.index.get(pod.nominated_node_name)
            if i is None:
                record.nominated_node_fit = False
            elif fr is None or fr.ok[i]:
                record.nominated_node_fit = True
                record.feasible = np.array([i], np.intp)
                record.nodes_evaluated = 1
                return ScheduleResult(pod.nominated_node_name, 1, 1)
            else:
                record.nominated_node_fit = False
                nominated_failed = i
        subset = self._all
        if pre_res is not None and not pre_res.all_nodes():
            inside = np.array([name in pre_res.node_names for name in table.names], bool)
            subset = inside.nonzero()[0]
            absent = diagnosis.absent_nodes_status = absent_status(unsched)
            record.absent = (absent, (~inside).nonzero()[0])
        feasible, n_failed, failed_of = self._pass_filters(fwk, fr, subset)
        extra = nominated_failed is not None and nominated_failed not in failed_of
        if extra:
            n_failed += 1
        record.feasible = feasible
        record.failed_of = failed_of
        record.extra_failed = nominated_failed if extra else None
        processed = len(feasible) + n_failed
        record.nodes_evaluated = processed
        sched = self.scheduler
        sched.next_start_node_index = (sched.next_start_node_index + processed) % table.n
        if len(feasible) == 0:
            self._diagnose(diagnosis, fr, record.failed, record)
            raise FitError(pod, table.n, diagnosis)
        return self._scored(fwk, state, pod, record, feasible, processed, totals_only)

    def _scored(self, fwk: ColumnarFramework, state: CycleState, pod: Pod, record: ColumnarRecord,
                feasible: np.ndarray, processed: int, totals_only: bool) -> ScheduleResult:
        """prioritizeNodes and selectHost over the feasible nodes (at least one). ``totals_only``: the cycle's
        success is not explained, so only the totals are wanted (scores_again works out the rest if it is)."""
        table = self.ctx.table
        if len(feasible) == 1:
            return ScheduleResult(table.names[feasible[0]], processed, 1)
        if not fwk.has_score_plugins():
            totals = np.ones(len(feasible), np.int64)
        else:
            try:
                totals, plugins, arrays, raws = fwk.run_score(state, pod, feasible, totals_only)
            except ScoreError as err:
                raise SchedulingError(err.status) from None
            record.scores = (plugins, arrays, totals, raws)
        record.chosen = self._select(totals)
        return ScheduleResult(table.names[feasible[record.chosen]], processed, len(feasible))

    def _walk(self, fwk: ColumnarFramework, state: CycleState, pod: Pod, pre_res):
        """findNodesThatPassFilters for the usual cycle, in one compiled walk from
        nextStartNodeIndex that works out each node's verdict as it reaches it and stops at
        numFeasibleNodesToFind: the pod has no nominated node, no PreFilterResult narrows the
        nodes, its Filter plugins are node-static ones, NodeResourcesFit (cpu, memory, pods) and
        PodTopologySpread (at most two constraints), and no node holding nominated pods it must
        make room for passes them (there RunFilterPluginsWithNominatedPods decides). Returns
        (feasible nodes, nodes looked at, start), or None when the cycle takes the node arrays
        (any other cycle, or one without a feasible node: its Diagnosis needs every verdict)."""
        table = self.ctx.table
        if pod.nominated_node_name or (pre_res is not None and not pre_res.all_nodes()) or \
                not kernels.available(table.n):
            return None
        args = fwk.walk_arguments(state, pod)
        if args is None:
            return None
        nodes = self._nominated_of(pod)[0]
        if len(nodes) and self._statically_open(nodes, args[0]) and kernels.feasible_at(nodes, *args):
            return None
        n = table.n
        to_find = self._to_find.get(fwk)
        if to_find is None:  # (the profile's, for every node: the same in each cycle)
            to_find = self._to_find[fwk] = num_feasible_nodes_to_find(
                self.scheduler._percentage(fwk.ref), n) if fwk.has_score_plugins() else 1
        start = self.scheduler.next_start_node_index % n
        found, seen = kernels.feasible_search(*args, start, to_find)
        if len(found) == 0:
            return None
        return found, seen, start

    def _statically_open(self, nodes: np.ndarray, static_ok: np.ndarray) -> bool:
        """Whether one of the nodes holding nominated pods passes the static filters (static_ok, a template's):
        feasible_at's verdict is false on any other node, whatever the pods on it. Once per nominations and
        template (for most pods, the nominated pods wait on nodes they cannot use: tainted, or another pool)."""
        key = (id(nodes), id(static_ok))
        found = self._static_nominated.get(key)
        if found is None or found[0] is not nodes or found[1] is not static_ok:
            found = self._static_nominated[key] = (nodes, static_ok, bool(static_ok[nodes].any()))
        return found[2]

    def _walked(self, fwk: ColumnarFramework, state: CycleState, pod: Pod, record: ColumnarRecord,
                feasible: np.ndarray, seen: int, start: int) -> ScheduleResult:
        """The rest of schedulePod after _walk found feasible nodes."""
        record.feasible = feasible
        record.failed_of = FailedNodes(self._all, start, seen, None)
        record.nodes_evaluated = seen
        record.filters_again = (fwk, state, pod)  # (no closure: it would hold the record in a cycle)
        sched = self.scheduler
        sched.next_start_node_index = (sched.next_start_node_index + seen) % self.ctx.table.n
        return self._scored(fwk, state, pod, record, feasible, seen, True)

    def filters_again(self, record: ColumnarRecord) -> None:
        """A walked cycle's Filter verdicts, should its explanation be asked for after all (a
        bind that failed: the nodes are still as the walk saw them)."""
        fwk, state, pod = record.filters_again
        fr = fwk.run_filters(state, pod)
        self._nominated_pods(fr, pod)
        record.filters, record.failed_of.ok = fr, fr.ok
        self.scores_again(fwk, state, pod, record)

    @staticmethod
    def scores_again(fwk: ColumnarFramework, state: CycleState, pod: Pod, record: ColumnarRecord) -> None:
        """A cycle scored for its totals only (its success was not to be explained): each plugin's scores,
        should its explanation be asked for after all (a bind that failed: the nodes are as it scored them)."""
        if record.scores is not None and record.scores[1] is None:
            totals, plugins, arrays, raws = fwk.run_score(state, pod, record.feasible)
            record.scores = (plugins, arrays, totals, raws)

    def _pass_filters(self, fwk: ColumnarFramework, fr: FilterResult | None,
                      subset: np.ndarray) -> tuple[np.ndarray, int, "FailedNodes"]:
        """findNodesThatPassFilters: the feasible nodes in evaluation order (from
        nextStartNodeIndex until numFeasibleNodesToFind are feasible), how many nodes
        were rejected before that point, and which (worked out only if asked for)."""
        n = len(subset)
        to_find = num_feasible_nodes_to_find(self.scheduler._percentage(fwk.ref), n)
        if not fwk.has_score_plugins():
            to_find = 1
        if n == 0:
            return np.zeros(0, np.intp), 0, FailedNodes(subset, 0, 0, None)
        start = self.scheduler.next_start_node_index % n
        if fr is None:
            order = np.concatenate((subset[start:], subset[:start]))
            return order[:min(to_find, n)], 0, FailedNodes(subset, start, 0, None)
        ok = fr.ok if len(subset) == self.ctx.table.n else fr.ok[subset]
        if kernels.available(self.ctx.table.n):
            found, stop = kernels.first_feasible(ok, start, to_find)
            return subset[found], stop - len(found), FailedNodes(subset, start, stop, ok)
        pos = ok.nonzero()[0]  # feasible positions within subset, in subset order
        k = int(pos.searchsorted(start))
        if len(pos) - k >= to_find:
            found = pos[k:k + to_find]
        else:
            found = np.concatenate((pos[k:], pos[:min(k, to_find - (len(pos) - k))]))
        stop = (int(found[-1]) - start) % n + 1 if len(found) >= to_find and to_find else n
        if to_find == 0:
            stop = 0
        return subset[found], stop - len(found), FailedNodes(subset, start, stop, ok)

    def _diagnose(self, d: Diagnosis, fr: FilterResult | None, failed: np.ndarray,
                  record: ColumnarRecord) -> None:
        """The Diagnosis of a cycle without feasible nodes, counted per status: the
        reason histogram (absent nodes included), the rejecting plugins, and NodeToStatus
        for the Unschedulable nodes only (the ones preemption looks at)."""
        table, statuses = self.ctx.table, self.ctx.statuses
        reasons: dict[str, int] = {}
        unschedulable, unschedulable_ids = _EMPTY, _EMPTY
        retry: list[int] = []  # status ids that preemption looks at
        if fr is not None and len(failed):
            ids = fr.statuses(failed)
            record.diagnosed = (failed, ids)
            counts = np.bincount(ids)
            for s in counts.nonzero()[0]:
                st = statuses.get(int(s))
                if st.code == Code.Error:
                    raise SchedulingError(st)
                _add_plugin_status(d, st)
                for r in st.reasons:
                    reasons[r] = reasons.get(r, 0) + int(counts[s])
                if st.code == Code.Unschedulable:
                    retry.append(int(s))
            if retry:  # those nodes in index order, each with its status id (worked out once)
                if len(retry) == 1:
                    sel = ids == retry[0]
                else:  # (a lookup per status id: np.isin sorts)
                    wanted = np.zeros(len(counts), bool)
                    wanted[retry] = True
                    sel = wanted[ids]
                unschedulable, unschedulable_ids = failed[sel], ids[sel]
                order = np.argsort(unschedulable, kind="stable")
                unschedulable = unschedulable[order]
                unschedulable_ids = unschedulable_ids[order]
        absent = table.n - len(failed)
        if absent > 0:
            for r in d.absent_nodes_status.reasons:
                reasons[r] = reasons.get(r, 0) + absent
        d.reasons = reasons
        d.unschedulable_nodes = table.names_of(unschedulable)
        d.unschedulable_lowest = table.lowest_priorities()[unschedulable]
        of_id = {s: statuses.get(s) for s in retry}  # (each is some node's: counted above)
        d.node_to_status = _NodeToStatus(d.unschedulable_nodes, unschedulable, unschedulable_ids,
                                         of_id, table.index, fr, statuses)

    def _select(self, totals: np.ndarray) -> int:
        """selectHost: the highest total; one draw among the tied (see schedule_one.py)."""
        if totals.dtype == np.int64 and kernels.available(self.ctx.table.n):
            ties = kernels.top_ties(totals)
        else:
            ties = (totals == _MAX(totals)).nonzero()[0]
        return int(ties[self.scheduler.draw(len(ties))])

    def _nominated_pods(self, fr: FilterResult, pod: Pod) -> None:
        """RunFilterPluginsWithNominatedPods' nominated pods, folded into fr."""
        nodes, added, key = self._nominated_of(pod)
        if len(nodes):
            fr.with_nominated(nodes, added, key)

    def _nominated_of(self, pod: Pod) -> tuple[np.ndarray, list[list[PodInfo]], tuple | None]:
        """Nodes with nominated pods of at least the pod's priority (itself excluded), those
        pods, and a key naming them while the nominations stay the same (None for a pod
        nominated itself); the same for every pod of one priority meanwhile."""
        version = self.nominator.version
        if self._nominated_version != version:
            self._nominated_version, self._nominated, self._static_nominated = version, {}, {}
        own = bool(self.nominator.node_of(pod))
        key = (version, pod.priority)
        found = None if own else self._nominated.get(pod.priority)
        if found is None:
            nodes: list[int] = []
            added: list[list[PodInfo]] = []
            index = self.ctx.table.index
            for node, infos in self.nominator.items():
                sel = [pi for pi in infos if pi.pod.priority >= pod.priority and
                       pi.pod.key != pod.key]
                if sel and node in index:
                    nodes.append(index[node])
                    added.append(sel)
            found = (np.array(nodes, np.intp), added)
            if not own:
                self._nominated[pod.priority] = found
        return found[0], found[1], None if own else key
