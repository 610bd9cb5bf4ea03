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


class OneEditorTestCase(BaseTestCase):
    """The scenario page reads the manifests and takes a file; typing happens in one place, the draft's editor."""

    def upload(self, name, text, **extra):
        from django.core.files.uploadedfile import SimpleUploadedFile

        self.client.force_login(self.editor)
        upload = SimpleUploadedFile(name, text.encode(), content_type="application/yaml")
        data = {"upload": upload, "message": "", "base_revision": 1, **extra}
        return self.client.post(f"/scenarios/{self.scenario.pk}/save/", data)

    def test_the_scenario_page_has_no_text_box_and_leads_to_the_drafts_editor(self):
        self.client.force_login(self.editor)
        r = self.client.get(f"/scenarios/{self.scenario.pk}/")
        self.assertNotContains(r, "<textarea")
        self.assertContains(r, f'href="/scenarios/{self.scenario.pk}/draft/#editor-h" id="edit-in-draft"')
        self.assertContains(r, 'id="id_upload"')
        self.assertContains(r, "kind: List")  # the manifests, to read

    def test_a_refused_file_is_kept_in_the_draft_whose_editor_marks_its_line(self):
        from webapp.scenarios.models import Draft

        r = self.upload("prod-dump.yaml", SMALL + "  bad: [unclosed\n")
        self.assertContains(r, "prod-dump.yaml")
        self.assertContains(r, 'id="kept-in-draft"')
        self.assertEqual(Revision.objects.filter(scenario=self.scenario).count(), 1)
        draft = Draft.objects.get(scenario=self.scenario, author=self.editor)
        self.assertTrue(draft.manifests.endswith("  bad: [unclosed\n"))
        self.assertEqual([e["op"] for e in draft.edits], ["text"])  # one edit: undo takes it back
        page = self.client.get(f"/scenarios/{self.scenario.pk}/draft/")
        self.assertRegex(page.content.decode(), r'id="editor-check"[^>]*class="editor-check bad"[\s\S]*line \d+')

    def test_a_file_replaces_the_manifests_and_keeps_the_scheduler_configuration(self):
        from webapp.scenarios import services

        config = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        services.save_revision(self.scenario, manifests=SMALL, config=config, author=self.owner, message="", base=1)
        r = self.upload("two.yaml", TWO_PODS, base_revision=2)
        self.assertRedirects(r, f"/scenarios/{self.scenario.pk}/")
        revision = Revision.objects.get(scenario=self.scenario, number=3)
        self.assertEqual((revision.manifests, revision.config), (TWO_PODS, config))
