"""A bounded memo keyed by the identity of objects the loader shares.

The loader gives the pods of one workload the same labels mapping, affinity, containers
tuple and owner references (see manifests' interning), so a value derived from one of
those objects alone is the same for every pod of the workload. IdentityMemo keeps such
values per object identity. It holds on to the objects of each key, so no other object can
take one of their ids while the entry lasts: a key found is a key for the very same
objects. When it grows past its bound it starts again empty.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")

MISS = object()


class IdentityMemo(Generic[V]):
    """Values per (identities of up to three objects, an optional hashable extra).

    The objects are positional and the arity fixed, not a tuple: these lookups sit in
    per-pod loops, where building a key tuple from a tuple costs as much as the lookup.
    """

    __slots__ = ("_table", "_bound")

    def __init__(self, bound: int = 4096):
        self._table: dict[tuple, tuple[tuple, V]] = {}
        self._bound = bound

    def get(self, a: object, b: object = None, c: object = None,
            extra: Hashable = None) -> V | object:
        """The value stored for exactly these objects and extra, else MISS."""
        hit = self._table.get((id(a), id(b), id(c), extra))
        return MISS if hit is None else hit[1]

    def put(self, value: V, a: object, b: object = None, c: object = None,
            extra: Hashable = None) -> V:
        """Store value for these objects and extra; returns it."""
        table = self._table
        if len(table) >= self._bound:
            table.clear()
        table[(id(a), id(b), id(c), extra)] = ((a, b, c), value)  # keeps their ids theirs
        return value

    def __len__(self) -> int:
        return len(self._table)
