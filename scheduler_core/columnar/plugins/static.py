"""Filter plugins whose verdict depends only on the node object and fixed pod fields.

NodeUnschedulable (``nodeunschedulable/node_unschedulable.go``), NodeName
(``nodename/node_name.go``), TaintToleration's Filter (``tainttoleration/
taint_toleration.go``) and NodeAffinity's Filter (``nodeaffinity/node_affinity.go``) read
labels, taints, ``unschedulable`` and the node name, and the pod's tolerations, nodeName,
nodeSelector and required node affinity; never the pods on the node. A run of them in the
profile's Filter order is evaluated as one: the reference plugins decide for one node per
group of nodes that agree on what they read, and the verdict (the first rejecting plugin,
as RunFilterPlugins) is cached per pod template.

A NodeAffinity Filter whose PreFilter returned Skip is still run here: it then has no
requirement and passes, as the skipped plugin would.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interface import as_status
from ...framework.runtime import _wrap
from ...k8s.types import Pod
from ...plugins import names
from ..context import Context, affinity_keys
from ..node_groups import TemplateCache, broadcast, group_nodes

STATIC_FILTER_PLUGINS = frozenset({names.NODE_UNSCHEDULABLE, names.NODE_NAME,
                                   names.TAINT_TOLERATION, names.NODE_AFFINITY})


class StaticFilters:
    """Consecutive node-static Filter plugins, evaluated once per pod template."""

    def __init__(self, refs: Sequence, ctx: Context) -> None:
        self.refs = tuple(refs)
        self.NAME = "+".join(r.NAME for r in self.refs)
        self.ctx = ctx
        na = next((r for r in self.refs if r.NAME == names.NODE_AFFINITY), None)
        self.added = na.added_node_selector if na is not None else None
        self.reads_affinity = na is not None
        self.reads_taints = any(r.NAME in (names.TAINT_TOLERATION, names.NODE_UNSCHEDULABLE)
                                for r in self.refs)
        self.reads_name = any(r.NAME == names.NODE_NAME for r in self.refs)
        self._cache = TemplateCache()
        self._name = f"static{id(self)}"  # (its Context.template name)

    def _key(self, pod: Pod):
        na = pod.affinity.node_affinity if pod.affinity else None
        return (pod.tolerations, pod.node_name, tuple(sorted(pod.node_selector.items())),
                na.required if na is not None else None)

    def verdicts(self, pod: Pod) -> tuple[np.ndarray, np.ndarray]:
        """(status id per node, passes per node) for this pod's template."""
        return self.ctx.template(
            self._name, (pod.tolerations, pod.node_name, pod.node_selector, pod.affinity),
            lambda: self._cache.get(self._key(pod), lambda: self._compute(pod)))

    def _compute(self, pod: Pod) -> tuple[np.ndarray, np.ndarray]:
        table, statuses, infos = self.ctx.table, self.ctx.statuses, self.ctx.node_infos
        keys, fields = affinity_keys(pod, self.added) if self.reads_affinity else (set(), False)
        by_name = fields or (self.reads_name and bool(pod.node_name))
        grouping = group_nodes(table, keys, taints=self.reads_taints, unschedulable=True,
                               names=by_name)
        state = CycleState()

        def answer(i: int) -> int:
            for pl in self.refs:
                try:
                    st = pl.filter(state, pod, infos[i])
                except Exception as err:  # noqa: BLE001 - AsStatus, as RunFilterPlugins
                    st = as_status(err)
                if st is None or not st.code:
                    continue
                if not st.is_rejected():
                    st = _wrap(st, f'running "{pl.NAME}" filter plugin', pl.NAME)
                return statuses.intern(st.with_plugin(pl.NAME))
            return 0

        ids = broadcast(table, grouping, answer, np.int32)
        return ids, ids == 0

    def filter_ok(self, state: CycleState, pod: Pod) -> np.ndarray:
        return self.verdicts(pod)[1]

    def filter_status(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        return self.verdicts(pod)[0][idx]

    def filter_status_with(self, state: CycleState, pod: Pod, idx: np.ndarray,
                           added, key=None) -> np.ndarray:
        return self.filter_status(state, pod, idx)
