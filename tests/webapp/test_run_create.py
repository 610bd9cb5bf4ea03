from unittest import mock

from webapp.scenarios.models import Run

from .base import BaseTestCase


class RunCreateTestCase(BaseTestCase):
    def test_it_queues_a_run_and_opens_its_page(self):
        self.client.force_login(self.editor)
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async") as send:
            with self.captureOnCommitCallbacks(execute=True):
                r = self.client.post(f"/scenarios/{self.scenario.pk}/runs/", {"seed": "4"})
        run = Run.objects.get()
        self.assertRedirects(r, f"/runs/{run.pk}/")
        self.assertEqual((run.status, run.seed, run.created_by), ("queued", 4, self.editor))
        send.assert_called_once()

    def test_it_is_forbidden_for_a_viewer(self):
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.post(f"/scenarios/{self.scenario.pk}/runs/").status_code, 403)
        self.assertFalse(Run.objects.exists())
