from datetime import timedelta
from io import StringIO
from unittest import mock

from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from webapp.scenarios.models import Run
from webapp.scenarios.tasks import reap_stuck

from .base import BaseTestCase


@override_settings(RUN_TIME_LIMIT=60, RUN_QUEUED_RESEND_AFTER=600)
class SweepRunsTestCase(BaseTestCase):
    def make_run(self, **kwargs):
        return Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), **kwargs)

    def test_it_requeues_a_stuck_run_once_then_fails_it(self):
        long_ago = timezone.now() - timedelta(minutes=10)
        run = self.make_run(status="running", started_at=long_ago)
        with mock.patch("webapp.scenarios.tasks.enqueue") as enqueue:
            self.assertEqual(reap_stuck(), (1, 0, 0))
        enqueue.assert_called_once_with(run.pk)
        run.refresh_from_db()
        self.assertEqual((run.status, run.attempts), ("queued", 1))

        Run.objects.filter(pk=run.pk).update(status="running", started_at=long_ago)
        with mock.patch("webapp.scenarios.tasks.enqueue"):
            self.assertEqual(reap_stuck(), (0, 1, 0))
        run.refresh_from_db()
        self.assertEqual(run.status, "failed")
        self.assertIn("did not finish in time", run.error)

    def test_it_leaves_runs_within_the_limit_alone(self):
        run = self.make_run(status="running", started_at=timezone.now() - timedelta(seconds=30))
        with mock.patch("webapp.scenarios.tasks.enqueue") as enqueue:
            self.assertEqual(reap_stuck(), (0, 0, 0))
        enqueue.assert_not_called()
        self.assertEqual(Run.objects.get(pk=run.pk).status, "running")

    def test_it_resends_runs_queued_for_too_long(self):
        run = self.make_run(created_at=timezone.now() - timedelta(hours=1))
        self.make_run()  # fresh: still waiting its turn
        with mock.patch("webapp.scenarios.tasks.enqueue") as enqueue:
            self.assertEqual(reap_stuck(), (0, 0, 1))
        enqueue.assert_called_once_with(run.pk)

    def test_the_command_reports_counts(self):
        out = StringIO()
        with mock.patch("webapp.scenarios.tasks.enqueue"):
            call_command("reap_stuck_runs", stdout=out)
        self.assertEqual(out.getvalue().strip(), "0 re-queued, 0 failed, 0 resent")
