import gzip
import json
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import override_settings
from django.utils import timezone

from webapp.scenarios import tasks
from webapp.scenarios.models import Run, Sweep

from .base import TWO_PODS, BaseTestCase


class RunCreateTestCase(BaseTestCase):
    def test_it_answers_202_with_the_run_url(self):
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async") as send:
            with self.captureOnCommitCallbacks(execute=True):
                r = self.api(self.editor).post(self.url("runs/"), {"seed": 7}, format="json")
        self.assertEqual(r.status_code, 202, r.content)
        run = Run.objects.get()
        self.assertEqual(r["Location"], f"http://testserver/api/runs/{run.pk}/")
        self.assertEqual(r.json()["url"], r["Location"])
        self.assertEqual((run.status, run.revision.number, run.params["seed"]), ("queued", 1, 7))
        # The worker gets the id only, after the row is committed.
        self.assertEqual(send.call_args.args[0], (run.pk,))

    def test_it_does_not_queue_before_commit(self):
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async") as send:
            with self.captureOnCommitCallbacks(execute=False) as callbacks:
                self.api(self.editor).post(self.url("runs/"), {}, format="json")
            send.assert_not_called()
        self.assertEqual(len(callbacks), 1)

    def test_it_runs_an_old_revision_on_request(self):
        from webapp.scenarios import services

        services.save_revision(self.scenario, manifests=TWO_PODS, author=self.editor, base=1)
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            r = self.api(self.editor).post(self.url("runs/"), {"revision": 1}, format="json")
        self.assertEqual(r.json()["revision"], 1)
        self.assertEqual(self.api(self.editor).post(self.url("runs/"), {"revision": 5}, format="json").status_code, 404)

    def test_it_refuses_a_viewer_and_hides_from_outsiders(self):
        self.assertEqual(self.api(self.viewer).post(self.url("runs/"), {}, format="json").status_code, 403)
        self.assertEqual(self.api(self.outsider).post(self.url("runs/"), {}, format="json").status_code, 404)
        self.assertFalse(Run.objects.exists())

    def test_it_validates_the_seed(self):
        r = self.api(self.editor).post(self.url("runs/"), {"seed": -1}, format="json")
        self.assertEqual(r.status_code, 400)
        self.assertIn("seed", r.json())


class RunDetailTestCase(BaseTestCase):
    def setUp(self):
        self.run = Run.objects.create(
            scenario=self.scenario, revision=self.scenario.head(), status="succeeded",
            result={"pods": [{"pod": "default/web-1", "outcome": "Scheduled", "node": "node-a"}], "evicted": []},
        )

    def test_it_shows_status_and_result(self):
        r = self.api(self.viewer).get(f"/api/runs/{self.run.pk}/")
        self.assertEqual(r.status_code, 200)
        self.assertEqual(r.json()["status"], "succeeded")
        self.assertEqual(r.json()["result"]["pods"][0]["node"], "node-a")

    def test_it_sends_the_stored_result_with_every_field_of_the_run(self):
        from webapp.api.serializers import RunSerializer

        Run.objects.filter(pk=self.run.pk).update(label="zürich — ünïcode", result={
            "pods": [{"pod": "default/web-1", "message": "0/1 nodes: \"quoted\" \u2014 dash"}], "n": [1, 2.5, None]})
        r = self.api(self.viewer).get(f"/api/runs/{self.run.pk}/")
        self.assertEqual((r.status_code, r["Content-Type"]), (200, "application/json"))
        expected = RunSerializer(Run.objects.get(pk=self.run.pk), context={"request": r.wsgi_request}).data
        self.assertEqual(r.json(), dict(expected))
        self.assertEqual(r.json()["result"]["pods"][0]["message"], '0/1 nodes: "quoted" \u2014 dash')

    def test_a_run_without_a_result_answers_null(self):
        Run.objects.filter(pk=self.run.pk).update(status="queued", result=None)
        r = self.api(self.viewer).get(f"/api/runs/{self.run.pk}/")
        self.assertEqual((r.json()["status"], r.json()["result"]), ("queued", None))

    def test_the_browsable_api_shows_the_run_with_its_result(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/api/runs/{self.run.pk}/", HTTP_ACCEPT="text/html")
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "node-a")

    def test_it_lists_per_pod_results(self):
        r = self.api(self.viewer).get(f"/api/runs/{self.run.pk}/pods/")
        self.assertEqual(r.json()["pods"], [{"pod": "default/web-1", "outcome": "Scheduled", "node": "node-a"}])

    def test_it_lists_the_scenarios_runs(self):
        rows = self.api(self.viewer).get(self.url("runs/")).json()["results"]
        self.assertEqual([row["id"] for row in rows], [self.run.pk])
        self.assertNotIn("result", rows[0])

    def test_it_hides_runs_from_non_members(self):
        self.assertEqual(self.api(self.outsider).get(f"/api/runs/{self.run.pk}/").status_code, 404)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the worker keeps deflated results on PostgreSQL")
@override_settings(RESULT_DEFLATE_MIN_BYTES=0)  # (every result counts as large)
class DeflatedRunDetailTestCase(BaseTestCase):
    """A large result is kept deflated by the worker once stored, and a client that accepts gzip gets it as kept,
    in one gzip member with the run's fields as they are now: the same JSON as without gzip."""

    def setUp(self):
        self.run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner)
        tasks.execute_run(self.run.pk)

    def get(self, **headers):
        return self.api(self.viewer).get(f"/api/runs/{self.run.pk}/", **headers)

    def test_a_client_that_accepts_gzip_gets_the_kept_result_with_the_runs_fields(self):
        Run.objects.filter(pk=self.run.pk).update(label="zürich — after it finished")
        plain, zipped = self.get(), self.get(HTTP_ACCEPT_ENCODING="gzip, deflate")
        self.assertEqual((zipped.status_code, zipped["Content-Encoding"]), (200, "gzip"))
        self.assertIn("Accept-Encoding", zipped["Vary"])
        self.assertFalse(plain.has_header("Content-Encoding"))
        self.assertEqual(json.loads(gzip.decompress(zipped.content)), plain.json())
        self.assertEqual(plain.json()["label"], "zürich — after it finished")
        self.assertEqual(plain.json()["result"], Run.objects.get(pk=self.run.pk).result)
        self.assertTrue(plain.json()["result"]["pods"])

    def test_a_run_finished_again_is_not_sent_from_what_was_kept_before(self):
        again = {**Run.objects.get(pk=self.run.pk).result, "pods": []}
        Run.objects.filter(pk=self.run.pk).update(result=again, finished_at=timezone.now())
        zipped = self.get(HTTP_ACCEPT_ENCODING="gzip")
        self.assertFalse(zipped.has_header("Content-Encoding"))
        self.assertEqual(zipped.json()["result"]["pods"], [])

    def test_a_shared_run_is_sent_as_kept_too(self):
        from rest_framework.test import APIClient

        from webapp.scenarios import services

        _, token = services.create_share_link(self.scenario, self.owner)
        url = f"/api/shared/{token}/runs/{self.run.pk}/"
        plain, zipped = APIClient().get(url), APIClient().get(url, HTTP_ACCEPT_ENCODING="gzip")
        self.assertEqual((zipped.status_code, zipped["Content-Encoding"]), (200, "gzip"))
        self.assertEqual(json.loads(gzip.decompress(zipped.content)), plain.json())
        self.assertEqual(plain.json()["result"], Run.objects.get(pk=self.run.pk).result)
        self.assertTrue(plain.json()["url"].endswith(url))

    def test_a_sweep_cells_result_is_not_kept_deflated(self):
        sweep = Sweep.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner)
        run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner,
                                 sweep=sweep)
        tasks.execute_run(run.pk)
        zipped = self.api(self.viewer).get(f"/api/runs/{run.pk}/", HTTP_ACCEPT_ENCODING="gzip")
        self.assertEqual((zipped.status_code, zipped.has_header("Content-Encoding")), (200, False))
        self.assertTrue(zipped.json()["result"]["pods"])

    def test_a_small_result_is_not_kept_deflated(self):
        with override_settings(RESULT_DEFLATE_MIN_BYTES=10**9):
            run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner)
            tasks.execute_run(run.pk)
        zipped = self.api(self.viewer).get(f"/api/runs/{run.pk}/", HTTP_ACCEPT_ENCODING="gzip")
        self.assertEqual((zipped.status_code, zipped.has_header("Content-Encoding")), (200, False))
        self.assertTrue(zipped.json()["result"]["pods"])
