"""The `whatif` command against the live test server and a real worker, and against bad input."""

import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Membership, Team

from .base import make_user
from .conftest import ROOT
from .security.helpers import free_port

pytestmark = pytest.mark.django_db(transaction=True)
ZONE = "topology.kubernetes.io/zone"


def whatif(*args, env=None, stdin=None, home=None):
    """Run the installed `whatif` script (or `python -m webapp.client`) as a pipeline would."""
    script = Path(sys.executable).parent / "whatif"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "webapp.client"]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WHATIF_")}
    if home is not None:
        clean["WHATIF_CONFIG"] = str(home / "whatif.json")
    return subprocess.run(cmd + [str(a) for a in args], cwd=ROOT, env={**clean, **(env or {})}, input=stdin,
                          capture_output=True, text=True, timeout=180)


def assert_clean_error(p, *words):
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr + p.stdout
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture
def ci_user(live_server):
    team = Team.objects.create(name="sre")
    Membership.objects.create(team=team, user=make_user("pipeline", password="pipeline-pass-1"), role="editor")
    return team


def test_it_logs_in_pushes_runs_and_checks_on_a_real_worker(live_server, celery_worker_proc, ci_user, tmp_path):
    login = whatif("login", "--server", live_server.url, "--username", "pipeline", "--password-stdin",
                   stdin="pipeline-pass-1\n", home=tmp_path)
    assert login.returncode == 0, login.stderr
    saved = json.loads((tmp_path / "whatif.json").read_text())
    assert saved["server"] == live_server.url and saved["token"]
    assert oct((tmp_path / "whatif.json").stat().st_mode & 0o777) == "0o600"  # it holds a token

    spread = EXAMPLES_DIR / "min-domains.yaml"
    # check creates the scenario in the team, runs it on the worker, and fails: 4 pods stay pending.
    junit = tmp_path / "report.xml"
    check = whatif("check", spread, "--team", "sre", "--name", "api spread", "--spread", ZONE, "--junit", junit,
                   home=tmp_path)
    assert check.returncode == 1, check.stderr
    assert "scheduled 6, pending 4" in check.stdout
    assert "didn't match pod topology spread constraints" in check.stdout
    assert f"{ZONE} maxSkew 2 exceeded in every domain" in check.stdout
    assert check.stdout.strip().endswith("4 pod(s) cannot be placed within a chosen spread constraint's maxSkew")
    suite = ET.parse(junit).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("14", "8")

    listed = whatif("--json", "scenarios", home=tmp_path)
    assert listed.returncode == 0, listed.stderr
    [scenario] = json.loads(listed.stdout)
    assert (scenario["name"], scenario["current_revision"]) == ("api spread", 1)
    sid = scenario["id"]

    # A push names the revision it was edited from; a stale one fails and says which is current.
    fixed = EXAMPLES_DIR / "zone-spreading.yaml"
    push = whatif("push", fixed, "--scenario", sid, "--base", 1, "-m", "zones", home=tmp_path)
    assert push.returncode == 0, push.stderr
    assert "Saved revision 2 of scenario" in push.stdout
    stale = whatif("push", spread, "--scenario", sid, "--base", 1, home=tmp_path)
    assert_clean_error(stale, "revision 2 is the current one", "based on revision 1")

    run = whatif("run", sid, "--wait", home=tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"of scenario {sid} r2 (seed 0): succeeded" in run.stdout
    assert "scheduled 6, pending 0, gated 0, evicted 0" in run.stdout

    # The same check on the fixed revision passes, without saving an identical revision.
    check = whatif("--json", "check", fixed, "--scenario", sid, "--spread", ZONE, home=tmp_path)
    assert check.returncode == 0, check.stderr
    body = json.loads(check.stdout)
    assert (body["passed"], body["revision"], body["pending"], body["spread"]) == (True, 2, [], [])

    csv_text = whatif("export", body["run"], "--csv", home=tmp_path)
    assert csv_text.returncode == 0, csv_text.stderr
    lines = csv_text.stdout.splitlines()
    assert lines[0] == "pod,outcome,node,nominated_node,message"
    assert len(lines) == 7 and all(",Scheduled,node-" in line for line in lines[1:])


def test_it_reports_preemptions_after_a_run(live_server, celery_worker_proc, ci_user, tmp_path):
    env = {"WHATIF_SERVER": live_server.url}
    token = whatif("login", "--username", "pipeline", "--password-stdin", stdin="pipeline-pass-1\n",
                   env=env, home=tmp_path)
    assert token.returncode == 0, token.stderr
    check = whatif("check", EXAMPLES_DIR / "preemption.yaml", "--team", "sre", env=env, home=tmp_path)
    assert check.returncode == 0, check.stderr
    assert "default/checkout-3c5e7a9b2-x3y4z nominated to node-a, evicting default/batch-4f6c8d7b9-m6n7p" \
        in check.stdout


def test_it_refuses_a_wrong_token_clearly(live_server, ci_user, tmp_path):
    p = whatif("scenarios", "--server", live_server.url, "--token", "not-a-token", home=tmp_path)
    assert_clean_error(p, "refused the credentials", "Invalid or revoked token")
    p = whatif("check", EXAMPLES_DIR / "min-domains.yaml", "--team", "sre",
               env={"WHATIF_SERVER": live_server.url, "WHATIF_TOKEN": "nope"}, home=tmp_path)
    assert_clean_error(p, "refused the credentials")


def test_it_refuses_a_wrong_password_clearly(live_server, ci_user, tmp_path):
    p = whatif("login", "--server", live_server.url, "--username", "pipeline", "--password-stdin",
               stdin="wrong\n", home=tmp_path)
    assert_clean_error(p, "Unable to log in with the provided credentials")
    assert not (tmp_path / "whatif.json").exists()


def test_it_says_when_the_server_is_down(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    p = whatif("run", "1", "--wait", "--server", url, "--token", "t", home=tmp_path)
    assert_clean_error(p, f"cannot reach the Whatif server at {url}")


def test_it_names_a_file_it_cannot_read(live_server, ci_user, tmp_path):
    env = {"WHATIF_SERVER": live_server.url, "WHATIF_TOKEN": "unused"}
    assert_clean_error(whatif("push", tmp_path / "missing.yaml", "--scenario", "1", env=env, home=tmp_path),
                       "missing.yaml: no such file")
    binary = tmp_path / "image.yaml"
    binary.write_bytes(b"\xff\xfe\x00kind")
    assert_clean_error(whatif("check", binary, "--team", "sre", env=env, home=tmp_path), "image.yaml: not UTF-8 text")
    assert_clean_error(whatif("check", tmp_path, "--local", home=tmp_path), "is a directory")


def test_it_shows_the_servers_reason_for_bad_manifests(live_server, ci_user, tmp_path):
    token = whatif("login", "--server", live_server.url, "--username", "pipeline", "--password-stdin",
                   stdin="pipeline-pass-1\n", home=tmp_path)
    assert token.returncode == 0, token.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  priority: high\n")
    p = whatif("check", bad, "--team", "sre", home=tmp_path)
    assert_clean_error(p, "manifests:", "Pod default/p", "spec.priority")
