"""The columnar Framework: a profile's plugins run over node arrays.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/runtime/framework.go`` as the
reference ``framework/runtime.py`` does, for whole node sets at once:

- RunPreFilterPlugins: the reference merge (``runtime.run_pre_filter``) over the columnar
  plugins' PreFilters;
- RunFilterPlugins: every Filter plugin gives a pass/fail array; a node's verdict is its
  first failing plugin's status, worked out only for the nodes whose verdict is needed;
- RunFilterPluginsWithNominatedPods: for nodes holding nominated pods of at least the
  pod's priority, the plugins decide again with those pods added; a failure there wins;
- RunPreScorePlugins / RunScorePlugins: Skip drops a plugin, scores are normalized,
  checked to be in 0..100, weighted and summed.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

# ufunc reductions: the ndarray methods go through Python wrappers, costly a call
_MIN, _MAX = np.minimum.reduce, np.maximum.reduce
_ANY, _ALL = np.logical_or.reduce, np.logical_and.reduce

from ..framework.cycle_state import CycleState
from ..framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, Code, Status
from ..framework.runtime import Framework, _wrap, run_pre_filter
from ..framework.types import PodInfo
from ..k8s.types import Pod
from ..plugins import names
from ..plugins import registry as reg
from . import kernels
from .context import Context
from .plugins import ColumnarPlugin
from .plugins.imagelocality import ImageLocality
from .plugins.interpodaffinity import InterPodAffinity
from .plugins.nodeaffinity import NodeAffinity
from .plugins.noderesources import BalancedAllocation, Fit
from .plugins.nodeports import NodePorts
from .plugins.podtopologyspread import PodTopologySpread
from .plugins.static import STATIC_FILTER_PLUGINS, StaticFilters
from .plugins.tainttoleration import TaintToleration
from .plugins.volumes import VolumePlugin

COLUMNAR_PLUGINS = {
    names.NODE_AFFINITY: NodeAffinity, names.TAINT_TOLERATION: TaintToleration,
    names.NODE_PORTS: NodePorts, names.NODE_RESOURCES_FIT: Fit,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: BalancedAllocation,
    names.POD_TOPOLOGY_SPREAD: PodTopologySpread, names.IMAGE_LOCALITY: ImageLocality,
    names.INTER_POD_AFFINITY: InterPodAffinity,
    # pods with claims or restricted disks take the reference path (plugins/volumes.py)
    names.VOLUME_RESTRICTIONS: VolumePlugin, names.NODE_VOLUME_LIMITS: VolumePlugin,
    names.VOLUME_BINDING: VolumePlugin, names.VOLUME_ZONE: VolumePlugin,
}


class Unsupported(Exception):
    """A profile the columnar path cannot run (the simulation then uses the reference)."""


class ScoreError(Exception):
    """A Score plugin failed (upstream: an Error status from RunScorePlugins)."""

    def __init__(self, status: Status) -> None:
        self.status = status
        super().__init__(status.message())


class ColumnarFramework:
    """frameworkImpl for one profile over a Context; wraps the reference Framework,
    whose plugins, weights and Handle (preemption, nominator) it shares."""

    def __init__(self, ref: Framework, ctx: Context) -> None:
        self.ref = ref
        self.ctx = ctx
        self.profile = ref.profile
        self.plugins = {name: COLUMNAR_PLUGINS[name](pl, ctx)
                        for name, pl in ref.plugins.items() if name in COLUMNAR_PLUGINS}
        self.pre_filter_plugins = [self._columnar(pl) for pl in ref.points[reg.PRE_FILTER]]
        self.filters = self._filter_units(ref.points[reg.FILTER])
        self.pre_score_plugins = [self._columnar(pl) for pl in ref.points[reg.PRE_SCORE]]
        self.score_plugins = [self._columnar(pl) for pl in ref.points[reg.SCORE]]
        for pl in self.pre_filter_plugins + self.pre_score_plugins + self.score_plugins:
            if pl.NAME not in self.plugins:
                raise Unsupported(pl.NAME)
        self._walk_units: dict[frozenset, tuple | None] = {}  # walk_arguments, per skipped set
        # _default_totals' stand-ins for a plugin that is not there (never read)
        self._no_keys, self._no_ints = np.zeros(1, np.intp), np.zeros(1, np.int64)
        self._no_flags = np.zeros(1, bool)
        self._no_constraint: tuple | None = None
        self._all_pass: np.ndarray | None = None
        # per pod template (the identities of the pod fields the template plugins read): its _Template
        self._templates: dict[tuple, tuple[tuple, _Template]] = {}
        self._last: tuple = (None, None)  # the pod _template was last asked for, and its _Template

    def _columnar(self, ref_plugin):
        return self.plugins.get(ref_plugin.NAME, ref_plugin)

    def _filter_units(self, refs: Sequence) -> list:
        units: list = []
        run: list = []
        for pl in refs:
            if pl.NAME in STATIC_FILTER_PLUGINS:
                run.append(pl)
                continue
            if run:
                units.append(StaticFilters(run, self.ctx))
                run = []
            if pl.NAME not in self.plugins:
                raise Unsupported(pl.NAME)
            units.append(self.plugins[pl.NAME])
        if run:
            units.append(StaticFilters(run, self.ctx))
        return units

    def walk_arguments(self, state: CycleState, pod: Pod) -> tuple | None:
        """kernels.feasible_search's arguments for this cycle (before start and to_find), or
        None when its Filter plugins are not those the walk knows: at most one run of
        node-static ones, NodeResourcesFit on cpu, memory and pods, PodTopologySpread with at
        most two constraints (ColumnarScheduler._walk)."""
        skip = frozenset(state.skip_filter_plugins)
        t = self._template(pod) if not pod.node_name else None  # (NodeName's verdicts read the pod's node name)
        fixed = t.walk.get(skip, False) if t is not None else False
        if fixed is False:
            fixed = self._walk_fixed(state, pod, skip)
            if t is not None:
                t.walk[skip] = fixed
        if fixed is None:
            return None
        static_ok, q_cpu, q_mem, spread = fixed
        cons: list = []
        if spread is not None:
            cons = spread.walk_constraints(state)
            if cons is None or len(cons) > 2:
                return None
        table = self.ctx.table
        if self._no_constraint is None:  # (a constraint every node passes)
            self._no_constraint = (np.zeros(table.n, np.intp), np.zeros(1, np.int64), 0)
        a = cons[0] if cons else self._no_constraint
        b = cons[1] if len(cons) > 1 else self._no_constraint
        return (static_ok, table.room_pods, table.free_cpu, table.free_mem, q_cpu, q_mem, *a, *b)

    def _walk_fixed(self, state: CycleState, pod: Pod, skip: frozenset):
        """walk_arguments' part that is the same for every pod of one template with the same Filter plugins
        skipped: (the static filters' verdicts, the cpu and memory requested or -1, PodTopologySpread or None),
        None when the walk does not know the Filter plugins."""
        units = self._walk_units.get(skip, False)
        if units is False:
            units = self._walk_units[skip] = self._walkable([u for u in self.filters
                                                             if u.NAME not in skip])
        if units is None:
            return None
        static, fit, spread = units
        q_cpu, q_mem = -1, 0  # (no NodeResourcesFit)
        if fit is not None:
            found = fit.walk_request(state)
            if found is None:
                return None
            q_cpu, q_mem = found
        static_ok = static.filter_ok(state, pod) if static is not None else self._every_node()
        return static_ok, q_cpu, q_mem, spread

    def _walkable(self, units: list):
        """(StaticFilters, Fit, PodTopologySpread), each None when absent, or None."""
        found: dict[type, object] = {}
        for u in units:
            kind = type(u)
            if kind not in (StaticFilters, Fit, PodTopologySpread) or kind in found:
                return None
            found[kind] = u
        return found.get(StaticFilters), found.get(Fit), found.get(PodTopologySpread)

    def _every_node(self) -> np.ndarray:
        if self._all_pass is None:
            self._all_pass = np.ones(self.ctx.table.n, bool)
        return self._all_pass

    def has_filter_plugins(self) -> bool:
        return bool(self.filters)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    # --- PreFilter / Filter ----------------------------------------------------------
    def run_pre_filter_plugins(self, state: CycleState, pod: Pod):
        """RunPreFilterPlugins. The template plugins' part is replayed (_Template): what they wrote, and which of
        them skipped, goes into the state, and only the others run. Should one of those do anything but succeed
        or skip for every node, the whole list runs again in order, as upstream runs it."""
        t = self._template(pod)
        replay = t.pre_filter
        if replay is False:
            replay = t.pre_filter = self._replay_pre_filter(pod)
        if replay is not None:
            writes, skipped, others = replay
            state._data.update(writes)
            result, st, with_nodes = run_pre_filter(others, state, pod, self.ctx.node_infos)
            if st.is_success() and (result is None or result.all_nodes()):
                if skipped:
                    state.skip_filter_plugins |= skipped
                return result, st, with_nodes
        return run_pre_filter(self.pre_filter_plugins, state, pod, self.ctx.node_infos)

    def _template(self, pod: Pod) -> "_Template":
        """The pod's _Template, keyed by the identity of the fields the template plugins and PodTopologySpread's
        setup read (the loader shares them among a workload's pods; the entry keeps them alive, so an id names
        that object only), and by its namespace. It is this cycle's Context.cycle from here on."""
        if pod is self._last[0]:  # (a cycle asks up to three times; the entry keeps the pod, so it is that pod)
            return self._last[1]
        parts = (pod.node_selector, pod.affinity, pod.requests, pod.containers, pod.init_containers,
                 pod.overhead, pod.tolerations, pod.volumes, pod.labels, pod.topology_spread_constraints,
                 pod.owner_references)
        key = (id(parts[0]), id(parts[1]), id(parts[2]), id(parts[3]), id(parts[4]), id(parts[5]),
               id(parts[6]), id(parts[7]), id(parts[8]), id(parts[9]), id(parts[10]), pod.namespace)
        hit = self._templates.get(key)
        if hit is None:
            if len(self._templates) > 4096:
                self._templates.clear()
            hit = self._templates[key] = (parts, _Template())
        t = hit[1]
        self._last = (pod, t)
        self.ctx.cycle = (pod, t.plugins)
        return t

    def _replay_pre_filter(self, pod: Pod):
        """(what the template PreFilter plugins write, the names of those that skip, the other PreFilter plugins
        in order), from one run on a scratch state; None when a template plugin does anything else (narrows the
        nodes, rejects) or a plugin is of a kind not sorted here: every cycle then runs the whole list."""
        return self._replay(pod, self.pre_filter_plugins, _TEMPLATE_PRE_FILTER,
                            lambda pl, scratch: pl.pre_filter(scratch, pod, self.ctx.node_infos))

    def _replay(self, pod: Pod, plugins: list, template_kinds: tuple, run):
        """_replay_pre_filter's and _replay_pre_score's run: ``run(plugin, scratch state)`` gives a template
        plugin's (PreFilterResult or None, status)."""
        if pod.volumes:
            return None
        scratch = CycleState()
        skipped, others = set(), []
        for pl in plugins:
            kind = type(pl)
            if kind in _PER_CYCLE:
                others.append(pl)
                continue
            if kind not in template_kinds:
                return None
            r, st = run(pl, scratch)
            if st is not None and st.is_skip():
                skipped.add(pl.NAME)
            elif (st is not None and not st.is_success()) or (r is not None and not r.all_nodes()):
                return None
        return dict(scratch._data), frozenset(skipped), others

    def run_filters(self, state: CycleState, pod: Pod) -> "FilterResult":
        """Every Filter plugin not skipped by its PreFilter, over all nodes."""
        skip = state.skip_filter_plugins
        units = [(u, u.filter_ok(state, pod)) for u in self.filters if u.NAME not in skip]
        if not units:
            ok = np.ones(self.ctx.table.n, bool)
        else:
            ok = units[0][1].copy()
            for _, o in units[1:]:
                ok &= o
        return FilterResult(self, state, pod, units, ok)

    # --- PreScore / Score --------------------------------------------------------------
    def run_score(self, state: CycleState, pod: Pod, idx: np.ndarray, totals_only: bool = False
                  ) -> tuple[np.ndarray, list[str], list[np.ndarray] | None, list | None]:
        """PreScore then Score for nodes idx: (weighted totals, plugin names, normalized
        score arrays, raw score arrays or ints). Raises ScoreError as RunScorePlugins
        fails. ``totals_only``: the per-plugin arrays are not wanted (None when they were
        not made: the usual plugins' totals come from one compiled loop)."""
        skip, t = self._run_pre_score(state, pod, idx)
        plugins = None
        if totals_only:
            sums = t.sums.get(frozenset(skip), False) if t is not None else False
            if sums is False:
                plugins = [pl for pl in self.score_plugins if pl.NAME not in skip]
                sums = self._sums(state, pod, plugins)
                if t is not None:
                    t.sums[frozenset(skip)] = sums
            totals = self._default_totals(state, idx, sums) if sums is not None else None
            if totals is not None:
                if sums[8]:
                    self._add_scored(state, pod, idx, totals, sums[8])
                return totals, list(sums[0]), None, None
        if plugins is None:
            plugins = [pl for pl in self.score_plugins if pl.NAME not in skip]
        weights = self.profile.weights
        total = None  # the weighted sum of the plugins' arrays, and of their constant scores:
        constant = 0  # (integers: the order of the additions changes nothing)
        arrays: list = []
        raws: list = []
        for pl in plugins:
            s, raw = _normalized(pl, state, pod, idx)
            w = weights.get(pl.NAME, 1)
            if raw is not None:
                part = s if w == 1 else s * w
                if total is None:
                    total = part.copy() if part is s else part  # (an array of its own)
                else:
                    total = total + part
            else:
                raw = pl.constant_raw(state, pod, s)
                constant += s * w
            arrays.append(s)
            raws.append(raw)
        if total is None:
            total = np.full(len(idx), constant, np.int64)
        elif constant:
            total += constant
        return total, [pl.NAME for pl in plugins], arrays, raws

    def _run_pre_score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> tuple[set[str], "_Template | None"]:
        """RunPreScorePlugins: (the plugins that skipped, the pod's _Template when it replayed). The template
        plugins' part is replayed, as in run_pre_filter_plugins; should one of the others fail, the whole list
        runs again in order and raises ScoreError as upstream's would."""
        t = self._template(pod)
        replay = t.pre_score
        if replay is False:
            replay = t.pre_score = self._replay_pre_score(pod, idx)
        if replay is not None:
            writes, skipped, others = replay
            state._data.update(writes)
            skip = set(skipped)
            for pl in others:
                st = pl.pre_score(state, pod, idx)
                if st is None or st.is_success():
                    continue
                if not st.is_skip():
                    break
                skip.add(pl.NAME)
            else:
                state.skip_score_plugins = skip
                return skip, t
        skip = set()
        for pl in self.pre_score_plugins:
            st = pl.pre_score(state, pod, idx)
            if st is None or st.is_success():
                continue
            if st.is_skip():
                skip.add(pl.NAME)
                continue
            state.skip_score_plugins = skip
            raise ScoreError(_wrap(st, f'running PreScore plugin "{pl.NAME}"', pl.NAME))
        state.skip_score_plugins = skip
        return skip, None

    def _replay_pre_score(self, pod: Pod, idx: np.ndarray):
        """_replay_pre_filter's counterpart for PreScore (a template plugin's PreScore reads no node)."""
        return self._replay(pod, self.pre_score_plugins, _TEMPLATE_PRE_SCORE,
                            lambda pl, scratch: (None, pl.pre_score(scratch, pod, idx)))

    def _sums(self, state: CycleState, pod: Pod, plugins: list) -> tuple | None:
        """What kernels.default_totals takes for these Score plugins other than PodTopologySpread's
        counts: (plugin names, constant, NodeResourcesFit's and BalancedAllocation's arguments, NodeAffinity's
        raw scores and weight, PodTopologySpread and its weight, the other plugins with their weights), when
        NodeResourcesFit, BalancedAllocation and PodTopologySpread are in their compiled cases; else None. Of the
        others, those scoring every node alike are summed in ``constant``; the rest (InterPodAffinity, whose scores
        follow the pods bound so far; ImageLocality where some node has the pod's images) score each cycle and are
        added to the kernel's totals (_add_scored). The same for every pod of one template with the same plugins
        skipped (the plugins summed read only the pod's template fields and fixed node data)."""
        if not kernels.available(self.ctx.table.n):
            return None
        weights = self.profile.weights
        constant = 0
        summed, scored = [], []
        for pl in plugins:  # (first the plugins that may rule the loop out, at no cost to the others)
            if type(pl) in _SUMMED:
                summed.append(pl)
                continue
            own = type(pl).constant_score is not _NO_CONSTANT
            s = pl.constant_score(state, pod) if own else None
            if s is None:
                scored.append((pl, weights.get(pl.NAME, 1), own))
                continue
            constant += s * weights.get(pl.NAME, 1)
        fit, bal = (0, 0, 1, 1, 0), (0, 0, 0)
        spread, w_spread = None, 0
        na_raw, w_na = self._no_ints, 0
        for pl in summed:
            w = weights.get(pl.NAME, 1)
            kind = type(pl)
            if kind is Fit:
                found = pl.totals_arguments(state)
                if found is None:
                    return None
                fit = (*found, w)
            elif kind is BalancedAllocation:
                found = pl.totals_arguments(state)
                if found is None:
                    return None
                bal = (*found, w)
            elif kind is PodTopologySpread:
                spread, w_spread = pl, w
            else:
                na_raw, w_na = pl.raw_scores(state, pod), w
        return [pl.NAME for pl in plugins], constant, fit, bal, na_raw, w_na, spread, w_spread, scored

    @staticmethod
    def _add_scored(state: CycleState, pod: Pod, idx: np.ndarray, totals: np.ndarray, scored: list) -> None:
        """Add to totals (in place) the weighted normalized scores of the plugins _sums left to score each cycle,
        as run_score's loop scores a plugin: its score that is the same on every node, else its scores of nodes
        idx, normalized and checked to be in range. (Integers: the order of the additions changes nothing.)"""
        for pl, w, own in scored:
            s, _ = _normalized(pl, state, pod, idx, own)
            totals += s * w if w != 1 else s

    def _default_totals(self, state: CycleState, idx: np.ndarray, sums: tuple) -> np.ndarray | None:
        """run_score's totals through kernels.default_totals (``sums``: _sums'), None when PodTopologySpread's
        constraints are not its compiled case."""
        _, constant, fit, bal, na_raw, w_na, spread, w_spread, _ = sums
        soft, ignored = (), self._no_flags
        if spread is not None:
            found = spread.totals_arguments(state)
            if found is None:
                return None
            soft, ignored = found
        none = (self._no_keys, self._no_ints, self._no_flags, 0.0, 0.0)
        a = soft[0] if soft else none
        b = soft[1] if len(soft) > 1 else none
        table = self.ctx.table
        return kernels.default_totals(
            idx, table.alloc_cpu, table.alloc_mem, table.nz_cpu, table.nz_mem, table.req_cpu,
            table.req_mem, *fit, *bal, na_raw, w_na, *a, *b, len(soft), ignored, w_spread, constant)

    # --- explanations ------------------------------------------------------------------
    def explain(self, state: CycleState, pod: Pod) -> dict:
        """Each plugin's explain, as the reference Framework.explain (same order)."""
        out = {}
        for name, ref_pl in self.ref.plugins.items():
            pl = self.plugins.get(name)
            fn = pl.explain if pl is not None else getattr(ref_pl, "explain", None)
            if fn is None:
                continue
            try:
                data = fn(state, pod)
            except Exception as err:  # noqa: BLE001 - an explanation must not break a run
                data = {"error": f"{type(err).__name__}: {err}"}
            if data is not None:
                out[name] = data
        return out


# _default_totals: the plugins kernels.default_totals scores itself, and the base class's
# constant_score (a plugin keeping it never scores every node alike)
_SUMMED = (Fit, BalancedAllocation, PodTopologySpread, NodeAffinity)
_NO_CONSTANT = ColumnarPlugin.constant_score

# _Template: the PreFilter and PreScore plugins whose outcome and writes are those of the pod's template (they read
# only the pod fields ColumnarFramework._template keys by, and fixed node data), and those that run every cycle
# (they read the pods bound so far). A plugin of any other kind turns the replay off.
_TEMPLATE_PRE_FILTER = (NodeAffinity, Fit, NodePorts, VolumePlugin)
_TEMPLATE_PRE_SCORE = (Fit, BalancedAllocation, TaintToleration, NodeAffinity, VolumePlugin)
_PER_CYCLE = (PodTopologySpread, InterPodAffinity)


class _Template:
    """What one pod template's cycles share: the replays of its template PreFilter and PreScore plugins (False:
    not made yet; None: not replayable), _sums per set of skipped Score plugins, the fixed part of the node
    walk's arguments, and the plugins' own values (PodTopologySpread's constraints and counters)."""

    __slots__ = ("pre_filter", "pre_score", "sums", "walk", "plugins")

    def __init__(self) -> None:
        self.pre_filter = self.pre_score = False
        self.sums: dict[frozenset, tuple | None] = {}
        self.walk: dict[frozenset, tuple | None] = {}  # per set of skipped Filter plugins: _walk_fixed
        self.plugins: dict = {}  # the plugins' own per-template values (Context.cycle)


def _normalized(pl: ColumnarPlugin, state: CycleState, pod: Pod, idx: np.ndarray, own: bool = True
                ) -> tuple[np.ndarray | int, np.ndarray | None]:
    """One Score plugin's normalized scores of nodes idx, as RunScorePlugins has them, and its raw scores: a plugin
    whose normalized score is the same on every node (no node has the pod's images, no PreferNoSchedule taint
    anywhere) answers with one int, and None for the raw scores (its constant_raw tells them, if asked). ``own``:
    False when the plugin keeps the base class's constant_score (it never scores every node alike)."""
    s = pl.constant_score(state, pod) if own else None
    if s is not None:
        return s, None
    raw = pl.score(state, pod, idx)
    s = pl.normalize(state, pod, raw)
    if not pl.SCORES_IN_RANGE:
        _check_range(pl.NAME, s)
    return s, raw


def _check_range(name: str, s: np.ndarray) -> None:
    """RunScorePlugins: a normalized score outside 0..100 is an Error status."""
    bad = (s > MAX_NODE_SCORE) | (s < MIN_NODE_SCORE)
    if bad.any():
        v = int(s[bad.nonzero()[0][0]])
        raise ScoreError(Status(Code.Error, (
            f'applying score defaultWeights on Score plugins: plugin "{name}" '
            f"returns an invalid score {v}, it should in the range of "
            f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing",), name))


class FilterResult:
    """One cycle's Filter verdicts: ``ok`` per node, and the status of any node on demand
    (its first failing plugin). ``with_nominated`` folds in the nominated pods."""

    def __init__(self, fwk: ColumnarFramework, state: CycleState, pod: Pod, units: list,
                 ok: np.ndarray) -> None:
        self.fwk, self.state, self.pod = fwk, state, pod
        self.units = units
        self.ok = ok
        self.override: np.ndarray | None = None  # per node: status with nominated pods
        self._deferred: tuple | None = None  # (nodes, added pods, key, node mask)

    def with_nominated(self, nodes: Sequence[int], added: Sequence[Sequence[PodInfo]],
                       key=None) -> None:
        """RunFilterPluginsWithNominatedPods for nodes holding nominated pods: a node
        failing with them added fails with that status. Nodes already failing without
        them stay infeasible either way; their verdict is worked out only if asked for
        (``statuses``). ``key`` names this (nodes, added) while the nominations do not
        change, so plugins may cache what they derive."""
        idx = np.asarray(nodes, np.intp)
        now = self.ok[idx]
        if not _ANY(now):
            self._defer(idx, added, key)
            return
        if _ALL(now):
            self._with(idx, added, key)
            return
        later = (~now).nonzero()[0]
        self._defer(idx[later], [added[k] for k in later], None)
        now = now.nonzero()[0]
        self._with(idx[now], [added[k] for k in now], None)

    def _defer(self, idx: np.ndarray, added: list, key) -> None:
        mask = np.zeros(len(self.ok), bool)
        mask[idx] = True
        self._deferred = (idx, added, key, mask)

    def _with(self, idx: np.ndarray, added: Sequence[Sequence[PodInfo]], key) -> None:
        ids = np.zeros(len(idx), np.int32)
        todo = None  # positions still passing (None: all of them, as idx and added)
        now_idx, now_added = idx, added
        for unit, _ in self.units:
            got = unit.filter_status_with(self.state, self.pod, now_idx, now_added,
                                          key if todo is None else None)
            failed = got != 0
            if not _ANY(failed):
                continue
            at = np.arange(len(idx)) if todo is None else todo
            ids[at[failed]] = got[failed]
            todo = at[~failed]
            if len(todo) == 0:
                break
            now_idx, now_added = idx[todo], [added[k] for k in todo.tolist()]
        failed = ids != 0
        if _ANY(failed):
            if self.override is None:
                self.override = np.zeros(len(self.ok), np.int32)
            self.override[idx[failed]] = ids[failed]
            self.ok[idx[failed]] = False

    def statuses(self, idx: np.ndarray) -> np.ndarray:
        """Status ids of nodes idx (0 for passing nodes)."""
        idx = np.asarray(idx, np.intp)
        if self._deferred is not None and _ANY(self._deferred[3][idx]):
            deferred, self._deferred = self._deferred, None
            self._with(*deferred[:3])
        if 4 * len(idx) >= len(self.ok):
            return self._statuses_of_many(idx)
        out = np.zeros(len(idx), np.int32)
        todo = (~self.ok[idx]).nonzero()[0]
        for unit, o in self.units:
            if len(todo) == 0:
                break
            failed = ~o[idx[todo]]
            if _ANY(failed):
                out[todo[failed]] = unit.filter_status(self.state, self.pod, idx[todo[failed]])
            todo = todo[~failed]
        if self.override is not None:
            over = self.override[idx]
            out = np.where(over != 0, over, out)
        return out

    def _statuses_of_many(self, idx: np.ndarray) -> np.ndarray:
        """statuses for a large share of the nodes (a failed cycle asks for every node it
        rejected): worked out over node masks, each plugin asked for its nodes in node order,
        then read off in idx's order."""
        n = len(self.ok)
        todo = np.zeros(n, bool)
        todo[idx] = True
        todo &= ~self.ok
        by_node = np.zeros(n, np.int32)
        for unit, o in self.units:
            failed = (todo & ~o).nonzero()[0]
            if len(failed):
                by_node[failed] = unit.filter_status(self.state, self.pod, failed)
                todo[failed] = False
                if not _ANY(todo):
                    break
        if self.override is not None:
            by_node = np.where(self.override != 0, self.override, by_node)
        return by_node[idx]

    def status(self, i: int) -> int:
        return int(self.statuses(np.array([i]))[0])
