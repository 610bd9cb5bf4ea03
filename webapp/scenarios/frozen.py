"""Large caches of immutable data kept out of Python's cycle collector's scans.

A web process keeps what it read last: a run's result (results_cache; a 5,000-node result is millions of
lists and dicts) and a scenario's parsed documents (manifests/documents.py; a 150,000-pod text, more). The
collector's full collections walk every container alive, so while a cache holds them each full collection
costs seconds (3 s with a 5,000-node text's documents), in whichever request it happens to fall; and the
first collections after a large tree is made walk all of it as young objects. So a cache that takes in
something made from FROZEN_CACHE_MIN_BYTES or more of text says so (``changed``) while the collector is
still paused from making it (``engine.without_cycle_collection``), and everything alive is frozen at once
(gc.freeze: left out of later scans, nothing walked). A cache that lets something go says so too:
everything is unfrozen (the collector may then reclaim garbage frozen with it), and once that request is
over its garbage is collected and what is left frozen again if a cache still holds something large. After a
request whose quick edit queued a run, that collection waits until the run's counts are on the page
(after_response: it would take the core the run's simulation shares, and hold up the page's poll for them).
Only web processes freeze (webapp/wsgi.py and asgi.py call ``enable``); in a worker the engine freezes the
loaded scenario around a simulation itself, and would leave that alone if something else had frozen. The engine is
told each time this module freezes or unfreezes (``engine.frozen_elsewhere``): otherwise it asks
gc.get_freeze_count(), which walks every frozen object (0.12 s a call with a 267 MB text's documents frozen).
"""

import gc
import threading

from django.core.signals import request_finished
from django.dispatch import receiver

from . import after_response
from .engine import frozen_elsewhere

_lock = threading.Lock()
_holders = {}  # name -> holds(): whether that cache now holds something large
_state = {"enabled": False, "pending": False, "frozen": False}


def register(name, holds):
    _holders[name] = holds


def enable(on=True):
    """Freeze large caches in this process (a web process); ``on`` False: no more, and unfreeze now."""
    with _lock:
        _state["enabled"] = on
        if not on and _state["frozen"]:
            gc.unfreeze()
            _state["frozen"] = _state["pending"] = False
        frozen_elsewhere(_state["frozen"])  # (the engine asks this module instead of counting frozen objects)


def changed(grew=True):
    """A cache took in something large (``grew``: call it with the collector paused, before anything else is
    made), or let something go."""
    with _lock:
        if not _state["enabled"]:
            return
        if grew:
            gc.freeze()
            _frozen(True)
            return
        if _state["frozen"]:
            gc.unfreeze()
            _frozen(False)
            _state["pending"] = True


def _frozen(now):
    _state["frozen"] = now
    frozen_elsewhere(now)


def is_frozen():
    """Whether this module has frozen what the caches hold (the engine freezes around simulations too)."""
    return _state["frozen"]


@receiver(request_finished)
def _request_finished(sender, **kwargs):
    if _state["pending"] and _state["enabled"]:
        after_response.later(_collect)  # (held while a run the request queued simulates)


def _collect():
    with _lock:
        if not _state["pending"] or not _state["enabled"]:
            return
        _state["pending"] = False
        if _state["frozen"]:  # (frozen again in the request, with what was let go: hand it to the collector)
            gc.unfreeze()
            _frozen(False)
        if any(holds() for holds in _holders.values()):
            gc.collect()
            gc.freeze()
            _frozen(True)
