"""A small framework Handle for PodTopologySpread tests, and helpers to run its points."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from scheduler_core.config_args import LIST_DEFAULTING, PodTopologySpreadArgs
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import NodeScore, Status
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.types import NodeInfo
from scheduler_core.k8s.types import Node, Pod, Service, Workload
from scheduler_core.plugins.podtopologyspread import PodTopologySpread
from tests.core.wrappers import node_infos

# Upstream tests build the plugin with List defaulting and no defaults unless they say so.
NO_DEFAULTS = PodTopologySpreadArgs(defaulting_type=LIST_DEFAULTING)


@dataclass
class Objects:
    """The Scenario fields the plugin reads."""

    services: tuple[Service, ...] = ()
    workloads: tuple[Workload, ...] = ()
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)


class FakeHandle:
    """framework.Handle with a Snapshot over the given NodeInfos and scenario objects."""

    def __init__(self, infos: Sequence[NodeInfo], services: Sequence[Service] = (),
                 workloads: Sequence[Workload] = ()) -> None:
        self.snapshot = Snapshot(infos)
        self.objects = Objects(tuple(services), tuple(workloads))

    def snapshot_shared_lister(self) -> Snapshot:
        return self.snapshot


def new_plugin(nodes: Sequence[Node], pods: Sequence[Pod] = (),
               args: PodTopologySpreadArgs | None = NO_DEFAULTS,
               services: Sequence[Service] = (), workloads: Sequence[Workload] = ()
               ) -> PodTopologySpread:
    """The plugin over a snapshot of nodes with the bound pods on them."""
    return PodTopologySpread(args, FakeHandle(node_infos(list(nodes), list(pods)), services,
                                              workloads))


def filter_all(pl: PodTopologySpread, pod: Pod) -> tuple[Status, dict[str, Status]]:
    """PreFilter then Filter on every node: (pre-filter status, node name -> status)."""
    state = CycleState()
    infos = pl.handle.snapshot_shared_lister().list()
    _, st = pl.pre_filter(state, pod, infos)
    if not st.is_success():
        return st, {}
    return st, {ni.name: pl.filter(state, pod, ni) for ni in infos}


def score_all(pl: PodTopologySpread, pod: Pod, feasible: Sequence[str]
              ) -> tuple[Status, dict[str, int], CycleState]:
    """PreScore on the feasible nodes, Score each, NormalizeScore: node -> final score."""
    state = CycleState()
    snap = pl.handle.snapshot_shared_lister()
    infos = [snap.get(n) for n in feasible]
    st = pl.pre_score(state, pod, infos)
    if not st.is_success():
        return st, {}, state
    scores = [NodeScore(ni.name, pl.score(state, pod, ni)[0]) for ni in infos]
    pl.normalize_score(state, pod, scores)
    return st, {s.name: s.score for s in scores}, state
