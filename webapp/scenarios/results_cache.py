"""A finished run's result, read from the database once per process and kept for the next pages.

A result is written once, when its run finishes, and never changed; every page of a run (the run, its nodes,
topology, timeline, each pod and node) reads all of it. At production size a result is tens of MB of JSON, a
quarter of a second or more to fetch and decode, so the last RESULT_CACHE_RUNS results read are kept, keyed by
run and finish time (a run finished again is read again; a run saved through the ORM in this process is
forgotten).
"""

import threading
from collections import OrderedDict

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from .models import Run

_results: OrderedDict = OrderedDict()
_lock = threading.Lock()


def result_of(run):
    """The result of a finished ``run`` (loaded with its result deferred, or not)."""
    if "result" in run.__dict__:  # (already loaded with the row)
        return run.result
    key = (run.pk, run.finished_at)
    with _lock:
        found = _results.get(key)
        if found is not None:
            _results.move_to_end(key)
            return found
    result = Run.objects.filter(pk=run.pk).values_list("result", flat=True).first()
    if result is not None and settings.RESULT_CACHE_RUNS > 0:
        with _lock:
            _results[key] = result
            while len(_results) > settings.RESULT_CACHE_RUNS:
                _, dropped = _results.popitem(last=False)
                _drop_derived(dropped)
    return result


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
            _drop_derived(_results.pop(key))


def _drop_derived(result):
    for key in [k for k in _derived if k[0] == id(result)]:
        del _derived[key]


@receiver(post_save, sender=Run)
def _saved(sender, instance, **kwargs):
    forget(instance.pk)
