"""The default set-up (SQLite, no DATABASE_URL) under pages opened quickly in parallel: a real threaded
server, many logged-in clients reading and writing at once, and never a 500 ("database is locked")."""

import http.cookiejar
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENTS, ROUNDS = 10, 8


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def sqlite_server(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "PG", "REDIS_URL"))}
    env.update(DATA_DIR=str(tmp_path), SQLITE_PATH=str(tmp_path / "db.sqlite3"), FAST_PASSWORD_HASHER="true",
               DJANGO_DEBUG="false")
    manage = [sys.executable, str(ROOT / "manage.py")]
    for command in (["migrate", "--noinput", "-v", "0"], ["load_examples"]):
        subprocess.run(manage + command, env=env, cwd=ROOT, check=True, capture_output=True, timeout=300)
    port = free_port()
    log = open(tmp_path / "server.log", "w")
    server = subprocess.Popen(manage + ["runserver", f"127.0.0.1:{port}", "--noreload"], env=env, cwd=ROOT,
                              stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/login/", timeout=2)
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        yield base, tmp_path / "server.log"
    finally:
        server.terminate()
        server.wait(10)
        log.close()


def session(base):
    """A logged-in opener of its own (logging in writes the session and last_login)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(base + "/login/", timeout=30).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    body = urllib.parse.urlencode({"username": "demo", "password": "demo", "csrfmiddlewaretoken": token}).encode()
    opener.open(urllib.request.Request(base + "/login/", body, headers={"Referer": base + "/login/"}), timeout=30)
    return opener, jar


def test_pages_opened_in_parallel_on_sqlite_never_answer_500(sqlite_server):
    base, log = sqlite_server
    opener, _ = session(base)
    listing = opener.open(base + "/scenarios/", timeout=30).read().decode()
    scenarios = sorted(set(re.findall(r'href="/scenarios/(\d+)/"', listing)))
    assert scenarios, listing[:500]
    statuses, barrier = [], threading.Barrier(CLIENTS)

    def client(i):
        mine, jar = session(base)
        csrf = next(c.value for c in jar if c.name == "csrftoken")
        barrier.wait(timeout=60)
        for r in range(ROUNDS):
            pk = scenarios[(i + r) % len(scenarios)]
            requests = [urllib.request.Request(f"{base}/scenarios/{pk}/"),  # marks the scenario seen: a write
                        urllib.request.Request(f"{base}/scenarios/{pk}/draft/edit/", urllib.parse.urlencode(
                            {"op": "cordon", "node": "no-such-node", "csrfmiddlewaretoken": csrf}).encode(),
                            headers={"Referer": base + "/"}),
                        urllib.request.Request(f"{base}/scenarios/")]
            for request in requests:
                try:
                    statuses.append(mine.open(request, timeout=60).status)
                except urllib.error.HTTPError as e:
                    statuses.append(e.code)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert len(statuses) == CLIENTS * ROUNDS * 3
    assert [s for s in statuses if s >= 500] == [], log.read_text()[-3000:]
