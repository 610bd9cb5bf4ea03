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


class FoldedDiffTests(BaseTestCase):
    def test_a_revisions_changes_lead_with_the_edit_summary_and_fold_the_yaml_diff(self):
        from webapp.scenarios import drafts

        self.client.force_login(self.owner)
        draft = drafts.get_or_start(self.scenario, self.owner)
        drafts.apply(draft, {"op": "cordon", "node": "node-a"})
        drafts.save(draft, self.owner)
        page = self.client.get(f"/scenarios/{self.scenario.pk}/revisions/2/").content.decode()
        self.assertRegex(page, r'<details class="folded-diff"><summary>Cordoned node-a — the YAML diff against r1 '
                               r'\(\d+ lines\)</summary><pre tabindex="0" class="code diff">')
