import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

# pytest-playwright runs an asyncio loop; Django refuses sync DB access under it unless told.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROME_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    # Debian's chromium; never a downloaded browser.
    return {**browser_type_launch_args, "executable_path": "/usr/bin/chromium", "args": CHROME_FLAGS}


@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def database_env(connection):
    """Env vars that point a subprocess at the test database this session uses."""
    s = connection.settings_dict
    if connection.vendor == "postgresql":
        password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
        return {"DATABASE_URL": f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"}
    return {"DATABASE_URL": "", "PGDATABASE": "", "SQLITE_PATH": str(s["NAME"])}


@pytest.fixture(scope="session")
def celery_worker_proc(django_db_setup, django_db_blocker, tmp_path_factory):
    """A real `celery worker` subprocess on this session's broker and test database.

    It listens on a queue of its own, so concurrent test sessions sharing one Redis
    never execute each other's runs.
    """
    from django.db import connection

    from webapp.celery import app

    queue = f"whatif-test-{uuid.uuid4().hex[:8]}"
    previous_queue = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    # (it keeps every result deflated, as it keeps a large one: the API's gzip answer is what live clients read)
    env = {**os.environ, **database_env(connection), "CELERY_QUEUE": queue, "RESULT_DEFLATE_MIN_BYTES": "0"}
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "webapp", "worker", "-l", "info", "-P", "solo",
             "-Q", queue, "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 30
        while "ready." not in log.read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"celery worker did not start:\n{log.read_text()}")
            time.sleep(0.1)
        yield proc
    finally:
        app.conf.task_default_queue = previous_queue
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture(autouse=True)
def fresh_results_cache():
    """Each test starts with no cached run result (a rolled-back test may have cached one it wrote)."""
    from webapp.scenarios import results_cache

    results_cache.forget()
    yield


@pytest.fixture(autouse=True)
def fresh_text_copies():
    """Each test starts with no decompressed text kept in the process."""
    from webapp.scenarios import texts

    texts.forget()
    yield
