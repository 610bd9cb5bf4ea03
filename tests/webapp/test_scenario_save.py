from webapp.scenarios.models import Revision

from .base import SMALL, TWO_PODS, BaseTestCase


class ScenarioSaveTestCase(BaseTestCase):
    def save(self, user, base=1, manifests=TWO_PODS, **kwargs):
        self.client.force_login(user)
        data = {"manifests": manifests, "config": "", "message": "add web-2", "base_revision": base}
        return self.client.post(f"/scenarios/{self.scenario.pk}/save/", data, **kwargs)

    def test_it_saves_a_new_revision(self):
        r = self.save(self.editor)
        self.assertRedirects(r, f"/scenarios/{self.scenario.pk}/")
        revision = Revision.objects.get(scenario=self.scenario, number=2)
        self.assertEqual((revision.manifests, revision.message, revision.author), (TWO_PODS, "add web-2", self.editor))

    def test_it_refuses_a_stale_base_and_keeps_the_users_text(self):
        self.save(self.editor)
        r = self.save(self.owner, base=1, manifests=SMALL + "# my edit\n")
        self.assertEqual(r.status_code, 409)
        self.assertContains(r, "Someone saved revision r2", status_code=409)
        self.assertContains(r, "# my edit", status_code=409)
        self.assertContains(r, 'name="overwrite" value="2"', status_code=409)
        self.assertEqual(Revision.objects.filter(scenario=self.scenario).count(), 2)

    def test_it_saves_on_top_of_the_newer_revision_when_asked_explicitly(self):
        self.save(self.editor)
        self.client.force_login(self.owner)
        data = {"manifests": SMALL + "# mine\n", "base_revision": 1, "overwrite": "2", "message": "mine wins"}
        r = self.client.post(f"/scenarios/{self.scenario.pk}/save/", data)
        self.assertRedirects(r, f"/scenarios/{self.scenario.pk}/")
        # Nothing is lost: r2 (the other save) stays in the history, r3 is mine.
        self.assertEqual(Revision.objects.get(scenario=self.scenario, number=2).manifests, TWO_PODS)
        self.assertEqual(Revision.objects.get(scenario=self.scenario, number=3).manifests, SMALL + "# mine\n")

    def test_it_rerenders_the_form_fragment_for_htmx(self):
        r = self.save(self.editor, manifests="a: [b", headers={"HX-Request": "true"})
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, 'id="edit-form"')
        self.assertNotContains(r, "<html")
        self.assertEqual(Revision.objects.filter(scenario=self.scenario).count(), 1)

    def test_it_tells_htmx_to_load_the_page_after_a_save(self):
        r = self.save(self.editor, headers={"HX-Request": "true"})
        self.assertEqual(r.status_code, 200)
        self.assertEqual(r["HX-Redirect"], f"/scenarios/{self.scenario.pk}/")
        self.assertEqual(Revision.objects.filter(scenario=self.scenario).count(), 2)

    def test_it_refreshes_the_revision_list_after_a_stale_htmx_save(self):
        self.save(self.editor)
        r = self.save(self.owner, base=1, headers={"HX-Request": "true"})
        self.assertContains(r, 'id="revisions-section" aria-labelledby="revisions-h" hx-swap-oob="true"')
        self.assertContains(r, "add web-2")

    def test_it_is_forbidden_for_a_viewer(self):
        self.assertEqual(self.save(self.viewer).status_code, 403)
        self.assertEqual(Revision.objects.filter(scenario=self.scenario).count(), 1)
