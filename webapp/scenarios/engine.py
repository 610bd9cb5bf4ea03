"""The only module that imports scheduler_core.

It hands the engine a revision's text, returns the engine's JSON-ready dicts
unchanged, and turns ScenarioError into ScenarioInvalid, which the API and
the forms show next to the object and field it names.
"""

import hashlib
import hmac
import logging
import marshal
import os
import pickle
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from pathlib import Path

import scheduler_core
from scheduler_core.workloads import MAX_PODS  # noqa: F401 - the quick edit's bound on replicas
from scheduler_core.k8s.quantity import QuantityError, parse_quantity
from scheduler_core.scenario_io import parse_fast as _engine_parse_fast
# what a quick edit uses to keep a List's unchanged items as written, and while it copies and writes
from scheduler_core.scenario_io import list_item_starts, node_properties, without_cycle_collection  # noqa: F401
from scheduler_core.scenario_io import frozen_elsewhere  # noqa: F401 - frozen.py tells the engine what it froze
from . import texts
from .manifests import limits

log = logging.getLogger(__name__)

SCENARIO_FILE = "scenario.yaml"
CONFIG_FILE = "config.yaml"


class ScenarioInvalid(Exception):
    """The manifests are not a scenario the engine accepts (a user problem)."""

    def __init__(self, message, object="", field="", input="manifests"):
        super().__init__(message)
        self.object = object
        self.field = field
        self.input = input  # "manifests" or "config": which text is wrong


# Loaded scenarios by their text: a revision is simulated again and again (re-runs with
# other seeds, sweeps, explanations on demand), and scenarios are immutable values.
_LOADED = OrderedDict()
LOADED_MAX = 8  # scenarios kept per process
LOADED_MAX_BYTES = 8_000_000  # texts larger than this are not kept


def text_key(manifests, config=""):
    """What names a text (and its configuration) in every cache of the web app: the ones below and the
    manifest readers' (manifests/documents.py)."""
    # (the text by its stored key, which a process holding the text knows without hashing it again)
    return stored_text_key(texts.key_of(manifests), config)


def stored_text_key(stored_key, config=""):
    """text_key of the text stored under ``stored_key`` (texts.put's), without the text."""
    return hashlib.sha256(f"{stored_key}|{config or ''}".encode()).digest()


def load(manifests, config="", keep=True, parsed=None):
    """Parse and check a scenario with the engine (once per text and process, and once per
    text on this machine while the disk cache keeps it); raises ScenarioInvalid. ``keep``
    False: a text being typed, not worth a file in the disk cache. ``parsed``: the text's
    documents, when the caller wrote the text from them (a quick edit), so it is not read again."""
    key = text_key(manifests, config)
    if len(manifests) + len(config or "") > LOADED_MAX_BYTES:
        return _load_through_disk(key, manifests, config, keep, parsed)
    found = _LOADED.get(key)
    if found is None:
        found = _load_through_disk(key, manifests, config, keep, parsed)
    _keep_loaded(key, found)
    return found


def _keep_loaded(key, scenario):
    """Keep ``scenario`` in _LOADED as the latest used (the LOADED_MAX latest are kept)."""
    _LOADED[key] = scenario
    _LOADED.move_to_end(key)
    if len(_LOADED) > LOADED_MAX:
        _LOADED.popitem(last=False)


# --- the scenario a quick edit's check ends with -------------------------------------------------
# A quick edit's check loaded the whole new text (0.3 s of a 29 MB draft's 1.5 s request, 0.8 s in a process that
# had decoded none of it) and kept it on disk (0.15 s). A change of scheduling directives does not need it: the
# engine puts the change into the scenario of the text before (a spread constraint's fields: with_spread_fields;
# other directives: the documents the edit changed, with_changed_documents; each gives what loading the edited text
# gives), which the edit before kept here (a large text is not kept in _LOADED), or the disk cache holds. The
# scenario made so is kept as the load would keep it, on disk once the response has gone.
_CHECKED = [None, None]  # [text_key of the latest large text a quick edit's check ended with, its scenario]


def checked_before(manifests, config=""):
    """The loaded scenario of a text this process or the disk cache holds already (a quick edit's text before
    the edit), or None; never loads."""
    key = text_key(manifests, config)
    found = _LOADED.get(key)
    if found is None and _CHECKED[0] == key:
        found = _CHECKED[1]
    if found is None and len(manifests) + len(config or "") <= DISK_MAX_BYTES:
        path = _disk_path(key)
        if path is not None and path.exists():
            with without_cycle_collection():
                found = _read_disk(path)
    return found if isinstance(found, scheduler_core.Scenario) else None


def keep_checked(manifests, config, scenario, made=False, later=None, how="made"):
    """Keep ``scenario`` as the loaded scenario of the text (a quick edit's check ended with it): in _LOADED or,
    for a large text up to ENGINE_KEEP_LOADED_BYTES, as the latest such. ``made``: made otherwise than by load()
    (checked_before's with the edit's change put in), so it is not on disk yet: ``later(work)`` keeps it there
    (after_response.later: once the run the edit queued has its counts); ``how``: what the log says was done."""
    from django.conf import settings

    key, size = text_key(manifests, config), len(manifests) + len(config or "")
    if size <= LOADED_MAX_BYTES:
        _keep_loaded(key, scenario)
    elif size <= settings.ENGINE_KEEP_LOADED_BYTES:
        _CHECKED[:] = [key, scenario]
    elif _CHECKED[0] is not None:
        _CHECKED[:] = [None, None]
    if made:
        log.info("engine: the edit's check %s the scenario of the text it edits", how)
    path = _disk_path(key) if made and size <= DISK_MAX_BYTES else None
    if path is not None:
        def keep_on_disk():
            if not path.exists():
                with without_cycle_collection():
                    _write_disk(path, scenario)

        (later or (lambda work: work()))(keep_on_disk)


# --- the disk cache of loaded scenarios --------------------------------------------------
# Saving a revision loads its text in the web process (validation); the worker that runs it
# would load it again, which is most of a first run's time (0.45 s of a 100-node scenario,
# 9 s of a 5,000-node one; reading the stored copy takes 35 ms and 0.4 s). So whoever loads
# a text keeps the loaded scenario in ENGINE_CACHE_DIR as a pickle, signed with SECRET_KEY
# (a file that does not verify is never unpickled), named after the text and the engine's
# code (another engine build never reads it). Only valid scenarios are kept.
DISK_MAX_FILES = 32
# Texts larger than this are not kept: every text the app takes by default (MANIFEST_MAX_BYTES,
# 384 MiB). A 267 MB, 5,000-node / 150,000-pod cluster pickles to about 40 MB, and without it a
# worker's first run read the text again for a minute.
DISK_MAX_BYTES = 400 * 1024 * 1024


def cached_file(stored_key, config, size):
    """The disk cache's file of the loaded scenario of the large text stored under ``stored_key`` (texts.put's;
    ``size`` its bytes) with ``config``, when the cache has one; else None (a small text is read and loaded as
    usual). A worker read and decompressed a draft's 29 MB text (0.1 s; a second at 267 MB) before it could
    look for the scenario the edit's check had kept, on the way to the run's result."""
    if not LOADED_MAX_BYTES < size + len(config or "") <= DISK_MAX_BYTES:
        return None
    path = _disk_path(stored_text_key(stored_key, config))
    return path if path is not None and path.exists() else None


def _load_through_disk(key, manifests, config, keep=True, parsed=None):
    path = _disk_path(key) if len(manifests) + len(config or "") <= DISK_MAX_BYTES else None
    if path is not None:
        found = _read_disk(path)
        if found is not None:
            return found
    found = _load(manifests, config, parsed=parsed)
    if path is not None and keep:
        _write_disk(path, found)
    return found


def _cache_settings():
    from django.conf import settings

    return getattr(settings, "ENGINE_CACHE_DIR", None), settings.SECRET_KEY.encode()


_FINGERPRINT = None


def fingerprint():
    """Names the engine build this process runs (what it decides may differ in another)."""
    return _engine_fingerprint()


def _engine_fingerprint():
    """The engine's code as this process runs it: its files' names, sizes and times, and
    the interpreter and NumPy versions (a pickle is only read by the same build)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        import numpy

        root = Path(scheduler_core.__file__).parent
        h = hashlib.sha256(f"{sys.version}|{numpy.__version__}".encode())
        for f in sorted(root.rglob("*.py")):
            st = f.stat()
            h.update(f"{f.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}|".encode())
        _FINGERPRINT = h.hexdigest()[:16]
    return _FINGERPRINT


def _disk_path(key, suffix="scenario"):
    directory, _ = _cache_settings()
    if not directory:
        return None
    return Path(directory) / f"{key.hex()[:32]}-{_engine_fingerprint()}.{suffix}"


# --- the disk cache of parsed documents -----------------------------------------------------
# A web process that has not read a large draft's text (gunicorn runs several: the next quick edit may reach
# any) parsed it again, 2.3 s of a 29 MB text against 0.2 s to unpickle its documents, and decoded all of it
# again for the edit's check. So the documents a quick edit wrote its text from are kept in ENGINE_CACHE_DIR too
# (signed, named after the text, the engine build and the nesting limit they were checked against), with what
# the engine decoded from them: whichever process takes the next edit starts where the last one left off.
DOCUMENTS_SUFFIX = "documents"
DOCUMENTS_MAX_FILES = 4  # (each about 0.7 bytes per byte of YAML, with what was decoded: the latest few edits')


def _documents_path(key):
    from django.conf import settings

    return _disk_path(hashlib.sha256(key + str(settings.MANIFEST_MAX_NESTING).encode()).digest(), DOCUMENTS_SUFFIX)


def read_documents(key):
    """(documents, plain) of the text named `key` kept on disk (checked against the limits when kept), with the
    engine's decoded objects of them taken in; None when none are kept."""
    path = _documents_path(key)
    found = _read_disk(path) if path is not None else None
    if not (isinstance(found, tuple) and len(found) == 3):
        return None
    docs, plain, decoded = found
    from django.conf import settings

    with _decoded_lock:
        if isinstance(decoded, scheduler_core.DecodedDocuments):
            _decoded.take(decoded)
        else:
            _decoded.clear()
        _checked.trust(docs, settings.MANIFEST_MAX_NESTING + 1)  # (as _load_checked's check asks)
    return docs, plain


def keep_documents(key, docs, plain, objects):
    """Keep a text's documents on disk (`objects`: theirs, each List replaced by its items), with what the engine
    decoded from them if they were its latest load's."""
    path = _documents_path(key)
    if path is None:
        return
    with _decoded_lock:
        decoded = scheduler_core.DecodedDocuments()
        decoded.take(_decoded)  # (a snapshot: the next load replaces the entries, not changes them)
    if not any(decoded.get(o, SCENARIO_FILE) is not None for o in objects[:100]):
        decoded = None  # (it holds another text's objects, or none)
    _write_disk(path, (docs, plain, decoded), pattern=f"*.{DOCUMENTS_SUFFIX}", keep=DOCUMENTS_MAX_FILES,
                data=decoded is None)


def _signature(secret, payload):
    return hmac.new(secret, payload, hashlib.sha256).digest()


def _read_disk(path):
    try:
        data = path.read_bytes()
    except OSError:
        return None
    _, secret = _cache_settings()
    sig, payload = data[:32], data[32:]
    if not hmac.compare_digest(sig, _signature(secret, payload)):
        log.warning("engine cache: %s does not verify; ignored", path.name)
        return None
    try:
        found = marshal.loads(payload[len(_MARSHALLED):]) if payload.startswith(_MARSHALLED) else pickle.loads(payload)
    except Exception:  # noqa: BLE001 - a cache file that does not load is loaded from text
        log.warning("engine cache: %s does not load; ignored", path.name, exc_info=True)
        return None
    try:
        os.utime(path)  # recently used: kept longest
    except OSError:
        pass
    return found


# Documents and what a request hands a worker are data alone (dicts, lists, strings, numbers): marshal writes them
# ten times as fast as pickle and reads them twice as fast (a 29 MB draft's documents: 0.03 s and 0.17 s against
# 0.3 s and 0.4 s). Marshal's format belongs to the interpreter's version, which the file's name holds (fingerprint).
# A pickle of ours starts with its protocol's byte (0x80), never with this.
_MARSHALLED = b"whatif marshal\n"


def _serialized(value, data=False):
    """The bytes _read_disk reads back as ``value``: marshal's when ``data`` (and marshal writes it), else pickle's."""
    if data:
        try:
            return _MARSHALLED + marshal.dumps(value)
        except ValueError:  # (a type marshal does not write, or nested too deep for it)
            pass
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _write_disk(path, scenario, pattern="*.scenario", keep=None, data=False):
    _, secret = _cache_settings()
    tmp = None
    try:
        payload = _serialized(scenario, data)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(_signature(secret, payload) + payload)
        os.replace(tmp, path)  # readers see the whole file or none
        tmp = None
    except Exception:  # noqa: BLE001 - the cache is an optimisation, never a failure
        log.warning("engine cache: could not keep %s", path.name, exc_info=True)
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        return
    _prune(path.parent, pattern, keep)


def _prune(directory, pattern="*.scenario", keep=None):
    """Keep the `keep` (DISK_MAX_FILES) most recently used files of the kind (others may prune at once)."""
    keep = DISK_MAX_FILES if keep is None else keep
    def used(p):
        try:
            return p.stat().st_mtime
        except OSError:
            return 0.0

    for old in sorted(directory.glob(pattern), key=used)[:-keep]:
        try:
            old.unlink(missing_ok=True)
        except OSError:
            pass


_fast_lock = threading.Lock()
_fast_latest = (None, None)  # (a text's key, the fast reader's documents of it)


def parse_fast(text, keep=False, shared=True):
    """The engine's fast reader's documents of `text` (JSON, or YAML that YAML 1.1 reads no
    differently), or None when the text needs libyaml. `shared` documents are read-only: those
    of the latest text read with `keep` (a page's) are reused, so loading the text a page just
    read does not parse it again, and a worker's own loads keep nothing. shared=False: new
    objects, for a caller that changes them."""
    global _fast_latest
    if not shared:
        return _engine_parse_fast(text)
    k = text_key(text, "")
    with _fast_lock:
        if _fast_latest[0] == k:
            return _fast_latest[1]
    docs = _engine_parse_fast(text)
    if keep and docs is not None:
        with _fast_lock:
            _fast_latest = (k, docs)
    return docs


# What the engine decoded from the documents a quick edit wrote its text from, by document, and how the limits'
# walk found them: the next edit's documents are the same objects but for the ones it changed
# (manifests/edits.py copies only those), so loading its text decodes and walks those alone. Both hold the
# documents of one text at most, and let them go when this process reads another text (forget_decoded).
_decoded = scheduler_core.DecodedDocuments()
_checked = limits.CheckedObjects()
_decoded_lock = threading.Lock()


def forget_decoded():
    with _decoded_lock:
        _decoded.clear()
        _checked.clear()


def _load(manifests, config="", manifests_file=SCENARIO_FILE, parsed=None):
    if not manifests.strip():
        raise ScenarioInvalid(f"{manifests_file}: no Kubernetes objects found")
    if parsed is not None and _decoded_lock.acquire(blocking=False):  # (else another thread's load has it)
        try:
            return _load_checked(manifests, config, manifests_file, parsed, _decoded)
        finally:
            _decoded_lock.release()
    return _load_checked(manifests, config, manifests_file, parsed)


def _load_checked(manifests, config, manifests_file, parsed, decoded=None):
    written = parsed
    for text, filename, which in ((manifests, manifests_file, "manifests"), (config or "", CONFIG_FILE, "config")):
        reader = parse_fast if written is None or which == "config" else (lambda _text: written)
        try:
            # size and nesting, before a parser can choke on them
            checked = _checked if decoded is not None and which == "manifests" else None
            docs = limits.check_text(text, filename, reader, checked) if text else limits.check_text(text, filename)
        except limits.TooLarge as e:
            raise ScenarioInvalid(str(e), input=which) from e
        if which == "manifests":
            parsed = docs
    try:
        # (the compiled loops are not made ready here: a web process checks scenarios and never runs them, and a
        # worker has them ready from its start, celery.py)
        return scheduler_core.load_scenario(
            manifests, filename=manifests_file, config_text=config or None, parsed=parsed, decoded=decoded,
            warm=False)
    except scheduler_core.ScenarioError as e:
        raise ScenarioInvalid(
            str(e), object=e.object or "", field=e.field or "",
            input="config" if e.file == CONFIG_FILE else "manifests",
        ) from e


def warm():
    """Load the engine's compiled loops for every cluster size (a worker runs many
    simulations, so compiling once pays off even on small ones)."""
    import os

    from scheduler_core.columnar import kernels

    kernels.MIN_NODES = int(os.environ.get("WHATIF_KERNEL_MIN_NODES", "0"))
    kernels.warm()


def validate(manifests, config="", filename=SCENARIO_FILE, parsed=None):
    """Check a scenario before it is saved; returns the engine's warnings. `filename`: the file the text came
    from (an upload), which an error then names (with its line, where the engine gives one). `parsed`: the
    text's documents, when the caller wrote the text from them."""
    try:
        scenario = load(manifests, config, parsed=parsed)
    except ScenarioInvalid:
        if filename == SCENARIO_FILE:
            raise
        _load(manifests, config, filename)  # raises again, naming the file
        return []
    check_size(scenario, filename)
    return list(scenario.warnings)


def check_size(scenario, filename=SCENARIO_FILE):
    """Refuse a scenario with more nodes than SCENARIO_MAX_NODES or pods than SCENARIO_MAX_PODS."""
    from django.conf import settings

    for what, count, limit in (("nodes", len(scenario.nodes), settings.SCENARIO_MAX_NODES),
                               ("pods", len(scenario.pods), settings.SCENARIO_MAX_PODS)):
        if limit is not None and count > limit:
            noun = what if count != 1 else what[:-1]
            raise ScenarioInvalid(f"{filename}: the scenario has {count:,} {noun}; the limit is {limit:,} "
                                  f"(SCENARIO_MAX_{what.upper()}).")


def load_summary(manifests, config=""):
    """What the engine made of a text (its own copy): {file, read: {kind: n}, ignored: [{kind,
    reason, count, examples}], added: [{owner, pods}], warnings}; raises ScenarioInvalid, also for a scenario
    over SCENARIO_MAX_NODES / SCENARIO_MAX_PODS (every save of a text asks for its summary: pages, API, drafts)."""
    return summary_of(load(manifests, config))


def summary_of(scenario):
    """load_summary of a scenario loaded already."""
    import copy

    check_size(scenario)
    return copy.deepcopy(dict(scenario.summary))


def decode(data, filename=SCENARIO_FILE):
    """An uploaded file's bytes as text, as kubectl reads files (a UTF-8 or UTF-16 byte-order mark
    honoured and dropped); raises ScenarioInvalid when it is neither UTF-8 nor UTF-16 with a mark."""
    from scheduler_core.scenario_io import decode_bytes

    try:
        return decode_bytes(data, filename)
    except scheduler_core.ScenarioError as e:
        raise ScenarioInvalid(str(e)) from e


def simulate(manifests, config="", seed=0, detail="failed", progress=None, remember=False):
    """Run the whole scheduling loop; returns the engine's result dict. ``detail``: which
    pods' latest cycles to explain ("failed": those left pending; or a list of pod keys).
    ``progress(dict)``, when given, hears the steps: {"step": "loading"}, then
    {"step": "simulating", "cycles", "bound", "pending"} now and then, then {"step": "storing"}.
    ``remember``: a run's, kept for the next edit's run to take over from (simulate_scenario), as the
    scenario of a text up to ENGINE_KEEP_LOADED_BYTES is."""
    from django.conf import settings

    memory = _remembering(len(manifests) + len(config or "") <= settings.ENGINE_KEEP_LOADED_BYTES) if remember else None
    return _simulate(lambda: load(manifests, config), seed, detail, progress, memory)


def simulate_cached(path, config, read, seed=0, detail="failed", progress=None, size=None):
    """simulate() of the scenario in the disk cache's file ``path`` (cached_file's); of the text ``read()``
    gives when that file no longer verifies or has gone. The scenario is kept in this process (a worker's; a
    text of ``size`` bytes up to ENGINE_KEEP_LOADED_BYTES), so that a quick edit of it starts from it
    (scenario_ahead)."""
    from django.conf import settings

    def scenario():
        found = _kept(path) or _read_disk(path)
        if found is not None:
            _keep(path, found, size)
        return found or load(read(), config)
    return _simulate(scenario, seed, detail, progress,
                     _remembering(size is not None and size <= settings.ENGINE_KEEP_LOADED_BYTES))


def _remembering(kept):
    """The run memory for a run whose scenario this process keeps; else None, the memory dropped (it would keep a
    scenario this process does not)."""
    if not kept:
        _RUN_MEMORY.forget()
    return _RUN_MEMORY if kept else None


def simulate_scenario(scenario, seed=0, detail="failed", progress=None):
    """simulate() of a scenario loaded already (scenario_ahead's), taking over the cycles of the run before it that
    the edit cannot have changed (scheduler_core.RunMemory)."""
    from django.conf import settings

    return _simulate(lambda: scenario, seed, detail, progress, _remembering(settings.ENGINE_KEEP_LOADED_BYTES > 0))


# --- a quick edit's run, ahead of its text ------------------------------------------------
# A quick edit of a large draft writes its new text, loads it to check it and stores it, most of a second at
# 5,000 nodes, before its run could be queued. When the edit changes only scheduling directives (a spread
# constraint, a gate, a taint...), the worker needs none of that: the request hands it the documents the edit
# changed (in ENGINE_CACHE_DIR, signed), the worker puts their directives into the scenario it loaded for the
# draft's previous text (scheduler_core.directive_changes) and simulates while the request writes the text.
# A change of a spread constraint's fields needs not even the documents: the request hands over the edit itself
# before it reads any (hand_over_edit), and the worker sets the fields in the pods and templates the edit names
# (scheduler_core.with_spread_fields); the documents follow, for a worker whose scenario that could not be made in.
AHEAD_SUFFIX = "edit"
AHEAD_MAX_FILES = 8
# The latest large scenario a worker simulated, kept in its memory for the next edit (texts up to this size).
_KEPT = [None, None]  # [the disk cache's path of its text, the scenario]
# The cycles of the latest run of such a scenario: the run of the next edit takes over those the edit cannot reach.
_RUN_MEMORY = scheduler_core.RunMemory()


def _keep(path, scenario, size):
    from django.conf import settings

    if path is not None and size is not None and size <= settings.ENGINE_KEEP_LOADED_BYTES:
        _KEPT[:] = [path, scenario]
    elif path is not None and _KEPT[0] == path:
        _KEPT[:] = [None, None]


def _kept(path):
    return _KEPT[1] if path is not None and _KEPT[0] == path else None


def keep_loaded(stored_key, config, scenario, size):
    """Keep ``scenario`` in this process as the loaded scenario of the text stored under ``stored_key`` (of
    ``size`` bytes)."""
    _keep(_disk_path(stored_text_key(stored_key, config)), scenario, size)


def _ahead_path(token):
    return _disk_path(hashlib.sha256(f"ahead|{token}".encode()).digest(), AHEAD_SUFFIX)


def hand_over(token, base_key, config, docs):
    """Keep for the worker the documents a quick edit changed in the text stored under ``base_key``; False when
    there is no disk cache to keep them in (the run then waits for the new text)."""
    return _hand(_ahead_path(token), (base_key, config, list(docs)))


def hand_over_edit(token, base_key, config, spread):
    """hand_over of a spread constraint's change (manifests.edits.spread_fields'), before the edit has read a document;
    the request hands over the documents the edit changed under the same token once it has made them
    (hand_over_documents)."""
    return _hand(_ahead_path(token), (base_key, config, {"spread": spread}))


def hand_over_documents(token, docs):
    """The documents an edit handed over by hand_over_edit changed (for a worker that could not set the fields)."""
    _hand(_handed_documents_path(token), list(docs))


def _hand(path, payload):
    """Write what is handed to the worker at ``path`` (signed, in ENGINE_CACHE_DIR); whether it is there."""
    if path is None:
        return False
    with without_cycle_collection():
        _write_disk(path, payload, pattern=f"*.{AHEAD_SUFFIX}", keep=AHEAD_MAX_FILES, data=True)
    return path.exists()


def _handed_documents_path(token):
    return _ahead_path(f"{token}|documents")


def drop_handed(token):
    """Forget what hand_over kept under ``token`` (a quick edit of 150,000 pods may hand over tens of MB)."""
    for path in (_ahead_path(token), _handed_documents_path(token)):
        if path is not None:
            path.unlink(missing_ok=True)


# How long a worker that could not set an edit's fields waits for its documents (the request hands them over once
# it has made the edit, a few tenths of a second at 5,000 nodes) before it waits for the text instead.
AHEAD_DOCUMENTS_WAIT = 10.0


def scenario_ahead(token, wanted=lambda: True, set_fields=None):
    """The scenario of a quick edit's new text, made from the scenario of the text it edited (kept in this
    process, else in the disk cache, else loaded from the stored text) and what the request handed over, read
    once (a run delivered again is simulated from its text): the spread constraint fields it set, put into the pods
    and templates it names, else the documents it changed; None when the edit changed more than scheduling
    directives, or what was handed over is gone. ``wanted()``: false once no documents will come (the run is
    deleted, or its text written). ``set_fields(scenario, fields)``: the scenario with the fields handed over set
    (manifests.edits.scenario_with_fields, which the caller passes: this module does not import the edits), or None."""
    path = _ahead_path(token)
    with without_cycle_collection():  # (thousands of documents read back, then decoded: no cycles)
        found = _read_disk(path) if path is not None else None
        if path is not None:
            path.unlink(missing_ok=True)
        if not (isinstance(found, tuple) and len(found) == 3):
            drop_handed(token)
            return None
        base_key, config, docs = found
        base = _base_scenario(base_key, config)
        if base is None:
            drop_handed(token)
            return None
        if isinstance(docs, dict):
            made = set_fields(base, docs.get("spread")) if set_fields is not None else None
            if made is not None:  # (the documents handed over meanwhile are dropped once the text is written)
                log.info("engine: the edit's spread constraint fields set in the scenario of the text it edits")
                return made
            docs = _await_documents(token, wanted)
            if docs is None:
                return None
        made = scheduler_core.with_changed_documents(base, docs)
        if made is not None:
            log.info("engine: the %d documents the edit changed put into the scenario of the text it edits", len(docs))
        return made


def with_changed_documents(scenario, docs):
    """scheduler_core.with_changed_documents: ``scenario`` with the documents an edit changed in place read into it,
    as loading the text edited so gives; None where it cannot tell."""
    return scheduler_core.with_changed_documents(scenario, docs)


def with_spread_fields(scenario, pods, workloads, index, fields):
    """scheduler_core.with_spread_fields: ``scenario`` with a spread constraint's fields set in the pods and templates
    named, as loading the text edited so gives; None where it cannot tell (manifests.edits.scenario_with_fields)."""
    return scheduler_core.with_spread_fields(scenario, pods, workloads, index, fields)


def _await_documents(token, wanted):
    """The documents handed over under ``token`` by hand_over_documents (read once), once they are there; None after
    AHEAD_DOCUMENTS_WAIT or once ``wanted()`` is false."""
    path = _handed_documents_path(token)
    if path is None:
        return None
    deadline = time.monotonic() + AHEAD_DOCUMENTS_WAIT
    pause = 0.01
    while not path.exists():
        if time.monotonic() > deadline or not wanted():
            return None
        time.sleep(pause)
        pause = min(0.05, pause * 1.5)
    docs = _read_disk(path)
    path.unlink(missing_ok=True)
    return docs if isinstance(docs, list) else None


def _base_scenario(base_key, config):
    """The loaded scenario of the text stored under ``base_key``: kept in this process or in the disk cache, or
    loaded now when the text is small; None for a large text neither has (loading it could take longer than the
    edit's request takes to write the new text, whose scenario it keeps in the disk cache)."""
    path = _disk_path(stored_text_key(base_key, config))
    found = _kept(path) or (_read_disk(path) if path is not None and path.exists() else None)
    if found is not None:
        return found
    if (texts.size_of(base_key) or 0) + len(config or "") > LOADED_MAX_BYTES:
        return None
    try:
        return load(texts.get(base_key), config)
    except (LookupError, ScenarioInvalid):
        return None


def _simulate(load_scenario, seed, detail, progress, memory=None):
    tell = progress or (lambda step: None)
    started = time.perf_counter()
    tell({"step": "loading"})
    scenario = load_scenario()
    loaded = time.perf_counter()
    tell({"step": "simulating"})
    result = scheduler_core.simulate(
        scenario, seed=seed, detail=detail, memory=memory,
        progress=progress and (lambda cycles, bound, total: tell(
            {"step": "simulating", "cycles": cycles, "bound": bound, "pending": total})))
    tell({"step": "storing"})
    taken = memory.last.taken_over if memory is not None and memory.last is not None else 0
    log.info("engine: loaded %d nodes and %d pods in %.0f ms, simulated in %.0f ms%s",
             len(scenario.nodes), len(scenario.pods), (loaded - started) * 1000,
             (time.perf_counter() - loaded) * 1000,
             f" (its first {taken} cycles taken over from the run before)" if taken else "")
    return result


def quantity(text):
    """The exact value of a Kubernetes quantity as written ("1500m", "4Gi"), or None when it is none."""
    try:
        return parse_quantity(text)
    except QuantityError:
        return None


def validate_pod_update(old, new):
    return scheduler_core.validate_pod_update(old, new)


def explain_node_affinity_update(old, new):
    """Which required node affinity requirement was removed, changed, moved or added, term by term."""
    from scheduler_core.validation import explain_node_affinity_update as explain

    return explain(old, new)


def qualified_name_errors(value):
    """Upstream IsQualifiedName's messages for a label key, taint key or gate name ([] when valid)."""
    from scheduler_core.validation.apimachinery import is_qualified_name

    return is_qualified_name(value)


def gated_pods(manifests, config="", scenario=None):
    """[(namespace, name, [gate names])] of the pods the engine holds back, in file order (``scenario``: the
    text loaded already)."""
    return [
        (pod.namespace or "default", pod.name, [getattr(g, "name", g) for g in pod.scheduling_gates])
        for pod in (scenario or load(manifests, config)).pods if pod.scheduling_gates
    ]


# key of a text -> its pod_metadata, for the METADATA_MAX latest: an LRU of its own rather than
# the manifest readers' memo (32 texts), as a 5,000-node text's metadata is tens of MB
_METADATA = OrderedDict()
METADATA_MAX = 4
_METADATA_LOCK = threading.Lock()


def pod_metadata(manifests, config=""):
    """{"ns/name": {labels, owner, priority, gates, node, spread}} of every pod in the manifests (for the
    dashboard; shared: not to be changed); spread: PodTopologySpread constrains it. Kept for the latest few
    texts: a run's pages ask for it on every view, and a large text is not kept loaded (LOADED_MAX_BYTES)."""
    key = text_key(manifests, config)
    with _METADATA_LOCK:
        found = _METADATA.get(key)
        if found is not None:
            _METADATA.move_to_end(key)
            return found
    found = _pod_metadata(manifests, config)
    with _METADATA_LOCK:
        _METADATA[key] = found
        while len(_METADATA) > METADATA_MAX:
            _METADATA.popitem(last=False)
    return found


def _pod_metadata(manifests, config):
    out = {}
    scenario = load(manifests, config)
    spread = scheduler_core.api.spread_constrained_pods(scenario)
    for pod in scenario.pods:
        owner = next((o for o in pod.owner_references if getattr(o, "controller", False)),
                     pod.owner_references[0] if pod.owner_references else None)
        out[f"{pod.namespace or 'default'}/{pod.name}"] = {
            "labels": dict(pod.labels or {}),
            "owner": f"{owner.kind}/{owner.name}" if owner else "",
            "priority": pod.priority or 0,
            "gates": [getattr(g, "name", g) for g in pod.scheduling_gates],
            "node": pod.node_name or "",
            # its own constraints, or the cluster defaults (Services, controller)
            "spread": pod.key in spread,
        }
    return out


# --- analyses: capacity, failure tolerance, tuning, as parts the workers run in parallel ----------------
def _analysis(call, kind, manifests, config, *args):
    from scheduler_core.analyses import parts

    scenario = load(manifests, config)
    try:
        return getattr(parts, call)(kind, scenario, *args)
    except scheduler_core.ScenarioError as e:
        raise ScenarioInvalid(f"{e.field}: {e.detail}" if e.field else e.detail, field=e.field or "",
                              input="spec") from e


def analysis_plan(kind, manifests, config, spec, seed):
    """(parts, answer): the parts to run, or the answer at once when none is needed; ScenarioInvalid (its field
    the spec's) for a bad spec."""
    return _analysis("plan", kind, manifests, config, spec, seed)


def analysis_part(kind, manifests, config, spec, part, seed):
    return _analysis("run_part", kind, manifests, config, spec, part, seed)


def analysis_answer(kind, manifests, config, spec, outcomes):
    return _analysis("combine", kind, manifests, config, spec, outcomes)


def analysis_verifying_text(kind, manifests, config, spec, answer):
    """The manifests of the run that checks the answer (the revision's plus the nodes it adds), or None."""
    import yaml

    objects = _analysis("verifying_objects", kind, manifests, config, spec, answer)
    if not objects:
        return None
    return manifests.rstrip("\n") + "\n" + "".join(
        "---\n" + yaml.safe_dump(o, sort_keys=False, default_flow_style=False) for o in objects)


def analysis_outline(manifests, config=""):
    """What the analysis forms offer: the cluster's node templates, zones, nodes and pods."""
    from scheduler_core.analyses import capacity, drain

    scenario = load(manifests, config)
    return {
        "templates": [{"name": t.name, "zone": t.zone, "hourlyPrice": t.price()}
                      for t in capacity.templates_from_nodes(scenario.nodes)],
        "zones": drain.zones(scenario),
        "nodes": [n.name for n in scenario.nodes],
        "pods": [p.key for p in scenario.pods][:500],
    }
