"""A web process (webapp/wsgi.py, which gunicorn loads) starts and serves pages whether or not the broker is there:
it prepares the broker's transport as it starts, and connects to nothing until it queues a run."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SERVE_LOGIN_PAGE = """
import io, sys
from webapp.wsgi import application
said = []
body = b"".join(application({"REQUEST_METHOD": "GET", "PATH_INFO": "/login/", "SERVER_NAME": "localhost",
                             "SERVER_PORT": "80", "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(),
                             "wsgi.errors": sys.stderr}, lambda status, headers: said.append(status)))
print(said[0], b"Log in" in body, "kombu.transport.redis" in sys.modules)
"""


@pytest.mark.parametrize("broker", ["redis://127.0.0.1:1/0", "redis://127.0.0.1:6379/15"],
                         ids=["broker-unreachable", "broker-up"])
def test_a_web_process_starts_and_serves_the_login_page(broker):
    env = {**os.environ, "REDIS_URL": broker, "CELERY_BROKER_URL": broker, "DJANGO_SETTINGS_MODULE": "webapp.settings",
           "ALLOWED_HOSTS": "localhost"}
    done = subprocess.run([sys.executable, "-c", SERVE_LOGIN_PAGE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["200", "OK", "True", "True"], done.stderr[-2000:]
