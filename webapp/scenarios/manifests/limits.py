"""Size and shape limits on scenario text, checked before any YAML is built into objects.

A manifest deeper than MANIFEST_MAX_NESTING levels, or whose aliases expand it to more
than MAX_EXPANDED_NODES values and more than MAX_ALIAS_RATIO times its written size (alias
bombs), is refused by walking libyaml's event stream (flat, no
recursion, nothing expanded): building such a document crashes the C composer,
overflows the Python one, or expands exponentially once serialized.
"""

import re

import yaml
from django.conf import settings

try:
    _EVENT_LOADER = yaml.CSafeLoader
except AttributeError:  # PyYAML without libyaml
    _EVENT_LOADER = yaml.SafeLoader

_OPEN = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
# Anchors and aliases are fine, as long as expanding them stays in proportion (alias bombs don't).
MAX_EXPANDED_NODES = 1_000_000
MAX_ALIAS_RATIO = 10  # ... unless the expanded size stays within this many times the written one
_CLOSE = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


# A plain number longer than this is refused (int() refuses 4,300 digits; no Kubernetes value has 30).
MAX_NUMBER_DIGITS = 1000
_LONG_NUMBER = re.compile(r"[-+]?(?:0[xo]?)?[0-9a-fA-F_.:eE+-]+")


class TooLarge(ValueError):
    """The text breaks a documented limit; the message says which and by how much."""


def is_number(raw):
    """True for a string of ASCII digits (an id, a revision or step number), at most 100 of them.
    ``str.isdigit`` also takes "²" and "١", which ``int`` refuses or reads, and any length (``int``
    refuses 4,300 digits). Past a bigint, lookups find nothing: a 404, as for any unknown number."""
    return isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) <= 100


# The largest id a database column holds (a bigint): SQLite refuses to compare a larger Python int at all
# (OverflowError), so a lookup by a larger number is answered as finding nothing without asking.
MAX_ID = 2**63 - 1


def is_id(raw):
    """True for a number (is_number) that may be a stored id: at most MAX_ID."""
    return is_number(raw) and int(raw) <= MAX_ID


def human_bytes(n):
    return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n} bytes"


def _size(text):
    return len(text) if text.isascii() else len(text.encode("utf-8", errors="replace"))


def within_size(text):
    """Whether `text` is at most MANIFEST_MAX_BYTES (check_size does not raise)."""
    return _size(text) <= settings.MANIFEST_MAX_BYTES


def check_size(text, filename="scenario.yaml"):
    """Raise TooLarge if `text` is over MANIFEST_MAX_BYTES."""
    size = _size(text)
    if size > settings.MANIFEST_MAX_BYTES:
        raise TooLarge(f"{filename} is {human_bytes(size)}; the limit is {human_bytes(settings.MANIFEST_MAX_BYTES)} "
                       "(MANIFEST_MAX_BYTES).")


def check_text(text, filename="scenario.yaml", parse_fast=None, checked=None):
    """Raise TooLarge if `text` is over MANIFEST_MAX_BYTES or nested deeper than MANIFEST_MAX_NESTING.

    `parse_fast(text)` (the engine's) gives the documents when the text takes its fast
    path (JSON, or YAML without anchors or aliases, read by a parser that cannot crash on
    depth and expands no alias bomb): then depth and NUL characters are checked on those
    values and they are returned for the engine to reuse. Otherwise None, after the
    check on libyaml's event stream. `checked` (a CheckedObjects): objects an earlier check
    walked are not walked again (a quick edit's documents: all but the objects it changed).
    """
    check_size(text, filename)
    docs = parse_fast(text) if parse_fast is not None else None
    if docs is not None:
        limit = settings.MANIFEST_MAX_NESTING + 1  # the list of documents is a level
        problem = _checked_problem(docs, limit) if checked is None else checked.problem(docs, limit)
        if problem is None:
            return docs
        if problem[0] == "nul":
            raise TooLarge(f"{filename}: a NUL character (\\0) in {problem[1] or 'a value'}; "
                           "values cannot contain it.")
    _check_events(text, filename)
    return None


_last_checked = (None, None, None)  # (documents, limit, their json_problem): held, so the id is never reused


def _checked_problem(docs, limit):
    """json_problem(docs, limit), once for the same documents in a row: a request that creates a scenario
    checks the text it parsed, then the documents reader and the engine's load check the same shared documents
    again (1.5 s a walk at 150,000 pods). Shared documents are read-only."""
    global _last_checked
    found_docs, found_limit, problem = _last_checked
    if found_docs is docs and found_limit == limit:
        return problem
    problem = json_problem(docs, limit)
    _last_checked = (docs, limit, problem)
    return problem


class CheckedObjects:
    """The objects of the latest documents checked (each document, and each item of a List), by identity, with
    how deep they nest and whether they hold a NUL: a check of documents that share most objects with them (the
    next quick edit's) walks only the others. Each entry holds its object, so an id is never another object's."""

    def __init__(self):
        self.by_id = {}

    def clear(self):
        self.by_id = {}

    def trust(self, docs, limit):
        """Take documents a check found within `limit` (kept so), as if walked: each object as deep as its place
        allows (one deeper would be found too deep, and then walked)."""
        self.by_id = {id(obj): (obj, limit - depth + 1, False) for obj, depth in _objects(docs)}

    def problem(self, docs, limit):
        """json_problem(docs, limit), walking only the objects not seen in the latest call."""
        seen, now = self.by_id, {}
        fine = True
        for doc in docs:
            items = doc.get("items") if isinstance(doc, dict) else None
            if isinstance(items, list):  # a List: its other fields, then each item (two levels deeper)
                fine = fine and not _may_have_problem({k: v for k, v in doc.items() if k != "items"}, limit - 1)
        for obj, depth in _objects(docs):
            hit = seen.get(id(obj))
            if hit is None or hit[0] is not obj:
                hit = (obj, *_height(obj))
            now[id(obj)] = hit
            fine = fine and not hit[2] and depth + hit[1] - 1 <= limit
        self.by_id = now
        return None if fine else json_problem(docs, limit)


def _objects(docs):
    """(object, its depth) of each document, or of each item of a List (two levels deeper)."""
    for doc in docs:
        items = doc.get("items") if isinstance(doc, dict) else None
        if isinstance(items, list):
            yield from ((item, 4) for item in items)
        else:
            yield doc, 2


def _height(value):
    """(levels of lists and dicts from value down, 1 for value itself; whether a key or string holds NUL)."""
    top, nul = 1, False
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        kind = type(item)
        if kind is str or isinstance(item, str):
            nul = nul or "\x00" in item
            continue
        if kind is not dict and kind is not list and not isinstance(item, (dict, list)):
            continue
        if depth > top:
            top = depth
        if isinstance(item, dict):
            nul = nul or any(isinstance(k, str) and "\x00" in k for k in item)
            item = item.values()
        depth += 1
        for child in item:
            push((child, depth))
    return top, nul


def _check_events(text, filename):
    # One flat pass over libyaml's events, nothing built: the nesting depth, and each
    # node's size once aliases are expanded (an alias counts as the whole node it names).
    sizes = {}  # anchor -> expanded size of its node
    stack = [[None, 0, True]]  # open collections: [anchor, expanded size so far, open]; [0] is the stream
    latest = {}  # anchor -> the stack entry of the collection it last named (None: a scalar)
    written = 0  # values as written (an alias is one)
    try:
        for event in yaml.parse(text, Loader=_EVENT_LOADER):
            if isinstance(event, _OPEN):
                stack.append([event.anchor, 1, True])
                if event.anchor is not None:
                    latest[event.anchor] = stack[-1]
                if len(stack) - 1 > settings.MANIFEST_MAX_NESTING:
                    raise _too_deep(filename, event.start_mark)
                continue
            if isinstance(event, _CLOSE):
                stack[-1][2] = False
                anchor, size, _ = stack.pop()
            elif isinstance(event, yaml.ScalarEvent):
                anchor, size = event.anchor, 1
                if anchor is not None:
                    latest[anchor] = None
                if not event.style and len(event.value) > MAX_NUMBER_DIGITS and _LONG_NUMBER.fullmatch(event.value):
                    raise TooLarge(f"{filename}: a number of {len(event.value):,} digits at line "
                                   f"{event.start_mark.line + 1}; numbers may have at most {MAX_NUMBER_DIGITS}.")
                if "\x00" in event.value:  # a "\0" escape: PostgreSQL text and jsonb cannot hold it
                    raise TooLarge(f"{filename}: a NUL character (\\0) at line {event.start_mark.line + 1}; "
                                   "values cannot contain it.")
            elif isinstance(event, yaml.AliasEvent):
                named = latest.get(event.anchor)
                if named is not None and named[2]:  # `a: &a [*a]`: a value that contains itself, infinitely deep
                    raise TooLarge(f"{filename}: the alias *{event.anchor} at line {event.start_mark.line + 1} is "
                                   f"inside the node &{event.anchor} it names; a value cannot contain itself.")
                anchor, size = None, sizes.get(event.anchor, 1)
            else:
                continue
            if anchor is not None:
                sizes[anchor] = size
            stack[-1][1] += size
            written += 1
            # a large document written out in full is no bomb: only what aliases add counts
            if stack[-1][1] > MAX_EXPANDED_NODES and stack[-1][1] > MAX_ALIAS_RATIO * written:
                mark = event.start_mark
                raise TooLarge(f"{filename}: YAML aliases (*name) expand to more than {MAX_EXPANDED_NODES:,} values "
                               f"(at line {mark.line + 1}); write the objects out instead.")
    except yaml.YAMLError as e:
        if "maximum nesting depth" not in str(getattr(e, "problem", "")):
            return  # the real loader reports syntax errors with their position
        _refuse_deep(text, filename, e.problem_mark)


def _refuse_deep(text, filename, mark):
    """libyaml refused nesting on its own terms (at 1,000 levels, in the versions that limit it,
    while scanning ahead of any event). Report our limit instead, and where it is passed: the text
    cut where libyaml stopped yields its events up to there, so the walk finds the level-51 node."""
    lines = text.split("\n", mark.line + 1)[:mark.line + 1]
    lines[-1] = lines[-1][:mark.column]
    _check_events("\n".join(lines), filename)
    raise _too_deep(filename, mark)


def _too_deep(filename, mark):
    return TooLarge(f"{filename}: nesting deeper than {settings.MANIFEST_MAX_NESTING} levels at "
                    f"line {mark.line + 1}, column {mark.column + 1}; Kubernetes objects are never this deep.")


def documents_problem(docs):
    """json_problem of documents as check_text's walk finds it, each counted as deep as a List's item (two levels
    deeper than a document of its own): None when they pass in either place."""
    return json_problem(list(docs), settings.MANIFEST_MAX_NESTING - 1)


def json_problem(value, limit=None):
    """("depth", path) if nested deeper than `limit`, ("nul", path) if a key or string holds NUL, else None.

    Iterative, so no depth can overflow it; `path` names the field, e.g. "options.labels.x". The
    paths are worked out only when there is a problem (building one per value took most of the time).
    """
    limit = limit or settings.MANIFEST_MAX_NESTING
    if not _may_have_problem(value, limit):
        return None
    stack = [(value, 1, "")]
    while stack:
        item, depth, path = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return "nul", path
        elif isinstance(item, (dict, list)):
            if depth > limit:
                return "depth", path
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                child_path = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and "\x00" in key:
                    return "nul", child_path
                stack.append((child, depth + 1, child_path))
    return None


def _may_have_problem(value, limit):
    """Whether json_problem would find something: the same walk, without paths (exact types first:
    parsed documents hold nothing else)."""
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        kind = type(item)
        if kind is not dict and kind is not list:
            if isinstance(item, (dict, list)):
                kind = dict if isinstance(item, dict) else list
            elif isinstance(item, str) and "\x00" in item:
                return True
            else:
                continue
        if depth > limit:
            return True
        if kind is dict:
            for key in item:
                if type(key) is not str or "\x00" in key:
                    if isinstance(key, str) and "\x00" in key:
                        return True
            item = item.values()
        depth += 1
        for child in item:
            kind = type(child)
            if kind is str:
                if "\x00" in child:
                    return True
            elif kind is dict or kind is list or isinstance(child, (dict, list, str)):
                push((child, depth))
    return False


PREVIEW_LINES = 200
PREVIEW_CHARS = 64 * 1024  # (a text of a few long lines too)


def in_browser(text):
    """What a page shows of a manifests text: {"editable": the whole text goes into the page,
    "size": "29.0 MB", "head": the first PREVIEW_LINES lines (PREVIEW_CHARS characters at most)
    when it does not, "truncated"}. A browser takes
    seconds to lay out a textarea or a <pre> of a few MB (about 4 s for 4 MB in Chromium) and
    never finished one of 29 MB, so a text over EDITOR_MAX_BYTES is shown by its head, downloaded
    whole, and replaced by uploading a file."""
    size = len(text)  # (a 267 MB text is ASCII: checked in milliseconds, encoded in a fifth of a second)
    if len(text) * 4 > settings.EDITOR_MAX_BYTES and not text.isascii():
        size = len(text.encode("utf-8", errors="replace"))
    if size <= settings.EDITOR_MAX_BYTES:
        return {"editable": True, "size": human_bytes(size), "head": text}
    head = _head(text)
    return {"editable": False, "size": human_bytes(size), "head": head, "truncated": len(head) < len(text),
            "limit": human_bytes(settings.EDITOR_MAX_BYTES)}


def _head(text):
    """The first PREVIEW_LINES lines, PREVIEW_CHARS characters at most (read from the first PREVIEW_CHARS + 1)."""
    start = text[:PREVIEW_CHARS + 1]
    return "\n".join(start.split("\n", PREVIEW_LINES)[:PREVIEW_LINES])[:PREVIEW_CHARS]


def in_browser_stored(instance, field):
    """in_browser of the text in ``instance``'s StoredTextField ``field``: when the field was not loaded and the
    text is too large for the page, its size and head come from the stored text without decompressing it all
    (a 267 MB text: half a second a page)."""
    if field not in instance.get_deferred_fields():
        return in_browser(getattr(instance, field))
    from .. import texts

    key = texts.stored_key(instance, field)
    size, start = texts.preview(key, PREVIEW_CHARS + 1)
    if size <= settings.EDITOR_MAX_BYTES:  # (the page's text box shows it: loaded into the field from its key)
        setattr(instance, field, texts.get(key))
        return in_browser(getattr(instance, field))
    head = _head(start)  # (start is the whole text when shorter than PREVIEW_CHARS + 1 characters)
    return {"editable": False, "size": human_bytes(size), "head": head, "truncated": len(head) < len(start),
            "limit": human_bytes(settings.EDITOR_MAX_BYTES)}
