"""CSRF on every browser write, htmx requests included; API tokens need none, API sessions do."""

from django.test import Client

from ..base import SMALL, BaseTestCase
from .test_access_matrix import add_matrix_data, api_endpoints, page_endpoints


class CsrfTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        add_matrix_data(cls)

    def browser(self):
        client = Client(enforce_csrf_checks=True)
        client.force_login(self.owner)
        client.get("/scenarios/")  # sets the csrftoken cookie, as a page view would
        return client, client.cookies["csrftoken"].value

    def test_it_refuses_every_page_write_without_a_token_htmx_or_not(self):
        client, _ = self.browser()
        writes = [(url, data) for method, url, _, data in page_endpoints(self) if method == "post"]
        writes += [("/tokens/", {"name": "x"}), (f"/tokens/{1}/revoke/", {}), ("/scenarios/new/", {}), ("/logout/", {})]
        self.assertGreater(len(writes), 15)
        for url, data in writes:
            for headers in ({}, {"HX-Request": "true"}, {"HX-Request": "true", "X-CSRFToken": "forged" * 6}):
                r = client.post(url, data or {}, headers=headers)
                self.assertEqual(r.status_code, 403, (url, headers))
                self.assertIn(b"CSRF", r.content)

    def test_it_accepts_a_page_write_with_the_token_as_a_field_or_htmx_header(self):
        client, token = self.browser()
        r = client.post(f"/scenarios/{self.scenario.pk}/save/",
                        {"manifests": SMALL + "# 3\n", "base_revision": 2, "csrfmiddlewaretoken": token})
        self.assertEqual(r.status_code, 302)
        r = client.post(f"/scenarios/{self.scenario.pk}/draft/validate/", {"manifests": SMALL},
                        headers={"HX-Request": "true", "X-CSRFToken": token})
        self.assertEqual(r.status_code, 200)

    def test_it_puts_the_token_on_every_page_for_htmx(self):
        client, _ = self.browser()
        r = client.get(f"/scenarios/{self.scenario.pk}/")
        self.assertRegex(r.content.decode(), r"hx-headers='\{\"X-CSRFToken\": \"[A-Za-z0-9]{32,}\"\}'")

    def test_it_refuses_the_login_form_without_a_token(self):
        r = Client(enforce_csrf_checks=True).post("/login/", {"username": "olga", "password": "x"})
        self.assertEqual(r.status_code, 403)

    def test_it_requires_csrf_for_api_writes_with_a_session_but_not_with_a_token(self):
        client, token = self.browser()
        writes = [(m, url, data) for m, url, _, data in api_endpoints(self) if m != "get"]
        for method, url, data in writes:
            r = getattr(client, method)(url, data or {}, content_type="application/json")
            self.assertEqual(r.status_code, 403, (method, url))
            self.assertIn("CSRF", r.json()["detail"])
        r = client.post(f"/api/scenarios/{self.scenario.pk}/runs/", {}, content_type="application/json",
                        headers={"X-CSRFToken": token})
        self.assertEqual(r.status_code, 202)
        from webapp.scenarios.models import ApiToken

        _, key = ApiToken.create(self.owner, "script")
        r = Client(enforce_csrf_checks=True).post(f"/api/scenarios/{self.scenario.pk}/runs/", {},
                                                  content_type="application/json",
                                                  headers={"Authorization": f"Token {key}"})
        self.assertEqual(r.status_code, 202)
