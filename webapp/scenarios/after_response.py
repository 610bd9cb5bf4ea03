"""Work a web request leaves for after its response, held back while the run its quick edit queued simulates.

After a quick edit of a large draft, the web process keeps the draft's new documents on disk for the other
processes (manifests/documents.py) and collects the garbage of the caches it let go (frozen.py): most of a second of
one core at 5,000 nodes, in stretches that hold the interpreter's lock for tenths of a second (a pickle, a full
collection). Done as soon as the response was written, that work took the core the worker's simulation shared with
it, and, in a web process with threads, kept the runs panel's poll waiting for the lock although the run's counts
were stored: a quick edit's counts reached the page about half a second later than they were stored.

So a request that queued a run ahead of its text (drafts.apply_running_ahead) says so (``hold_for``), and the work
it leaves (``later``) runs in a thread of its own once the runs panel of this process has shown that run's counts
(``shown``), or a moment after they were stored (the page may ask another process), or once the run failed or is
gone, or AFTER_RESPONSE_HOLD_SECONDS have passed. Work left by any request while such work waits is queued behind
it, so it is done in the order it was left.
"""

import logging
import threading
import time

from django.conf import settings
from django.core.signals import request_started
from django.db import connection
from django.dispatch import receiver

from .models import Run
from .runs import where_they_are

log = logging.getLogger(__name__)

# How often the waiting thread looks at the run, and how long after the run's counts are stored it waits for a
# page of this process to show them (``shown``) before it takes the interpreter's lock: the page may be served by
# another process, or closed. The page shows stored counts within a few tenths of a second (its poll waits for
# news); the work held must be done before the person's next edit, which another process may take (it reads the
# draft's documents and scenario this work keeps on disk: without them it parsed the text again, 2 s at 5,000 nodes).
CHECK_SECONDS = 0.05
SHOWN_WAIT_SECONDS = 0.5

_request = threading.local()
_lock = threading.Lock()
_shown_now = threading.Condition(_lock)
_queue = []  # [(the run it waits for, or None; the work)], in the order left
_shown = set()  # the runs held work waits for whose counts a page of this process has shown
_thread = None


@receiver(request_started)
def _started(sender, **kwargs):
    _request.run = _request.showed = _request.after = None
    _request.open = True


def end_of_request(sender, **kwargs):
    """The request is over, its response sent (connected by apps.py after the receivers that leave work): the work
    its view left for now (``after_this_response``) is left, and what runs in this thread from now on is not that
    request's."""
    after = getattr(_request, "after", None)
    _request.after, _request.open = None, False
    for work in after or ():
        later(work)
    showed = getattr(_request, "showed", None)
    _request.run = _request.showed = None
    if showed is not None:
        shown(showed)


def after_this_response(work):
    """Leave ``work`` for once this request's response is sent (then as ``later`` does it). Outside a request (a
    worker, a test's call of a view function without a request cycle): at once."""
    if not getattr(_request, "open", False):
        work()
        return
    if _request.after is None:
        _request.after = []
    _request.after.append(work)


def hold_for(run_pk):
    """This request queued run ``run_pk``: the work it leaves waits for that run's counts."""
    if settings.AFTER_RESPONSE_HOLD_SECONDS > 0:
        _request.run = run_pk


def release():
    """This request's run was not queued after all (drafts._drop): its work is not held for it."""
    _request.run = None


def showing(run_pk):
    """This request's response shows the run's counts: once it is sent, work held for the run may run."""
    _request.showed = run_pk


def shown(run_pk):
    """A page of this process has shown the run's counts: work held for it may run now."""
    with _lock:
        if any(run == run_pk for run, _ in _queue):
            _shown.add(run_pk)
            _shown_now.notify_all()


def later(work):
    """Call ``work()`` now, or, if this request holds its work for a run or other work is waiting, in the
    waiting thread once its turn comes."""
    global _thread
    run = getattr(_request, "run", None)
    with _lock:
        if run is None and not _queue:
            queued = False
        else:
            _queue.append((run, work))
            queued = True
            if _thread is None or not _thread.is_alive():
                _thread = threading.Thread(target=_drain, name="after-response", daemon=True)
                _thread.start()
    if not queued:
        work()


def _drain():
    global _thread
    try:
        while True:
            with _lock:
                if not _queue:
                    _thread = None
                    return
                run, work = _queue[0]
            try:
                if run is not None:
                    _await_counts(run)
                work()
            except Exception:  # (the work is a cache's upkeep: a failure is logged, the next one still runs)
                log.exception("work left after a response failed")
            with _lock:
                _queue.pop(0)
    finally:
        connection.close()  # (this thread's own connection, if it opened one)


def _await_counts(run_pk):
    """Return once a page of this process has shown the run's counts, or SHOWN_WAIT_SECONDS after they were
    stored; at once when the run is gone or failed; after AFTER_RESPONSE_HOLD_SECONDS in any case."""
    deadline = time.monotonic() + settings.AFTER_RESPONSE_HOLD_SECONDS
    counted_at = None
    while True:
        with _lock:
            if _shown_now.wait_for(lambda: run_pk in _shown, timeout=CHECK_SECONDS):
                _shown.discard(run_pk)
                return
        now = time.monotonic()
        if now > deadline or (counted_at is not None and now > counted_at + SHOWN_WAIT_SECONDS):
            return
        if counted_at is not None:
            continue
        try:
            found = where_they_are([run_pk])
        except Exception:  # (the database is away: waiting would not tell more)
            log.warning("could not look at run %s; the work after its edit's response runs now", run_pk,
                        exc_info=True)
            return
        if not found or found[0][1] == Run.Status.FAILED:
            return
        if found[0][2] or found[0][1] == Run.Status.SUCCEEDED:
            counted_at = now
