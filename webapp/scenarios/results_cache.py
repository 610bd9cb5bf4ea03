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
                _results.popitem(last=False)
    return result


def forget(run_id=None):
    """Drop one run's cached result (or all of them)."""
    with _lock:
        for key in [k for k in _results if run_id is None or k[0] == run_id]:
            del _results[key]


@receiver(post_save, sender=Run)
def _saved(sender, instance, **kwargs):
    forget(instance.pk)
