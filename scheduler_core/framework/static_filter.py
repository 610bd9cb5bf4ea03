"""Filter verdicts of node-static plugins kept across cycles (the fast path).

NodeUnschedulable, NodeName, TaintToleration and NodeAffinity decide from the Node object
(labels, taints, unschedulable) and fixed fields of the pod only (tolerations, nodeName,
nodeSelector, node affinity; NodeAffinity's PreFilter state is built from those), never
from the pods on the node. When they lead the profile's Filter list, their combined verdict
for a node (upstream RunFilterPlugins over that prefix: the first non-success status) is the
same for every pod with the same such fields and the same PreFilter skip set, so it is
computed once per (key, node) and reused while the NodeInfo holds the same Node object.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Hashable

from ..k8s.types import Pod
from ..plugins import names
from .interface import Status

STATIC_FILTER_PLUGINS = frozenset({names.NODE_UNSCHEDULABLE, names.NODE_NAME,
                                   names.TAINT_TOLERATION, names.NODE_AFFINITY})
MAX_KEYS = 256

NodeVerdicts = dict[str, tuple[object, Status]]  # node name -> (Node object, verdict)


def static_prefix_length(plugins) -> int:
    """How many leading Filter plugins are node-static."""
    n = 0
    for pl in plugins:
        if pl.NAME not in STATIC_FILTER_PLUGINS:
            break
        n += 1
    return n


def static_key(pod: Pod, skip: set[str]) -> Hashable | None:
    """What the static plugins read from the pod and the cycle; None when unhashable."""
    node_affinity = pod.affinity.node_affinity if pod.affinity is not None else None
    key = (pod.tolerations, pod.node_name, tuple(sorted(pod.node_selector.items())),
           node_affinity, frozenset(skip))
    try:
        hash(key)
    except TypeError:
        return None
    return key


class StaticFilterMemo:
    """Per-Framework, bounded: static key -> per-node verdicts; plus the current cycle's
    (pod, verdicts) so that Filter calls for another pod never see them."""

    def __init__(self) -> None:
        self._by_key: OrderedDict[Hashable, NodeVerdicts] = OrderedDict()
        self.cycle: tuple[Pod, NodeVerdicts] | None = None

    def start_cycle(self, pod: Pod, skip: set[str]) -> None:
        """After PreFilter: select (or create) the verdicts for this pod's key."""
        key = static_key(pod, skip)
        if key is None:
            self.cycle = None
            return
        verdicts = self._by_key.get(key)
        if verdicts is None:
            verdicts = self._by_key[key] = {}
            if len(self._by_key) > MAX_KEYS:
                self._by_key.popitem(last=False)
        self._by_key.move_to_end(key)
        self.cycle = (pod, verdicts)

    def verdicts_for(self, pod: Pod) -> NodeVerdicts | None:
        """The current cycle's verdicts when they belong to this very pod object."""
        c = self.cycle
        return c[1] if c is not None and c[0] is pod else None
