import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
application = get_asgi_application()

from webapp.scenarios import frozen  # noqa: E402  (after setup: it reads settings)

frozen.enable()  # a web process keeps large results and texts out of the cycle collector's scans
