"""Sweeps: grid cells as runs, the outcome table, the API, and a sweep executed by a real worker."""

import importlib
import time
from unittest import mock

import pytest

from django.apps import apps as django_apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from webapp.scenarios import engine, services, sweeps, tasks
from webapp.scenarios.models import Membership, Run, Sweep, Team

from .base import BaseTestCase, make_user
from .test_compare import MIN_DOMAINS, RS


class SweepTestCase(BaseTestCase):
    def setUp(self):
        self.scenario = services.create_scenario(team=self.team, name="md", manifests=MIN_DOMAINS, author=self.owner)

    def start(self, spec):
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async") as send:
            with self.captureOnCommitCallbacks(execute=True):
                sweep = sweeps.start(self.scenario, self.scenario.head(), spec, self.editor)
        self.assertEqual(send.call_count, sweep.runs.count())
        return sweep

    def test_a_skew_grid_is_one_run_per_cell_with_its_outcome(self):
        sweep = self.start({"type": "skew", "workload": RS, "maxSkew": [1, 2, 4], "minDomains": ["none", "5"]})
        self.assertEqual(sweep.runs.count(), 6)
        for run in sweep.runs.all():
            tasks.execute_run(run.pk)
        rows = {row["label"]: row for row in sweeps.table(sweep)}
        self.assertEqual(rows["maxSkew=2 minDomains=5"]["pending"], 4)
        self.assertEqual(rows["maxSkew=2 minDomains=-"]["pending"], 0)
        self.assertEqual(rows["maxSkew=4 minDomains=5"]["pending"], 0)
        self.assertEqual(rows["maxSkew=1 minDomains=5"]["scheduled"], 3)
        self.assertIn(1, rows["maxSkew=4 minDomains=-"]["skew"].values())
        # 3 zones, fewer than minDomains: kube-scheduler's global minimum is 0, so the skew is the largest count
        self.assertIn(4, rows["maxSkew=4 minDomains=5"]["skew"].values())
        self.assertTrue(sweeps.finished(sweep))

    def test_the_table_reads_each_cells_row_kept_by_the_worker_not_its_text_or_result(self):
        sweep = self.start({"type": "skew", "workload": RS, "maxSkew": [1, 2], "minDomains": ["5"]})
        for run in sweep.runs.all():
            tasks.execute_run(run.pk)
        kept = Run.objects.get(sweep=sweep, label="maxSkew=2 minDomains=5").summary
        self.assertEqual((kept["scheduled"], kept["pending"]), (6, 4))
        with CaptureQueriesContext(connection) as queries, \
                mock.patch.object(engine, "pod_metadata", side_effect=AssertionError("read a cell's text")):
            rows = {row["label"]: row for row in sweeps.table(sweep)}
        self.assertEqual((rows["maxSkew=2 minDomains=5"]["scheduled"], rows["maxSkew=2 minDomains=5"]["pending"]), (6, 4))
        self.assertEqual(rows["maxSkew=2 minDomains=5"]["skew"], kept["skew"])
        heavy = [q["sql"] for q in queries.captured_queries
                 if '"scenarios_run"."result"' in q["sql"] or '"scenarios_run"."manifests"' in q["sql"]]
        self.assertEqual(heavy, [])

    def test_the_data_migration_gives_a_cell_run_before_rows_were_kept_its_row(self):
        sweep = self.start({"type": "skew", "workload": RS, "maxSkew": [2], "minDomains": ["5"]})
        run = sweep.runs.get()
        tasks.execute_run(run.pk)
        kept = Run.objects.get(pk=run.pk).summary
        Run.objects.filter(pk=run.pk).update(summary=None)
        importlib.import_module("webapp.scenarios.migrations.0006_fill_summaries").fill(django_apps, None)
        row = sweeps.table(sweep)[0]
        self.assertEqual((row["scheduled"], row["pending"], row["skew"]), (kept["scheduled"], kept["pending"], kept["skew"]))
        self.assertEqual(Run.objects.get(pk=run.pk).summary, kept)

    def test_a_zone_sweep_removes_each_zone_in_turn(self):
        sweep = self.start({"type": "zones"})
        labels = list(sweep.runs.order_by("id").values_list("label", flat=True))
        self.assertEqual(labels, [f"without topology.kubernetes.io/zone=eu-west-1{z}" for z in "abc"])
        run = sweep.runs.order_by("id").first()
        self.assertNotIn("name: node-a\n", run.manifests)

    def test_the_request_writes_the_first_cells_text_and_each_worker_its_own(self):
        sweep = self.start({"type": "zones"})
        first, *rest = sweep.runs.order_by("id")
        self.assertNotIn("name: node-a\n", first.manifests)
        self.assertEqual([(r.manifests, r.awaits_text) for r in rest], [("", True), ("", True)])
        for run in rest:
            tasks.execute_run(run.pk)
        for run, zone in zip(Run.objects.filter(pk__in=[r.pk for r in rest]).order_by("id"), "bc"):
            self.assertEqual(run.status, Run.Status.SUCCEEDED, run.error)
            self.assertFalse(run.awaits_text)
            self.assertNotIn(f"topology.kubernetes.io/zone: eu-west-1{zone}\n", run.manifests)
            self.assertIn("topology.kubernetes.io/zone: eu-west-1a\n", run.manifests)
            self.assertEqual(run.scenario_text()[0], run.manifests)

    def test_a_cell_whose_edits_do_not_apply_on_its_worker_fails_naming_the_object(self):
        sweep = self.start({"type": "skew", "workload": RS, "maxSkew": [1, 2]})
        cell = sweep.runs.order_by("id").last()
        Run.objects.filter(pk=cell.pk).update(edits=[{"op": "set_spread", "workload": "ReplicaSet/gone",
                                                      "maxSkew": 2}])
        tasks.execute_run(cell.pk)
        cell.refresh_from_db()
        self.assertEqual(cell.status, Run.Status.FAILED)
        self.assertIn("ReplicaSet/default/gone", cell.error)
        self.assertTrue(cell.error.startswith("The cell's edits do not apply"), cell.error)
        self.assertEqual(cell.manifests, "")
        self.client.force_login(self.viewer)
        self.assertContains(self.client.get(f"/runs/{cell.pk}/"), "The cell&#x27;s edits do not apply")

    def test_every_value_of_an_axis_is_checked_before_the_sweep_starts(self):
        for spec, field in (({"maxSkew": [1, 0]}, "maxSkew"), ({"maxSkew": [1], "minDomains": "none,-1"}, "minDomains")):
            with self.assertRaises(sweeps.SweepInvalid) as e:
                sweeps.start(self.scenario, self.scenario.head(), {"type": "skew", "workload": RS, **spec}, self.editor)
            self.assertEqual(e.exception.field, field)
            self.assertIn("must be greater than zero", str(e.exception))
        self.assertFalse(Sweep.objects.exists())

    def test_an_axis_may_be_a_range(self):
        cells = sweeps.cells(self.scenario.head(), {"type": "skew", "workload": RS, "maxSkew": "1..4",
                                                    "minDomains": "none, 5..6"})
        self.assertEqual(len(cells), 12)
        self.assertEqual(cells[-1][0], "maxSkew=4 minDomains=6")
        for bad in ("4..1", "1..x", "1..99"):
            with self.assertRaises(sweeps.SweepInvalid) as e:
                sweeps.cells(self.scenario.head(), {"type": "skew", "workload": RS, "maxSkew": bad})
            self.assertEqual((e.exception.object, e.exception.field), ("sweep", "maxSkew"))

    def test_the_grid_is_bounded(self):
        with self.assertRaises(sweeps.SweepInvalid) as e:
            sweeps.start(self.scenario, self.scenario.head(),
                         {"type": "skew", "workload": RS, "maxSkew": list(range(1, 8)), "minDomains": list(range(1, 9))},
                         self.editor)
        self.assertIn("56 cells; at most 48", str(e.exception))
        self.assertFalse(Sweep.objects.exists())

    def test_the_api_starts_with_202_and_reports_cells(self):
        api = self.api(self.editor)
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            r = api.post(f"/api/scenarios/{self.scenario.pk}/sweeps/",
                         {"type": "skew", "workload": RS, "maxSkew": [1, 3]}, format="json")
        self.assertEqual(r.status_code, 202)
        self.assertEqual(len(r.data["cells"]), 2)
        self.assertFalse(r.data["finished"])
        for run in Run.objects.filter(sweep_id=r.data["id"]):
            tasks.execute_run(run.pk)
        r = api.get(f"/api/sweeps/{r.data['id']}/")
        self.assertTrue(r.data["finished"])
        self.assertEqual([c["pending"] for c in r.data["cells"]], [7, 1])

    def test_the_api_explains_a_bad_grid(self):
        api = self.api(self.editor)
        r = api.post(f"/api/scenarios/{self.scenario.pk}/sweeps/",
                     {"type": "skew", "workload": RS, "maxSkew": list(range(1, 50))}, format="json")
        self.assertEqual((r.status_code, r.data["field"]), (400, "cells"))
        self.assertIn("at most 48", r.data["detail"])
        r = api.post(f"/api/scenarios/{self.scenario.pk}/sweeps/", {"type": "skew", "workload": "ReplicaSet/x",
                                                                     "maxSkew": [1]}, format="json")
        self.assertEqual((r.status_code, r.data["object"]), (400, "ReplicaSet/default/x"))
        self.assertEqual(self.api(self.viewer).post(f"/api/scenarios/{self.scenario.pk}/sweeps/",
                                                    {"type": "zones"}, format="json").status_code, 403)

    def test_the_page_shows_the_table(self):
        self.client.force_login(self.editor)
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            r = self.client.post(f"/scenarios/{self.scenario.pk}/sweeps/new/",
                                 {"type": "skew", "workload": RS, "maxSkew": "2", "minDomains": "5"})
        sweep = Sweep.objects.get()
        self.assertRedirects(r, f"/sweeps/{sweep.pk}/")
        r = self.client.get(f"/sweeps/{sweep.pk}/")
        self.assertContains(r, 'hx-trigger="every 1s"')
        tasks.execute_run(sweep.runs.get().pk)
        r = self.client.get(f"/sweeps/{sweep.pk}/")
        self.assertContains(r, "All 1 cells finished")
        self.assertContains(r, "maxSkew=2 minDomains=5")
        r = self.client.post(f"/scenarios/{self.scenario.pk}/sweeps/new/", {"type": "skew", "workload": RS, "maxSkew": "a"})
        self.assertContains(r, "maxSkew: &#x27;a&#x27; is not a whole number")

    def test_it_polls_with_the_table_fragment_until_every_cell_finishes(self):
        sweep = self.start({"type": "zones"})
        self.client.force_login(self.viewer)
        r = self.client.get(f"/sweeps/{sweep.pk}/", headers={"HX-Request": "true"})
        self.assertNotContains(r, "<html")
        self.assertContains(r, 'hx-trigger="every 1s"')
        self.assertContains(r, "Running… 3 cells.")
        for run in sweep.runs.all():
            tasks.execute_run(run.pk)
        r = self.client.get(f"/sweeps/{sweep.pk}/", headers={"HX-Request": "true"})
        self.assertNotContains(r, "hx-trigger")
        self.assertContains(r, "All 3 cells finished.")
        for run in sweep.runs.all():  # each cell links to its run
            self.assertContains(r, f'href="/runs/{run.pk}/"')


@pytest.mark.django_db(transaction=True)
def test_a_sweep_runs_on_the_real_worker(celery_worker_proc):
    team = Team.objects.create(name="sweepers")
    user = make_user("sweeper")
    Membership.objects.create(team=team, user=user, role="editor")
    scenario = services.create_scenario(team=team, name="md", manifests=MIN_DOMAINS, author=user)
    sweep = sweeps.start(scenario, scenario.head(), {"type": "zones"}, user)
    deadline = time.monotonic() + 60
    while not sweeps.finished(sweep) and time.monotonic() < deadline:
        time.sleep(0.2)
    rows = sweeps.table(sweep)
    assert [r["status"] for r in rows] == ["succeeded"] * 3
    # Two zones left, the global minimum still forced to 0: 2 pods per zone run.
    assert [r["scheduled"] for r in rows] == [4, 4, 4]
