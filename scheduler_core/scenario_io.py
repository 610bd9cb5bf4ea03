"""Text -> manifest documents: YAML (multi-document) or JSON, Lists flattened.

Uses PyYAML's C loader when available. Refuses alias bombs ("billion laughs") by
measuring each document's expanded size before anything walks it, in the spirit of
go-yaml's "document contains excessive aliasing" guard that kubectl relies on.
"""
from __future__ import annotations

import contextlib
import gc
import json
import os
import pickle
import re
import signal
import threading
from typing import Any, Callable, Iterator

import numpy as np
import yaml

from .errors import ScenarioError

try:  # a YAML 1.2 parser in Rust: ten times faster than libyaml plus PyYAML's constructor
    import ryaml as _ryaml
except ImportError:  # pragma: no cover - it is a dependency; PyYAML alone still works
    _ryaml = None

try:  # rapidyaml, in C++: parses a large List's chunks and writes them out as JSON (see _ryml_json)
    import orjson as _orjson
    import ryml as _ryml
except ImportError:  # pragma: no cover - a dependency; ryaml reads the chunks without it
    _ryml = None

try:
    _BASE_LOADER = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML without libyaml
    _BASE_LOADER = yaml.SafeLoader

_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class _Loader(_BASE_LOADER):  # type: ignore[valid-type, misc]
    """Safe loader that leaves timestamp-like scalars as strings, as go-yaml v2 (under
    sigs.k8s.io/yaml) does when decoding into untyped values: ``date: 2026-01-01`` is
    the label value "2026-01-01", not a date."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP_TAG]
    for first, resolvers in _BASE_LOADER.yaml_implicit_resolvers.items()}
_LOADER = _Loader

# Expanded size (scalars + collections, aliases counted each time they are used) above
# which a document counts as an alias bomb, unless it is small relative to its real size.
MAX_EXPANDED_NODES = 2_000_000
MAX_ALIAS_RATIO = 10
ERR_EXCESSIVE_ALIASING = "document contains excessive aliasing"
ERR_CONTAINS_ITSELF = "an alias (*name) refers to a node that contains it; the value would be infinite"


BOM = "\ufeff"


def decode_bytes(data: bytes, filename: str) -> str:
    """A file's bytes as text, the way kubectl reads manifests (``unicode.BOMOverride``
    around a UTF-8 decoder in k8s.io/cli-runtime's FileVisitor): a UTF-8 byte-order mark
    is dropped, a UTF-16 one (little- or big-endian, as Windows PowerShell writes files)
    decodes the rest as UTF-16, anything else is UTF-8."""
    try:
        if data.startswith(b"\xef\xbb\xbf"):
            return data[3:].decode("utf-8")
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return data.decode("utf-16")
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(filename, "", "", f"cannot read: not UTF-8 text, nor UTF-16 with "
                            f"a byte-order mark (byte {e.start})") from None


def strip_bom(text: str) -> str:
    """The text without a leading byte-order mark (kept by a decoder that does not drop
    it, or pasted with the text)."""
    return text[1:] if text.startswith(BOM) else text


def read_documents(text: str, filename: str, parsed: list[Any] | None = None
                   ) -> Iterator[dict]:
    """Each Kubernetes object in the text, ``List`` items flattened, in file order
    (``parsed``: the text's documents, when the caller has parsed them already)."""
    for doc in parsed if parsed is not None else _parse(strip_bom(text), filename):
        if doc is None:
            continue
        yield from _flatten(doc, filename)


# Whether objects are held frozen (gc.freeze) now: by the engine around a simulation, or by the
# program that embeds it, which says so (frozen_elsewhere) once it freezes anything. Otherwise
# gc.get_freeze_count() is asked; it walks every frozen object (0.12 s a call in a web process
# that holds a 150,000-pod text's documents frozen, three calls for one page).
_FROZEN = {"told": False, "elsewhere": False, "engine": 0}


def frozen_elsewhere(frozen: bool) -> None:
    """Say that objects are (or are no longer) held frozen outside the engine; say it again each
    time that changes (webapp/scenarios/frozen.py does)."""
    _FROZEN["told"] = True
    _FROZEN["elsewhere"] = frozen


def engine_frozen(change: int) -> None:
    """The engine froze (+1) or unfroze (-1) what exists (simulate.py, around a run)."""
    _FROZEN["engine"] += change


def something_frozen() -> bool:
    """Whether any object is frozen now."""
    if _FROZEN["engine"] > 0:
        return True
    if _FROZEN["told"]:
        return _FROZEN["elsewhere"]
    return gc.get_freeze_count() > 0


@contextlib.contextmanager
def without_cycle_collection():
    """Python's cycle collector paused while a scenario is read: parsing and decoding
    allocate millions of containers and make no garbage cycles, and every collection
    would walk all of them again (a quarter of the time of a 50 MB file). Nothing
    changes when it is paused already.

    What was made meanwhile then joins the oldest generation without being walked (a freeze
    and an unfreeze move every object there at once): left in the youngest, the first
    collection after would walk all of them, and the next one again (3 s after loading
    dense-5000). Only a full collection looks at them now, as at any long-lived object. Not
    done while something else holds objects frozen (a web process's large results, see
    webapp/scenarios/frozen.py): an unfreeze would let those go too."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if not something_frozen():
            gc.freeze()
            gc.unfreeze()
        gc.enable()


def parse_fast(text: str) -> list[Any] | None:
    """The text's documents when it is JSON or takes the fast YAML path (no anchors, no
    aliases, nothing YAML 1.1 reads differently), else None: then only ``read_documents``
    parses it, with PyYAML's checks and error messages. A caller may inspect these
    documents (e.g. limit their depth) and hand them to ``load_scenario``."""
    text = strip_bom(text)
    with without_cycle_collection():
        if text.lstrip().startswith("{"):
            try:
                return _json_stream(text)
            except (json.JSONDecodeError, RecursionError):  # deeper than Python's stack allows: PyYAML decides
                return None
        return _fast_yaml(text)


def _parse(text: str, filename: str) -> list[Any]:
    stripped = text.lstrip()
    if filename.endswith(".json") or stripped.startswith("{"):
        try:
            return _json_stream(text)
        except RecursionError:
            if filename.endswith(".json"):
                raise ScenarioError(filename, "", "", "invalid JSON: nested too deeply") from None
        except json.JSONDecodeError as e:
            if filename.endswith(".json"):
                raise ScenarioError(filename, "", "", f"invalid JSON: {e.msg} (line {e.lineno}, "
                                    f"column {e.colno})") from None
    docs = _fast_yaml(text)
    if docs is not None:
        return docs
    try:
        docs = list(yaml.load_all(text, Loader=_LOADER))
    except yaml.YAMLError as e:
        raise ScenarioError(filename, "", "", _yaml_message(e)) from None
    except ValueError as e:  # int() of a plain scalar of over 4,300 digits
        raise ScenarioError(filename, "", "", "invalid YAML: a number too long to read "
                            f"({str(e).split(':')[0].lower()})") from None
    for doc in docs:
        _check_aliasing(doc, filename)
    return docs


_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _json_stream(text: str) -> list[Any]:
    """One JSON value, or several one after the other, as ``kubectl cluster-info dump``
    prints its lists and kubectl reads them (a JSON stream decoder)."""
    decoder = json.JSONDecoder()
    docs, end = [], 0
    while True:
        end = _WHITESPACE.match(text, end).end()
        if end == len(text) and docs:
            return docs
        doc, end = decoder.raw_decode(text, end)
        docs.append(doc)


# Where YAML 1.2 (ryaml) and PyYAML's YAML 1.1 (go-yaml v2's, which kubectl uses) read
# a plain value differently: 1.1 booleans, octal and sexagesimal numbers, underscores,
# exponents, leading dots, "=" and merge keys. Anchors, aliases and tags too (the
# alias-bomb check works on PyYAML's shared nodes). A text with any of these goes to
# PyYAML; what kubectl prints has none. (Keys are not checked: a 1.1 boolean as a map key,
# "on:", is no Kubernetes field or label key.) A value follows a block indicator and at
# least one blank, or a flow indicator and any blanks; the two prefixes are searched apart,
# each opening with a character class (the regex engine then skips to its next candidate
# instead of trying every position), and the lookahead turns a value away on its first
# character: 52 MB in 0.6 s instead of 1.4 s.
_YAML11_PLAIN = r"""
 (?=[yYnNoO=<+\-._eE0-9])
 (?:yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|=|<<
   |[-+]?(?:0[0-9_]+(?:\.[0-9_]*)?|[0-9.][0-9._]*_[0-9._]*|0[oO][0-7_]+
            |[0-9]*\.?[0-9_]*[eE][-+]?[0-9]+|[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?
            |\.[0-9]+))
 (?=[ \t]*(?:$|\#|,|\]|}|:(?:[ \t]|$)))
"""
_YAML11_VALUES = (re.compile(r"[:?-][ \t]+" + _YAML11_PLAIN, re.MULTILINE | re.VERBOSE),
                  re.compile(r"[\[{,][ \t]*" + _YAML11_PLAIN, re.MULTILINE | re.VERBOSE))
_NODE_PROPERTIES = re.compile(r"(?:^|[\s\[{,:])[&*!][^\s,\]}]", re.MULTILINE)
_PROPERTY_AFTER = "[{,:"  # or a blank, or the text's start
_PROPERTY_NOT_BEFORE = ",]}"  # nor a blank, nor the text's end
_PROPERTY_SCAN_MAX = 10_000  # more indicator characters than this: the regex decides


def _yaml11_value(text: str) -> bool:
    """Whether some plain value may read differently in YAML 1.1 (see _YAML11_PLAIN)."""
    return any(r.search(text) is not None for r in _YAML11_VALUES)


def node_properties(text: str) -> bool:
    """Whether the text may hold an anchor, alias or tag: ``&``, ``*`` or ``!`` at the text's
    or a line's start or after a blank or ``[{,:``, followed by something other than a
    blank, ``,]}`` (what _NODE_PROPERTIES matches). The indicators are found with str.find,
    which skips to them; only a text with very many of them is searched by the regex."""
    counts = [text.count(c) for c in "&*!"]
    if not any(counts):
        return False
    if sum(counts) > _PROPERTY_SCAN_MAX:
        return _NODE_PROPERTIES.search(text) is not None
    last = len(text) - 1
    for c in "&*!":
        i = text.find(c)
        while i >= 0:
            before = text[i - 1] if i else " "
            if i < last and (before.isspace() or before in _PROPERTY_AFTER):
                after = text[i + 1]
                if not (after.isspace() or after in _PROPERTY_NOT_BEFORE):
                    return True
            i = text.find(c, i + 1)
    return False


def _fast_yaml(text: str) -> list[Any] | None:
    """The documents via ryaml when the text reads the same in YAML 1.1; None when it
    might not, or when ryaml refuses it (PyYAML then decides and words the error)."""
    if _ryaml is None:
        return None
    if "<<" in text:  # a merge key, perhaps
        return None
    if _flow_depth_bound(text) > _RYAML_MAX_DEPTH:
        return None
    try:
        if len(text) >= CHUNKED_MIN_CHARS:
            docs = _list_in_chunks(text)  # (each chunk checked by the process that reads it)
            if docs is REFUSED:
                return None
            if docs is not None:
                return docs
        if _refused(text):
            return None
        return _ryaml.loads_all(text)
    except Exception:  # noqa: BLE001 - any doubt goes to the PyYAML path
        return None


# What a chunked read gives when a chunk may read differently in YAML 1.1 (_refused).
REFUSED = "refused"


def _refused(text: str) -> bool:
    """Whether the text goes to PyYAML: an anchor, alias or tag, or a plain value YAML 1.1
    reads differently. Both checks look within lines only, so a text cut at line starts
    is refused exactly when one of its pieces is."""
    return node_properties(text) or _yaml11_value(text)


# A large ``kind: List`` as kubectl writes it is read a few thousand items at a time: ryaml
# holds a whole text's parse tree besides the Python objects it returns (about 13 bytes for
# each byte of YAML: 1.2 GB at the peak of reading 52 MB, 6 GB for 267 MB).
CHUNKED_MIN_CHARS = 8_000_000
CHUNK_CHARS = 4_000_000
_TOP_LEVEL_KEY = re.compile(r"([A-Za-z]+):( .*)?")
_NOT_COLUMN_0 = " \n\r#"  # a line starting with one of these is indented, blank or a comment
_COLUMN_0 = re.compile(r"\n(?=[^ \n\r#])")


def list_item_starts(text: str) -> tuple[int, list[int], int] | None:
    """Where the items of a single-document text are, when its top level is a mapping with a
    block sequence ``items:`` written at column 0 ("- " lines; kubectl's layout): (offset of
    the "items:" line, offset of each item's first line, offset of the first line after the
    items); None for any other layout. Every line at column 0 must be a top-level key, an
    item's start, a comment or blank: an item's own lines are indented, so each item is the
    text from its start to the next one's (or to the end of the items). Only the lines at
    column 0 are looked at (found by _COLUMN_0, which skips to each line break). A quoted
    string running over lines could hide a line at column 0: the caller checks that the
    text read with the items taken out is a mapping with empty items."""
    items_at = None  # offset of the "items:" line
    after_items = None  # offset of the line after "items:"
    starts: list[int] = []  # offsets of the lines that start an item
    end = len(text)  # offset of the first line after the items
    heads = ([0] if text[:1] not in _NOT_COLUMN_0 else []) + [
        m.end() for m in _COLUMN_0.finditer(text)]
    for at in heads:
        eol = text.find("\n", at)
        line = text[at:eol if eol >= 0 else len(text)].rstrip("\r")
        if line.startswith("- "):
            if items_at is None or end != len(text):
                return None
            starts.append(at)
            continue
        m = _TOP_LEVEL_KEY.fullmatch(line)
        if m is None:
            return None  # "---", "...", a flow or quoted key, a scalar document: read it whole
        if items_at is not None and starts and end == len(text):
            end = at
        if m.group(1) == "items":
            if items_at is not None or (m.group(2) or "").strip():
                return None
            items_at, after_items = at, (eol + 1 if eol >= 0 else len(text))
    if items_at is None or not starts or starts[0] != after_items:
        return None
    return items_at, starts, end


def _list_in_chunks(text: str) -> list[Any] | str | None:
    """The documents of a text in the layout list_item_starts finds, its items read chunk by
    chunk (slices of the text), each checked (_refused) by the process that reads it: REFUSED
    when one is refused; None for any other layout (then the text is read whole)."""
    plan = _list_plan(text)
    if plan is None or plan is REFUSED:
        return plan
    head, spans = plan
    items = _items_of_chunks(text, spans)
    if items is None or items is REFUSED:
        return items
    head["items"] = items
    return [head]


def _list_plan(text: str) -> tuple[dict, list[tuple[int, int]]] | str | None:
    """The List document with empty items and the spans of the chunks its items are read in
    (a few thousand whole items each), for a text in the layout list_item_starts finds;
    REFUSED when the text around the items is refused, None for any other layout."""
    found = list_item_starts(text)
    if found is None:
        return None
    items_at, starts, end = found
    rest = text[:items_at] + "items: []\n" + text[end:]
    if _refused(rest):
        return REFUSED
    if _flow_depth_bound(rest) > _RYAML_MAX_DEPTH:  # (a streamed text's items are bounded later)
        return None
    docs = _ryaml.loads_all(rest)
    if len(docs) != 1 or not isinstance(docs[0], dict) or docs[0].get("items") != []:
        return None
    spans: list[tuple[int, int]] = []
    bounds = starts + [end]
    first = 0
    for k in range(1, len(bounds)):
        if bounds[k] - bounds[first] >= CHUNK_CHARS or k == len(bounds) - 1:
            spans.append((bounds[first], bounds[k]))
            first = k
    return docs[0], spans


def _items_of(text: str, spans: list[tuple[int, int]]) -> list[Any] | str | None:
    """The items of the chunks (each a block sequence), in order; None when a chunk is not
    one sequence, REFUSED when one is refused. Raises what ryaml raises."""
    parts = _parts_of(text, spans)
    if parts is None or parts is REFUSED:
        return parts
    return _items_of_parts(text, spans, parts)


def _parts_of(text: str, spans: list[tuple[int, int]]) -> list[Any] | str | None:
    """What each chunk reads as: its items as JSON written by rapidyaml (a str), or a list of
    them read by ryaml when rapidyaml might read the chunk differently; None when a chunk is
    not one sequence, REFUSED when one is refused. A forked reader hands these back as they
    are: JSON pickles in a fraction of the time the items would, and orjson reads it fast."""
    parts: list[Any] = []
    for start, end in spans:
        chunk = text[start:end]
        refused, ryml_reads_it = _chunk_checks(chunk) if _ryml is not None else (_refused(chunk), False)
        if refused:
            return REFUSED
        part: Any = _ryml_json(chunk) if ryml_reads_it else None
        if part is None:
            part = _ryaml_items(chunk)
            if part is None:
                return None
        parts.append(part)
    return parts


def _ryaml_items(chunk: str) -> list[Any] | None:
    part = _ryaml.loads_all(chunk)
    if len(part) != 1 or not isinstance(part[0], list):
        return None
    return part[0]


def _items_of_parts(text: str, spans: list[tuple[int, int]], parts: list[Any]) -> list[Any] | None:
    """The items of _parts_of's parts, in order (a chunk whose JSON orjson refuses, such as a
    number too large for a double, is read by ryaml instead)."""
    items: list[Any] = []
    for (start, end), part in zip(spans, parts):
        if isinstance(part, str):
            try:
                part = _orjson.loads(part)
            except _orjson.JSONDecodeError:
                part = _ryaml_items(text[start:end])
                if part is None:
                    return None
        items.extend(part)
    return items


# rapidyaml reads kubectl's YAML three times as fast as ryaml, and its JSON is read by orjson
# faster than ryaml's objects unpickle, but a few scalars it reads otherwise: ryaml's (YAML 1.2
# core) True, NULL, ~, .inf, .nan, 0x1F, 0o17, 0b1 and a plain key such as 1, true or null are
# not strings; a plain value, or a key even quoted, spelled "nan" or "inf" is written ".nan" or
# ".inf"; and it accepts some texts that YAML forbids (a plain scalar opening with an indicator
# such as @ or `, an empty key, a bad block scalar header, a tab where YAML has none). A chunk
# with any of these, with a flow collection other than [] and {}, a tab, or a line break other
# than \n, is read by ryaml; what ryaml reads otherwise than YAML 1.1 was refused before
# (_refused). kubectl writes none of these.
_RYML_PLAIN = r"""
 (?=[-+.0-9~TFNtfniIN])
 (?:True|TRUE|False|FALSE|Null|NULL|~|[-+]?\.?(?i:inf|nan)|[-+]?0[xXoObB][0-9a-fA-F_]*|[-+]?[0-9]{19,})
 (?=[ ]*(?:$|\#|,|\]|}|:(?:[ ]|$)))
"""
# A plain value of either kind, in one pass: the first found says which (y11 or ryml).
_PLAIN_VALUES = re.compile(r"[:?-][ \t]+(?:(?P<y11>" + _YAML11_PLAIN + r")|(?P<ryml>" + _RYML_PLAIN + "))",
                           re.MULTILINE | re.VERBOSE)
_RYML_KEYS = re.compile(  # a plain key ryaml reads as a number, boolean or null; an empty or "?" key;
    # a key, quoted or not, that rapidyaml writes otherwise ("nan" as ".nan")
    r"\n[ ]*+(?:-[ ]++)*+(?:[?:](?:[ ]|$)|(?=[-+.0-9~tTfFnNiI\"'])(?:[-+]?[.0-9][0-9a-zA-Z_.+-]*|~"
    r"|(?i:true|false|null)|[\"']?(?i:[-+]?\.?(?:inf|nan))[\"']?)[ ]*:(?:[ ]|$))", re.MULTILINE)
_RYML_BREAKS = ("\t", "\r", "\x85", "\u2028", "\u2029")
_RYML_INDICATORS = re.compile(r"[,\]}%@`&*!|>\[{]")
_RYML_EMPTY_FLOW = re.compile(r"(?:\[[ ]*\]|{[ ]*})[ ]*(?:$|[ ]\#)", re.MULTILINE)
_RYML_BLOCK_HEADER = re.compile(r"[|>][-+]?[ ]*(?:$|[ ]\#)", re.MULTILINE)
_RYML_INDICATOR_SCAN_MAX = 20_000  # more indicators than this in a chunk: ryaml reads it


def _chunk_checks(chunk: str) -> tuple[bool, bool]:
    """(whether the chunk is refused (_refused), whether rapidyaml reads it as ryaml does):
    both from one search of the plain values. Every check looks within lines (a line break
    only ends what a pattern matches), so the checks read each distinct line once: a kubectl
    List repeats most of its lines (the distinct ones of a 4 MB chunk of dense-5000 are 9-28%
    of its text), and the searches took longer than rapidyaml's parse."""
    chunk = _distinct_lines(chunk)
    if node_properties(chunk):
        return True, False
    if any(c in chunk for c in _RYML_BREAKS):
        return _yaml11_value(chunk), False
    found = _PLAIN_VALUES.search(chunk)
    if found is not None:
        return (True if found.lastgroup == "y11" else _yaml11_value(chunk)), False
    if _YAML11_VALUES[1].search(chunk) is not None:
        return True, False
    return False, not _ryml_keys_or_indicators(chunk)


def _distinct_lines(text: str) -> str:
    """Each line of the text once, in the order of first appearance, each after a line break."""
    return "\n" + "\n".join(dict.fromkeys(text.split("\n")))


def _ryml_keys_or_indicators(chunk: str) -> bool:
    """Whether the chunk has a plain key rapidyaml reads otherwise (_RYML_KEYS), or opens a
    node with an indicator it may read otherwise (_opens_scalar_otherwise)."""
    if _RYML_KEYS.search(chunk) is not None:
        return True
    eol = chunk.find("\n")
    if _RYML_KEYS.match("\n" + chunk[:eol if eol >= 0 else len(chunk)]) is not None:
        return True
    for n, m in enumerate(_RYML_INDICATORS.finditer(chunk)):
        if n == _RYML_INDICATOR_SCAN_MAX or _opens_scalar_otherwise(chunk, m.start()):
            return True
    return False


def _opens_scalar_otherwise(chunk: str, at: int) -> bool:
    """Whether the indicator at ``at`` opens a node (at a line's start after its indentation
    and any "- ", or after "key: ") other than a block scalar after a key or "- ", or an empty
    [] or {} (what a chunk read by rapidyaml may hold)."""
    line = chunk.rfind("\n", 0, at) + 1
    head = chunk[line:at].lstrip(" ")
    entry = False  # after "- "
    while head.startswith("- "):
        head, entry = head[2:].lstrip(" "), True
    after_key = head.endswith(" ") and head.rstrip(" ").endswith(":")
    if head and not after_key:
        return False  # inside a scalar
    c = chunk[at]
    if c in "[{":
        return _RYML_EMPTY_FLOW.match(chunk, at) is None
    if c in "|>":  # a block scalar's header with no indentation indicator, after a key or "- "
        return not (after_key or entry) or _RYML_BLOCK_HEADER.match(chunk, at) is None
    return True


def _ryml_json(chunk: str) -> str | None:
    """The chunk's items as JSON written by rapidyaml (which _chunk_checks found reads it as
    ryaml does), or None when rapidyaml refuses it or finds no sequence."""
    try:
        data = chunk.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: ryaml words the error
        return None
    with _stderr_silenced():  # (rapidyaml prints its errors before raising them)
        try:
            tree = _ryml.parse_in_arena(data)
            root = tree.root_id()
            if not tree.is_seq(root):
                return None
            return _ryml.emit_json_malloc(tree, root)
        except Exception:  # noqa: BLE001 - refused by rapidyaml: ryaml decides
            return None


@contextlib.contextmanager
def _stderr_silenced() -> Iterator[None]:
    """File descriptor 2 pointed at /dev/null meanwhile, in a process's main thread only (the command line, a
    worker, a forked reader): in a threaded server, other threads' output would be lost with it, and there
    rapidyaml's rare error lines go to the server's log."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


# A large List is parsed by several processes when the machine has processors to spare
# (up to PARSE_PROCESSES): forked children parse the last chunks and hand back what they read
# (_parts_of: rapidyaml's JSON, or ryaml's items), pickled, while this process parses the
# first ones and then reads the children's JSON (_CHILD_SHARE says how much each takes).
# A child only parses, pickles and writes; anything that goes wrong with one (it fails,
# dies, or cannot be started here) leaves its chunks to this process, which parses them
# itself as before. dense-1000 (52 MB) on 2 processors: 6.8 s → 5.8 s to load.
# WHATIF_PARSE_PROCESSES sets how many processes parse at most (1: no child, e.g. where memory
# is short: each child holds its share of the items while it runs). A streamed load (below) forks
# that many, up to one per processor: its own process decodes instead of parsing.
PARALLEL_MIN_CHARS = 16_000_000
PARSE_PROCESSES = 4


def _parse_processes() -> int:
    try:
        return max(1, int(os.environ.get("WHATIF_PARSE_PROCESSES", PARSE_PROCESSES)))
    except ValueError:
        return PARSE_PROCESSES


def _items_of_chunks(text: str, spans: list[tuple[int, int]]) -> list[Any] | str | None:
    """_items_of, shared with forked children when the text is large and processors are free."""
    children = min(_processors(), _parse_processes(), len(spans)) - 1
    if len(text) < PARALLEL_MIN_CHARS or children < 1:
        return _items_of(text, spans)
    share = _CHILD_SHARE[_ryml is not None](children)
    total = spans[-1][1] - spans[0][0]
    cuts = [0]
    for k in range(children, 0, -1):  # where each child's chunks begin
        at = next((i for i, (start, _) in enumerate(spans)
                   if start - spans[0][0] >= total * (1 - k * share)), len(spans))
        cuts.append(max(at, cuts[-1]))
    cuts.append(len(spans))
    groups = [spans[cuts[i]:cuts[i + 1]] for i in range(len(cuts) - 1)]
    started = [_fork_parser(text, group) if group else None for group in groups[1:]]
    waiting = list(zip(groups[1:], started))  # children not reaped yet
    try:
        items = _items_of(text, groups[0])
        while waiting and items is not None and items is not REFUSED:
            group, child = waiting.pop(0)
            part = _reap(child)
            if isinstance(part, list):
                part = _items_of_parts(text, group, part)
            elif part is _FAILED:  # the child could not: read its chunks here
                part = _items_of(text, group)
            if part is None or part == REFUSED:  # (a str after pickling: equal, not the same)
                items = None if part is None else REFUSED
            else:
                items.extend(part)
        return items
    finally:
        for _, child in waiting:  # (no use for their items, or an error here)
            _reap(child, kill=True)


# A child's share f of the chunks, with k children. With rapidyaml (per 4 MB chunk of a 267 MB
# List: checks and rapidyaml about 0.15 s in either process; orjson 0.02-0.04 s in this one) the
# children and this process's own chunks take as long: 1.06 f = 1 - k f, after which this process
# reads the children's JSON. With ryaml: 1.35 f (parse, pickle) = 1 - k f + 0.12 k f (unpickle).
_CHILD_SHARE = {True: lambda k: 1 / (1.06 + k), False: lambda k: 1 / (1.35 + 0.88 * k)}


def _processors() -> int:
    if not hasattr(os, "fork"):
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (no sched_getaffinity on this system)
        return os.cpu_count() or 1


def _fork_parser(text: str, spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    """(pid, read end of a pipe) of a forked child that writes what _parts_of gives for the
    chunks, pickled, and exits; None when no child could be started."""
    return _fork_writer(lambda write: write(pickle.dumps(_parts_of(text, spans), pickle.HIGHEST_PROTOCOL)))


def _fork_writer(child: Callable[[Callable[[bytes], None]], None]) -> tuple[int, int] | None:
    """(pid, read end of a pipe) of a forked child that runs ``child(write)``, ``write``
    putting bytes whole into the pipe, and exits (0 once child returns, 1 if it raises)
    without any clean-up of this process's; None when no child could be started."""
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:
        code = 1
        try:
            os.close(read_end)

            def write(data: bytes) -> None:
                out = memoryview(data)
                while out:
                    out = out[os.write(write_end, out):]
            child(write)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


_FAILED = object()  # what _reap gives for a child that did not answer


def _reap(child: tuple[int, int] | None, kill: bool = False) -> Any:
    """What _parts_of gave in the child, or _FAILED (it failed, was killed, or never
    started); the child is waited for (killed first with ``kill``) and its pipe closed."""
    if child is None:
        return _FAILED
    pid, read_end = child
    data = b""
    try:
        if kill:
            os.kill(pid, signal.SIGKILL)
        else:
            with os.fdopen(read_end, "rb", closefd=False) as pipe:
                data = pipe.read()
    except OSError:
        data = b""
    finally:
        os.close(read_end)
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            status = -1
    if kill or status != 0 or not data:
        return _FAILED
    try:
        return pickle.loads(data)
    except Exception:  # noqa: BLE001 - a child's output that does not read back: read here
        return _FAILED


# A large List is streamed when a scenario is loaded from it (stream_documents): forked children
# parse its chunks in turn (chunk i by child i mod k) and write each one's JSON to their pipe as
# soon as it is parsed, while this process decodes the objects of the chunks it has. Parsing and
# decoding then overlap instead of following each other. Two children on 2 processors: dense-5000
# (267 MB) loaded in 20-23 s instead of 27-32 s, with a peak of 1,743 MB instead of 2,157 (the
# chunks' documents are let go once decoded). Whatever only a whole read decides (a chunk refused,
# not one sequence, or that neither rapidyaml nor ryaml reads) raises ReadAgain, and the caller
# reads the text again the usual way.


class ReadAgain(Exception):
    """A streamed List met what only reading the whole text decides: read it again with
    read_documents."""


class StreamedList:
    """The objects of a large List as its chunks are parsed (iterate it once). ``finish``
    parses the chunks not reached yet, without decoding them: a caller that stops at an
    object's error learns whether the rest of the text reads at all (a whole read's syntax
    error comes before any object's). ``close`` stops the children."""

    def __init__(self, text: str, filename: str, head: dict, spans: list[tuple[int, int]]) -> None:
        self.filename = filename
        kind = head.get("kind")
        self._item_kind = (kind[:-len("List")], head.get("apiVersion")) if kind != "List" else None
        self._chunks = _streamed_chunks(text, spans)

    def __iter__(self) -> Iterator[dict]:
        for items in self._chunks:
            for item in items:
                yield from _flatten(item, self.filename, self._item_kind)

    def finish(self) -> None:
        for _ in self._chunks:
            pass

    def close(self) -> None:
        self._chunks.close()


def stream_documents(text: str, filename: str) -> StreamedList | None:
    """The text's objects as a StreamedList when it is a large List in kubectl's layout that
    the fast path reads (the same conditions as read_documents' fast path); else None, and
    read_documents reads it."""
    text = strip_bom(text)
    if _ryaml is None or _ryml is None or len(text) < max(CHUNKED_MIN_CHARS, STREAM_MIN_CHARS):
        return None
    if filename.endswith(".json") or text.lstrip().startswith("{") or "<<" in text:
        return None
    try:
        plan = _list_plan(text)
    except Exception:  # noqa: BLE001 - read_documents decides
        return None
    if plan is None or plan is REFUSED:
        return None
    head, spans = plan
    kind = head.get("kind")
    if not (isinstance(kind, str) and kind.endswith("List")) or not spans:
        return None
    return StreamedList(text, filename, head, spans)


STREAM_MIN_CHARS = 16_000_000
_FRAME_HEADER = 8  # bytes: the length of a child's pickled answer for one chunk


def _streamed_chunks(text: str, spans: list[tuple[int, int]]) -> Iterator[list[Any]]:
    """Each chunk's items in order, parsed by forked children (WHATIF_PARSE_PROCESSES of them
    at most, one per processor; none on one processor), else here; raises ReadAgain as described above. A child
    that fails leaves its chunks to this process."""
    processors = _processors()  # (1 where there is no fork)
    k = min(processors, _parse_processes(), len(spans)) if processors > 1 and _parse_processes() > 1 else 0
    children: list[tuple[int, int] | None] = [_fork_streamer(text, spans[j::k]) for j in range(k)]
    try:
        # the whole text's nesting bound, as the whole read checks it first, worked out while the
        # children start (0.4 s at 267 MB); too deep, they are stopped before ryaml's quadratic work
        if _flow_depth_bound(text) > _RYAML_MAX_DEPTH:
            raise ReadAgain()
        for i, span in enumerate(spans):
            parts: Any = _FAILED
            if children and children[i % k] is not None:
                parts = _read_frame(children[i % k][1])
                if parts is _FAILED:  # (it failed, or died: this process reads its chunks)
                    _reap(children[i % k], kill=True)
                    children[i % k] = None
            if parts is _FAILED:
                try:
                    parts = _parts_of(text, [span])
                except Exception:  # noqa: BLE001 - the whole read words it
                    raise ReadAgain() from None
            if parts is None or parts == REFUSED:  # (a str after pickling: equal, not the same)
                raise ReadAgain()
            try:
                items = _items_of_parts(text, [span], parts)
            except Exception:  # noqa: BLE001
                raise ReadAgain() from None
            if items is None:
                raise ReadAgain()
            yield items
    finally:
        for child in children:
            if child is not None:
                _reap(child, kill=True)


def _fork_streamer(text: str, spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    """(pid, read end of a pipe) of a forked child that writes, chunk by chunk, what _parts_of
    gives for each chunk of spans, pickled behind its length, and exits; None when no child
    could be started."""
    def child(write: Callable[[bytes], None]) -> None:
        for span in spans:
            data = pickle.dumps(_parts_of(text, [span]), pickle.HIGHEST_PROTOCOL)
            write(len(data).to_bytes(_FRAME_HEADER, "little") + data)
    return _fork_writer(child)


def _read_frame(fd: int) -> Any:
    """A child's next answer (what _parts_of gave, unpickled), or _FAILED when it ended
    without one or wrote what does not read back."""
    header = _read_exactly(fd, _FRAME_HEADER)
    if header is None:
        return _FAILED
    data = _read_exactly(fd, int.from_bytes(header, "little"))
    if data is None:
        return _FAILED
    try:
        return pickle.loads(data)
    except Exception:  # noqa: BLE001 - read here instead
        return _FAILED


def _read_exactly(fd: int, n: int) -> bytearray | None:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    try:
        while got < n:
            r = os.readv(fd, [view[got:]])
            if r == 0:
                return None
            got += r
    except OSError:
        return None
    return buf


# ryaml refuses nesting deeper than this, but only after work quadratic in the depth (100,000
# nested "[" took 74 s), so deeper flow nesting goes to libyaml, which refuses it at once.
_RYAML_MAX_DEPTH = 128
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_BRACKET_STEP = np.zeros(256, np.int8)
_BRACKET_STEP[list(b"[{")] = 1
_BRACKET_STEP[list(b"]}")] = -1


def _flow_depth_bound(text: str) -> int:
    """An upper bound of the text's flow nesting depth (brackets in quoted strings count too):
    the deepest running count of [ and { minus ] and }. About 0.1 s for 29 MB."""
    if text.count("[") + text.count("{") <= _RYAML_MAX_DEPTH:
        return 0
    brackets = text.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    return int(np.cumsum(_BRACKET_STEP[np.frombuffer(brackets, np.uint8)], dtype=np.int64).max())


def _yaml_message(e: yaml.YAMLError) -> str:
    mark = getattr(e, "problem_mark", None)
    problem = getattr(e, "problem", None) or "invalid YAML"
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
    return f"invalid YAML: {problem}{where}"


def _check_aliasing(doc: Any, filename: str) -> None:
    """Count the expanded size with memoization by identity (linear in real size); refuse
    a node that contains itself (``a: &a [*a]``), which has no finite expansion (go-yaml:
    "anchor 'a' value contains itself")."""
    sizes: dict[int, int] = {}
    open_ids: set[int] = set()  # nodes whose children are still being counted
    unique = 0
    stack: list[tuple[Any, bool]] = [(doc, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        nid = id(node)
        children = list(node.values()) if isinstance(node, dict) else node
        if not done:
            if nid in sizes:
                continue
            if nid in open_ids:
                raise ScenarioError(filename, "", "", f"invalid YAML: {ERR_CONTAINS_ITSELF}")
            open_ids.add(nid)
            stack.append((node, True))
            stack.extend((c, False) for c in children if isinstance(c, (dict, list)))
            continue
        open_ids.discard(nid)
        if nid in sizes:
            continue
        unique += 1 + len(children)
        sizes[nid] = 1 + sum(sizes.get(id(c), 0) if isinstance(c, (dict, list)) else 1
                             for c in children)
        if sizes[nid] > MAX_EXPANDED_NODES and sizes[nid] > MAX_ALIAS_RATIO * unique:
            raise ScenarioError(filename, "", "", f"invalid YAML: {ERR_EXCESSIVE_ALIASING}")


def _flatten(doc: Any, filename: str, typed: tuple[str, Any] | None = None
             ) -> Iterator[dict]:
    """The document, or its items if it is a list. The items of a typed list
    (``NodeList``, ``PodList``: what the raw API, ``kubectl cluster-info dump`` and support
    bundles write) carry no kind or apiVersion; like kubectl, take them from the list
    (``typed``: the item kind and the list's apiVersion). Items are copied, never changed."""
    if not isinstance(doc, dict):
        raise ScenarioError(filename, "", "", "each document must be a Kubernetes object "
                            f"(a mapping), not {type(doc).__name__}")
    kind = doc.get("kind")
    if kind is None and typed is not None:
        doc = {**doc, "kind": typed[0], "apiVersion": doc.get("apiVersion") or typed[1]}
        kind = typed[0]
    if isinstance(kind, str) and kind.endswith("List") and "items" in doc:
        items = doc.get("items") or []
        if not isinstance(items, list):
            raise ScenarioError(filename, kind, "items", "must be a list")
        item_kind = (kind[:-len("List")], doc.get("apiVersion")) if kind != "List" else None
        for item in items:
            yield from _flatten(item, filename, item_kind)
        return
    yield doc
