"""Per-domain matching-pod counts kept across cycles (the fast path).

PreFilter's calPreFilterState and PreScore's processAllNode (upstream
``filtering.go``/``scoring.go``) recount every node's matching pods each cycle. For pods
that share the same constraints, namespace, required node affinity and tolerations (the
pods of one workload), a node's contribution only changes when its pods do, i.e. when
``NodeInfo.generation`` moves. This cache keeps, per such key, every node's contribution
``(constraint index, topology value, count)`` and the per-domain totals, and on each call
recomputes only the nodes whose NodeInfo object or generation changed, adjusting the
totals by the difference. Totals keep the reference path's insertion order (first node in
list order that has the domain); any change in which domains a node contributes to (never
expected: node labels and taints are fixed) rebuilds the entry from scratch. Results equal
the reference recount exactly; the differential tests in ``tests/core/test_fast_path.py``
compare both.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Hashable, Sequence

from ...framework.types import NodeInfo

Contribution = tuple[tuple[int, str, int], ...]
ContribFn = Callable[[NodeInfo], Contribution]

MAX_KEYS = 64  # distinct (constraints, namespace, affinity, tolerations) kept


class _Entry:
    """One key's node contributions (name -> (NodeInfo, generation, contribution)) and
    per-constraint domain totals."""

    __slots__ = ("nodes", "totals")

    def __init__(self, num_constraints: int) -> None:
        self.nodes: dict[str, tuple[NodeInfo, int, Contribution]] = {}
        self.totals: list[dict[str, int]] = [{} for _ in range(num_constraints)]


class DomainCountCache:
    """Keyed, bounded (LRU) cache of per-domain matching counts over all nodes."""

    def __init__(self, max_keys: int = MAX_KEYS) -> None:
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._max_keys = max_keys

    def totals(self, key: Hashable, num_constraints: int, all_nodes: Sequence[NodeInfo],
               contrib: ContribFn) -> list[dict[str, int]]:
        """Per-constraint {topology value: matching pods} over all_nodes (copies)."""
        entry = self._entries.get(key)
        if entry is None or not _refresh(entry, all_nodes, contrib):
            entry = _build(num_constraints, all_nodes, contrib)
            self._entries[key] = entry
            if len(self._entries) > self._max_keys:
                self._entries.popitem(last=False)
        self._entries.move_to_end(key)
        return [dict(m) for m in entry.totals]


def _build(num_constraints: int, all_nodes: Sequence[NodeInfo], contrib: ContribFn) -> _Entry:
    """A full recount, in node order (the reference path's accumulation order)."""
    entry = _Entry(num_constraints)
    for ni in all_nodes:
        c = contrib(ni)
        entry.nodes[ni.name] = (ni, ni.generation, c)
        for i, value, count in c:
            m = entry.totals[i]
            m[value] = m.get(value, 0) + count
    return entry


def _refresh(entry: _Entry, all_nodes: Sequence[NodeInfo], contrib: ContribFn) -> bool:
    """Recount the changed nodes in place; False when the entry must be rebuilt (other
    nodes, or a node whose domains changed)."""
    if len(entry.nodes) != len(all_nodes):
        return False
    nodes = entry.nodes
    for ni in all_nodes:
        rec = nodes.get(ni.name)
        if rec is None:
            return False
        if rec[0] is ni and rec[1] == ni.generation:
            continue
        new, old = contrib(ni), rec[2]
        if len(new) != len(old) or any(a[:2] != b[:2] for a, b in zip(new, old)):
            return False
        for (i, value, count), (_, _, old_count) in zip(new, old):
            if count != old_count:
                entry.totals[i][value] += count - old_count
        nodes[ni.name] = (ni, ni.generation, new)
    return True


def hashable_key(*parts) -> Hashable | None:
    """The parts as a dict key, or None when one is unhashable (use the reference path)."""
    try:
        hash(parts)
    except TypeError:
        return None
    return parts
