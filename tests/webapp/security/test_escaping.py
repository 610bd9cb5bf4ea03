"""Names with HTML in them are shown as text on every page, never as markup."""

from webapp.scenarios.models import ApiToken, Revision, Scenario, Team

from ..base import SMALL, BaseTestCase
from .test_access_matrix import add_matrix_data, page_endpoints

HTML = '<script>alert("x")</script><img src=x onerror=alert(1)>'
ESCAPED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"


class EscapingTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        add_matrix_data(cls)
        Scenario.objects.filter(pk=cls.scenario.pk).update(name=f"S {HTML}")
        Team.objects.filter(pk=cls.team.pk).update(name=f"T {HTML}")
        Revision.objects.filter(scenario=cls.scenario).update(message=f"M {HTML}")
        cls.owner.username = f"u{HTML}"[:150]
        cls.owner.save()
        ApiToken.create(cls.owner, f"K {HTML}")

    def assert_escaped(self, url, content):
        text = content.decode()
        self.assertNotIn("<script>alert", text, url)
        self.assertNotIn("<img src=x", text, url)
        return ESCAPED in text

    def test_it_escapes_names_messages_and_usernames_on_every_page(self):
        self.client.force_login(self.owner)
        pages = [url for method, url, _, _ in page_endpoints(self) if method == "get"]
        pages += ["/scenarios/", f"/scenarios/{self.scenario.pk}/revisions/2/", "/tokens/",
                  f"/s/{self.share_token}/", f"/s/{self.share_token}/runs/{self.run_a.pk}/"]
        shown = 0
        for url in pages:
            r = self.client.get(url)
            self.assertEqual(r.status_code, 200, url)
            shown += self.assert_escaped(url, r.content)
            r = self.client.get(url, headers={"HX-Request": "true"})  # fragments too
            self.assert_escaped(url, r.content)
        self.assertGreater(shown, len(pages) // 2)  # the names really were on the pages

    def test_it_escapes_user_text_echoed_in_error_messages(self):
        self.client.force_login(self.owner)
        bad = SMALL.replace("cpu: 100m", f"cpu: '{HTML}'")
        r = self.client.post(f"/scenarios/{self.scenario.pk}/save/", {"manifests": bad, "base_revision": 2})
        self.assertContains(r, "spec.containers[0].resources.requests.cpu")
        self.assert_escaped("save", r.content)
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": HTML, "manifests": bad})
        self.assert_escaped("create", r.content)
