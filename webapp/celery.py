import logging
import os

from celery import Celery, bootsteps
from celery.signals import worker_init

log = logging.getLogger(__name__)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

app = Celery("webapp")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def warm_engine(**_):
    """Load the engine's compiled loops once, when the worker starts."""
    from webapp.scenarios import engine

    engine.warm()


class BeatWatchdog(bootsteps.StartStopStep):
    """Restart the beat embedded in this worker (`worker -B`) when its process dies.

    Celery starts it once; if it is killed (OOM killer, a stray signal) the worker runs on
    without it and the periodic sweep of stuck runs silently stops. Checked every
    BEAT_CHECK_INTERVAL seconds on the worker's timer; each start logs the beat's pid.
    """

    requires = ("celery.worker.components:Beat", "celery.worker.components:Timer")

    def __init__(self, w, **kwargs):
        super().__init__(w, **kwargs)
        self.replacement = None
        self.tref = None

    def start(self, w):
        if w.beat is None:
            return
        log.info("beat: embedded beat process pid %s", getattr(w.beat, "pid", None))
        self.tref = w.timer.call_repeatedly(float(os.environ.get("BEAT_CHECK_INTERVAL", "5")), self.check, (w,))

    def check(self, w):
        if w.beat is None or w.beat.is_alive():
            return
        log.error("beat: the embedded beat process (pid %s) died with exit code %s; starting another",
                  getattr(w.beat, "pid", None), getattr(w.beat, "exitcode", None))
        from celery.beat import EmbeddedService

        w.beat = self.replacement = EmbeddedService(w.app, schedule_filename=w.schedule_filename,
                                                    scheduler_cls=w.scheduler)
        w.beat.start()
        log.info("beat: embedded beat process pid %s", getattr(w.beat, "pid", None))

    def stop(self, w):
        if self.tref is not None:
            self.tref.cancel()
        if self.replacement is not None:  # (the Beat step stops the first one)
            self.replacement.stop()


app.steps["worker"].add(BeatWatchdog)
