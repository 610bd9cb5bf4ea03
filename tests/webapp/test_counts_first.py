"""The worker stores a succeeded run's counts and its page's rows before its result: the draft editor's runs panel
shows the engine's counts and what changed while the result is still being written (for a 5,000-node run that
write is most of the store), and the run's own pages wait for the result as for any running run."""

import re
from unittest import mock

from webapp.scenarios import services, tasks
from webapp.scenarios.models import Run, RunPage

from .base import TWO_PODS, BaseTestCase


class CountsFirstTests(BaseTestCase):
    def setUp(self):
        self.client.force_login(self.editor)
        self.scenario = services.create_scenario(team=self.team, name="Two web pods", manifests=TWO_PODS,
                                                 author=self.owner)
        self.base = f"/scenarios/{self.scenario.pk}/draft/"
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            with self.captureOnCommitCallbacks(execute=True):
                self.client.post(self.base + "edit/", {"op": "add_gate", "workload": "app=web", "name": "hold"})
        self.saved, = Run.objects.filter(scenario=self.scenario, label="")
        self.draft, = Run.objects.filter(scenario=self.scenario, label="draft")
        tasks.execute_run(self.saved.pk)

    def seen_while_the_result_is_written(self):
        """What the panel, the run page and the API show of the draft's run at the moment its worker starts
        writing its result (after the counts were stored)."""
        seen = {}
        finish = tasks._finish

        def look_then_finish(run_id, page, **outcome):
            hx = {"HX-Request": "true"}
            seen["panel"] = self.client.get(self.base + "runs/", headers=hx).content.decode()
            seen["run page"] = self.client.get(f"/runs/{run_id}/").content.decode()
            seen["api"] = self.client.get(f"/api/runs/{run_id}/").json()
            return finish(run_id, page, **outcome)

        with mock.patch.object(tasks, "_finish", look_then_finish):
            tasks.execute_run(self.draft.pk)
        return seen

    def test_the_runs_panel_shows_the_counts_and_the_changes_before_the_result_is_stored(self):
        seen = self.seen_while_the_result_is_written()
        panel = seen["panel"]
        self.assertRegex(panel, rf'<p class="counts" data-run="{self.draft.pk}"><span class="big ok-text">0</span>'
                                r' scheduled ·\s+<span class="big bad-text">2</span> pending')
        self.assertIn("storing the full result", panel)
        self.assertIn("<strong>2</strong> newly pending", panel)
        self.assertIn('<td data-label="Draft">pending</td>', panel)
        self.assertIn('hx-trigger="load, every 250ms"', panel)  # (asked for again until the run is finished)
        # the run itself is still running: its page says it is storing, and the API has no result yet
        self.assertIn("Simulated; storing the result", seen["run page"])
        self.assertEqual((seen["api"]["status"], seen["api"]["result"]), ("running", None))

    def test_once_the_result_is_stored_the_panel_shows_the_same_counts_and_stops_asking(self):
        seen = self.seen_while_the_result_is_written()
        run = Run.objects.get(pk=self.draft.pk)
        self.assertEqual((run.status, run.progress), (Run.Status.SUCCEEDED, None))
        self.assertEqual((run.summary["scheduled"], run.summary["pending"]), (0, 2))
        panel = self.client.get(self.base + "runs/", headers={"HX-Request": "true"}).content.decode()
        counts = r'<p class="counts" data-run="\d+"><span[^>]*>(\d+)</span> scheduled ·\s+<span[^>]*>(\d+)</span>'
        self.assertRegex(seen["panel"], counts)
        self.assertEqual(re.findall(counts, panel), re.findall(counts, seen["panel"]))
        self.assertNotIn("storing the full result", panel)
        self.assertNotIn("hx-trigger", panel)
        self.assertIn("<strong>2</strong> newly pending", panel)
        # the page's other rows are stored with the result: the run page lists the pods from them
        self.assertEqual(RunPage.objects.filter(run_id=run.pk).count(), 1)
        self.assertIn("rows", RunPage.objects.get(run_id=run.pk).data)
        page = self.client.get(f"/runs/{run.pk}/").content.decode()
        self.assertIn("default/web-1", page)
        self.assertNotIn("storing the result", page)

    def test_a_run_that_fails_shows_no_counts(self):
        with mock.patch("webapp.scenarios.engine.simulate_cached", side_effect=RuntimeError("boom")), \
                mock.patch("webapp.scenarios.engine.simulate", side_effect=RuntimeError("boom")):
            tasks.execute_run(self.draft.pk)
        run = Run.objects.get(pk=self.draft.pk)
        self.assertEqual((run.status, run.summary), (Run.Status.FAILED, None))
        panel = self.client.get(self.base + "runs/", headers={"HX-Request": "true"}).content.decode()
        self.assertNotIn(f'data-run="{run.pk}"', panel)
        self.assertIn(tasks.INTERNAL_ERROR, panel)
