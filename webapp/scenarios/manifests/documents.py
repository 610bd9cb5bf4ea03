"""Manifests text -> YAML documents, for the web process, at the speed of the engine's loader.

PyYAML's pure-Python ``safe_load_all`` reads about 0.3 MB a second: a 1,000-node cluster (4 MB)
took 13 s, and pages that read their scenario's manifests two or more times took a minute.
Readers here:

- ``parse(text)``: the documents, new objects. The engine's fast path when the text takes it
  (ryaml: JSON, or YAML with nothing YAML 1.1 reads differently), else libyaml's; either way
  timestamps stay the strings they are written as, as the engine reads them, so what is written
  back (quick edits, pod updates) keeps them as they were.
- ``read(text)``: the same for pages and checks that only look. The latest text's documents are
  kept, so a page that looks at one scenario several times parses it once: callers must not
  change them. ``read_plain(text)`` also says whether they are plain trees, sharing no list or
  dict (read without YAML anchors and aliases): a quick edit then copies only what it changes.

Both check the text's limits first (``limits.check_text``: size, nesting, alias bombs) and raise
``limits.TooLarge`` or ``yaml.YAMLError``; ``stored=True`` skips the check for the text
of a saved revision, which passed it when it was saved. Empty documents are dropped. ``memo``
keeps what pages derive from a text; ``dump`` and ``dump_all`` write YAML through libyaml.
"""

import json
import re
import threading
from collections import OrderedDict

import yaml
from django.conf import settings
from django.core.signals import request_finished, request_started
from django.dispatch import receiver

from .. import after_response, engine, frozen
from . import limits

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _ReadLoader(_LOADER):
    """libyaml's safe loader that leaves timestamps as the strings they are written as, like the
    engine's loader and the fast path (a datetime is no JSON value: pages and stored attempts need JSON)."""


_ReadLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _LOADER.yaml_implicit_resolvers.items()}
_lock = threading.Lock()
_latest = (None, None, False)  # (key of a text, its documents, whether they are plain: read_plain)
_latest_large = False  # from a text of FROZEN_CACHE_MIN_BYTES or more (frozen.py)


def _keep(k, docs, size, plain):
    """(holding _lock) Keep `docs` as the latest text's documents."""
    global _latest, _latest_large
    was_large, _latest, _latest_large = _latest_large, (k, docs, plain), size >= settings.FROZEN_CACHE_MIN_BYTES
    if was_large:
        frozen.changed(grew=False)
    if _latest_large:
        frozen.changed(grew=True)


frozen.register("documents", lambda: _latest_large)


def _fast_new(text):
    return engine.parse_fast(text, shared=False)


def _fast_kept(text):
    return engine.parse_fast(text, keep=True)


def parse(text, filename="scenario.yaml", stored=False):
    """The non-empty documents of `text`, new objects (see ``read`` for `stored`)."""
    return _parse(text, filename, stored, _fast_new)[0]


def _parse(text, filename, stored, fast):
    """(documents, plain): plain when the fast path read them (JSON, or YAML without anchors or aliases: no
    list or dict is in two places)."""
    docs = fast(text) if stored else limits.check_text(text, filename, fast)
    plain = docs is not None
    if docs is None:
        docs = yaml.load_all(text, Loader=_ReadLoader)
    return [d for d in docs if d is not None], plain


def read(text, filename="scenario.yaml", stored=False):
    """The non-empty documents of `text` for reading only (shared with later callers). `stored`: the
    text of a saved revision, which passed ``limits.check_text`` when it was saved, so it is not
    walked again (a draft's text is not checked when stored: read it without `stored`)."""
    return read_plain(text, filename, stored)[0]


def read_plain(text, filename="scenario.yaml", stored=False):
    """(read's documents, plain): plain when no list or dict in them is reached from two places (no YAML
    anchor or alias was read), so that a copy of one object shares nothing with the others. A large text's
    documents come from the engine's disk cache when a process kept them (``engine.read_documents``), else
    are parsed and kept there once the request is over."""
    k = engine.text_key(text)
    with _lock:
        if _latest[0] == k:
            return _latest[1], _latest[2]
    with engine.without_cycle_collection():  # (and kept, frozen if large, before it runs again: frozen.py)
        found = _on_disk(k, text, filename, stored)
        if found is not None:
            docs, plain = found  # (checked when kept; what the engine decoded from them is taken in)
        else:
            docs, plain = _parse(text, filename, stored, _fast_kept)
            engine.forget_decoded()  # (the documents of the text read before, which it holds, are let go)
            _keep_on_disk(k, docs, plain, len(text))
        with _lock:
            _keep(k, docs, len(text), plain)
    return docs, plain


# Texts this large have their documents kept on disk for other processes (engine.read_documents).
DISK_MIN_BYTES = 4 * 1024 * 1024


def _on_disk(k, text, filename, stored):
    """(documents, plain) of a text this large that the engine's disk cache holds (its key ``k``), else None."""
    if len(text) < DISK_MIN_BYTES:
        return None
    if not stored:
        limits.check_size(text, filename)  # (the documents kept on disk passed the rest)
    return engine.read_documents(k)
_to_disk = threading.local()  # what to write once this thread's request is over


def _keep_on_disk(k, docs, plain, size):
    """Keep the documents on disk, once the request is over (pickling a 29 MB text's takes 0.4 s; the
    response is not kept waiting). Outside a request (a worker), nothing is kept, nor held for later."""
    if size >= DISK_MIN_BYTES and getattr(_to_disk, "in_request", False):
        _to_disk.pending = (k, docs, plain)


@receiver(request_started)
def _request_started(sender, **kwargs):
    _to_disk.in_request, _to_disk.pending = True, None


@receiver(request_finished)
def _write_pending(sender, **kwargs):
    pending = getattr(_to_disk, "pending", None)
    _to_disk.in_request, _to_disk.pending = False, None
    if pending is None:
        return
    k, docs, plain = pending

    def keep():
        with engine.without_cycle_collection():
            engine.keep_documents(k, docs, plain, objects(docs))

    after_response.later(keep)  # (held while a run the request queued simulates)


def take_from_disk(text):
    """Put the documents of ``text`` that the engine's disk cache holds into this process, as ``read`` would read
    them, when this process does not hold them already; never parses. True when this process then holds them."""
    if len(text) < DISK_MIN_BYTES:
        return False
    k = engine.text_key(text)
    with _lock:
        if _latest[0] == k:
            return True
    with engine.without_cycle_collection():
        try:
            found = _on_disk(k, text, "scenario.yaml", stored=False)
        except limits.TooLarge:
            return False
        if found is None:
            return False
        with _lock:
            _keep(k, found[0], len(text), found[1])
    return True


def remember(text, docs, plain=True):
    """Keep `docs` as what ``read`` gives for `text`: the documents a quick edit wrote the text from
    (checked by the engine's load), so the next edit of the draft does not parse its text again. `plain`: no
    list or dict in them is reached from two places (an edit's are: it copies what it changes)."""
    k = engine.text_key(text)
    docs = [d for d in docs if d is not None]
    with _lock:
        _keep(k, docs, len(text), plain)
    _keep_on_disk(k, docs, plain, len(text))


_memo = OrderedDict()  # (name, key of a text) -> what was computed from it
MEMO_SIZE = 32


def memo(name, text, compute):
    """compute(), once per text and name while among the MEMO_SIZE latest: what pages derive from a
    scenario's manifests (its node table, the quick-edit outline) without parsing it again when
    someone comes back to it. Shared: callers must not change what they get."""
    k = (name, engine.text_key(text))
    with _lock:
        if k in _memo:
            _memo.move_to_end(k)
            return _memo[k]
    value = compute()
    with _lock:
        _memo[k] = value
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
    return value


def memo_put(name, text, value):
    """Remember ``value`` as what memo(name, text, ...) gives, worked out otherwise (by whoever wrote the text)."""
    k = (name, engine.text_key(text))
    with _lock:
        _memo[k] = value
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)


def list_item_kind(document):
    """The kind a list document gives its items that carry none: "" for a `kind: List`, "Pod" for a PodList
    (the raw API and `kubectl cluster-info dump` write typed lists, whose items take their kind and apiVersion
    from the list, as kubectl reads them); None when the document is no list. The one reader of lists."""
    kind = document.get("kind") if isinstance(document, dict) else None
    if not isinstance(kind, str) or not kind.endswith("List") or not isinstance(document.get("items"), list):
        return None
    return kind[: -len("List")]


def objects(docs):
    """The objects (dicts) of documents, each list replaced by its items; an item of a typed list without a
    kind or apiVersion takes the list's. Items are shared with `docs` unless one gained a field."""
    out = []
    for document in docs:
        item_kind = list_item_kind(document)
        if item_kind is None:
            if isinstance(document, dict):
                out.append(document)
            continue
        for item in document["items"]:
            if not isinstance(item, dict):
                continue
            if item_kind and ("kind" not in item or "apiVersion" not in item):
                item = {"kind": item_kind, "apiVersion": document.get("apiVersion"), **item}
            out.append(item)
    return out


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump(obj, allow_unicode=False):
    """``yaml.safe_dump(obj)`` in block style, keys in their order: written by ``_Writer`` (plain
    JSON-like data, ASCII strings), else through PyYAML and libyaml's emitter."""
    try:
        return _Writer().document(obj)
    except _Unsupported:
        return yaml.dump(obj, Dumper=_DUMPER, sort_keys=False, default_flow_style=False,
                         allow_unicode=allow_unicode)


def dump_items(items):
    """Each item as ``dump([item])`` writes it (one "- " entry of a block sequence), written by one
    ``_Writer`` (which remembers how it wrote each string)."""
    writer = _Writer()
    out = []
    for item in items:
        try:
            out.append(writer.document([item]))
        except _Unsupported:
            out.append(dump([item]))
    return out


def dump_list_items(edited):
    """For each (the text of an item of a List in kubectl's layout: "- " at column 0, two spaces a level; the item as
    read from that text; the item edited; the first two None for an item new to the List), the item's new text:
    ``dump_items``' for it, but that where the edit changed one entry of a mapping (a spread constraint list, a
    priority, a node's spec), only that entry is written anew and the rest of the item's text is kept as written
    (kubectl's quotes and order stay, and a revision's diff shows the lines the edit changed). A quick edit of a
    workload's 4,090 pods wrote every one of them again (0.14 s; 0.08 s so); the pods of one workload share their
    entry's text, read and written once here."""
    writer, seen = _Writer(), {}
    out, rest = [], []
    for item, old, new in edited:
        found = _rewritten(writer, seen, item, old, new)
        out.append(found)
        if found is None:
            rest.append(len(out) - 1)
    for at, text in zip(rest, dump_items([edited[i][2] for i in rest])):
        out[at] = text
    return out


_KEY = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")  # (a key written plain, found by its line)
_ENTRY_END = {}  # indent -> the first line break after which a line at that indent does not go on the entry


def _changed_entry(old, new):
    """(the keys from the item to the one entry whose value the edit changed, its value before, after): the
    mappings on the way have the same keys in the same order, and one value differs; None otherwise."""
    path = []
    while True:
        if type(old) is not dict or type(new) is not dict or len(old) != len(new):
            return None
        changed = None
        for (k, a), (k2, b) in zip(old.items(), new.items()):
            if k != k2:
                return None
            if a is not b and a != b:
                if changed is not None:
                    return None
                changed = k
        if changed is None:
            return None
        path.append(changed)
        a, b = old[changed], new[changed]
        if type(a) is dict and type(b) is dict and a and list(a) == list(b):
            old, new = a, b
            continue
        return path, a, b


def _rewritten(writer, seen, item, old, new):
    """The item's text with only its changed entry written anew (dump_list_items), or None. The entry's lines are
    found by indent alone, and what they read as is checked to be the entry's value before the edit: anything
    else (the entry on the item's first line, flow style, other indents, comments in it) is left to dump_items."""
    found = _changed_entry(old, new) if item is not None else None
    if found is None:
        return None
    path, before, after = found
    lo, hi = 0, len(item)
    for depth, key in enumerate(path):
        if not _KEY.match(key):
            return None
        indent = 2 + 2 * depth
        head = "\n" + " " * indent + key + ":"
        at = item.find(head, lo, hi)
        if at < 0 or item.find(head, at + 1, hi) >= 0 or item[at + len(head):at + len(head) + 1] not in (" ", "\n"):
            return None
        end = _ENTRY_END.get(indent)
        if end is None:  # (a line of the entry is indented more, or is one of its list's "- " at the key's indent)
            end = _ENTRY_END[indent] = re.compile(r"\n(?! {%d}(?: |- ))" % indent)
        stop = end.search(item, at + len(head), hi)
        lo, hi = at + 1, (stop.end() if stop is not None else hi)
    entry = item[lo:hi]
    if not entry.endswith("\n"):
        return None
    key = path[-1]
    known = seen.get(entry)
    if known is None:
        try:
            read_as = yaml.load(entry, Loader=_ReadLoader)
        except yaml.YAMLError:
            read_as = None
        known = seen[entry] = [read_as, None, None]  # (what it reads as; the latest value written, its text)
    if known[0] != {key: before}:
        return None
    if known[1] is None or known[1] != after:
        try:
            lines = []
            writer.mapping(lines, {key: after}, " " * (2 + 2 * (len(path) - 1)), "")
        except _Unsupported:
            return None
        known[1:] = [after, "".join(lines)]
    return item[:lo] + known[2] + item[hi:]


def dump_all(objects, allow_unicode=False):
    """``yaml.safe_dump_all(objects)`` the same way."""
    try:
        writer = _Writer()
        return "---\n".join(writer.document(obj) for obj in objects)
    except _Unsupported:
        return yaml.dump_all(objects, Dumper=_DUMPER, sort_keys=False, default_flow_style=False,
                             allow_unicode=allow_unicode)


class _Unsupported(Exception):
    """A value ``_Writer`` leaves to PyYAML."""


# How a string is written, as PyYAML would, and so that YAML 1.2 (the engine's fast reader) reads
# it back the same: plain when it starts with no indicator, holds no ": ", " #" or node property and
# both YAML versions read it as a string; else single-quoted when printable, else double-quoted
# with JSON's escapes (valid in YAML).
_PLAIN_START = re.compile(r"""[^\s\-?:,\[\]{}#&*!|>'"%@`]""")
_PROPERTY = re.compile(r"\s[&*!]")
_YAML12_NOT_STR = re.compile(r"""[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?
                                 |0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
                                 |true|True|TRUE|false|False|FALSE|null|Null|NULL|~""", re.VERBOSE)
_RESOLVER = yaml.resolver.Resolver()


class _Writer:
    """Block-style YAML for what a manifest holds (dicts with string keys, lists, ASCII strings,
    ints, finite floats, booleans, null), the layout ``yaml.safe_dump`` gives it (two spaces a level,
    a mapping's lists not indented), about twenty times faster: PyYAML represents every value in
    Python first (50 s for a 29 MB cluster). Strings are written plain only when both YAML 1.1
    (PyYAML, libyaml) and YAML 1.2 (the engine's fast reader) read them back as the same string;
    anything else raises _Unsupported."""

    def __init__(self):
        self.scalars = {}  # str -> as written (a cluster repeats its label values, names, images)

    def document(self, obj):
        out = []
        if isinstance(obj, dict) and obj:
            self.mapping(out, obj, "", "")
        elif isinstance(obj, list) and obj:
            self.sequence(out, obj, "", "")
        else:
            out.append(self.scalar(obj) + "\n")
        return "".join(out)

    def mapping(self, out, d, indent, first):
        """d's entries at `indent`; the first one after `first` (a sequence's "- ") when given."""
        prefix = first or indent
        inner = indent + "  "
        for k, v in d.items():
            if type(k) is not str:
                raise _Unsupported()
            key = self.string(k)
            if type(v) is dict and v:
                out.append(f"{prefix}{key}:\n")
                self.mapping(out, v, inner, "")
            elif type(v) is list and v:
                out.append(f"{prefix}{key}:\n")
                self.sequence(out, v, indent, "")
            else:
                out.append(f"{prefix}{key}: {self.scalar(v)}\n")
            prefix = indent

    def sequence(self, out, items, indent, first):
        prefix = first or indent
        for v in items:
            dash = prefix + "- "
            if type(v) is dict and v:
                self.mapping(out, v, indent + "  ", dash)
            elif type(v) is list and v:
                self.sequence(out, v, indent + "  ", dash)
            else:
                out.append(f"{dash}{self.scalar(v)}\n")
            prefix = indent

    def scalar(self, v):
        if type(v) is str:
            return self.string(v)
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        if type(v) is int:
            return str(v)
        if type(v) is float:
            text = repr(v)
            if "." in text and "e" not in text and "n" not in text:  # 0.5, not 1e+20, inf or nan
                return text
            raise _Unsupported()
        if v == {} and type(v) is dict:
            return "{}"
        if v == [] and type(v) is list:
            return "[]"
        raise _Unsupported()

    def string(self, s):
        found = self.scalars.get(s)
        if found is None:
            found = self.scalars[s] = _string(s)
        return found


def _string(s):
    if not s.isascii() or "\x7f" in s:
        raise _Unsupported()
    if not s.isprintable():  # (for ASCII: a control character, a tab or a line break)
        return json.dumps(s)
    if (s and _PLAIN_START.match(s) and not s.endswith((":", " ")) and ": " not in s and " #" not in s
            and not _PROPERTY.search(s) and not _YAML12_NOT_STR.fullmatch(s)
            and _RESOLVER.resolve(yaml.ScalarNode, s, (True, False)) == "tag:yaml.org,2002:str"):
        return s
    return "'" + s.replace("'", "''") + "'"


def line_of(text, object_ref, field):
    """The 1-based line of the text where an engine error about ``object_ref`` ("Kind namespace/name",
    "Kind/namespace/name …" or "Kind/name …") and ``field`` sits: the field's line inside that object, else the object's name line; None
    when the object is not found. It lets the editor mark errors that name an object and field, not a line."""
    ref = (object_ref or "").strip()
    if "/" not in ref.split(" ")[0]:
        ref = ref.replace(" ", "/", 1)  # "Kind ns/name" as "Kind/ns/name"
    kind, _, rest = ref.partition("/")
    name = rest.split(" ")[0].rpartition("/")[2]
    if not kind or not name:
        return None
    key = (field or "").replace("]", "").split(".")[-1].split("[")[0]
    lines = text.split("\n")
    current_kind, kind_line, start = None, 0, None
    for i, line in enumerate(lines):
        stripped = line.strip().removeprefix("- ")
        depth = len(line) - len(line.lstrip(" -"))  # an object's own kind and name, not an ownerReference's
        if stripped.startswith("kind:") and depth <= 2:
            current_kind, kind_line = stripped[5:].strip().strip("'\""), i
        elif current_kind == kind and depth <= 4 and stripped.startswith("name:") \
                and stripped[5:].strip().strip("'\"") == name:
            start = i
            break
    if start is None:
        return None
    if key:  # from the object's kind line to the next object
        indent = _item_indent(lines, kind_line)
        for j in range(kind_line + 1, len(lines)):
            line = lines[j]
            if line.startswith("---") or (line.lstrip().startswith("- ") and len(line) - len(line.lstrip()) <= indent):
                break  # the next object
            if line.strip().removeprefix("- ").startswith(key + ":"):
                return j + 1
    return start + 1


def _item_indent(lines, start):
    """The indentation of the list item (or document, 0) the object at ``start`` belongs to."""
    for i in range(start, -1, -1):
        line = lines[i]
        if line.lstrip().startswith("- ") and "kind:" in line or line.lstrip().startswith("- apiVersion"):
            return len(line) - len(line.lstrip())
        if line.startswith("---"):
            return -1
    return -1
