"""A small Handle for DefaultPreemption tests: a fixed list of plugins over a Snapshot.

It runs PreFilter/Filter of the given plugins in order (first rejection wins), adds
nominated pods of equal or higher priority the way framework.RunFilterPluginsWithNominatedPods
does (two passes when pods were added), and records evictions and cleared nominations.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Sequence

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import Code, Diagnosis, Status
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.types import NodeInfo, PodInfo, new_pod_info
from scheduler_core.k8s.types import Node, Pod, PodDisruptionBudget
from scheduler_core.plugins.noderesources.fit import Fit
from tests.core.wrappers import node_infos


@dataclass
class Objects:
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    services: list = field(default_factory=list)
    workloads: list = field(default_factory=list)
    namespaces: dict = field(default_factory=dict)


class FakeHandle:
    def __init__(self, nodes: Sequence[Node], pods: Sequence[Pod] = (),
                 pdbs: Sequence[PodDisruptionBudget] = (), plugins: Sequence = (),
                 nominated: Sequence[Pod] = (), seed: int | None = None) -> None:
        self.snapshot = Snapshot(node_infos(list(nodes), list(pods)))
        self.objects = Objects(list(pdbs))
        self.plugins = list(plugins) or [Fit(None, self)]
        self.nominated: dict[str, list[PodInfo]] = {}
        for p in nominated:
            self.nominated.setdefault(p.nominated_node_name, []).append(new_pod_info(p))
        self.rng = random.Random(seed) if seed is not None else None
        self.evicted: list[tuple[str, str, str]] = []
        self.cleared: list[str] = []

    # --- Handle -------------------------------------------------------------------------
    def snapshot_shared_lister(self) -> Snapshot:
        return self.snapshot

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return list(self.nominated.get(node_name, []))

    def evict(self, victim: Pod, preemptor: Pod, node_name: str) -> None:
        self.evicted.append((victim.key, preemptor.key, node_name))

    def clear_nominated_node_name(self, pod: Pod) -> None:
        self.cleared.append(pod.key)

    def run_filter_plugins(self, state: CycleState, pod: Pod, ni: NodeInfo) -> Status:
        for pl in self.plugins:
            if pl.NAME in state.skip_filter_plugins:
                continue
            st = pl.filter(state, pod, ni)
            if not st.is_success():
                return st.with_plugin(pl.NAME)
        return Status()

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               ni: NodeInfo) -> Status:
        added, state2, ni2 = self._add_ge_nominated_pods(state, pod, ni)
        st = self.run_filter_plugins(state2, pod, ni2)
        if not st.is_success() and not st.is_rejected():
            return st
        if added and st.is_success():
            st = self.run_filter_plugins(state, pod, ni)
        return st

    def _add_ge_nominated_pods(self, state, pod, ni):
        pis = [pi for pi in self.nominated.get(ni.name, [])
               if pi.pod.priority >= pod.priority and pi.pod.uid != pod.uid]
        if not pis:
            return False, state, ni
        state2, ni2 = state.clone(), ni.clone()
        for pi in pis:
            ni2.add_pod_info(pi)
            self.run_pre_filter_extension_add_pod(state2, pod, pi, ni2)
        return True, state2, ni2

    def run_pre_filter_extension_add_pod(self, state, pod, pi, ni) -> Status:
        return self._ext(state, pod, pi, ni, "add_pod")

    def run_pre_filter_extension_remove_pod(self, state, pod, pi, ni) -> Status:
        return self._ext(state, pod, pi, ni, "remove_pod")

    def run_pre_filter_extension_remove_pods(self, state, pod, pis, ni) -> Status:
        for pi in pis:
            st = self._ext(state, pod, pi, ni, "remove_pod")
            if not st.is_success():
                return st
        return Status()

    def _ext(self, state, pod, pi, ni, method) -> Status:
        for pl in self.plugins:
            ext = pl.pre_filter_extensions() if hasattr(pl, "pre_filter_extensions") else None
            if ext is None or pl.NAME in state.skip_filter_plugins:
                continue
            st = getattr(ext, method)(state, pod, pi, ni)
            if not st.is_success():
                return st
        return Status()

    # --- helpers for tests ----------------------------------------------------------------
    def cycle(self, pod: Pod) -> tuple[CycleState, Diagnosis]:
        """PreFilter, then Filter on every node: the state and diagnosis PostFilter sees."""
        state = CycleState()
        nodes = self.snapshot.list()
        for pl in self.plugins:
            if hasattr(pl, "pre_filter"):
                _, st = pl.pre_filter(state, pod, nodes)
                if st.is_skip():
                    state.skip_filter_plugins.add(pl.NAME)
        d = Diagnosis()
        for ni in nodes:
            st = self.run_filter_plugins_with_nominated_pods(state, pod, ni)
            if not st.is_success():
                d.node_to_status[ni.name] = st
        return state, d


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UnschedulableAndUnresolvable, tuple(reasons))
