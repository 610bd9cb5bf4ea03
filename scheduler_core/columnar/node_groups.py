"""Per-node answers that depend only on node objects and fixed pod fields, cached.

Node labels, taints, ``unschedulable`` and images never change during a simulation, and
the pods of one workload share their tolerations, node selector, node affinity and
images. So a question such as "does this node pass NodeAffinity for this pod" is asked
once per distinct answer-relevant node and per distinct pod template: nodes are grouped
by the label values the question reads (``group_nodes``), the reference code answers for
one node of each group, and the answers are broadcast back to every node. The answers are
the reference plugins' own, so reasons and edge cases are upstream's by construction.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Hashable, Iterable, TypeVar

import numpy as np

from .node_table import NodeTable

T = TypeVar("T")
MAX_ENTRIES = 4096  # distinct pod templates kept per cache


def group_nodes(table: NodeTable, keys: Iterable[str], taints: bool = False,
                unschedulable: bool = False, names: bool = False
                ) -> tuple[np.ndarray, np.ndarray]:
    """(representatives, inverse): one node index per group of nodes that agree on the
    given label keys (and taints, unschedulable, or names when asked); ``inverse[i]`` is
    node i's group. ``names`` makes every node its own group. Worked out once per table and
    question (what it reads of the nodes does not change): not to be changed."""
    n = table.n
    if names or n == 0:
        return np.arange(n, dtype=np.intp), np.arange(n, dtype=np.intp)
    keys = tuple(sorted(set(keys)))
    memo = table.__dict__.setdefault("_groupings", {})
    found = memo.get((keys, taints, unschedulable))
    if found is None:
        found = memo[(keys, taints, unschedulable)] = _group_nodes(table, keys, taints, unschedulable)
        for array in found:
            array.flags.writeable = False
    return found


def _group_nodes(table: NodeTable, keys: tuple[str, ...], taints: bool, unschedulable: bool
                 ) -> tuple[np.ndarray, np.ndarray]:
    n = table.n
    cols = [table.column(k).ids.astype(np.int64) + 1 for k in keys]
    if taints:
        cols.append(_taint_signature(table))
    if unschedulable:
        cols.append(table.unschedulable.astype(np.int64))
    if not cols:
        return np.zeros(1, np.intp), np.zeros(n, np.intp)
    # the rows as one number each, the first column the most significant: sorted as np.unique(axis=0) sorts the
    # rows (its row-wise unique took 2 ms a call at 5,000 nodes), where the numbers fit
    sizes = [int(c.max()) + 1 for c in cols]
    if all(c.min() >= 0 for c in cols) and np.prod(np.array(sizes, dtype=object)) < 2 ** 62:
        code = np.zeros(n, np.int64)
        for c, size in zip(cols, sizes):
            code = code * size + c
        _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(np.stack(cols, axis=1), axis=0, return_index=True, return_inverse=True)
    return first.astype(np.intp), inverse.reshape(-1).astype(np.intp)


def _taint_signature(table: NodeTable) -> np.ndarray:
    sig = getattr(table, "_taint_sig", None)
    if sig is None:
        seen: dict = {}
        sig = np.array([seen.setdefault(nd.taints, len(seen)) for nd in table.nodes], np.int64)
        table._taint_sig = sig  # type: ignore[attr-defined]
    return sig


def broadcast(table: NodeTable, grouping: tuple[np.ndarray, np.ndarray],
              answer: Callable[[int], T], dtype=None) -> np.ndarray:
    """answer(node index) for each group's representative, spread to every node."""
    reps, inverse = grouping
    values = np.array([answer(int(i)) for i in reps], dtype=dtype)
    if len(values) == 0:
        return np.zeros(table.n, dtype=dtype or np.int64)
    return values[inverse]


class TemplateCache:
    """A bounded map from a pod-derived key to a computed per-node array."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: OrderedDict[Hashable, object] = OrderedDict()
        self._max = max_entries

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        try:
            hit = self._entries.get(key)
        except TypeError:  # an unhashable key: no caching
            return compute()
        if hit is None:
            hit = self._entries[key] = compute()
            if len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return hit  # type: ignore[return-value]
