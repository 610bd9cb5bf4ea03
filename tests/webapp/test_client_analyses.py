"""`whatif analyse` against the live test server and a real worker: the answer in words, progress on stderr,
the same as --json, cancel, and bad input as one clean error line."""

import json

import pytest

from webapp.scenarios import services

from .test_analyses import MIN_DOMAINS, PDB_BLOCKS
from .test_client_cli import assert_clean_error, ci_user, whatif  # noqa: F401 - ci_user is a fixture

pytestmark = pytest.mark.django_db(transaction=True)


def logged_in(live_server, tmp_path):
    p = whatif("login", "--server", live_server.url, "--username", "pipeline", "--password-stdin",
               stdin="pipeline-pass-1\n", home=tmp_path)
    assert p.returncode == 0, p.stderr


def scenario_of(team, text, name):
    from django.contrib.auth.models import User

    return services.create_scenario(team=team, name=name, author=User.objects.get(username="pipeline"),
                                    manifests=text)


def test_it_finds_the_nodes_to_add_and_the_zone_that_breaks(live_server, celery_worker_proc, ci_user, tmp_path):
    logged_in(live_server, tmp_path)
    spread = scenario_of(ci_user, MIN_DOMAINS, "spread")
    p = whatif("analyse", spread.pk, "capacity", "--extra-zone", "d", "--extra-zone", "e", "--seed", "3", "--wait",
               home=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "Add 1 × m5.xlarge in d, 1 × m5.xlarge in e." in p.stdout
    assert "parts done" in p.stderr and "Checked by run" in p.stdout

    pdb = scenario_of(ci_user, PDB_BLOCKS, "pdb")
    p = whatif("--json", "analyse", pdb.pk, "zones", "--wait", home=tmp_path)
    assert p.returncode == 0, p.stderr
    body = json.loads(p.stdout)
    assert body["answer"]["survivesAll"] is False
    shown = whatif("analysis", body["id"], home=tmp_path)
    assert "a: does not survive; 0 running pods left pending; blocked by PDB: default/web-pdb" in shown.stdout


def test_it_refuses_bad_input_in_one_line(live_server, ci_user, tmp_path):
    logged_in(live_server, tmp_path)
    pdb = scenario_of(ci_user, PDB_BLOCKS, "pdb")
    assert_clean_error(whatif("analyse", pdb.pk, "drain", home=tmp_path), "drain needs at least one --node")
    assert_clean_error(whatif("analyse", pdb.pk, "weather", home=tmp_path), "invalid choice")
    from webapp.scenarios.models import Analysis

    analysis = Analysis.objects.create(scenario=pdb, revision=pdb.head(), kind="tuning", status="running").pk
    cancelled = whatif("cancel-analysis", analysis, home=tmp_path)
    assert cancelled.returncode == 0 and cancelled.stdout.startswith(f"Cancelled analysis {analysis}")
    assert_clean_error(whatif("cancel-analysis", analysis, home=tmp_path), "already finished")
