"""A long run says where it is: the worker stores the engine's figures as it goes (loading, then cycles and pods
bound of those pending, then storing), the run page and the API show them, and a finished run drops them."""

from unittest import mock

from django.utils import timezone

from tests.bench.generate import generate, to_yaml
from webapp.scenarios import engine, tasks
from webapp.scenarios.models import Run

from .base import BaseTestCase


class RunProgressTests(BaseTestCase):
    def test_the_engine_tells_its_steps_in_order_with_its_own_figures(self):
        text = to_yaml(generate("60x600").objects)
        heard = []
        with mock.patch("scheduler_core.simulation.PROGRESS_SECONDS", 0):
            result = engine.simulate(text, progress=heard.append)
        steps = [h["step"] for h in heard]
        assert steps[0] == "loading" and steps[-1] == "storing"
        figures = [h for h in heard if "cycles" in h]
        assert len(figures) > 3  # told now and then, not once
        assert all(h["pending"] == figures[0]["pending"] for h in figures)
        assert [h["cycles"] for h in figures] == sorted(h["cycles"] for h in figures)
        assert figures[-1]["bound"] <= figures[0]["pending"] <= len(result["pods"])

    def test_the_run_page_and_the_api_show_a_running_runs_progress(self):
        run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), status=Run.Status.RUNNING,
                                 started_at=timezone.now(), created_by=self.owner)
        tasks.tell_progress(run.pk, {"step": "simulating", "cycles": 1200, "bound": 800, "pending": 2000})
        self.client.force_login(self.viewer)
        page = self.client.get(f"/runs/{run.pk}/").content.decode()
        assert '<progress max="2000" value="800" aria-label="Pods bound"></progress>' in page
        assert "Simulating: cycle 1200, 800 of 2000 pending pods bound so far" in page
        api = self.client.get(f"/api/runs/{run.pk}/").json()
        assert api["progress"] == {"step": "simulating", "cycles": 1200, "bound": 800, "pending": 2000}

    def test_a_finished_run_keeps_no_progress(self):
        run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner)
        with mock.patch("scheduler_core.simulation.PROGRESS_SECONDS", 0):
            tasks.execute_run(run.pk)
        run.refresh_from_db()
        assert (run.status, run.progress) == (Run.Status.SUCCEEDED, None)
        self.client.force_login(self.viewer)
        assert 'id="run-progress"' not in self.client.get(f"/runs/{run.pk}/").content.decode()

    def test_progress_is_not_written_over_a_finished_run(self):
        run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), status=Run.Status.SUCCEEDED,
                                 created_by=self.owner)
        tasks.tell_progress(run.pk, {"step": "storing"})
        run.refresh_from_db()
        assert run.progress is None
