from unittest import mock

from webapp.scenarios.models import Revision, Run
from webapp.scenarios.tasks import INTERNAL_ERROR, execute_run

from .base import BAD_SKEW, BaseTestCase

RESULT = {"pods": [{"pod": "default/web-1", "outcome": "Scheduled", "node": "node-a"}], "evicted": []}


class ExecuteRunTestCase(BaseTestCase):
    def setUp(self):
        self.run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), params={"seed": 3})

    def test_it_stores_the_engine_result_and_timings(self):
        with mock.patch("webapp.scenarios.engine.simulate", return_value=RESULT) as simulate:
            execute_run(self.run.pk)
        self.run.refresh_from_db()
        self.assertEqual(self.run.status, "succeeded")
        self.assertEqual(self.run.result, RESULT)
        self.assertIsNotNone(self.run.started_at)
        self.assertIsNotNone(self.run.finished_at)
        self.assertEqual(simulate.call_args.kwargs["seed"], 3)

    def test_it_ignores_an_already_claimed_run(self):
        Run.objects.filter(pk=self.run.pk).update(status="running")
        with mock.patch("webapp.scenarios.engine.simulate") as simulate:
            execute_run(self.run.pk)
        simulate.assert_not_called()
        self.assertEqual(Run.objects.get(pk=self.run.pk).status, "running")

    def test_it_is_a_no_op_on_second_delivery(self):
        with mock.patch("webapp.scenarios.engine.simulate", return_value=RESULT) as simulate:
            execute_run(self.run.pk)
            execute_run(self.run.pk)
        # acks_late may deliver twice: the claim makes the second one harmless.
        self.assertEqual(simulate.call_count, 1)

    def test_it_records_a_crash_as_failed_without_the_traceback(self):
        with mock.patch("webapp.scenarios.engine.simulate", side_effect=RuntimeError("index out of range")):
            with self.assertLogs("webapp.scenarios.tasks", "ERROR"):
                execute_run(self.run.pk)
        self.run.refresh_from_db()
        self.assertEqual(self.run.status, "failed")
        self.assertEqual(self.run.error, INTERNAL_ERROR)

    def test_it_records_a_scenario_error_with_its_object_and_field(self):
        # Stored before validation existed, say: the engine refuses it at run time.
        bad = Revision.objects.create(scenario=self.scenario, number=2, manifests=BAD_SKEW)
        run = Run.objects.create(scenario=self.scenario, revision=bad)
        execute_run(run.pk)
        run.refresh_from_db()
        self.assertEqual(run.status, "failed")
        self.assertIn("Pod default/web-1", run.error)
        self.assertIn("maxSkew", run.error)
        self.assertIsNone(run.result)

    def test_it_does_not_overwrite_a_run_the_sweep_already_failed(self):
        def sweep_meanwhile(*args, **kwargs):
            Run.objects.filter(pk=self.run.pk).update(status="failed", error="swept")
            return RESULT

        with mock.patch("webapp.scenarios.engine.simulate", side_effect=sweep_meanwhile):
            execute_run(self.run.pk)
        self.assertEqual(Run.objects.get(pk=self.run.pk).error, "swept")
