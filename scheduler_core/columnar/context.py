"""What the columnar plugins share: the node table, the status table, the NodeInfos and
the per-template node masks more than one plugin reads.

Not an upstream file. ``required_affinity_ok`` and ``tolerates_no_schedule`` are
PodTopologySpread's matchNodeInclusionPolicies inputs (``common.go``), computed once per
distinct pod node affinity / tolerations with the reference helpers on one node per group
(``node_groups``).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..framework.types import NodeInfo
from ..k8s.nodeaffinity import LazyErrorNodeSelector, RequiredNodeAffinity
from ..k8s.taints import do_not_schedule_taints_filter, find_matching_untolerated_taint
from ..k8s.types import Pod
from .node_groups import TemplateCache, broadcast, group_nodes
from .node_table import NodeTable
from .status_table import StatusTable


def affinity_keys(pod: Pod, added: LazyErrorNodeSelector | None = None
                  ) -> tuple[set[str], bool]:
    """The node label keys a pod's nodeSelector and required node affinity (and a
    profile's addedAffinity) read, and whether they read node fields (metadata.name)."""
    keys = set(pod.node_selector)
    fields = False
    na = pod.affinity.node_affinity if pod.affinity else None
    if na is not None and na.required is not None:
        for term in na.required.node_selector_terms:
            keys.update(r.key for r in term.match_expressions)
            fields = fields or bool(term.match_fields)
    if added is not None:
        for t in added.terms:
            keys.update(r.key for r in t.match_labels)
            fields = fields or bool(t.match_fields)
    return keys, fields


def required_affinity_key(pod: Pod):
    """What RequiredNodeAffinity.from_pod reads."""
    na = pod.affinity.node_affinity if pod.affinity else None
    return (tuple(sorted(pod.node_selector.items())), na.required if na is not None else None)


class Context:
    """Shared state of one columnar simulation."""

    def __init__(self, node_infos: Sequence[NodeInfo]) -> None:
        self.node_infos = list(node_infos)
        self.table = NodeTable(self.node_infos)
        self.statuses = StatusTable()
        self._affinity_ok = TemplateCache()
        self._tolerated = TemplateCache()
        self._templates: dict[tuple, tuple[tuple, object]] = {}
        self._gathered: dict = {}  # gather(): per node set arrays of this cycle
        # (the pod of this cycle, a dict its template's cycles share): set by ColumnarFramework for its plugins,
        # whose per-template values read no more of the pod than the framework's template key holds
        self.cycle: tuple = (None, None)

    def template(self, name: str, parts: tuple, compute):
        """compute(), once per distinct ``parts``: the pod fields a computation reads.

        Hashing tolerations, affinity or spread constraints by value every cycle would
        cost more than the cycle's array work, so ``parts`` are matched by identity: the
        loader decodes the pods of one workload into the very same objects
        (``Decoder.interned``, namespaces interned). The entry keeps ``parts`` alive, so
        an id in a key can only ever name that object. Equal parts that are distinct
        objects only compute again; the callers' own caches then match them by value."""
        n = len(parts)
        key = (name, id(parts[0])) if n == 1 else (name, id(parts[0]), id(parts[1])) if n == 2 \
            else (name, id(parts[0]), id(parts[1]), id(parts[2])) if n == 3 \
            else (name, *map(id, parts))
        hit = self._templates.get(key)
        if hit is not None:
            return hit[1]
        value = compute()
        if len(self._templates) > 65536:
            self._templates.clear()
        self._templates[key] = (parts, value)
        return value

    def required_affinity_ok(self, pod: Pod) -> np.ndarray:
        """Per node: the pod's nodeSelector and required node affinity match."""
        return self.template("affinity_ok", (pod.node_selector, pod.affinity), lambda:
                             self._affinity_ok.get(required_affinity_key(pod),
                                                   lambda: self._affinity(pod)))

    def _affinity(self, pod: Pod) -> np.ndarray:
        required = RequiredNodeAffinity.from_pod(pod)
        keys, fields = affinity_keys(pod)
        nodes = self.table.nodes
        return broadcast(self.table, group_nodes(self.table, keys, names=fields),
                         lambda i: required.match(nodes[i]), bool)

    def tolerates_no_schedule(self, pod: Pod) -> np.ndarray:
        """Per node: no NoSchedule/NoExecute taint the pod does not tolerate."""
        return self.template("tolerated", (pod.tolerations,), lambda: self._tolerated.get(
            pod.tolerations, lambda: self._tolerates(pod)))

    def _tolerates(self, pod: Pod) -> np.ndarray:
        nodes = self.table.nodes
        return broadcast(self.table, group_nodes(self.table, (), taints=True),
                         lambda i: find_matching_untolerated_taint(
                             nodes[i].taints, pod.tolerations,
                             do_not_schedule_taints_filter) is None, bool)
