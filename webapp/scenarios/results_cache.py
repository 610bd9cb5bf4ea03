"""A finished run's result, read from the database once per process and kept for the next pages.

A result is written once, when its run finishes, and never changed; the pages of a run (the run, its nodes,
topology, timeline, each pod and node) read it. At production size a result is tens of MB of JSON, a quarter of
a second or more to fetch and decode, so the last RESULT_CACHE_RUNS results read are kept, keyed by run and
finish time (a run finished again is read again; a run saved through the ORM in this process is forgotten).

A page that reads only a few parts of a result (the draft editor's comparison of two runs) asks for it
`by_parts`: one stored in more than RESULT_PARTS_MIN_BYTES (compressed, as the database keeps it) is then read
one top-level part at a time, as the page asks for them (StoredResult). A 5,000-node result is 136 MB of JSON,
2.4 s to read whole, and the comparison needs a fifth of it; the pages of one run need most of it, which is
faster to read whole.

A result is decoded with Python's cycle collector paused (JSON makes no reference cycles; with it running, a
5,000-node result's decoding ran seven full collections, more than half of its time), and a large one is kept
out of the collector's later scans (frozen.py).
"""

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping

from django.conf import settings
from django.db import connection
from django.db.models import TextField
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Cast
from django.db.models.signals import post_save
from django.dispatch import receiver

from . import engine, frozen
from .models import Run

_results: OrderedDict = OrderedDict()
_lock = threading.Lock()
_large: set = set()  # keys of the cached results of FROZEN_CACHE_MIN_BYTES or more


def result_of(run, by_parts=False):
    """The result of a finished ``run`` (loaded with its result deferred, or not). ``by_parts``: for a page that
    reads a few of its parts (a large result is then read a part at a time, unless this process has it whole)."""
    if "result" in run.__dict__:  # (already loaded with the row)
        return run.result
    key = (run.pk, run.finished_at)
    with _lock:
        found = _results.get(key)
        if found is None and by_parts:
            found = _results.get(key + ("by parts",))
        if found is not None:
            _results.move_to_end(key if key in _results else key + ("by parts",))
            return found
    result = None
    if by_parts:
        stored, sizes = _probe(run.pk)
        if stored is None:
            return None
        if stored > settings.RESULT_PARTS_MIN_BYTES and sizes is not None:
            result, key = StoredResult(run.pk, sizes), key + ("by parts",)
    if result is not None:
        _keep(key, result, 0)
        return result
    text = Run.objects.filter(pk=run.pk).annotate(text=Cast("result", TextField())).values_list(
        "text", flat=True).first()
    if text is None:
        return None
    with engine.without_cycle_collection():  # (and kept, frozen if large, before it runs again)
        result = json.loads(text)
        _keep(key, result, len(text))
    return result


def _keep(key, result, size):
    """Cache a result read (``size``: of its JSON text, 0 when read by parts)."""
    if settings.RESULT_CACHE_RUNS <= 0:
        return
    with _lock:
        _results[key] = result
        while len(_results) > settings.RESULT_CACHE_RUNS:
            _drop(next(iter(_results)))
        if size >= settings.FROZEN_CACHE_MIN_BYTES:
            _large.add(key)
            frozen.changed(grew=True)


class StoredResult(Mapping):
    """A run's stored result (a JSON object), each top-level part read from the database the first time it is
    asked for. On PostgreSQL a read also takes every part not read yet of at most SMALL_PART bytes: each read
    decompresses the whole document once (0.1 s at 5,000 nodes), so the pages' many small parts come in one.
    Shared between pages: not to be changed."""

    def __init__(self, run_pk, sizes):
        self._pk, self._sizes, self._parts = run_pk, dict(sizes), {}

    def __getitem__(self, key):
        try:
            return self._parts[key]
        except KeyError:
            pass
        if key not in self._sizes:
            raise KeyError(key)
        if connection.vendor == "postgresql":
            wanted = [key] + [k for k, size in self._sizes.items()
                              if size <= SMALL_PART and k != key and k not in self._parts]
            self._parts.update(zip(wanted, _parts_of(self._pk, wanted)))
        else:
            self._parts[key] = Run.objects.filter(pk=self._pk).values_list(
                KeyTransform(key, "result"), flat=True).first()
        return self._parts[key]

    def __iter__(self):
        return iter(self._sizes)

    def __len__(self):
        return len(self._sizes)

    def __repr__(self):
        return f"StoredResult(run {self._pk}, read {sorted(self._parts)} of {list(self._sizes)})"


SMALL_PART = 2 * 1024 * 1024


def _parts_of(pk, keys):
    """The values of the top-level parts `keys` of a run's result, from one decompression of it (PostgreSQL)."""
    columns = ", ".join(["(r -> %s)::text"] * len(keys))
    # (the subquery makes one decompressed copy, which each -> then reads; OFFSET 0 keeps it a subquery)
    sql = (f"SELECT {columns} FROM (SELECT result || '{{}}'::jsonb AS r FROM scenarios_run WHERE id = %s "
           "OFFSET 0) s")
    with connection.cursor() as cursor:
        cursor.execute(sql, [*keys, pk])
        row = cursor.fetchone()
    with engine.without_cycle_collection():
        return [json.loads(v) if v is not None else None for v in row]


_PROBE = {
    # (the size as stored, compressed; {part: its size}, or NULL when the result is no object)
    "postgresql": "SELECT pg_column_size(t.result), CASE WHEN jsonb_typeof(t.result) = 'object' THEN "
                  "(SELECT COALESCE(json_object_agg(k, pg_column_size(s.r -> k)), '{}') "
                  " FROM (SELECT t.result || '{}'::jsonb AS r OFFSET 0) s, jsonb_object_keys(s.r) k)::text END "
                  "FROM scenarios_run t WHERE t.id = %s",
    "sqlite": "SELECT length(result), CASE WHEN json_type(result) = 'object' THEN "
              "(SELECT json_group_object(key, 0) FROM json_each(result)) END FROM scenarios_run WHERE id = %s",
}


def _probe(pk):
    """(the stored size of the run's result, None without one; {part: size}, None when the result is no object).
    PostgreSQL and SQLite, the two databases the app runs on (settings.DATABASES)."""
    with connection.cursor() as cursor:
        cursor.execute(_PROBE[connection.vendor], [pk])
        row = cursor.fetchone()
    if row is None or row[0] is None:
        return None, None
    return row[0], (json.loads(row[1]) if row[1] is not None else None)


_derived: dict = {}  # (id of a cached result, name) -> what was worked out from it


def derived(result, name, compute):
    """``compute(result)``, kept while ``result`` is one of the cached results (a page's index of it, such as
    every pod's labels by key, is then built once, not on every page)."""
    with _lock:
        cached = any(r is result for r in _results.values())
        found = _derived.get((id(result), name)) if cached else None
    if found is not None or not cached:
        return found if found is not None else compute(result)
    value = compute(result)
    with _lock:
        if any(r is result for r in _results.values()):
            _derived[(id(result), name)] = value
    return value


def forget(run_id=None):
    """Drop one run's cached result (or all of them)."""
    with _lock:
        for key in [k for k in _results if run_id is None or k[0] == run_id]:
            _drop(key)


def _drop(key):
    """(holding _lock) Let a cached result go (the collector may then reclaim what was frozen with it)."""
    _drop_derived(_results.pop(key))
    if key in _large:
        _large.discard(key)
        frozen.changed(grew=False)


def _drop_derived(result):
    for key in [k for k in _derived if k[0] == id(result)]:
        del _derived[key]


frozen.register("results", lambda: bool(_large))


@receiver(post_save, sender=Run)
def _saved(sender, instance, **kwargs):
    forget(instance.pk)
