"""Bad input gets a 4xx, never a 500 (these used to reach PostgreSQL as NUL or out-of-range values)."""

from .base import BaseTestCase

HUGE = "9" * 30


class BadInputTestCase(BaseTestCase):
    def test_it_answers_400_to_nul_in_query_parameters(self):
        api = self.api(self.viewer)
        for url in ("/api/scenarios/?team=%00", "/api/scenarios/?search=a%00b"):
            r = api.get(url)
            self.assertEqual(r.status_code, 400, url)
            self.assertIn("detail", r.json())
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.get("/scenarios/?q=%00").status_code, 400)

    def test_it_answers_404_to_out_of_range_ids(self):
        api = self.api(self.viewer)
        for url in (f"/api/scenarios/{HUGE}/", self.url(f"revisions/{HUGE}/"), f"/api/runs/{HUGE}/",
                    self.url(f"manifests/?revision={HUGE}"), self.url(f"revisions/1/diff/?against={HUGE}")):
            self.assertEqual(api.get(url).status_code, 404, url)
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.get(f"/scenarios/{HUGE}/").status_code, 404)

    def test_it_answers_400_to_malformed_bodies(self):
        api = self.api(self.editor)
        self.assertEqual(api.post("/api/scenarios/", data="{bad", content_type="application/json").status_code, 400)
        r = api.post("/api/scenarios/", {"team": "platform", "name": "a\x00b", "manifests": "a: 1"}, format="json")
        self.assertEqual(r.status_code, 400)
        self.assertEqual(api.post(self.url("runs/"), {"seed": HUGE}, format="json").status_code, 400)
        r = api.post(self.url("revisions/"), {"manifests": "a: 1\n"}, format="json", headers={"If-Match": "x"})
        self.assertEqual(r.status_code, 400)
