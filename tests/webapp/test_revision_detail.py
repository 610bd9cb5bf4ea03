from webapp.scenarios import services

from .base import TWO_PODS, BaseTestCase


class RevisionDetailTestCase(BaseTestCase):
    def test_it_shows_the_diff_with_the_previous_revision(self):
        services.save_revision(self.scenario, manifests=TWO_PODS, author=self.editor, base=1, message="more")
        self.client.force_login(self.viewer)
        r = self.client.get(f"/scenarios/{self.scenario.pk}/revisions/2/")
        self.assertTemplateUsed(r, "front/revision_detail.html")
        self.assertContains(r, '<span class="add">+  metadata: {name: web-2')

    def test_it_is_404_for_an_unknown_revision(self):
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.get(f"/scenarios/{self.scenario.pk}/revisions/7/").status_code, 404)
