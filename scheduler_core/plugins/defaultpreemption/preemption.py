"""The preemption Evaluator: find candidates by dry runs, pick one, evict its victims.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/preemption/preemption.go``
(Evaluator.Preempt, findCandidates, DryRunPreemption, SelectCandidate,
prepareCandidateAsync, getLowerPriorityNominatedPods); the "0/N nodes are available: ..."
message is ``framework.fit_error``'s. Dry runs are sequential, in the order
``(offset + i) % len(potential nodes)``, and stop where upstream cancels its workers.
Extenders are not modelled. The asynchronous preemption of v1.34 is run to completion
within PostFilter: the handle applies the evictions before the preemptor's next attempt,
which is the state upstream's PreEnqueue waits for before retrying the preemptor.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from bisect import bisect_left
from functools import partial
from itertools import compress
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ...framework.fit_error import fit_error_message
from ...framework.interface import (Code, Diagnosis, NominatingInfo, PostFilterResult,
                                    Status, as_status, new_status)
from ...framework.types import NodeInfo
from ...k8s.types import Pod
from .candidates import (PDB, Candidate, Elimination, build_pdbs,
                         pick_one_node_for_preemption)

if TYPE_CHECKING:  # pragma: no cover
    from ...framework.cycle_state import CycleState

# Messages copied from kube-scheduler v1.34 framework/preemption/preemption.go.
MSG_PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
MSG_NO_CANDIDATE = "no candidate node for preemption"
MSG_NO_NODES = "no nodes available"


class Interface(Protocol):
    """preemption.Interface: what a preemption plugin supplies to the Evaluator."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]: ...

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status
                                       ) -> tuple[bool, str]: ...

    def select_victims_on_node(self, state: "CycleState", pod: Pod, node_info: NodeInfo,
                               pdbs: Sequence[PDB]) -> tuple[list[Pod], int, Status, dict]: ...


@dataclass
class PreemptionTrace:
    """What one PostFilter call did, kept in CycleState for ``explain``."""

    eligible: bool = True
    ineligible_reason: str = ""
    potential_nodes: list[str] = field(default_factory=list)
    offset: int = 0
    num_candidates: int = 0
    pdbs: list[PDB] = field(default_factory=list)
    evaluated: list[str] = field(default_factory=list)  # dry-run order
    node_statuses: dict[str, Status] = field(default_factory=dict)  # dry runs that failed
    # reason -> how many of node_statuses give it, when the dry run counted them as it went
    node_reasons: dict[str, int] | None = None
    candidates: list[Candidate] = field(default_factory=list)
    chosen: str = ""
    decided_by: str = ""
    eliminations: list[Elimination] = field(default_factory=list)
    evictions: list[str] = field(default_factory=list)
    cleared_nominations: list[str] = field(default_factory=list)
    # its JSON (explain.trace_to_json) once worked out: a trace is not changed after its cycle, and
    # both the pod's explanation and the run's "preemptions" write it out
    written: dict | None = field(default=None, repr=False, compare=False)


def nodes_where_preemption_might_help(nodes: Sequence[NodeInfo], d: Diagnosis,
                                      node_map: dict[str, NodeInfo] | None = None
                                      ) -> list[NodeInfo]:
    """NodeToStatus.NodesForStatusCode(Unschedulable): UnschedulableAndUnresolvable are skipped."""
    if d.unschedulable_nodes is not None:  # already listed (the columnar path)
        if node_map is None:
            node_map = {ni.name: ni for ni in nodes}
        return list(map(node_map.__getitem__, d.unschedulable_nodes))
    out = []
    for ni in nodes:
        st = d.node_to_status.get(ni.name, d.absent_nodes_status)
        if st.code == Code.Unschedulable:
            out.append(ni)
    return out


def _aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message, or "[a, b]"."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


class _Listed(Sequence):
    """The nodes where preemption might help as the columnar path lists them (names, and the
    lowest priority of each node's pods): NodeInfos are looked up only for the nodes tried."""

    def __init__(self, names: list[str], node_map: dict[str, NodeInfo], lowest) -> None:
        self.names, self.node_map, self.lowest = names, node_map, lowest

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self.node_map[name] for name in self.names[i]]
        return self.node_map[self.names[i]]

    def many(self, positions: list[int]) -> list[NodeInfo]:
        """The NodeInfos at positions, in their order."""
        names, node_map = self.names, self.node_map
        return [node_map[names[i]] for i in positions]


class WalkStatuses(Mapping):
    """The statuses of a dry run's walk (node name -> Status, in walk order) as the walk left
    them: the nodes it passed, which of them hold no pod of lower priority (each given
    ``without``), and the statuses of the nodes tried in vain. A walk passes thousands of nodes
    in every failed cycle; the dict is made only if something iterates it, and ``groups``
    gives the explanation what it lists without it."""

    def __init__(self, passed: list[str], flags, without: Status, failed: dict[str, Status]) -> None:
        self.passed, self.flags, self.without, self.failed = passed, flags, without, failed
        self.without_count = int(np.count_nonzero(flags))
        self._dict: dict[str, Status] | None = None

    def _whole(self) -> dict[str, Status]:
        if self._dict is None:
            keep = self.flags.copy()
            position = {name: p for p, name in enumerate(self.passed)} if self.failed else {}
            for name in self.failed:
                keep[position[name]] = True
            self._dict = dict.fromkeys(compress(self.passed, keep.tolist()), self.without)
            self._dict.update(self.failed)
        return self._dict

    def __getitem__(self, name: str) -> Status:
        return self._whole()[name]

    def __iter__(self):
        return iter(self._whole())

    def __len__(self) -> int:
        return self.without_count + len(self.failed)

    def groups(self, limit: int) -> list[tuple[Status, int, list[str]]] | None:
        """(verdict, node count, the first ``limit`` node names in walk order) per distinct
        verdict, or None where a node tried in vain got ``without`` itself."""
        by_object: dict[int, list[str]] = {}  # (the walk shares one object per verdict: grouped by
        objects: dict[int, Status] = {}        # identity, without hashing a Status per node)
        for name, st in self.failed.items():
            group = by_object.get(id(st))
            if group is None:
                group = by_object[id(st)] = []
                objects[id(st)] = st
            group.append(name)
        out: dict[Status, list[str]] = {st: by_object[k] for k, st in objects.items()}
        if len(out) < len(objects):  # (equal verdicts in distinct objects: each node in walk order)
            out = {}
            for name, st in self.failed.items():
                out.setdefault(st, []).append(name)
        if self.without in out:
            return None
        groups = [(st, len(names), names[:limit]) for st, names in out.items()]
        if self.without_count:
            first = np.flatnonzero(self.flags)[:limit].tolist()
            groups.insert(0, (self.without, self.without_count,
                              list(map(self.passed.__getitem__, first))))
        return groups


def walked_in_vain(trace: PreemptionTrace) -> bool:
    """Whether the dry run passed every potential node and found no candidate (then each
    node's verdict is its own: a node is tried on clones, nothing carried to the next)."""
    return (trace.eligible and not trace.candidates and not trace.evictions and
            isinstance(trace.node_statuses, WalkStatuses) and
            len(trace.evaluated) == len(trace.potential_nodes))


class WalkAgain:
    """A dry run that ``walked_in_vain``, walked again from another offset: the same verdicts,
    in the order of a walk from there (what the dry run itself would leave)."""

    def __init__(self, trace: PreemptionTrace) -> None:
        self.trace = trace
        names, old = trace.potential_nodes, trace.node_statuses
        n, start = len(names), trace.offset
        # each node's "no pod of lower priority" flag in node order; the tried ones' verdicts
        self.flags = np.roll(np.asarray(old.flags, bool), start) if n else old.flags
        where = {name: (p + start) % n for p, name in enumerate(old.passed)} if old.failed else {}
        self.failed = sorted((where[name], name, st) for name, st in old.failed.items())
        self.positions = [p for p, _, _ in self.failed]

    def from_offset(self, offset: int, num: int) -> PreemptionTrace:
        t = self.trace
        names = t.potential_nodes
        k = bisect_left(self.positions, offset)
        failed = {name: st for _, name, st in (*self.failed[k:], *self.failed[:k])}
        passed = names[offset:] + names[:offset]
        statuses = WalkStatuses(passed, np.roll(self.flags, -offset), t.node_statuses.without,
                                failed)
        return PreemptionTrace(potential_nodes=names, offset=offset, num_candidates=num,
                               pdbs=t.pdbs, evaluated=passed, node_statuses=statuses,
                               node_reasons=None if t.node_reasons is None else
                               dict(t.node_reasons))


class Evaluator:
    """preemption.Evaluator: runs Preempt for a plugin implementing ``Interface``."""

    def __init__(self, plugin_name: str, handle: Any, interface: Interface) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface

    def preempt(self, state: "CycleState", pod: Pod, d: Diagnosis, trace: PreemptionTrace
                ) -> tuple[PostFilterResult | None, Status]:
        """Evaluator.Preempt: the result carries the nominated node; messages un-prefixed."""
        nominated_status = d.node_to_status.get(pod.nominated_node_name, d.absent_nodes_status)
        ok, msg = self.interface.pod_eligible_to_preempt_others(pod, nominated_status)
        if not ok:
            trace.eligible, trace.ineligible_reason = False, msg
            return None, new_status(Code.Unschedulable, msg)
        all_nodes = self.handle.snapshot_shared_lister().list()
        candidates, statuses, errs = self.find_candidates(state, all_nodes, pod, d, trace)
        if errs and not candidates:
            return None, Status(Code.Error, (_aggregate(errs),))
        if not candidates:
            absent = new_status(Code.UnschedulableAndUnresolvable, MSG_PREEMPTION_NOT_HELPFUL)
            failed = Diagnosis(statuses, absent)
            if trace.node_reasons is not None:  # (reasons_histogram, from the dry run's counts)
                failed.reasons = reasons = dict(trace.node_reasons)
                rest = len(all_nodes) - len(statuses)
                for r in absent.reasons if rest > 0 else ():
                    reasons[r] = reasons.get(r, 0) + rest
            msg = fit_error_message(len(all_nodes), failed)
            return PostFilterResult(NominatingInfo("", "Override")), \
                new_status(Code.Unschedulable, msg)
        best = self.select_candidate(candidates, trace)
        if best is None or not best.name:
            return None, new_status(Code.Unschedulable, MSG_NO_CANDIDATE)
        st = self.prepare_candidate(best, pod, trace)
        if not st.is_success():
            return None, st
        return PostFilterResult(NominatingInfo(best.name, "Override")), Status()

    def find_candidates(self, state: "CycleState", all_nodes: Sequence[NodeInfo], pod: Pod,
                        d: Diagnosis, trace: PreemptionTrace
                        ) -> tuple[list[Candidate], dict[str, Status], list[str]]:
        """Evaluator.findCandidates: candidates, failed dry-run statuses, errors."""
        if not all_nodes:
            return [], {}, [MSG_NO_NODES]
        node_map = getattr(self.handle.snapshot_shared_lister(), "node_info_map", None)
        listed = d.unschedulable_nodes  # (the columnar path names them, in the same order)
        if listed is not None and d.unschedulable_lowest is not None and node_map is not None:
            potential: Sequence[NodeInfo] = _Listed(listed, node_map, d.unschedulable_lowest)
            # (the failed cycle's status of the i-th of them: the diagnosis lists them in order;
            # and that of its Filter plugins after NodeResourcesFit)
            seen = getattr(d.node_to_status, "at", None)
            after_fit = getattr(d.node_to_status, "after_fit", None)
        else:
            potential = nodes_where_preemption_might_help(all_nodes, d, node_map)
            seen = after_fit = None
        trace.potential_nodes = list(listed) if listed is not None and len(listed) == len(
            potential) else [ni.name for ni in potential]
        if not potential:
            return [], {}, []
        objects = self.handle.objects
        specs = getattr(objects, "pdbs", ()) or ()
        bound = [pi.pod for ni in all_nodes for pi in ni.pods] if specs else []
        pdbs = build_pdbs(specs, bound, getattr(objects, "workloads", ()) or ())
        trace.pdbs = pdbs
        offset, num = self.interface.get_offset_and_num_candidates(len(potential))
        trace.offset, trace.num_candidates = offset, num
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, num, trace, seen,
                                       after_fit)

    def dry_run_preemption(self, state: "CycleState", pod: Pod, potential: Sequence[NodeInfo],
                           pdbs: Sequence[PDB], offset: int, num: int, trace: PreemptionTrace,
                           seen=None, after_fit=None
                           ) -> tuple[list[Candidate], dict[str, Status], list[str]]:
        """Evaluator.DryRunPreemption: non-violating candidates first, then violating ones.
        ``seen(i)``: the failed cycle's status of potential[i], when known; ``after_fit(i)``:
        that of its Filter plugins after NodeResourcesFit."""
        lower = getattr(self.interface, "nodes_with_lower_priority", None)
        if lower is not None:
            return self._dry_run_where_victims(state, pod, potential, pdbs, offset, num, trace,
                                               *lower(pod, potential), seen=seen,
                                               after_fit=after_fit)
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        statuses: dict[str, Status] = {}
        errs: list[str] = []
        quick = getattr(self.interface, "no_victims_status", None)
        for i in range(len(potential)):
            ni = potential[(offset + i) % len(potential)]
            trace.evaluated.append(ni.name)
            # a node without a possible victim is answered without cloning anything
            st = quick(pod, ni) if quick is not None else None
            if st is not None:
                statuses[ni.name] = st
                continue
            st, enough = self._try_node(state, pod, ni, pdbs, num, non_violating, violating, errs)
            if enough:
                break
            if st is not None:
                statuses[ni.name] = st
        trace.node_statuses = statuses
        trace.candidates = non_violating + violating
        return non_violating + violating, statuses, errs

    def _dry_run_where_victims(self, state: "CycleState", pod: Pod, potential: Sequence[NodeInfo],
                               pdbs: Sequence[PDB], offset: int, num: int, trace: PreemptionTrace,
                               lower: Sequence[bool], none: Status, seen=None, after_fit=None
                               ) -> tuple[list[Candidate], dict[str, Status], list[str]]:
        """dry_run_preemption when the plugin tells at once which nodes hold a pod of lower
        priority (``lower``, a flag per node): only those are tried; every other node the walk
        passes (from ``offset`` round, until enough candidates are found) gets ``none`` (no
        victims), in the order the walk passes it, as the node-by-node loop gives them."""
        n = len(potential)
        lower = np.asarray(lower, bool)
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        failed: dict[int, Status] = {}  # node position -> status, in walk order
        errs: list[str] = []
        walked = n  # how many nodes the walk passed, from offset round
        same: dict[Status, Status] = {}  # one object per verdict: the explanation groups by object
        tried = np.flatnonzero(lower)
        k = int(tried.searchsorted(offset))
        # (a node the plugin can tell is rejected even without its lower-priority pods is not tried)
        hopeless = getattr(self.interface, "rejected_without_victims", None)
        order = [*tried[k:].tolist(), *tried[:k].tolist()]
        # (the walk's nodes, and their statuses in the failed cycle, looked up in one go: on the
        # columnar path seen is the failed cycle's _NodeToStatus.at, whose object answers many at once)
        nodes = potential.many(order) if isinstance(potential, _Listed) else [potential[i] for i in order]
        many = getattr(getattr(seen, "__self__", None), "many", None)
        seens = many(order) if many is not None else [seen(i) for i in order] if seen is not None \
            else [None] * len(order)
        for i, ni, seen_i in zip(order, nodes, seens):
            st = None if hopeless is None else \
                hopeless(state, pod, ni) if seen is None else \
                hopeless(state, pod, ni, seen_i) if after_fit is None else \
                hopeless(state, pod, ni, seen_i, partial(after_fit, i))
            if st is not None:
                failed[i] = same.setdefault(st, st)
                continue
            st, enough = self._try_node(state, pod, ni, pdbs, num, non_violating, violating, errs)
            if enough:
                walked = (i - offset) % n + 1
                break
            if st is not None:
                failed[i] = same.setdefault(st, st)
        names = trace.potential_nodes if len(trace.potential_nodes) == n else \
            [ni.name for ni in potential]
        # the nodes passed, in walk order: [offset, n) then [0, ...), as names and as flags
        wrap = max(0, offset + walked - n)
        passed = names[offset:offset + walked] + names[:wrap]
        without = ~np.concatenate((lower[offset:offset + walked], lower[:wrap]))
        trace.evaluated = passed
        statuses = WalkStatuses(passed, without, none, {names[i]: st for i, st in failed.items()})
        reasons: dict[str, int] = {}
        if statuses.without_count:
            for r in none.reasons:
                reasons[r] = reasons.get(r, 0) + statuses.without_count
        for st in failed.values():
            for r in st.reasons:
                reasons[r] = reasons.get(r, 0) + 1
        trace.node_statuses, trace.node_reasons = statuses, reasons
        trace.candidates = non_violating + violating
        return non_violating + violating, statuses, errs

    def _try_node(self, state: "CycleState", pod: Pod, ni: NodeInfo, pdbs: Sequence[PDB],
                  num: int, non_violating: list[Candidate], violating: list[Candidate],
                  errs: list[str]) -> tuple[Status | None, bool]:
        """One node of the dry run, on clones of the state and the node: a node with victims
        becomes a candidate in its bucket (``non_violating`` or ``violating``, each kept to
        ``num``), and the second value says whether the walk has enough and stops; otherwise
        the node's status is returned (an Error's message also goes to ``errs``)."""
        by_resources = getattr(self.interface, "select_victims_by_resources", None)
        found = by_resources(state, pod, ni, pdbs) if by_resources is not None else None
        if found is None:
            found = self.interface.select_victims_on_node(state.clone(), pod, ni.clone(), pdbs)
        victims, n_pdb, st, why = found
        if st.is_success() and victims:
            bucket = non_violating if n_pdb == 0 else violating
            if len(bucket) < num:
                bucket.append(Candidate(ni.name, victims, n_pdb, why))
            return None, bool(non_violating) and len(non_violating) + len(violating) >= num
        if st.is_success():
            st = Status(Code.Error, (f'expected at least one victim pod on node "{ni.name}"',))
        if st.code == Code.Error:
            errs.append(st.message())
        return st, False

    def select_candidate(self, candidates: Sequence[Candidate], trace: PreemptionTrace
                         ) -> Candidate | None:
        """Evaluator.SelectCandidate (no extenders, default score functions)."""
        best, criterion, eliminated = pick_one_node_for_preemption(candidates)
        trace.chosen = best.name if best else ""
        trace.decided_by, trace.eliminations = criterion, eliminated
        return best

    def prepare_candidate(self, c: Candidate, pod: Pod, trace: PreemptionTrace) -> Status:
        """Evaluator.prepareCandidateAsync run to completion (SchedulerAsyncPreemption is
        on by default since v1.33): clear lower-priority nominations on the node, then
        evict every victim. Victims already terminating are evicted too: the skip added
        in v1.34.0 was reverted on the release-1.34 branch (kubernetes PR 134247)."""
        clear = getattr(self.handle, "clear_nominated_node_name", None)
        for p in self._lower_priority_nominated_pods(pod, c.name):
            if clear is not None:
                clear(p)
            trace.cleared_nominations.append(p.key)
        for victim in c.victims:
            try:
                self.handle.evict(victim, pod, c.name)
            except Exception as err:  # noqa: BLE001 - a failed eviction is an Error status
                return as_status(err)
            trace.evictions.append(victim.key)
        return Status()

    def _lower_priority_nominated_pods(self, pod: Pod, node_name: str) -> list[Pod]:
        """getLowerPriorityNominatedPods: pods nominated to node_name with lower priority."""
        infos = self.handle.nominated_pods_for_node(node_name) or []
        return [pi.pod for pi in infos if pi.pod.priority < pod.priority]
