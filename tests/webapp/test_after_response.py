"""What a quick edit's request leaves for after its response (keeping the draft's documents on disk, collecting the
caches' garbage) waits while the run it queued simulates, and goes on once the runs panel has shown that run's
counts: done at once, it took the core the simulation shares and kept the panel's answer waiting.

A TransactionTestCase: the work waits in a thread of its own, which reads the run on a connection of its own.
"""

import threading
from unittest import mock

from django.test import Client, TransactionTestCase, override_settings

from webapp.scenarios import after_response
from webapp.scenarios.models import Draft, Run

from .base import owner_and_small_scenario

SETTLED = 10  # seconds a test waits at most for the waiting thread to do what it should


class HeldWorkTests(TransactionTestCase):
    def setUp(self):
        self.owner, self.scenario = owner_and_small_scenario()
        self.run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner,
                                      source=Run.Source.DRAFT, manifests=self.scenario.head().manifests,
                                      label="draft", status=Run.Status.RUNNING)
        self.done = []
        self.addCleanup(after_response.end_of_request, None)

    def work(self, name):
        finished = threading.Event()

        def do():
            self.done.append(name)
            finished.set()
        return do, finished

    def leave(self, name, run=None):
        """Leave work as a request that queued ``run`` does (None: one that queued none), then end the request."""
        after_response._started(None)
        if run is not None:
            after_response.hold_for(run.pk)
        do, finished = self.work(name)
        after_response.later(do)
        after_response.end_of_request(None)
        return finished

    def counts_stored(self):
        Run.objects.filter(pk=self.run.pk).update(progress={"step": "storing"}, summary={  # (as tasks._counts_first)
            "pods": 1, "scheduled": 1, "pending": 0, "running_before": 0, "evicted": 0, "skew": {}})

    def test_work_of_a_request_that_queued_no_run_is_done_before_the_request_ends(self):
        self.leave("no run")
        self.assertEqual(self.done, ["no run"])

    def test_work_a_view_leaves_for_after_its_response_is_done_once_the_request_ends(self):
        after_response._started(None)
        do, _ = self.work("after")
        after_response.after_this_response(do)
        self.assertEqual(self.done, [])  # (the response is not sent yet)
        after_response.end_of_request(None)
        self.assertEqual(self.done, ["after"])
        after_response.after_this_response(self.work("outside a request")[0])  # (a worker's call: at once)
        self.assertEqual(self.done, ["after", "outside a request"])

    @mock.patch.object(after_response, "SHOWN_WAIT_SECONDS", 60)
    def test_work_a_view_leaves_waits_behind_work_held_for_a_run(self):
        held = self.leave("held", self.run)
        after_response._started(None)
        do, finished = self.work("after")
        after_response.after_this_response(do)
        after_response.end_of_request(None)
        self.assertFalse(finished.wait(0.3))  # (queued behind the held work: the run simulates)
        after_response.shown(self.run.pk)
        self.assertTrue(held.wait(SETTLED) and finished.wait(SETTLED))
        self.assertEqual(self.done, ["held", "after"])

    @mock.patch.object(after_response, "SHOWN_WAIT_SECONDS", 60)  # (only the page lets it go on)
    def test_held_work_waits_for_the_runs_counts_on_the_page(self):
        finished = self.leave("held", self.run)
        self.assertFalse(finished.wait(0.3))  # (the run simulates: nothing is done)
        self.counts_stored()
        self.assertFalse(finished.wait(0.3))  # (stored, not yet on the page)
        after_response.shown(self.run.pk)
        self.assertTrue(finished.wait(SETTLED))
        self.assertEqual(self.done, ["held"])

    @mock.patch.object(after_response, "SHOWN_WAIT_SECONDS", 0.2)
    def test_held_work_goes_on_a_moment_after_the_counts_when_no_page_of_this_process_shows_them(self):
        finished = self.leave("held", self.run)
        self.counts_stored()
        self.assertTrue(finished.wait(SETTLED))

    def test_held_work_goes_on_when_the_run_is_gone_or_failed(self):
        finished = self.leave("held", self.run)
        Run.objects.filter(pk=self.run.pk).delete()
        self.assertTrue(finished.wait(SETTLED))
        failed = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner,
                                    source=Run.Source.DRAFT, manifests="x", label="draft", status=Run.Status.FAILED)
        self.assertTrue(self.leave("failed", failed).wait(SETTLED))

    @override_settings(AFTER_RESPONSE_HOLD_SECONDS=0)
    def test_no_work_is_held_when_holding_is_turned_off(self):
        self.leave("not held", self.run)
        self.assertEqual(self.done, ["not held"])

    def test_work_left_while_held_work_waits_is_done_after_it_in_order(self):
        held = self.leave("held", self.run)
        after = self.leave("a later request's", None)
        self.assertFalse(after.wait(0.3))
        self.assertEqual(self.done, [])
        after_response.shown(self.run.pk)
        self.assertTrue(after.wait(SETTLED) and held.is_set())
        self.assertEqual(self.done, ["held", "a later request's"])

    @mock.patch.object(after_response, "SHOWN_WAIT_SECONDS", 60)  # (only the page lets it go on)
    def test_the_runs_panel_showing_the_draft_runs_counts_lets_the_held_work_go_on(self):
        Draft.objects.create(scenario=self.scenario, author=self.owner, base_revision=self.scenario.head(),
                                     manifests=self.scenario.head().manifests)
        Run.objects.filter(pk=self.run.pk).update(created_by=self.owner)
        finished = self.leave("held", self.run)
        client = Client()
        client.force_login(self.owner)
        panel = client.get(f"/scenarios/{self.scenario.pk}/draft/runs/", headers={"HX-Request": "true"})
        self.assertNotContains(panel, f'<p class="counts" data-run="{self.run.pk}">')
        self.assertFalse(finished.wait(0.3))  # (the panel showed the run without its counts)
        self.counts_stored()
        panel = client.get(f"/scenarios/{self.scenario.pk}/draft/runs/", headers={"HX-Request": "true"})
        self.assertContains(panel, f'<p class="counts" data-run="{self.run.pk}">')
        self.assertTrue(finished.wait(SETTLED))
        self.assertEqual(self.done, ["held"])
