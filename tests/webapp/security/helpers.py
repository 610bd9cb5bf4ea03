"""Subprocesses for the fault tests: a private redis-server, a celery worker, a web server.

Each listens on a port or queue of its own, so the machine's shared Redis (6379)
and other test sessions are never touched.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from ..conftest import ROOT, database_env


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout, what, interval=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class Proc:
    """A subprocess in its own session, logged to a file, stopped with its children."""

    def __init__(self, args, env, log: Path):
        self.log = log
        with open(log, "w") as out:
            self.popen = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                          start_new_session=True)

    @property
    def pid(self):
        return self.popen.pid

    def text(self):
        return self.log.read_text(errors="replace")

    def alive(self):
        return self.popen.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=15):
        if not self.alive():
            return
        try:
            os.killpg(self.pid, sig)
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.pid, signal.SIGKILL)
            self.popen.wait()
        except ProcessLookupError:
            pass


class Redis(Proc):
    def __init__(self, log, port=None):
        self.port = port or free_port()
        super().__init__(["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
                          "--appendonly", "no"], os.environ.copy(), log)
        wait_until(self.ping, 10, f"redis-server on port {self.port}")

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def ping(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False


def app_env(connection, broker_url, queue, **extra):
    env = {**os.environ, **database_env(connection), "CELERY_BROKER_URL": broker_url, "CELERY_QUEUE": queue,
           "DEBUG": "true", "FAST_PASSWORD_HASHER": "true"}
    env.pop("CACHE_URL", None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def start_worker(connection, broker_url, log, concurrency=1, queue=None, args=(), **extra):
    """A prefork worker (time limits and lost-worker detection need prefork) on a queue of its own."""
    queue = queue or f"whatif-fault-{uuid.uuid4().hex[:8]}"
    worker = Proc([sys.executable, "-m", "celery", "-A", "webapp", "worker", "-l", "info", "-P", "prefork",
                   "-c", str(concurrency), "-Q", queue, "--without-gossip", "--without-mingle",
                   "--without-heartbeat", *args], app_env(connection, broker_url, queue, **extra), log)
    worker.queue = queue
    wait_until(lambda: "ready." in worker.text() or not worker.alive(), 30, "the worker to start")
    assert worker.alive(), worker.text()
    return worker


def pool_children(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def start_web(connection, broker_url, queue, log, **extra):
    port = free_port()
    web = Proc([sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
               app_env(connection, broker_url, queue, **extra), log)
    web.url = f"http://127.0.0.1:{port}"

    def up():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            return not web.alive()

    wait_until(up, 30, "the web server to start")
    assert web.alive(), web.text()
    return web


def call(method, url, body=None, token=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")
