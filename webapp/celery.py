import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

app = Celery("webapp")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def warm_engine(**_):
    """Load the engine's compiled loops once, when the worker starts."""
    from webapp.scenarios import engine

    engine.warm()
