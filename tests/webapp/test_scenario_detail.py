from .base import BaseTestCase


class ScenarioDetailTestCase(BaseTestCase):
    def test_it_shows_manifests_revisions_and_nodes_to_a_viewer(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/scenarios/{self.scenario.pk}/")
        self.assertTemplateUsed(r, "front/scenario_detail.html")
        self.assertContains(r, "node-a")
        self.assertContains(r, "first")  # revision message
        self.assertContains(r, "kind: List")
        # Viewers read; they get no edit form and no run button.
        self.assertNotContains(r, 'id="edit-form"')
        self.assertNotContains(r, 'id="run-button"')

    def test_it_shows_the_edit_form_and_run_button_to_an_editor(self):
        self.client.force_login(self.editor)
        r = self.client.get(f"/scenarios/{self.scenario.pk}/")
        self.assertContains(r, 'id="edit-form"')
        self.assertContains(r, 'name="base_revision" value="1"')
        self.assertContains(r, 'id="run-button"')
        self.assertNotContains(r, "Create a read-only link")

    def test_it_shows_sharing_to_an_owner(self):
        self.client.force_login(self.owner)
        self.assertContains(self.client.get(f"/scenarios/{self.scenario.pk}/"), "Create a read-only link")

    def test_it_is_404_for_non_members(self):
        self.client.force_login(self.outsider)
        r = self.client.get(f"/scenarios/{self.scenario.pk}/")
        self.assertEqual(r.status_code, 404)
        self.assertTemplateUsed(r, "404.html")

    def test_it_labels_draft_runs_in_the_runs_table(self):
        from webapp.scenarios.models import Run

        # A draft run simulates other text than its revision's, so the table must say so.
        Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), label="draft",
                           manifests=self.scenario.head().manifests)
        self.client.force_login(self.viewer)
        r = self.client.get(f"/scenarios/{self.scenario.pk}/")
        self.assertContains(r, '<span class="tag">draft</span>', html=False)
