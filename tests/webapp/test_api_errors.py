from unittest import mock

from .base import BaseTestCase


class UnexpectedErrorTestCase(BaseTestCase):
    def test_it_answers_a_generic_500_without_a_traceback(self):
        with mock.patch("webapp.api.views.ScenarioViewSet.get_queryset", side_effect=RuntimeError("secret detail")):
            with self.assertLogs("webapp.api.exceptions", "ERROR"):
                r = self.api(self.viewer).get("/api/scenarios/")
        self.assertEqual(r.status_code, 500)
        self.assertEqual(r.json(), {"detail": "Internal server error. It has been logged."})
        self.assertNotIn(b"secret detail", r.content)
        self.assertNotIn(b"Traceback", r.content)
