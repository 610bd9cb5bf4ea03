"""Analyses on the real worker: parts run in parallel, the answer is combined once, a capacity answer is checked
by a stored run, progress is told, cancelling stops it, and bad input is refused naming the field. The clusters
are small enough to work out by hand (tests/core/test_analyses.py has the engine's side)."""

import time
from unittest import mock

import pytest

from tests.core.test_analyses import SPREAD_MIN5, node, pdb, pod
from webapp.scenarios import analyses, services
from webapp.scenarios.models import Analysis, AnalysisPart, Membership, Run, Team

from .base import make_user

pytestmark = pytest.mark.django_db(transaction=True)

MIN_DOMAINS = "".join([node("n-a", "a"), node("n-b", "b"), node("n-c", "c")]
                      + [pod(f"w{i}", cpu="100m", memory="100Mi", spread=SPREAD_MIN5) for i in range(5)])
PDB_BLOCKS = "".join([node("n-a", "a"), node("n-b", "b"), pod("web-1", node_name="n-a"),
                      pod("web-2", node_name="n-b"), pdb("web-pdb", 2)])


def setup(text, name="hand"):
    user = make_user(f"u-{name}", password="pw-pw-pw-1")
    team = Team.objects.create(name=f"t-{name}")
    Membership.objects.create(team=team, user=user, role="owner")
    return user, services.create_scenario(team=team, name=name, author=user, manifests=text)


def wait(analysis, timeout=90):
    deadline = time.monotonic() + timeout
    while True:
        analysis.refresh_from_db()
        if analysis.is_finished and (analysis.verifying_run is None or analysis.verifying_run.status in Run.FINISHED):
            return analysis
        assert time.monotonic() < deadline, f"analysis still {analysis.status}"
        time.sleep(0.2)
        if analysis.verifying_run is not None:
            analysis.verifying_run.refresh_from_db()


def test_capacity_adds_two_nodes_in_two_new_zones_checked_by_a_stored_run(celery_worker_proc):
    user, scenario = setup(MIN_DOMAINS)
    analysis = wait(analyses.start(scenario, scenario.head(), "capacity", {"extraZones": ["d", "e"]}, 3, user))
    assert analysis.status == "succeeded", analysis.error
    assert analysis.answer["sentence"] == "add 1 × m5.xlarge in d, 1 × m5.xlarge in e"
    parts = list(analysis.parts.all())
    assert len(parts) == len(analysis.answer["templates"]) + 1 and all(p.status == "succeeded" for p in parts)
    run = analysis.verifying_run
    assert (run.status, run.source) == ("succeeded", Run.Source.ANALYSIS)
    assert [p["pod"] for p in run.result["pods"] if p.get("node") is None] == []
    assert len(run.result["nodes"]) == 5  # the three, and the two added


def test_losing_each_zone_reports_the_pdb_that_blocked(celery_worker_proc):
    user, scenario = setup(PDB_BLOCKS, "pdb")
    analysis = wait(analyses.start(scenario, scenario.head(), "zones", {}, 0, user))
    assert analysis.status == "succeeded", analysis.error
    rows = {r["target"]: r for r in analysis.answer["rows"]}
    assert rows["a"]["sentence"] == "does not survive losing a: PDB web-pdb blocked 1 eviction"
    assert rows["a"]["blocked"] == [{"pod": "default/web-1", "pdbs": ["default/web-pdb"]}]
    assert analysis.answer["survivesAll"] is False
    assert analysis.verifying_run is None


def test_the_same_seed_gives_the_same_answer(celery_worker_proc):
    user, scenario = setup(PDB_BLOCKS, "seeded")
    first = wait(analyses.start(scenario, scenario.head(), "tuning", {}, 5, user))
    again = wait(analyses.start(scenario, scenario.head(), "tuning", {}, 5, user))
    assert first.answer == again.answer and len(first.answer["runs"]) == 3


@mock.patch("webapp.scenarios.tasks._send")  # the parts are run here, by hand, one at a time
def test_a_cancelled_analysis_starts_no_more_parts_and_combines_no_answer(sent):
    user, scenario = setup(PDB_BLOCKS, "cancel")
    analysis = analyses.start(scenario, scenario.head(), "tuning", {}, 0, user)
    from webapp.scenarios import tasks

    tasks.plan_analysis.run(analysis.pk)  # the plan, as a worker makes it: three parts, queued
    assert AnalysisPart.objects.filter(analysis=analysis, status="queued").count() == 3
    part = analysis.parts.first()
    tasks.run_analysis_part.run(part.pk)  # one part done
    assert analyses.progress(analysis) == {"done": 1, "total": 3}
    assert analyses.cancel(analysis)
    for p in analysis.parts.all()[1:]:
        tasks.run_analysis_part.run(p.pk)  # the workers pick the rest up: dropped
    analysis.refresh_from_db()
    assert analysis.status == "cancelled" and analysis.answer is None
    assert list(analysis.parts.values_list("status", flat=True)) == ["succeeded", "cancelled", "cancelled"]
    assert not analyses.cancel(analysis)  # once


@mock.patch("webapp.scenarios.tasks._send")
def test_a_bad_spec_fails_the_analysis_naming_the_field(sent):
    user, scenario = setup(PDB_BLOCKS, "bad")
    analysis = analyses.start(scenario, scenario.head(), "drain", {"nodes": ["n-x"]}, 0, user)
    from webapp.scenarios import tasks

    tasks.plan_analysis.run(analysis.pk)
    analysis.refresh_from_db()
    assert (analysis.status, analysis.error) == ("failed", "nodes: no node n-x in the scenario")
    with pytest.raises(analyses.AnalysisInvalid) as e:
        analyses.start(scenario, scenario.head(), "weather", {}, 0, user)
    assert e.value.field == "kind"
    assert Analysis.objects.count() == 1


def test_the_replicas_that_fit_are_checked_by_a_run_with_that_many_copies(celery_worker_proc):
    # one 4-core node running a 1-core pod: three more 1-core copies fit, a fourth does not
    text = node("n-a", "a") + pod("base", cpu="1", node_name="n-a", owner="")
    user, scenario = setup(text, "replicas")
    analysis = wait(analyses.start(scenario, scenario.head(), "replicas", {"pod": "default/base"}, 0, user))
    assert analysis.status == "succeeded", analysis.error
    assert analysis.answer["sentence"] == "3 more replica(s) of default/base fit"
    run = analysis.verifying_run
    copies = [p for p in run.result["pods"] if p["pod"].startswith("default/base-whatif-")]
    assert len(copies) == 3 and all(p["node"] == "n-a" for p in copies)


def test_the_page_takes_written_templates_and_refuses_bad_json_naming_the_field(client):
    user, scenario = setup(PDB_BLOCKS, "written")
    client.force_login(user)
    with mock.patch("webapp.scenarios.tasks._send"):
        bad = client.post(f"/scenarios/{scenario.pk}/answers/new/", {"kind": "capacity", "templates": "[{oops"})
        assert bad.status_code == 400
        assert "field <code>templates</code>: not JSON" in bad.content.decode()
        ok = client.post(f"/scenarios/{scenario.pk}/answers/new/", {"kind": "capacity", "templates": (
            '[{"name": "c6i", "zone": "b", "allocatable": {"cpu": "8", "memory": "16Gi"}}]')})
    analysis = Analysis.objects.get()
    assert ok["Location"] == f"/answers/{analysis.pk}/"
    assert analysis.spec["templates"][0]["name"] == "c6i"


def test_tuning_from_the_page_compares_strategies_with_and_without_weights(client):
    user, scenario = setup(PDB_BLOCKS, "tuned")
    client.force_login(user)
    with mock.patch("webapp.scenarios.tasks._send"):
        bad = client.post(f"/scenarios/{scenario.pk}/answers/new/", {"kind": "tuning", "weights": "PodTopologySpread"})
        assert bad.status_code == 400 and "field <code>weights</code>" in bad.content.decode()
        client.post(f"/scenarios/{scenario.pk}/answers/new/", {
            "kind": "tuning", "strategy-MostAllocated": "1", "weights": "PodTopologySpread=5", "disabled": "ImageLocality"})
    from webapp.scenarios import tasks

    analysis = Analysis.objects.get()
    with mock.patch("webapp.scenarios.tasks._send"):
        tasks.plan_analysis.run(analysis.pk)
        for part in analysis.parts.all():
            tasks.run_analysis_part.run(part.pk)
    analysis.refresh_from_db()
    assert [r["candidate"]["name"] for r in analysis.answer["runs"]] == ["MostAllocated", "MostAllocated (tuned)"]
    page = client.get(f"/answers/{analysis.pk}/").content.decode()
    assert 'id="tuning-table"' in page and "<svg" in page and "MostAllocated (tuned)" in page
