"""Every run says what it simulates (a revision, a draft, a sweep cell), and all are queued one way."""

import importlib
from unittest import mock

from django.apps import apps as django_apps

from webapp.scenarios import services, sweeps
from webapp.scenarios.models import Run

from .base import BaseTestCase
from .test_compare import MIN_DOMAINS, RS

queued = mock.patch("webapp.scenarios.tasks.execute_run.apply_async")


class RunSourceTests(BaseTestCase):
    def queue(self, api, path, body=None):
        with queued as send, self.captureOnCommitCallbacks(execute=True):
            r = api.post(self.url(path), body or {}, format="json")
        self.assertEqual(r.status_code, 202, r.data)
        send.assert_called_once()
        return r.data

    def test_the_api_names_each_runs_source(self):
        api = self.api(self.editor)
        revision_run = self.queue(api, "runs/")
        api.post(self.url("draft/edits/"), {"op": "cordon", "node": "node-a"}, format="json")
        draft_run = self.queue(api, "draft/run/")
        self.assertEqual((revision_run["source"], revision_run["label"]), ("revision", ""))
        self.assertEqual((draft_run["source"], draft_run["label"]), ("draft", "draft"))
        listed = {r["id"]: r["source"] for r in api.get(self.url("runs/")).data["results"]}
        self.assertEqual(listed, {revision_run["id"]: "revision", draft_run["id"]: "draft"})

    def test_a_sweeps_cells_are_sweep_cell_runs(self):
        scenario = services.create_scenario(team=self.team, name="md", manifests=MIN_DOMAINS, author=self.owner)
        with queued as send, self.captureOnCommitCallbacks(execute=True):
            sweep = sweeps.start(scenario, scenario.head(), {"type": "skew", "workload": RS, "maxSkew": [1, 2]},
                                 self.editor)
        self.assertEqual(send.call_count, 2)
        self.assertEqual(set(sweep.runs.values_list("source", flat=True)), {"sweep_cell"})
        r = self.api(self.editor).get(f"/api/runs/{sweep.runs.first().pk}/")
        self.assertEqual(r.json()["source"], "sweep_cell")

    def test_the_data_migration_names_the_source_of_runs_queued_before_it(self):
        api = self.api(self.editor)
        api.post(self.url("draft/edits/"), {"op": "cordon", "node": "node-a"}, format="json")
        ids = [self.queue(api, "runs/")["id"], self.queue(api, "draft/run/")["id"]]
        Run.objects.update(source="revision")
        importlib.import_module("webapp.scenarios.migrations.0007_run_source").sources(django_apps, None)
        self.assertEqual([Run.objects.get(pk=i).source for i in ids], ["revision", "draft"])
