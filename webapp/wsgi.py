import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
application = get_wsgi_application()

from webapp.celery import app as celery_app  # noqa: E402
from webapp.scenarios import frozen  # noqa: E402  (after setup: it reads settings)

frozen.enable()  # a web process keeps large results and texts out of the cycle collector's scans
# The broker's transport is imported now, not by the first run this process queues (Redis's: 0.2 s of the first
# quick edit a web process took); nothing connects until a run is queued.
celery_app.connection_for_write().release()
