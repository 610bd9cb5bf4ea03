"""A finished run's result, read from the database once per process and kept for the next pages.

A result is written once, when its run finishes, and never changed; the pages of a run (the run, its nodes,
topology, timeline, each pod and node) read it. At production size a result is tens of MB of JSON, a quarter of
a second or more to fetch and decode, so the last RESULT_CACHE_RUNS results read are kept, keyed by run and
finish time (a run finished again is read again; a run saved through the ORM in this process is forgotten).

A page that reads only a few parts of a result (the draft editor's comparison of two runs) asks for it
`by_parts`: one stored in more than RESULT_PARTS_MIN_BYTES (compressed, as the database keeps it) is then read
one top-level part at a time, as the page asks for them (StoredResult). A 5,000-node result is 136 MB of JSON,
2.4 s to read whole, and the comparison needs a fifth of it; the pages of one run need most of it, which is
faster to read whole. The parts keyed by pod (explanations, preemptions, podInfo: 100 MB of that result) are read
an entry at a time (PartEntries): the pod page reads its pod's entries and the parts it names (POD_PAGE_PARTS)
from one decompression each. The sizes of a large result's parts, which decide this, are measured once by the
worker and kept beside the run's page (keep_part_sizes).

A result is decoded with Python's cycle collector paused (JSON makes no reference cycles; with it running, a
5,000-node result's decoding ran seven full collections, more than half of its time), and a large one is kept
out of the collector's later scans (frozen.py).
"""

import json
import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Mapping

import orjson
from django.conf import settings
from django.db import connection
from django.db.models import TextField
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Cast
from django.db.models.signals import post_save
from django.dispatch import receiver

from . import compare, engine, frozen
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
        stored, sizes = _kept_sizes(run.pk) or _probe(run.pk)
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
        if connection.vendor == "postgresql" and key in ENTRY_PARTS and self._sizes[key] > SMALL_PART:
            self._parts[key] = PartEntries(self, key)
            return self._parts[key]
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

    def prefetch(self, keys):
        """Read the parts ``keys`` not read yet (and the small ones) from one decompression: for a page that knows
        which parts it reads (PostgreSQL)."""
        if connection.vendor != "postgresql":
            return
        wanted = [k for k in keys if k in self._sizes and k not in self._parts and
                  not (k in ENTRY_PARTS and self._sizes[k] > SMALL_PART)]
        if wanted:
            wanted += [k for k, size in self._sizes.items()
                       if size <= SMALL_PART and k not in wanted and k not in self._parts]
            self._parts.update(zip(wanted, _parts_of(self._pk, wanted)))

    def entries_of(self, key, asking):
        """{part: (whether it has key, the value)} for each large part keyed by pod (a PartEntries) that has not
        read key, nor been read whole: a page that asks one of them for a pod's entry asks the others for the same
        pod's (the pod page reads its explanation, preemption and labels), from one decompression."""
        parts = [asking]
        for part in sorted(ENTRY_PARTS - {asking}):
            if self._sizes.get(part, 0) > SMALL_PART:
                entries = self._parts.setdefault(part, PartEntries(self, part))
                if isinstance(entries, PartEntries) and entries.wants(key):
                    parts.append(part)
        return dict(zip(parts, _entries_of(self._pk, parts, key)))

    def __repr__(self):
        return f"StoredResult(run {self._pk}, read {sorted(self._parts)} of {list(self._sizes)})"


SMALL_PART = 2 * 1024 * 1024
# Large parts keyed by pod, of which a page often shows one entry (the pod page: its explanation, preemption
# and labels): read an entry at a time (PartEntries), whole past ENTRY_READS of them.
ENTRY_PARTS = frozenset({"explanations", "preemptions", "podInfo"})
ENTRY_READS = 3
# A page drawing many pods (the topology: 13,000 chips at 5,000 nodes) reads their entries in one query, a
# tenth of a second for 14,000 of 150,000; past PREFETCH_MAX of them it reads the whole object.
PREFETCH_MAX = 20_000


class PartEntries(Mapping):
    """A large top-level object of a result read by parts (PostgreSQL; over SMALL_PART), each entry
    read from the database the first time it is asked for, with the same key's entries of the result's other
    PartEntries (StoredResult.entries_of); the whole object once more than ENTRY_READS entries were asked, or when
    it is walked (its keys alone are read to count them). It equals the object as stored, keys in the same order.
    Shared between pages: not to be changed."""

    def __init__(self, owner, part):
        self._owner, self._part = owner, part
        self._entries, self._whole, self._keys = {}, None, None

    def wants(self, key):
        """Whether an entry read for key should include this part's."""
        return self._whole is None and key not in self._entries and len(self._entries) < ENTRY_READS

    def __getitem__(self, key):
        if self._whole is not None:
            return self._whole[key]
        if key not in self._entries:
            if len(self._entries) >= ENTRY_READS:
                return self._all()[key]
            for part, found in self._owner.entries_of(key, self._part).items():
                self._owner[part]._entries[key] = found
        found, value = self._entries[key]
        if not found:
            raise KeyError(key)
        return value

    def __contains__(self, key):
        try:
            self[key]
        except (KeyError, TypeError):
            return False
        return True

    def prefetch(self, keys):
        """Read the entries of keys not read yet in one query (a page about to show a node's pods reads their
        labels); past PREFETCH_MAX of them, the whole object."""
        if self._whole is not None:
            return
        wanted = list(dict.fromkeys(k for k in keys if k not in self._entries))
        if len(wanted) > PREFETCH_MAX:
            self._all()
        elif wanted:
            self._entries.update(zip(wanted, _entries_by_key(self._owner._pk, self._part, wanted)))

    def fields_of(self, keys, field):
        """{key: its entry's ``field``} of keys whose entry has it, read without their entries when there are many
        of them (a page colouring 13,000 pods by workload), else from the entries."""
        keys = list(dict.fromkeys(keys))
        if self._whole is not None or len(keys) <= ENTRY_READS or len(keys) > PREFETCH_MAX:
            found = ((k, self.get(k)) for k in keys)
            return {k: entry[field] for k, entry in found if isinstance(entry, dict) and field in entry}
        values = _entries_by_key(self._owner._pk, self._part, keys, field)
        return {k: value for k, (has, value) in zip(keys, values) if has}

    def __iter__(self):
        return iter(self._whole if self._whole is not None else self._key_list())

    def __len__(self):
        return len(self._whole if self._whole is not None else self._key_list())

    def __bool__(self):
        if self._whole is None and self._keys is None and self._owner._sizes.get(self._part, 0) > 1024:
            return True  # (no empty object takes a kilobyte: its keys need not be read)
        return len(self) > 0

    def keys(self):  # (what {**entries} and dict(entries) walk: the whole object, not an entry at a time)
        return self._all().keys()

    def items(self):
        return self._all().items()

    def values(self):
        return self._all().values()

    def _all(self):
        if self._whole is None:
            self._whole = _parts_of(self._owner._pk, [self._part])[0] or {}
        return self._whole

    def _key_list(self):
        if self._keys is None:
            with connection.cursor() as cursor:
                cursor.execute("SELECT k FROM scenarios_run t, jsonb_object_keys(t.result -> %s) WITH ORDINALITY "
                               "AS o(k, n) WHERE t.id = %s ORDER BY n", [self._part, self._owner._pk])
                self._keys = [row[0] for row in cursor.fetchall()]
        return self._keys

    def __repr__(self):
        return f"PartEntries(run {self._owner._pk}, {self._part!r}, read {len(self._entries)} entries)"


def _entries_of(pk, parts, key):
    """[(whether the run's result part has the key, its value)] for each of parts, from one decompression."""
    # (a path reads the entry in place: "r -> part -> key" would copy the whole part out first; a missing entry is
    # SQL NULL, a JSON null the text "null")
    columns = ", ".join(["(r #> ARRAY[%s, %s]::text[])::text"] * len(parts))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM (SELECT result || '{{}}'::jsonb AS r FROM scenarios_run WHERE id = %s "
                       "OFFSET 0) s", [x for part in parts for x in (part, key)] + [pk])
        row = cursor.fetchone() or (None,) * len(parts)
    with engine.without_cycle_collection():
        return [(False, None) if text is None else (True, json.loads(text)) for text in row]


def _entries_by_key(pk, part, keys, field=None):
    """[(whether the run's result part has the key, its value)] for each of keys (any number of them), from one
    decompression; with ``field``, of the field of each key's entry (whether it has one, its value)."""
    # (the keys are walked in a subquery of the one row: joined to it, the document was decompressed once per key)
    path = "ARRAY[%s, u.k]" if field is None else "ARRAY[%s, u.k, %s]"
    sql = (f"SELECT ARRAY(SELECT (s.r #> {path})::text FROM unnest(%s::text[]) WITH ORDINALITY u(k, n) "
           "ORDER BY u.n) FROM (SELECT result || '{}'::jsonb AS r FROM scenarios_run WHERE id = %s OFFSET 0) s")
    with connection.cursor() as cursor:
        cursor.execute(sql, [part, *([] if field is None else [field]), list(keys), pk])
        row = cursor.fetchone()
    texts = row[0] if row is not None else [None] * len(keys)
    with engine.without_cycle_collection():
        return [(False, None) if text is None else (True, _plain_string(text) or json.loads(text)) for text in texts]


def _plain_string(text):
    """The value of a JSON text that is a string without escapes ("ReplicaSet/web-5d8f"; a field read for
    13,000 pods), else None: json.loads is then not needed."""
    if len(text) > 2 and text[0] == '"' and "\\" not in text:
        return text[1:-1]
    return None


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


def _kept_sizes(pk):
    """(the stored size of the run's result, {part: size}) as the worker kept them beside the run's page
    (keep_part_sizes), else None (PostgreSQL: elsewhere the probe costs little)."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_column_size(r.result), (p.data -> 'sizes')::text FROM scenarios_run r "
                       "JOIN scenarios_runpage p ON p.run_id = r.id WHERE r.id = %s", [pk])
        row = cursor.fetchone()
    if row is None or row[0] is None or row[1] is None:
        return None
    return row[0], json.loads(row[1])


def keep_part_sizes(run_id):
    """The worker, once a large result is stored: its parts' sizes (the probe a page reading the result by parts
    starts with, half a second at 5,000 nodes, as each part is taken out of the document to be measured) kept
    beside the run's page, for every web process to read instead."""
    if connection.vendor != "postgresql":
        return
    stored, sizes = _probe(run_id)
    if stored is None or sizes is None or stored <= settings.RESULT_PARTS_MIN_BYTES:
        return
    with connection.cursor() as cursor:
        cursor.execute("UPDATE scenarios_runpage SET data = jsonb_set(data, '{sizes}', %s::jsonb) WHERE run_id = %s",
                       [json.dumps(sizes), run_id])


# What the API's run detail opens with when it sends a kept deflated result (the run's other fields follow it).
DEFLATED_HEAD = b'{"result":'
_DEFLATE_CHUNK = 8 * 1024 * 1024  # characters of the result's text encoded and deflated at a time


def keep_deflated(run_id):
    """The worker, once a result of RESULT_DEFLATE_MIN_BYTES or more is stored (not a sweep cell's): the result's JSON text as the
    database writes it out, deflated (level 1: 136 MB into about 20 MB in a second) after DEFLATED_HEAD, and kept
    beside the run's page with its CRC-32 and length, for the API to send to a client that accepts gzip
    (deflated_body) instead of having the database write 136 MB out as text again on every request."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT result::text, finished_at FROM scenarios_run WHERE id = %s", [run_id])
        row = cursor.fetchone()
    if row is None or row[0] is None or len(row[0]) < settings.RESULT_DEFLATE_MIN_BYTES:
        return
    text, finished_at = row
    deflate = zlib.compressobj(1, zlib.DEFLATED, -15)  # (raw deflate: the API wraps it in a gzip member)
    crc, length, out = zlib.crc32(DEFLATED_HEAD), len(DEFLATED_HEAD), [deflate.compress(DEFLATED_HEAD)]
    for start in range(0, len(text), _DEFLATE_CHUNK):
        chunk = text[start:start + _DEFLATE_CHUNK].encode("utf-8")
        crc, length = zlib.crc32(chunk, crc), length + len(chunk)
        out.append(deflate.compress(chunk))
    out.append(deflate.flush(zlib.Z_SYNC_FLUSH))  # (byte-aligned, no final block: more follows per request)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE scenarios_runpage SET deflated = %s, deflated_crc = %s, deflated_length = %s, "
                       "deflated_for = %s WHERE run_id = %s", [b"".join(out), crc, length, finished_at, run_id])


def deflated_body(run, rest):
    """The run's result as kept deflated (keep_deflated) followed by ``rest`` (the bytes that close the JSON
    object DEFLATED_HEAD opens), as one gzip member; None when nothing is kept for the run as it finished."""
    from .models import RunPage

    kept = RunPage.objects.filter(run_id=run.pk, deflated_for=run.finished_at, deflated__isnull=False) \
        .values_list("deflated", "deflated_crc", "deflated_length").first()
    if kept is None or run.finished_at is None:
        return None
    deflated, crc, length = kept
    finish = zlib.compressobj(1, zlib.DEFLATED, -15)
    tail = finish.compress(rest) + finish.flush()
    crc, length = zlib.crc32(rest, crc), length + len(rest)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # gzip, deflate, no name, no time, unknown OS
    return b"".join((header, bytes(deflated), tail, struct.pack("<II", crc & 0xFFFFFFFF, length & 0xFFFFFFFF)))


def comparison_facts(*runs):
    """compare.final_facts of each finished run: as the worker kept them beside it (RunPage.data["compare"], a few
    MB at 150,000 pods, read in one query), else worked out from its result (a run stored
    before it kept them). The last RESULT_CACHE_RUNS read are kept, keyed by run and finish time (the draft
    editor shows the same two runs on every autosave)."""
    from .models import RunPage

    keys = [(run.pk, run.finished_at) for run in runs]
    with _lock:
        found = {key: _facts[key] for key in keys if key in _facts}
    wanted = [run.pk for run, key in zip(runs, keys) if key not in found]
    texts = dict(RunPage.objects.filter(run_id__in=wanted).annotate(
        text=Cast(KeyTransform("compare", "data"), TextField())).values_list("run_id", "text")) if wanted else {}
    for run, key in zip(runs, keys):
        if key in found:
            continue
        text = texts.get(run.pk)
        if text is not None and text != "null":
            with engine.without_cycle_collection():
                found[key] = orjson.loads(text)
        else:
            result = result_of(run, by_parts=True)
            found[key] = compare.final_facts(result) if result is not None else None
        if found[key] is not None:
            with _lock:
                _facts[key] = found[key]
                while len(_facts) > settings.RESULT_CACHE_RUNS:
                    _facts.popitem(last=False)
    return [found[key] for key in keys]


_facts: OrderedDict = OrderedDict()  # (run id, finish time) -> compare.final_facts, the last read first out


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
    """Drop one run's cached result and comparison facts (or all of them)."""
    with _lock:
        for key in [k for k in _results if run_id is None or k[0] == run_id]:
            _drop(key)
        for key in [k for k in _facts if run_id is None or k[0] == run_id]:
            del _facts[key]


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
