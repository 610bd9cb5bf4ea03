"""Manifest texts stored once: by the SHA-256 of their content, zlib-compressed (models.Text).

A production cluster's manifests are hundreds of MB; every revision, draft, draft run and sweep cell used to
keep a copy. A StoredTextField column holds the key of its text instead, so rows that share a text share its
bytes, and the bytes are compressed (kubectl's YAML shrinks about tenfold). Reading a row returns the text, as
a TextField did: the rest of the code does not know. The texts last read are kept decompressed in this
process (TEXT_CACHE_BYTES), so a worker running many cells of one sweep reads each text once.
"""

import hashlib
import threading
import zlib
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

from django.apps import apps
from django.conf import settings
from django.db import models

LEVEL = 6  # zlib's default: a 50 MB dump in about a second, about a tenth of its size

_texts: OrderedDict = OrderedDict()  # key -> text, the latest last
_held = 0
_lock = threading.Lock()


def _text_model():
    # looked up in the app registry: models.py imports this module for its field
    return apps.get_model("scenarios", "Text")


def key_of(text):
    """The text's key: its SHA-256, or, for a text this process holds (read, stored or hashed before), the key
    it was kept under (hashing a 267 MB text takes half a second or more, and saving one asked nine times)."""
    if len(text) <= KNOWN_BY_IDENTITY:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    with _lock:
        for key, held in _texts.items():
            if held is text:
                return key
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()
    _keep(key, text, replace=True)  # (this very object: the next ask finds it by identity)
    return key


KNOWN_BY_IDENTITY = 1 << 20  # smaller texts hash faster than the search


def fact(text, name, compute):
    """compute(text)'s value (JSON), worked out once per text and name and kept in the database (TextFact):
    what pages derive from a text alone, so that no process parses a large text again for it. `name` must say
    which code worked it out (a fact is never recomputed under the same name)."""
    if len(text) < settings.TEXT_FACT_MIN_BYTES:  # (parsed faster than a database round trip)
        return compute(text)
    TextFact = apps.get_model("scenarios", "TextFact")
    key = key_of(text)
    found = TextFact.objects.filter(key=key, name=name).values_list("value", flat=True).first()
    if found is not None:
        return found
    value = compute(text)
    TextFact.objects.bulk_create([TextFact(key=key, name=name, value=value)], ignore_conflicts=True)
    return value


def put(text):
    """Store `text` (once) and return its key; "" for the empty text, which is not stored."""
    if not text:
        return ""
    key = key_of(text)
    Text = _text_model()
    # (asked of the database, not of this process's copies: a transaction that stored it may have rolled back)
    if not Text.objects.filter(key=key).exists():
        data, size = _compressed(text)
        Text.objects.bulk_create([Text(key=key, data=data, size=size)], ignore_conflicts=True)
    else:
        _forget_prepared(text)
    _keep(key, text)
    return key


# A large text a quick edit has just written is compressed in a thread while the request goes on (the engine
# checks and loads it, then it is stored): zlib works without holding the GIL, on the core the worker that will
# run the draft is not using yet. 0.15 s of a 29 MB text.
PREPARE_MIN_BYTES = 1 << 20
PREPARED_MAX = 2  # (an edit the engine rejected is never stored: the latest few are held, no more)
_prepared: OrderedDict = OrderedDict()  # id(text) -> (text, future of (data, size))
_pool = None


def prepare(text):
    """Start compressing ``text`` for put(), if it is large; put() of that very text object takes the result."""
    global _pool
    if len(text) < PREPARE_MIN_BYTES:
        return
    with _lock:
        found = _prepared.get(id(text))
        if found is not None and found[0] is text:
            return
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="whatif-compress")
        _prepared[id(text)] = (text, _pool.submit(_compress, text))
        while len(_prepared) > PREPARED_MAX:
            _prepared.popitem(last=False)


def _compress(text):
    raw = text.encode("utf-8")
    return zlib.compress(raw, LEVEL), len(raw)


def _compressed(text):
    """(compressed bytes, size) of ``text``: prepare()'s, when it started on this very object, else now."""
    with _lock:
        found = _prepared.pop(id(text), None)
    if found is not None and found[0] is text:
        return found[1].result()
    return _compress(text)


def _forget_prepared(text):
    with _lock:
        found = _prepared.get(id(text))
        if found is not None and found[0] is text:
            del _prepared[id(text)]


def get(key):
    """The text stored under `key` ("" for the empty key)."""
    if not key:
        return ""
    with _lock:
        found = _texts.get(key)
        if found is not None:
            _texts.move_to_end(key)
            return found
    Text = _text_model()
    data = Text.objects.filter(key=key).values_list("data", flat=True).first()
    if data is None:
        raise LookupError(f"no stored text {key}")
    text = zlib.decompress(bytes(data)).decode("utf-8")
    _keep(key, text)
    return text


def size_of(key):
    """The size in UTF-8 bytes of the text stored under ``key`` (None when there is none), without reading it."""
    if not key:
        return None
    return _text_model().objects.filter(key=key).values_list("size", flat=True).first()


def stored_key(instance, field):
    """The key of the text in ``instance``'s StoredTextField ``field``, read from its row once (a page asks for
    several facts of one text): its text is not decompressed ("" without one)."""
    known = instance.__dict__.setdefault("_stored_keys", {})
    if field not in known:
        rows = type(instance)._default_manager.filter(pk=instance.pk)
        known[field] = with_stored_key(rows, field).values_list("stored_key", flat=True).first() or ""
    return known[field]


def with_stored_key(queryset, field):
    """``queryset`` whose objects have ``stored_key``: the key of the text in their StoredTextField ``field`` as the
    database has it (None without one; the text is not read). ``known_key`` then keeps it for stored_key."""
    from django.db.models.functions import Cast

    return queryset.annotate(stored_key=Cast(field, models.TextField()))


def known_key(instance, field):
    """The ``stored_key`` with_stored_key gave ``instance``, kept as its stored_key of ``field`` ("" for none)."""
    key = getattr(instance, "stored_key", None) or ""
    instance.__dict__.setdefault("_stored_keys", {})[field] = key
    return key


def stored_fact(instance, field, name):
    """The fact ``name`` (see fact) kept for the text in ``instance``'s StoredTextField ``field`` while that field
    is not loaded, found by the text's stored key without decompressing the text; None otherwise (a small text
    has no kept facts: the caller works it out from the text)."""
    if field not in instance.get_deferred_fields():
        return None
    key = stored_key(instance, field)
    if not key:
        return None
    TextFact = apps.get_model("scenarios", "TextFact")
    return TextFact.objects.filter(key=key, name=name).values_list("value", flat=True).first()


def preview(key, chars):
    """(the size in UTF-8 bytes of the text stored under ``key``, its first ``chars`` characters or all of it),
    decompressing only as much as they take."""
    if not key:
        return 0, ""
    with _lock:
        held = _texts.get(key)
    if held is not None:
        return (len(held) if held.isascii() else len(held.encode("utf-8"))), held[:chars]
    row = _text_model().objects.filter(key=key).values_list("size", "data").first()
    if row is None:
        raise LookupError(f"no stored text {key}")
    start = zlib.decompressobj().decompress(bytes(row[1]), chars * 4)  # (at most 4 bytes a character)
    return row[0], start.decode("utf-8", errors="ignore")[:chars]


def _keep(key, text, replace=False):
    """Keep `text` under `key` (`replace`: this object in place of an equal one kept before)."""
    global _held
    limit = settings.TEXT_CACHE_BYTES
    if len(text) > limit:
        return
    with _lock:
        if key not in _texts:
            _texts[key] = text
            _held += len(text)
        elif replace:
            _texts[key] = text
            _texts.move_to_end(key)
        while _held > limit and _texts:
            _, dropped = _texts.popitem(last=False)
            _held -= len(dropped)


def forget():
    """Drop the texts kept in this process (tests)."""
    global _held
    with _lock:
        _texts.clear()
        _prepared.clear()
        _held = 0


class StoredTextField(models.TextField):
    """A text stored once in models.Text; its column holds the text's key."""

    def from_db_value(self, value, expression, connection):
        return get(value) if value else value

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return put(value) if value else value
