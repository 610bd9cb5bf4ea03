from django.test import override_settings

from .base import BaseTestCase


@override_settings(DEBUG=False)
class ErrorPagesTestCase(BaseTestCase):
    def test_it_renders_the_custom_404_page(self):
        r = self.client.get("/no/such/page/")
        self.assertEqual(r.status_code, 404)
        self.assertContains(r, "This page does not exist", status_code=404)

    def test_it_answers_an_unknown_api_url_in_json(self):
        # the schema documents 404 as {"detail": ...}: a path the API's routes do not match says so too
        r = self.client.get("/api/runs/1/no-such-view/")
        self.assertEqual((r.status_code, r["Content-Type"], r.json()), (404, "application/json", {"detail": "Not found."}))

    def test_it_renders_a_500_page_without_details(self):
        from unittest import mock

        self.client.raise_request_exception = False
        self.client.force_login(self.viewer)
        with mock.patch("webapp.front.views.Scenario.objects.visible_to", side_effect=RuntimeError("secret")):
            r = self.client.get("/scenarios/")
        self.assertEqual(r.status_code, 500)
        self.assertContains(r, "Something went wrong", status_code=500)
        self.assertNotContains(r, "secret", status_code=500)
