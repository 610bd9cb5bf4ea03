"""Framework: a profile's plugins and the ``run_<point>_plugins`` methods.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/runtime/framework.go`` (plugin
lists per extension point, PreFilter result merging, first rejecting Filter wins and is
stamped with its plugin name, filters run twice with nominated pods, score
normalization and weights) and ``backend/queue/nominator.go`` (the Nominator). The
Framework is also the ``Handle`` plugins receive.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..config import Profile
from ..errors import ScenarioError
from ..k8s.types import Pod
from ..plugins import registry as reg
from .cycle_state import CycleState
from .interface import (MAX_NODE_SCORE, MIN_NODE_SCORE, SKIP, SUCCESS, Code, Diagnosis, NodeScore,
                        PostFilterResult, PreFilterResult, Status, as_status)
from .snapshot import Snapshot
from .static_filter import StaticFilterMemo, static_prefix_length
from .types import NodeInfo, PodInfo, QueuedPodInfo, new_pod_info


class Nominator:
    """backend/queue/nominator.go: which pending pods are nominated to which node."""

    def __init__(self) -> None:
        self._by_node: dict[str, list[PodInfo]] = {}
        self._node_of: dict[str, str] = {}
        self.version = 0  # moves on every change, so callers can cache what they derive

    def add(self, pi: PodInfo, node_name: str) -> None:
        """AddNominatedPod (replaces an earlier nomination of the same pod)."""
        self.delete(pi.pod)
        if not node_name:  # (a cleared nomination: a change only if there was one)
            return
        self.version += 1
        self._node_of[pi.pod.key] = node_name
        self._by_node.setdefault(node_name, []).append(pi)

    def delete(self, pod: Pod) -> None:
        """DeleteNominatedPodIfExists."""
        node = self._node_of.pop(pod.key, None)
        if node is None:
            return
        self.version += 1
        lst = [pi for pi in self._by_node.get(node, []) if pi.pod.key != pod.key]
        if lst:
            self._by_node[node] = lst
        else:
            self._by_node.pop(node, None)

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """NominatedPodsForNode: the PodInfos nominated to ``node_name``."""
        return list(self._by_node.get(node_name, ()))

    def nominated_nodes(self):
        """The names of the nodes some pod is nominated to (a live view)."""
        return self._by_node.keys()

    def items(self):
        """(node name, nominated PodInfos) pairs."""
        return self._by_node.items()

    def node_of(self, pod: Pod) -> str:
        """The node a pod is nominated to ('' when none)."""
        return self._node_of.get(pod.key, "")


@dataclass
class HandleData:
    """What the Framework shares with the simulation: the scenario's objects, the
    nominator, the seeded generator and where evictions go."""

    objects: Any
    nominator: Nominator = field(default_factory=Nominator)
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    on_evict: Callable[[Pod, Pod, str], None] | None = None
    on_clear_nomination: Callable[[Pod], None] | None = None
    # plugins may keep incremental state across cycles (same results; False
    # forces the reference per-cycle recount everywhere)
    fast: bool = True
    volumes: Any = None  # the VolumeCache of the run, made on first use (volume plugins)


@dataclass
class NodePluginScores:
    """framework.NodePluginScores: normalized (unweighted) score per plugin and the
    weighted total; ``raw``: each plugin's score before NormalizeScore (for explanations)."""

    name: str
    plugins: dict[str, int]
    total: int
    raw: dict[str, int] | None = None


class Framework:
    """frameworkImpl for one profile; implements the Handle protocol."""

    def __init__(self, profile: Profile, handle_data: HandleData) -> None:
        self.profile = profile
        self.data = handle_data
        self.objects = handle_data.objects
        self.rng = handle_data.rng
        self._snapshot = Snapshot(())
        # (filter_status_without_pods: the plugins RemovePod changes, for one state and pod)
        self._without_pods_plan: tuple | None = None
        self.plugins: dict[str, Any] = {}
        for name in profile.all_plugins():
            cls = reg.load_plugin_class(name)
            try:
                self.plugins[name] = cls(profile.args.get(name), self)
            except ValueError as err:  # upstream: New() fails, the scheduler does not start
                raise ScenarioError(getattr(self.objects, "source", ""),
                                    "KubeSchedulerConfiguration", f"plugin {name}",
                                    str(err)) from None
        self.points = {point: [self.plugins[n] for n in profile.points(point)]
                       for point in reg.EXTENSION_POINTS}

    # --- Handle ------------------------------------------------------------------------
    @property
    def fast(self) -> bool:
        """Whether plugins may keep state across cycles and batch Score."""
        return self.data.fast

    @property
    def _static_memo(self) -> StaticFilterMemo:
        memo = getattr(self, "_static_memo_obj", None)
        if memo is None:
            memo = self._static_memo_obj = StaticFilterMemo()
        return memo

    def snapshot_shared_lister(self) -> Snapshot:
        """SnapshotSharedLister: the current cycle's Snapshot."""
        return self._snapshot

    def set_snapshot(self, snapshot: Snapshot) -> None:
        """Install the Snapshot for the next cycle."""
        self._snapshot = snapshot

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """NominatedPodsForNode: the PodInfos nominated to ``node_name``."""
        return self.data.nominator.nominated_pods_for_node(node_name)

    def volume_cache(self):
        """The claims and volumes as this run has bound them (the volume plugins' listers
        and VolumeBinding's assume cache), shared by every profile of the run."""
        if self.data.volumes is None:
            from ..k8s.storage import StorageObjects
            from ..plugins.volumebinding.assume_cache import VolumeCache
            self.data.volumes = VolumeCache(getattr(self.objects, "storage", None)
                                            or StorageObjects())
        return self.data.volumes

    def evict(self, victim: Pod, preemptor: Pod, node_name: str) -> None:
        """Hand the victim to the simulation, which deletes it after this cycle."""
        if self.data.on_evict is not None:
            self.data.on_evict(victim, preemptor, node_name)

    def clear_nominated_node_name(self, pod: Pod) -> None:
        """Preemption clears lower-priority pods' nominations (util.ClearNominatedNodeName)."""
        self.data.nominator.delete(pod)
        if self.data.on_clear_nomination is not None:
            self.data.on_clear_nomination(pod)

    def percentage_of_nodes_to_score(self) -> int | None:
        """The profile's percentageOfNodesToScore (None: use the global one)."""
        return self.profile.percentage_of_nodes_to_score

    def has_filter_plugins(self) -> bool:
        """HasFilterPlugins."""
        return bool(self.points[reg.FILTER])

    def has_score_plugins(self) -> bool:
        """HasScorePlugins."""
        return bool(self.points[reg.SCORE])

    def has_post_filter_plugins(self) -> bool:
        """HasPostFilterPlugins."""
        return bool(self.points[reg.POST_FILTER])

    # --- queueing ----------------------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod: Pod) -> Status:
        """RunPreEnqueuePlugins: the first non-success status, stamped."""
        for pl in self.points[reg.PRE_ENQUEUE]:
            st = _call(pl.pre_enqueue, pod)
            if not st.is_success():
                return st.with_plugin(pl.NAME)
        return SUCCESS

    def queue_sort_less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """QueueSortFunc: the (single) QueueSort plugin's less."""
        return self.points[reg.QUEUE_SORT][0].less(a, b)

    def queue_sort_key(self):
        """The QueueSort plugin's sort_key (ordering as less, then file order), if any."""
        return getattr(self.points[reg.QUEUE_SORT][0], "sort_key", None)

    # --- filtering ---------------------------------------------------------------------
    def run_pre_filter_plugins(self, state: CycleState, pod: Pod
                               ) -> tuple[PreFilterResult | None, Status, set[str]]:
        """RunPreFilterPlugins: merge results, Skip drops a plugin's Filter,
        UnschedulableAndUnresolvable stops at once, Unschedulable after all have run."""
        out = self._run_pre_filter_plugins(state, pod)
        self.start_static_memo(pod, state.skip_filter_plugins)
        return out

    def start_static_memo(self, pod: Pod, skip: set[str]) -> None:
        """After PreFilter, on the fast path: select the pod's static Filter verdicts."""
        if self.fast:
            self._static_memo.start_cycle(pod, skip)

    def _run_pre_filter_plugins(self, state: CycleState, pod: Pod
                                ) -> tuple[PreFilterResult | None, Status, set[str]]:
        return run_pre_filter(self.points[reg.PRE_FILTER], state, pod, self._snapshot.list())

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """RunFilterPlugins: the first non-success status, stamped with its plugin."""
        return self._run_filter_prefix(state, pod, node_info, len(self.points[reg.FILTER]))

    def _run_filter_prefix(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                           stop: int) -> Status:
        """RunFilterPlugins over the Filter plugins [0, stop). On the fast path the leading
        node-static plugins' verdict comes from ``static_filter``."""
        prefix = static_prefix_length(self.points[reg.FILTER])
        verdicts = self._static_memo.verdicts_for(pod) if self.fast and prefix <= stop else None
        if verdicts is None:
            return self._run_filters(state, pod, node_info, 0, stop)
        node = node_info.node
        hit = verdicts.get(node_info.name)
        if hit is None or hit[0] is not node:
            hit = verdicts[node_info.name] = (node, self._run_filters(state, pod, node_info, 0,
                                                                      prefix))
        if hit[1].code:
            return hit[1]
        return self._run_filters(state, pod, node_info, prefix, stop)

    def _run_filters(self, state: CycleState, pod: Pod, node_info: NodeInfo, start: int,
                     stop: int) -> Status:
        """RunFilterPlugins over the Filter plugins [start, stop)."""
        skip = state.skip_filter_plugins
        for pl in self.points[reg.FILTER][start:stop]:
            if skip and pl.NAME in skip:
                continue
            try:
                st = pl.filter(state, pod, node_info)
            except Exception as err:  # noqa: BLE001 - AsStatus: a plugin bug is an Error
                st = as_status(err)
            if st is None or not st.code:  # Code.Success is 0
                continue
            return _stamped(st, pl.NAME)
        return SUCCESS

    def filter_status_without_pods(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                                   removed: Sequence[PodInfo], memo: dict, passed: int = 0
                                   ) -> Status | None:
        """The rejection run_filter_plugins_with_nominated_pods would give node_info (the node
        with removed taken off already) once the PreFilter extensions' RemovePod had taken off
        each of removed, told without changing state; None where it cannot tell so (the caller
        then runs the real thing): a nominated pod would be added to the node, a plugin whose
        state RemovePod changes has no PreFilter state here or no ``filter_without_pods``, or
        every plugin passes. ``memo`` is the plugins', kept as long as removed is the same.
        ``passed``: the first Filter plugins are known to pass the node (they are not run)."""
        if self.adds_nominated_pods(pod, node_info.name):
            return None
        plan = self._without_pods_plan
        if plan is None or plan[0] is not state or plan[1] is not pod:  # (once per dry run)
            changed = {name for name, _ in self._extensions("remove_pod", state)}
            filters = self.points[reg.FILTER]
            cut = next((i for i, pl in enumerate(filters) if pl.NAME in changed), len(filters))
            plan = self._without_pods_plan = (state, pod, changed, cut)
        _, _, changed, cut = plan
        filters = self.points[reg.FILTER]
        if passed:
            st = self._run_filters(state, pod, node_info, passed, cut) if passed < cut else SUCCESS
        else:
            st = self._run_filter_prefix(state, pod, node_info, cut)
        if st.code:
            return st
        skip = state.skip_filter_plugins
        for pl in filters[cut:]:
            if skip and pl.NAME in skip:
                continue
            try:
                if pl.NAME in changed:
                    answer = getattr(pl, "filter_without_pods", None)
                    if answer is None:
                        return None
                    st = answer(state, pod, node_info, removed, memo)
                    if st is None:
                        return None
                else:
                    st = pl.filter(state, pod, node_info)
            except Exception as err:  # noqa: BLE001 - as _run_filters
                st = as_status(err)
            if st is not None and st.code:
                return _stamped(st, pl.NAME)
        return None

    def nominated_nodes(self):
        """The names of the nodes some pod is nominated to (a live view)."""
        return self.data.nominator.nominated_nodes()

    def adds_nominated_pods(self, pod: Pod, node_name: str) -> bool:
        """Whether RunFilterPluginsWithNominatedPods would add a pod nominated to the node (one of
        at least pod's priority, other than pod)."""
        return any(pi.pod.priority >= pod.priority and pi.pod.key != pod.key
                   for pi in self.nominated_pods_for_node(node_name) or ())

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status:
        """RunFilterPluginsWithNominatedPods: with >= priority nominated pods added, and
        again without them when that passed."""
        added, state2, info2 = self._add_ge_nominated_pods(pod, state, node_info)
        if isinstance(added, Status):
            return added
        status = self.run_filter_plugins(state2, pod, info2)
        if not status.is_success() or not added:
            return status
        return self.run_filter_plugins(state, pod, node_info)

    def _add_ge_nominated_pods(self, pod: Pod, state: CycleState, node_info: NodeInfo):
        nominated = self.nominated_pods_for_node(node_info.name)
        if not nominated:
            return False, state, node_info
        info_out, state_out, added = node_info.clone(), state.clone(), False
        for pi in nominated:
            if pi.pod.priority >= pod.priority and pi.pod.key != pod.key:
                info_out.add_pod_info(pi)
                st = self.run_pre_filter_extension_add_pod(state_out, pod, pi, info_out)
                if not st.is_success():
                    return st, state, node_info
                added = True
        return added, state_out, info_out

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod_to_schedule: Pod,
                                         pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status:
        """RunPreFilterExtensionAddPod: every PreFilter plugin's AddPod, stop at the first failure."""
        return self._run_extension("add_pod", "AddPod", state, pod_to_schedule,
                                   pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod_to_schedule: Pod,
                                            pod_info_to_remove: PodInfo,
                                            node_info: NodeInfo) -> Status:
        """RunPreFilterExtensionRemovePod: every PreFilter plugin's RemovePod."""
        return self._run_extension("remove_pod", "RemovePod", state, pod_to_schedule,
                                   pod_info_to_remove, node_info)

    def run_pre_filter_extension_remove_pods(self, state: CycleState, pod_to_schedule: Pod,
                                             infos: Sequence[PodInfo], node_info: NodeInfo
                                             ) -> Status:
        """RunPreFilterExtensionRemovePod for each of infos in turn (preemption takes every
        lower-priority pod off a node at once), stopping at the first failure; the plugins
        that have the extension are looked up once."""
        removers = self._extensions("remove_pod", state)
        for pi in infos:
            for name, fn in removers:
                st = _call(fn, state, pod_to_schedule, pi, node_info)
                if not st.is_success():
                    return _wrap(st, f'running RemovePod on PreFilter plugin "{name}"', name)
        return SUCCESS

    def _extensions(self, method: str, state: CycleState) -> list:
        """(plugin name, extension method) of each PreFilter plugin with PreFilterExtensions
        that this cycle does not skip, in order."""
        skip = state.skip_filter_plugins
        out = []
        for pl in self.points[reg.PRE_FILTER]:
            ext = pl.pre_filter_extensions()
            if ext is not None and not (skip and pl.NAME in skip):
                out.append((pl.NAME, getattr(ext, method)))
        return out

    def _run_extension(self, method: str, label: str, state: CycleState, pod: Pod,
                       pi: PodInfo, node_info: NodeInfo) -> Status:
        for name, fn in self._extensions(method, state):
            st = _call(fn, state, pod, pi, node_info)
            if not st.is_success():
                return _wrap(st, f'running {label} on PreFilter plugin "{name}"', name)
        return SUCCESS

    def run_post_filter_plugins(self, state: CycleState, pod: Pod, diagnosis: Diagnosis
                                ) -> tuple[PostFilterResult | None, Status]:
        """RunPostFilterPlugins: until the first Success, Error or Unresolvable."""
        result, reasons, rejector = None, [], ""
        for pl in self.points[reg.POST_FILTER]:
            r, s = _call_pair(pl.post_filter, state, pod, diagnosis)
            if s.is_success():
                return r, s
            if s.code == Code.UnschedulableAndUnresolvable:
                return r, s.with_plugin(pl.NAME)
            if not s.is_rejected():
                return None, Status(Code.Error, s.reasons, pl.NAME)
            if r is not None and r.nominating_info is not None and \
                    r.nominating_info.mode != "Noop":
                result = r
            reasons += s.reasons
            rejector = rejector or pl.NAME
        return result, Status(Code.Unschedulable, tuple(reasons), rejector)

    # --- scoring -----------------------------------------------------------------------
    def run_pre_score_plugins(self, state: CycleState, pod: Pod,
                              nodes: Sequence[NodeInfo]) -> Status:
        """RunPreScorePlugins: Skip drops a plugin's Score; anything else fails."""
        skip: set[str] = set()
        try:
            for pl in self.points[reg.PRE_SCORE]:
                st = _call(pl.pre_score, state, pod, nodes)
                if st.is_skip():
                    skip.add(pl.NAME)
                    continue
                if not st.is_success():
                    return _wrap(st, f'running PreScore plugin "{pl.NAME}"', pl.NAME)
            return SUCCESS
        finally:
            state.skip_score_plugins = skip

    def run_score_plugins(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                          ) -> tuple[list[NodePluginScores], Status]:
        """RunScorePlugins: score, normalize, check 0..100, weight and sum."""
        plugins = [pl for pl in self.points[reg.SCORE] if pl.NAME not in state.skip_score_plugins]
        per_plugin: dict[str, list[NodeScore]] = {}
        for pl in plugins:
            batch = self._batch_scores(pl, state, pod, nodes)
            if batch is not None:
                per_plugin[pl.NAME] = [NodeScore(ni.name, s) for ni, s in zip(nodes, batch)]
                continue
            scores = []
            score = pl.score
            for ni in nodes:
                try:
                    s, st = score(state, pod, ni)
                except Exception as err:  # noqa: BLE001 - AsStatus
                    s, st = 0, as_status(err)
                if st is not None and st.code:
                    return [], _wrap(st, f'running Score plugins: plugin "{pl.NAME}" failed with',
                                     pl.NAME)
                scores.append(NodeScore(ni.name, s))
            per_plugin[pl.NAME] = scores
        raw = {name: [s.score for s in scores] for name, scores in per_plugin.items()}
        for pl in plugins:
            ext = pl.score_extensions()
            if ext is None:
                continue
            st = _call(ext.normalize_score, state, pod, per_plugin[pl.NAME])
            if not st.is_success():
                return [], _wrap(st, f'running Normalize on Score plugins: plugin "{pl.NAME}" '
                                 "failed with", pl.NAME)
        return self._weigh(plugins, per_plugin, nodes, raw)

    def _batch_scores(self, pl, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                      ) -> list[int] | None:
        """Fast path: the plugin's score_nodes (equal to Score node by node), or None to
        take the per-node loop (no batch method, reference path, or any trouble)."""
        batch = getattr(pl, "score_nodes", None) if self.fast else None
        if batch is None:
            return None
        try:
            return batch(state, pod, nodes)
        except Exception:  # noqa: BLE001 - the per-node loop reports it as upstream does
            return None

    def _weigh(self, plugins: list, per_plugin: dict[str, list[NodeScore]],
               nodes: Sequence[NodeInfo], raw: dict[str, list[int]]
               ) -> tuple[list[NodePluginScores], Status]:
        out = []
        for i, ni in enumerate(nodes):
            scores, total = {}, 0
            for pl in plugins:
                s = per_plugin[pl.NAME][i].score
                if s > MAX_NODE_SCORE or s < MIN_NODE_SCORE:
                    return [], Status(Code.Error, (
                        f'applying score defaultWeights on Score plugins: plugin "{pl.NAME}" '
                        f"returns an invalid score {s}, it should in the range of "
                        f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing",), pl.NAME)
                scores[pl.NAME] = s
                total += s * self.profile.weights.get(pl.NAME, 1)
            out.append(NodePluginScores(ni.name, scores, total,
                                        {pl.NAME: raw[pl.NAME][i] for pl in plugins}))
        return out, SUCCESS

    # --- reserve / bind ----------------------------------------------------------------
    def run_reserve_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """RunReservePluginsReserve: the first failure, stamped."""
        for pl in self.points[reg.RESERVE]:
            st = _call(pl.reserve, state, pod, node_name)
            if not st.is_success():
                return st.with_plugin(pl.NAME)
        return SUCCESS

    def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """RunBindPlugins: the first plugin that does not Skip binds."""
        for pl in self.points[reg.BIND]:
            st = _call(pl.bind, state, pod, node_name)
            if st.is_skip():
                continue
            return st if st.is_success() else st.with_plugin(pl.NAME)
        return SKIP

    # --- explanations ------------------------------------------------------------------
    def explain(self, state: CycleState, pod: Pod) -> dict:
        """Each plugin's ``explain`` of this cycle (plugins without one are absent)."""
        out = {}
        for name, pl in self.plugins.items():
            fn = getattr(pl, "explain", None)
            if fn is None:
                continue
            try:
                data = fn(state, pod)
            except Exception as err:  # noqa: BLE001 - an explanation must not break a run
                data = {"error": f"{type(err).__name__}: {err}"}
            if data is not None:
                out[name] = data
        return out


def run_pre_filter(plugins: Sequence, state: CycleState, pod: Pod, nodes: Sequence
                   ) -> tuple[PreFilterResult | None, Status, set[str]]:
    """RunPreFilterPlugins over plugin objects with a ``pre_filter(state, pod, nodes)``
    (the reference plugins, or the columnar ones): merge results, Skip drops a plugin's
    Filter, UnschedulableAndUnresolvable stops at once, Unschedulable after all have run.
    Returns (merged result, status, plugins that narrowed the nodes)."""
    result: PreFilterResult | None = None
    with_nodes: set[str] = set()
    skip: set[str] = set()
    returned = SUCCESS
    try:
        for pl in plugins:
            try:  # (_call_pair, written out: a cycle runs a dozen PreFilters)
                r, s = pl.pre_filter(state, pod, nodes)
            except Exception as err:  # noqa: BLE001
                r, s = None, as_status(err)
            if s is None:
                s = SUCCESS
            elif s.is_skip():
                skip.add(pl.NAME)
                continue
            if not s.is_success():
                s = s.with_plugin(pl.NAME)
                if s.code == Code.UnschedulableAndUnresolvable:
                    return None, s, set()
                if s.code == Code.Unschedulable:
                    returned = s
                    continue
                return None, _wrap(s, f'running PreFilter plugin "{pl.NAME}"', pl.NAME), set()
            if r is not None and not r.all_nodes():
                with_nodes.add(pl.NAME)
            result = r if result is None else result.merge(r)
            if result is not None and not result.all_nodes() and not result.node_names:
                return result, Status(Code.UnschedulableAndUnresolvable,
                                      (_no_node_msg(with_nodes),)), with_nodes
        return result, returned, with_nodes
    finally:
        state.skip_filter_plugins = skip


def _no_node_msg(plugins: set[str]) -> str:
    names = sorted(plugins)
    if len(names) == 1:
        return f"node(s) didn't satisfy plugin {names[0]}"
    return f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"


def _stamped(st: Status, plugin: str) -> Status:
    """A Filter plugin's rejection stamped with its name (anything else wrapped as an Error)."""
    if not st.is_rejected():
        st = _wrap(st, f'running "{plugin}" filter plugin', plugin)
    return st.with_plugin(plugin)


def _wrap(st: Status, prefix: str, plugin: str) -> Status:
    """An Error status whose message says where it came from (fmt.Errorf %w)."""
    return Status(Code.Error, (f"{prefix}: {st.message()}",), plugin)


def _call(fn, *args) -> Status:
    try:
        st = fn(*args)
    except Exception as err:  # noqa: BLE001 - AsStatus: a plugin bug is an Error status
        return as_status(err)
    return st if st is not None else SUCCESS


def _call_pair(fn, *args):
    try:
        a, st = fn(*args)
    except Exception as err:  # noqa: BLE001
        return None, as_status(err)
    return a, (st if st is not None else SUCCESS)


def pod_info(pod: Pod) -> PodInfo:
    """new_pod_info, re-exported for the simulator."""
    return new_pod_info(pod)
