"""PodTopologySpread over node arrays and incrementally kept domain counts.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/podtopologyspread/``:

- PreFilter (``filtering.go`` calPreFilterState): per DoNotSchedule constraint, the
  matching pods per domain over the eligible nodes (those with every constraint's key
  that pass the node inclusion policies). The counts come from the node table's
  ``DomainCounter``, updated as pods bind, so nothing is recounted; the global minimum is
  0 when fewer domains than minDomains exist.
- Filter: per node, constraint by constraint, a missing key is UnschedulableAndUnresolvable
  and ``count + selfMatch - min > maxSkew`` is Unschedulable: one lookup per domain, one
  gather per node. With nominated pods (AddPod, ``updateWithPod``) the criticalPaths of
  the reference are replayed for the few nodes concerned, quirks included.
- PreScore / Score / NormalizeScore (``scoring.go``): domains of the scored nodes, counts
  over all nodes, ``log(size + 2)`` weights, float64 sums rounded half away from zero.

Constraints (``common.go``, cluster defaults included) come from the reference plugin's
``get_constraints``, cached per pod template; the explanation is laid out by the
reference ``explain`` module's helpers, so both paths print the same JSON.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Sequence

import numpy as np

# ufunc reductions: the ndarray methods go through Python wrappers, costly a call
_MIN, _MAX = np.minimum.reduce, np.maximum.reduce
_ANY, _ALL = np.logical_or.reduce, np.logical_and.reduce

from ...framework.cycle_state import CycleState
from ...framework.interface import SKIP, SUCCESS, Code, Status
from ...framework.types import PodInfo
from ...k8s.types import DO_NOT_SCHEDULE, HONOR, LABEL_HOSTNAME, SCHEDULE_ANYWAY, Pod
from ...plugins.podtopologyspread import explain as ex
from ...plugins.podtopologyspread.common import Constraint
from ...plugins.podtopologyspread.filtering import (ERR_REASON_CONSTRAINTS_NOT_MATCH,
                                                    ERR_REASON_NODE_LABEL_NOT_MATCH,
                                                    CriticalPaths)
from ...plugins.podtopologyspread.plugin import PRE_FILTER_STATE_KEY, PRE_SCORE_STATE_KEY
from ...plugins.podtopologyspread.scoring import score_for_count
from ...trace import MAX_DOMAINS
from ..context import required_affinity_key
from ..node_groups import TemplateCache
from ..node_table import DomainCounter, LabelColumn, Matcher
from .. import kernels
from . import ColumnarPlugin

INT = np.int64


@dataclass(eq=False)
class HardConstraint:
    """One DoNotSchedule constraint of this cycle."""

    c: Constraint
    column: LabelColumn
    counter: DomainCounter
    matcher: Matcher
    cnt: np.ndarray  # the counter's per-domain counts at PreFilter (they move on binds)
    self_match: int
    min_match: int
    forced_zero: bool
    # status id per domain slot (the last slot: the node lacks the key); None when the
    # kernels filter (they compare counts with the threshold themselves)
    lut: np.ndarray | None
    threshold: int  # a domain whose count is over it fails: maxSkew - selfMatch + minMatch


@dataclass(eq=False)
class HardState:
    """PreFilter state under "PreFilterPodTopologySpread" (columnar)."""

    constraints: list[HardConstraint]
    status: np.ndarray | None = None  # per node, filled by filter_ok

    def clone(self) -> "HardState":
        return self


@dataclass(eq=False)
class SoftConstraint:
    """One ScheduleAnyway constraint of this cycle."""

    c: Constraint
    column: LabelColumn
    matcher: Matcher
    weight: float
    hostname: bool
    present: np.ndarray | None = None  # per value: some scored node is in that domain
    cnt: np.ndarray | None = None  # per value: the counts over all nodes at PreScore
    empty_total: int | None = None  # the "" domain's count (System defaults), if scored

    def counts(self) -> dict[str, int]:
        """Domain -> count for the scored nodes' domains (what the reference keeps)."""
        values = self.column.values
        out = {values[v]: int(self.cnt[v]) for v in self.present.nonzero()[0]}
        if self.empty_total is not None:
            out[""] = self.empty_total
        return out


@dataclass(eq=False)
class SoftState:
    """PreScore state under "PreScorePodTopologySpread" (columnar)."""

    constraints: list[SoftConstraint]
    idx: np.ndarray  # the scored nodes
    ignored: np.ndarray  # per scored node: lacks some constraint's key
    require_all: bool
    hostname_counts: list[np.ndarray] = field(default_factory=list)

    def clone(self) -> "SoftState":
        return self


# the pod fields _compute_setup reads
_SETUP_READS = attrgetter("topology_spread_constraints", "labels", "namespace", "owner_references", "node_selector",
                          "affinity", "tolerations")


class PodTopologySpread(ColumnarPlugin):
    NAME = "PodTopologySpread"

    def __init__(self, ref, ctx) -> None:
        super().__init__(ref, ctx)
        self._constraints = TemplateCache()
        self._has_all: dict[tuple[str, ...], np.ndarray] = {}
        self._has_everywhere: dict[tuple[str, ...], bool] = {}
        self._none_ignored = np.zeros(ctx.table.n, bool)  # (PreScore's flags when no node is ignored)
        self._ignored = TemplateCache()
        # (nominations key, namespace, counters) -> [(position, added pods counted per
        # constraint)] for the nodes where some nominated pod counts
        self._nominated_counts: dict = {}
        self._node_keys: np.ndarray | None = None  # (totals_arguments: node i's key is i)
        self._setup_names: dict[tuple, str] = {}  # (action, require_all) -> _setup's template name
        st = ctx.statuses
        self.skew_id = st.intern(Status(Code.Unschedulable, (ERR_REASON_CONSTRAINTS_NOT_MATCH,),
                                        self.NAME))
        self.label_id = st.intern(Status(Code.UnschedulableAndUnresolvable,
                                         (ERR_REASON_NODE_LABEL_NOT_MATCH,), self.NAME))

    # --- constraints -------------------------------------------------------------------
    def constraints(self, pod: Pod, action: str) -> list[Constraint]:
        """The reference get_constraints, cached per what it reads."""
        tscs = pod.topology_spread_constraints
        if tscs:  # (their label selectors hold dicts: the repr is the hashable form)
            key = (action, repr(tscs), tuple((k, pod.labels.get(k)) for c in tscs
                                             for k in c.match_label_keys))
        else:
            key = (action, pod.namespace, frozenset(pod.labels.items()),
                   pod.owner_references)
        return self._constraints.get(key, lambda: self.ref.get_constraints(pod, action))

    def _setup(self, pod: Pod, action: str, require_all: bool | None = None) -> tuple:
        """(constraints, keys, [(matcher, column, counter)], self matches) of the pod for
        action, once per pod template."""
        name = self._setup_names.get((action, require_all))
        if name is None:
            name = self._setup_names[action, require_all] = self.name(f"{action}.{require_all}")
        return self.per_template(pod, name, _SETUP_READS, self._compute_setup, pod, action, require_all)

    def _compute_setup(self, pod: Pod, action: str, require_all: bool | None) -> tuple:
        cons = self.constraints(pod, action)
        keys = tuple(c.topology_key for c in cons)
        req = True if require_all is None else require_all
        return (cons, keys, [self._counter(pod, c, keys, req) for c in cons],
                [1 if c.selector.matches(pod.labels) else 0 for c in cons])

    def _everywhere(self, keys: tuple[str, ...]) -> bool:
        """Whether every node carries every key (no scored node is ignored)."""
        found = self._has_everywhere.get(keys)
        if found is None:
            found = self._has_everywhere[keys] = bool(_ALL(self.has_all(keys)))
        return found

    def has_all(self, keys: tuple[str, ...]) -> np.ndarray:
        """Per node: it carries every key (nodeLabelsMatchSpreadConstraints)."""
        mask = self._has_all.get(keys)
        if mask is None:
            mask = np.ones(self.ctx.table.n, bool)
            for k in keys:
                mask &= ~self.ctx.table.column(k).missing
            self._has_all[keys] = mask
        return mask

    @staticmethod
    def _eligibility_key(pod: Pod, c: Constraint, keys: tuple[str, ...], require_all: bool):
        """What the set of nodes whose pods count for c depends on."""
        return (keys if require_all else (),
                required_affinity_key(pod) if c.node_affinity_policy == HONOR else None,
                pod.tolerations if c.node_taints_policy == HONOR else None)

    def _eligible_mask(self, pod: Pod, c: Constraint, keys: tuple[str, ...],
                       require_all: bool) -> np.ndarray:
        mask = self.has_all(keys) if require_all else np.ones(self.ctx.table.n, bool)
        if c.node_affinity_policy == HONOR:
            mask = mask & self.ctx.required_affinity_ok(pod)
        if c.node_taints_policy == HONOR:
            mask = mask & self.ctx.tolerates_no_schedule(pod)
        return mask

    def _counter(self, pod: Pod, c: Constraint, keys: tuple[str, ...], require_all: bool
                 ) -> tuple[Matcher, LabelColumn, DomainCounter]:
        table = self.ctx.table
        m = table.matcher(pod.namespace, c.selector)
        col = table.column(c.topology_key)
        key = self._eligibility_key(pod, c, keys, require_all)
        dc = m.counters.get((col.key, key))
        if dc is None:
            dc = table.domain_counter(m, col, key,
                                      self._eligible_mask(pod, c, keys, require_all))
        return m, col, dc

    # --- PreFilter / Filter --------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence):
        cons, keys, counters, self_matches = self._setup(pod, DO_NOT_SCHEDULE)
        if not cons:
            return None, SKIP
        hard = []
        compiled = kernels.available(self.ctx.table.n)
        for c, (m, col, dc), self_match in zip(cons, counters, self_matches):
            cnt = dc.cnt.copy()
            present = dc.present_idx
            forced = len(present) < c.min_domains
            if forced:
                min_match = 0
            else:
                min_match = int(kernels.present_min(cnt, present) if compiled
                                else _MIN(cnt[present]))
            threshold = c.max_skew - self_match + min_match
            lut = None
            if not compiled:
                lut = np.empty(len(col) + 1, np.int32)
                lut[:-1] = (cnt > threshold) * self.skew_id
                lut[-1] = self.label_id
            hard.append(HardConstraint(c, col, dc, m, cnt, self_match, min_match, forced, lut,
                                       threshold))
        state.write(PRE_FILTER_STATE_KEY, HardState(hard))
        return None, SUCCESS

    def filter_ok(self, state: CycleState, pod: Pod) -> np.ndarray:
        s: HardState = state.read(PRE_FILTER_STATE_KEY)
        if s.constraints[0].lut is None:  # the kernels
            n = self.ctx.table.n
            status, ok = np.zeros(n, np.int32), np.empty(n, bool)
            for h in s.constraints:
                kernels.spread_filter(status, ok, h.column.slots, h.cnt, h.threshold,
                                      self.skew_id, self.label_id)
            s.status = status
            return ok
        status = None
        for h in s.constraints:
            mine = h.lut[h.column.slots]
            status = mine if status is None else np.where(status == 0, mine, status)
        s.status = status
        return status == 0

    def walk_constraints(self, state: CycleState) -> list[tuple[np.ndarray, np.ndarray, int]] | None:
        """Each constraint's (domain slot per node, count per domain, threshold) for the node
        walk (kernels.feasible_search: filter_ok's compiled comparison), None when filter_ok
        takes its NumPy path or a constraint's key is on no node (no domain: every node fails)."""
        s: HardState = state.read(PRE_FILTER_STATE_KEY)
        if s.constraints[0].lut is not None or any(len(h.cnt) == 0 for h in s.constraints):
            return None
        return [(h.column.slots, h.cnt, h.threshold) for h in s.constraints]

    def filter_status(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        return state.read(PRE_FILTER_STATE_KEY).status[idx]

    def filter_status_with(self, state: CycleState, pod: Pod, idx: np.ndarray,
                           added: Sequence[Sequence[PodInfo]], key=None) -> np.ndarray:
        """Filter after AddPod of the nominated pods (updateWithPod): only nodes where an
        added pod counts need the criticalPaths replayed."""
        s: HardState = state.read(PRE_FILTER_STATE_KEY)
        out = s.status[idx].copy()
        which = (key, pod.namespace, tuple(id(h.counter) for h in s.constraints))
        counted = self._nominated_counts.get(which) if key is not None else None
        if counted is None:
            counted = []
            for k, i in enumerate(idx):
                deltas = [sum(1 for pi in added[k] if pi.pod.namespace == pod.namespace
                              and h.counter.eligible[i] and h.c.selector.matches(pi.pod.labels))
                          for h in s.constraints]
                if any(deltas):
                    counted.append((k, deltas))
            if key is not None:
                if len(self._nominated_counts) > 256:
                    self._nominated_counts.clear()
                self._nominated_counts[which] = counted
        paths: dict[int, CriticalPaths] = {}  # (each constraint's, the same for every node)
        for k, deltas in counted:
            out[k] = self._filter_with_deltas(s, int(idx[k]), deltas, paths)
        return out

    def _filter_with_deltas(self, s: HardState, i: int, deltas: list[int],
                            before: dict[int, CriticalPaths]) -> int:
        """Filter on node i after its nominated pods add deltas[j] to constraint j's count;
        ``before`` keeps each constraint's criticalPaths from the counts (a copy is updated)."""
        for j, (h, delta) in enumerate(zip(s.constraints, deltas)):
            v = int(h.column.ids[i])
            if v < 0:
                return self.label_id
            count = int(h.cnt[v])
            min_match = h.min_match
            if delta:
                paths = before.get(j)
                if paths is None:
                    paths = before[j] = critical_paths(h.counter, h.cnt)
                paths = paths.clone()
                for _ in range(delta):
                    count += 1
                    paths.update(v, count)
                min_match = 0 if h.forced_zero else paths.paths[0].match_num
            if count + h.self_match - min_match > h.c.max_skew:
                return self.skew_id
        return 0

    # --- PreScore / Score / NormalizeScore -----------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> Status:
        require_all = bool(pod.topology_spread_constraints) or not self.ref.system_defaulted
        cons, keys, counters, _ = self._setup(pod, SCHEDULE_ANYWAY, require_all)
        if not cons:
            return SKIP
        if require_all and not self._everywhere(keys):
            ignored = ~self.has_all(keys)[idx]
            kept = idx[~ignored]
        else:  # (no node is ignored: the nodes' flags are all False, read and never written)
            ignored, kept = self._none_ignored[:len(idx)], idx
        soft = []
        for c, (m, col, dc) in zip(cons, counters):
            if c.topology_key == LABEL_HOSTNAME:
                soft.append(SoftConstraint(c, col, m, math.log(len(kept) + 2), True))
                continue
            ids = col.slots[kept]  # a missing key: the last slot
            empty = col.index.get("")
            if not require_all and empty is not None:  # a missing key reads as ""
                ids = np.where(ids == empty, len(col), ids)
            present = np.bincount(ids, minlength=len(col) + 1) > 0
            sc = SoftConstraint(c, col, m, math.log(int(present.sum()) + 2), False,
                                present[:-1], dc.cnt.copy())
            if present[-1]:  # the "" domain (System defaults)
                sc.empty_total = self._empty_total(pod, c, m, col, dc, keys, require_all)
            soft.append(sc)
        state.write(PRE_SCORE_STATE_KEY, SoftState(soft, idx, ignored, require_all))
        return SUCCESS

    def _empty_total(self, pod: Pod, c: Constraint, m: Matcher, col: LabelColumn,
                     dc: DomainCounter, keys: tuple[str, ...], require_all: bool) -> int:
        """The "" domain's count (System defaults): pods on eligible nodes without the
        key or with the value ""."""
        mask = self._eligible_mask(pod, c, keys, require_all) & col.missing
        empty = col.index.get("")
        return int(m.counts[mask].sum()) + (int(dc.cnt[empty]) if empty is not None else 0)

    def score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        """Score: per node the sum of scoreForCount over constraints whose key it has,
        float64 in constraint order, rounded half away from zero; ignored nodes 0."""
        s: SoftState = state.read(PRE_SCORE_STATE_KEY)
        acc = np.zeros(len(idx))
        s.hostname_counts = []
        if kernels.available(self.ctx.table.n):
            return self._score_compiled(s, idx, acc)
        for sc in s.constraints:
            if sc.hostname:
                cnt = sc.matcher.counts[idx]
                s.hostname_counts.append(cnt)
            else:
                cnt = self._lookup(sc)[sc.column.slots[idx]]
            term = cnt * sc.weight + float(sc.c.max_skew - 1)
            if sc.column.all_present:
                acc = acc + term
            else:
                acc = np.where(sc.column.missing[idx], acc, acc + term)
        t = np.trunc(acc)
        raw = (t + (acc - t >= 0.5)).astype(INT)  # math.Round for acc >= 0
        return np.where(s.ignored, 0, raw)

    def totals_arguments(self, state: CycleState) -> tuple[list[tuple], np.ndarray] | None:
        """For kernels.default_totals: per ScheduleAnyway constraint (keys per node, counts the
        keys look up, the node lacks the key, weight, maxSkew - 1) as _score_compiled adds them,
        and the ignored nodes; None beyond two constraints."""
        s: SoftState = state.read(PRE_SCORE_STATE_KEY)
        if len(s.constraints) > 2:
            return None
        out = []
        for sc in s.constraints:
            skew = float(sc.c.max_skew - 1)
            if sc.hostname:  # (the node's own count: keys are the node indices)
                if self._node_keys is None:
                    self._node_keys = np.arange(self.ctx.table.n, dtype=np.intp)
                out.append((self._node_keys, sc.matcher.counts, sc.column.missing, sc.weight, skew))
            else:
                out.append((sc.column.slots, self._lookup(sc), sc.column.missing, sc.weight, skew))
        return out, s.ignored

    def _score_compiled(self, s: SoftState, idx: np.ndarray, acc: np.ndarray) -> np.ndarray:
        """score() through the kernels (the same float64 sums in the same order)."""
        for sc in s.constraints:
            skew = float(sc.c.max_skew - 1)
            if sc.hostname:
                cnt = np.empty(len(idx), INT)
                kernels.spread_add_hostname(acc, idx, sc.matcher.counts, sc.column.missing,
                                            sc.weight, skew, cnt)
                s.hostname_counts.append(cnt)
            else:
                kernels.spread_add_domain(acc, idx, sc.column.slots, sc.column.missing,
                                          self._lookup(sc), sc.weight, skew)
        return kernels.spread_round(acc, s.ignored)

    @staticmethod
    def _lookup(sc: SoftConstraint) -> np.ndarray:
        """Count per domain slot: the scored nodes' domains, "" for System defaults."""
        lookup = np.zeros(len(sc.column) + 1, INT)
        lookup[:-1] = np.where(sc.present, sc.cnt, 0)
        empty = sc.column.index.get("")
        if sc.empty_total is not None and empty is not None:
            lookup[empty] = sc.empty_total
        return lookup

    def normalize(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        s: SoftState = state.read(PRE_SCORE_STATE_KEY)
        if kernels.available(self.ctx.table.n):
            return kernels.spread_normalize(scores, s.ignored)
        kept = scores[~s.ignored]
        if len(kept) == 0:
            return np.zeros(len(scores), INT)
        lo, hi = int(_MIN(kept)), max(int(_MAX(kept)), 0)
        if hi == 0:
            return np.where(s.ignored, 0, 100).astype(INT)
        return np.where(s.ignored, 0, 100 * (hi + lo - scores) // hi).astype(INT)

    # --- explanation ---------------------------------------------------------------------
    def explain(self, state: CycleState, pod: Pod) -> dict | None:
        try:
            hard: HardState | None = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            hard = None
        try:
            soft: SoftState | None = state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            soft = None
        if hard is None and soft is None:
            return None
        out = []
        if hard is not None:
            keys = tuple(h.c.topology_key for h in hard.constraints)
            out += [self._explain_hard(pod, h, keys) for h in hard.constraints]
        if soft is not None:
            keys = tuple(sc.c.topology_key for sc in soft.constraints)
            out += [self._explain_soft(pod, soft, j, keys) for j in range(len(soft.constraints))]
        return {"constraints": out}

    def _static_part(self, pod: Pod, c: Constraint, keys: tuple[str, ...],
                     require_all: bool) -> tuple[dict, dict]:
        """(constraint header, nodes not counted): the same for every pod of a template,
        so built once."""
        return self.ctx.template(
            self.name(f"explain.{id(c)}.{require_all}"),
            (c, pod.labels, pod.node_selector, pod.affinity, pod.tolerations),
            lambda: (ex.constraint_header(c, pod),
                     self._not_counted(pod, c, keys, require_all)))

    def _explain_hard(self, pod: Pod, h: HardConstraint, keys: tuple[str, ...]) -> dict:
        present = h.counter.present_sorted
        shown = present[:MAX_DOMAINS]
        values = h.column.values
        items = list(zip([values[v] for v in shown.tolist()], h.cnt[shown].tolist()))
        header, not_counted = self._static_part(pod, h.c, keys, True)
        return {**header, **ex.shown_domains_json(items, len(present), h.self_match, h.min_match,
                                                   header["maxSkew"]),
                "globalMinimum": h.min_match, "minDomainsForcedZero": h.forced_zero,
                **not_counted}

    def _explain_soft(self, pod: Pod, s: SoftState, j: int, keys: tuple[str, ...]) -> dict:
        sc = s.constraints[j]
        table = self.ctx.table
        if sc.hostname:
            pos = (~s.ignored & ~sc.column.missing[s.idx]).nonzero()[0]
            nodes = s.idx[pos]
            cnts = (s.hostname_counts[j] if s.hostname_counts else sc.matcher.counts[s.idx])[pos]
            ranks = table.name_rank[nodes]
            if len(ranks) > MAX_DOMAINS:  # the MAX_DOMAINS first names, unsorted
                first = np.argpartition(ranks, MAX_DOMAINS)[:MAX_DOMAINS]
                order = first[np.argsort(ranks[first])]
            else:
                order = np.argsort(ranks)
            minimum = int(cnts.min()) if len(cnts) else 0
            items = list(zip(table.names_of(nodes[order]), cnts[order].tolist()))
            total = len(nodes)
        else:
            items = sorted(sc.counts().items())
            minimum = min((n for _, n in items), default=0)
            total = len(items)
        ign = s.idx[s.ignored]
        groups: dict[str, list[int]] = {}
        for i in ign:
            missing = next(k for k in keys if table.column(k).missing[i])
            groups.setdefault(ex.missing_label_reason(missing), []).append(int(i))
        header, not_counted = self._static_part(pod, sc.c, keys, s.require_all)
        return {
            **header, **ex.shown_domains_json(items[:MAX_DOMAINS], total, header["selfMatch"], minimum,
                                               header["maxSkew"]),
            "globalMinimum": minimum,
            "topologyNormalizingWeight": sc.weight,
            "ignoredScoredNodes": ex.ignored_json(
                (r, len(v), table.names_of(sorted(v))) for r, v in groups.items()),
            **not_counted,
        }

    def _not_counted(self, pod: Pod, c: Constraint, keys: tuple[str, ...],
                     require_all: bool) -> dict:
        """"ignored" and "ignoredByDomain": nodes whose pods do not count, and why (static
        per constraint and template, so cached)."""
        key = (c, keys, require_all, required_affinity_key(pod)
               if c.node_affinity_policy == HONOR else None,
               pod.tolerations if c.node_taints_policy == HONOR else None)
        return self._ignored.get(key, lambda: self._compute_not_counted(pod, c, keys,
                                                                        require_all))

    def _compute_not_counted(self, pod: Pod, c: Constraint, keys: tuple[str, ...],
                             require_all: bool) -> dict:
        table = self.ctx.table
        reason = np.full(table.n, -1, np.int32)  # index into labels below
        labels: list[str] = []
        if require_all:
            for k in keys:  # the first key a node lacks
                labels.append(ex.missing_label_reason(k))
                reason[(reason < 0) & table.column(k).missing] = len(labels) - 1
        if c.node_affinity_policy == HONOR:
            labels.append(ex.REASON_NODE_AFFINITY)
            reason[(reason < 0) & ~self.ctx.required_affinity_ok(pod)] = len(labels) - 1
        if c.node_taints_policy == HONOR:
            labels.append(ex.REASON_TAINTS)
            reason[(reason < 0) & ~self.ctx.tolerates_no_schedule(pod)] = len(labels) - 1
        col = table.column(c.topology_key)
        groups, by_domain = [], {}
        for r, text in enumerate(labels):
            nodes = (reason == r).nonzero()[0]
            if len(nodes) == 0:
                continue
            groups.append((text, len(nodes), table.names_of(nodes[:ex.MAX_NODE_NAMES])))
            dom = col.ids[nodes]
            for v, n in zip(*np.unique(dom[dom >= 0], return_counts=True)):
                by_domain.setdefault(col.values[v], {})[text] = int(n)
        return {"ignored": ex.ignored_json(groups), "ignoredByDomain": ex.by_domain_json(by_domain)}


def critical_paths(dc: DomainCounter, cnt: np.ndarray) -> CriticalPaths:
    """The reference criticalPaths as calPreFilterState builds them from counts cnt:
    domains in the order their first eligible node appears (the counting loop's
    insertion order)."""
    paths = CriticalPaths()
    for v in dc.insertion_order:
        paths.update(int(v), int(cnt[v]))
    return paths
