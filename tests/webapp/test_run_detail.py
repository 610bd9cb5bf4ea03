from datetime import timedelta

from django.test import override_settings
from django.utils import timezone

from webapp.scenarios.models import Run

from webapp.scenarios import engine

from .base import BaseTestCase
from .dumps import FOREIGN

RESULT = {
    "pods": [
        {"pod": "default/web-1", "outcome": "Scheduled", "node": "node-a"},
        {"pod": "default/web-2", "outcome": "Unschedulable", "node": None, "nominatedNode": None,
         "message": "0/1 nodes are available: 1 Insufficient cpu."},
    ],
    "evicted": ["default/old"],
}


class RunDetailTestCase(BaseTestCase):
    def make_run(self, **kwargs):
        return Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), **kwargs)

    def test_it_polls_while_the_run_is_queued(self):
        run = self.make_run()
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{run.pk}/")
        self.assertTemplateUsed(r, "front/run_detail.html")
        self.assertContains(r, 'hx-trigger="every 250ms"')  # just started: asked for four times a second

    def test_it_polls_once_a_second_for_a_run_that_has_gone_on_for_a_while(self):
        run = self.make_run(status="running")
        Run.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(seconds=11))
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{run.pk}/", headers={"HX-Request": "true"})
        self.assertContains(r, 'hx-trigger="every 1s"')

    @override_settings(RUN_POLL_FAST_MS=100, RUN_POLL_FAST_SECONDS=30)
    def test_the_fast_polling_interval_and_how_long_it_lasts_are_settings(self):
        run = self.make_run()
        Run.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(seconds=20))
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{run.pk}/", headers={"HX-Request": "true"})
        self.assertContains(r, 'hx-trigger="every 100ms"')

    def test_it_returns_only_the_fragment_for_htmx(self):
        run = self.make_run(status="running")
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{run.pk}/", headers={"HX-Request": "true"})
        self.assertTemplateUsed(r, "front/_run_result.html")
        self.assertNotContains(r, "<html")
        self.assertContains(r, "hx-trigger")

    def test_it_stops_polling_and_shows_the_result_once_finished(self):
        run = self.make_run(status="succeeded", result=RESULT)
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{run.pk}/", headers={"HX-Request": "true"})
        # No hx-trigger: htmx stops polling.
        self.assertNotContains(r, "hx-trigger")
        self.assertContains(r, "default/web-2")
        self.assertContains(r, "0/1 nodes are available: 1 Insufficient cpu.")
        self.assertContains(r, "default/old")  # evicted
        self.assertContains(r, "1 Unschedulable")

    def test_it_lists_another_schedulers_pods_apart_from_the_pending_ones(self):
        run = self.make_run(status="succeeded", result=engine.simulate(FOREIGN))
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{run.pk}/")
        self.assertContains(r, "Not kube-scheduler's pods")
        self.assertContains(r, "schedulerName &quot;volcano&quot; matches no profile")
        self.assertContains(r, "1 Scheduled")
        self.assertNotContains(r, "Unschedulable")

    def test_it_shows_a_failed_runs_error(self):
        run = self.make_run(status="failed", error="scenario.yaml: Pod default/p: spec.x: bad")
        self.client.force_login(self.viewer)
        self.assertContains(self.client.get(f"/runs/{run.pk}/"), "scenario.yaml: Pod default/p: spec.x: bad")

    def test_it_is_404_for_non_members(self):
        run = self.make_run()
        self.client.force_login(self.outsider)
        self.assertEqual(self.client.get(f"/runs/{run.pk}/").status_code, 404)
