"""Production settings (DEBUG=false) pass `check --deploy`; every response carries the security headers."""

import json
import os
import subprocess
import sys
from unittest import mock

import pytest

from django.test import Client

from ..base import BaseTestCase
from ..conftest import ROOT

SECRET = "k" * 10 + "Zq8#v!2mX@r$9pL&w4^tY*7nB(e)6cH_u+3fJ=s1dG-5aK0oQ"


def production(code=None, args=None, **env):
    """Run manage.py (or a script under Django) with production settings in a fresh process."""
    full = {**os.environ, "DEBUG": "false", "SECRET_KEY": SECRET, "ALLOWED_HOSTS": "whatif.example.com",
            "DJANGO_ALLOW_ASYNC_UNSAFE": None, **env}  # the test session's async escape hatch is not production
    for name in list(full):
        if full[name] is None:
            del full[name]
    command = [sys.executable, "manage.py", *args] if args else [sys.executable, "-c", code]
    return subprocess.run(command, cwd=ROOT, env=full, capture_output=True, text=True, timeout=60)


PROBE = """
import django, json, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
django.setup()
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
c = Client(HTTP_HOST="whatif.example.com")
plain = c.get("/login/")
secure = c.get("/login/", secure=True)
proxied = c.get("/login/", HTTP_X_FORWARDED_PROTO="https")
print(json.dumps({
    "plain": [plain.status_code, plain.get("Location")],
    "secure": [secure.status_code, dict(secure.headers), {k: dict(v) for k, v in secure.cookies.items()}],
    "proxied": proxied.status_code,
}))
"""


def test_it_passes_check_deploy_with_production_settings():
    r = production(args=["check", "--deploy", "--fail-level", "WARNING"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "System check identified no issues" in r.stdout


def test_it_refuses_to_start_without_a_secret_key_from_the_environment():
    r = production(args=["check"], SECRET_KEY=None)
    assert r.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in r.stderr


def test_it_redirects_to_https_and_sets_hsts_and_secure_cookies(tmp_path):
    r = production(PROBE, SQLITE_PATH=str(tmp_path / "db.sqlite3"), DATABASE_URL="", PGDATABASE="")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["plain"] == [301, "https://whatif.example.com/login/"]
    status, headers, cookies = out["secure"]
    assert status == 200
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert cookies["csrftoken"]["secure"] is True
    assert cookies["csrftoken"]["samesite"] == "Lax"
    # Behind a proxy X-Forwarded-Proto is trusted only when told to.
    assert out["proxied"] == 301
    r = production(PROBE, SQLITE_PATH=str(tmp_path / "db.sqlite3"), DATABASE_URL="", PGDATABASE="",
                   SECURE_PROXY_SSL_HEADER="true")
    assert json.loads(r.stdout.strip().splitlines()[-1])["proxied"] == 200, r.stderr


class SecurityHeadersTestCase(BaseTestCase):
    def test_it_sets_security_headers_on_pages_api_and_errors(self):
        self.client.force_login(self.viewer)
        for url in ("/login/", f"/scenarios/{self.scenario.pk}/", "/api/scenarios/", "/api/docs/", "/nope/"):
            r = self.client.get(url)
            csp = r.headers["Content-Security-Policy"]
            self.assertIn("script-src 'self';", csp, url)
            self.assertNotIn("unsafe-eval", csp)
            self.assertIn("frame-ancestors 'none'", csp)
            self.assertIn("object-src 'none'", csp)
            self.assertEqual(r.headers["X-Frame-Options"], "DENY", url)
            self.assertEqual(r.headers["X-Content-Type-Options"], "nosniff", url)
            self.assertEqual(r.headers["Referrer-Policy"], "same-origin", url)
            self.assertEqual(r.headers["Cross-Origin-Opener-Policy"], "same-origin", url)

    def test_it_serves_pages_without_inline_scripts_and_turns_htmx_eval_off(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/scenarios/{self.scenario.pk}/")
        html = r.content.decode()
        self.assertNotRegex(html, r"<script(?![^>]*\bsrc=)[^>]*>")  # every script is a file
        self.assertNotRegex(html, r"\son[a-z]+=")  # no inline event handlers
        self.assertIn('<meta name="htmx-config" content=\'{"allowEval": false}\'>', html)
        docs = self.client.get("/api/docs/").content.decode()
        self.assertNotRegex(docs, r"<script(?![^>]*\bsrc=)[^>]*>")


@pytest.mark.django_db(transaction=True)
def test_it_answers_503_with_a_page_and_keeps_the_run_queued_when_the_broker_is_down():
    from webapp.scenarios import services
    from webapp.scenarios.models import Membership, Run, Team
    from webapp.scenarios.tasks import QueueUnavailable

    from ..base import SMALL, make_user

    user = make_user("queue-down")
    team = Team.objects.create(name="queue-down")
    Membership.objects.create(team=team, user=user, role="editor")
    scenario = services.create_scenario(team=team, name="Q", manifests=SMALL, author=user)
    client = Client()
    client.force_login(user)
    with mock.patch("webapp.scenarios.tasks.execute_run.apply_async", side_effect=OSError("connection refused")):
        page = client.post(f"/scenarios/{scenario.pk}/runs/", {})
        api = client.post(f"/api/scenarios/{scenario.pk}/runs/", {}, content_type="application/json")
    assert page.status_code == 503
    assert QueueUnavailable.message in page.content.decode()
    assert page.headers["Retry-After"] == "30"
    assert api.status_code == 503
    assert api.json() == {"detail": QueueUnavailable.message}
    assert list(Run.objects.filter(scenario=scenario).values_list("status", flat=True)) == ["queued", "queued"]
