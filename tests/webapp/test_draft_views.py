from unittest import mock

from webapp.scenarios import tasks
from webapp.scenarios.models import Draft, Run

from .base import BAD_SKEW, SMALL, TWO_PODS, BaseTestCase


class DraftViewsTestCase(BaseTestCase):
    def setUp(self):
        self.client.force_login(self.editor)
        self.base = f"/scenarios/{self.scenario.pk}/draft/"

    def test_it_starts_a_draft_from_the_current_revision(self):
        r = self.client.get(self.base)
        self.assertContains(r, "Draft of Small cluster")
        self.assertContains(r, "valid: 1 nodes, 1 pods (1 pending, 0 gated)")
        self.assertContains(r, 'hx-trigger="keyup changed delay:500ms"')
        draft = Draft.objects.get()
        self.assertEqual((draft.author, draft.base_revision.number, draft.manifests), (self.editor, 1, SMALL))

    def test_it_validates_as_you_type_naming_object_and_field(self):
        r = self.client.post(self.base + "validate/", {"manifests": BAD_SKEW}, HTTP_HX_REQUEST="true")
        self.assertContains(r, "Not valid")
        self.assertContains(r, "Pod default/web-1")
        self.assertContains(r, "maxSkew")
        r = self.client.post(self.base + "validate/", {"manifests": TWO_PODS})
        self.assertContains(r, "valid: 1 nodes, 2 pods (2 pending, 0 gated)")

    def test_it_stores_the_text_without_js(self):
        self.client.get(self.base)
        r = self.client.post(self.base, {"manifests": TWO_PODS, "config": ""})
        self.assertRedirects(r, self.base)
        self.assertEqual(Draft.objects.get().manifests, TWO_PODS)

    def test_it_applies_a_quick_edit(self):
        r = self.client.post(self.base + "edit/", {"op": "cordon", "node": "node-a"}, HTTP_HX_REQUEST="true")
        self.assertContains(r, "Applied cordon")
        self.assertIn("unschedulable: true", Draft.objects.get().manifests)

    def test_a_rejected_edit_is_a_200_fragment_naming_the_node(self):
        r = self.client.post(self.base + "edit/", {"op": "cordon", "node": "ghost"}, HTTP_HX_REQUEST="true")
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "Edit not applied — Node/ghost")
        self.assertEqual(Draft.objects.get().manifests, SMALL)

    def test_it_runs_the_draft_beside_the_saved_revision(self):
        self.client.post(self.base + "edit/", {"op": "add_gate", "workload": "app=web", "value": "hold"})
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            with self.captureOnCommitCallbacks(execute=True):
                r = self.client.post(self.base + "run/")
        self.assertRedirects(r, self.base)
        draft_run = Run.objects.get(label="draft")
        saved_run = Run.objects.get(label="")
        self.assertEqual((draft_run.revision.number, draft_run.created_by), (1, self.editor))
        self.assertIn("schedulingGates", draft_run.manifests)
        for run in (draft_run, saved_run):
            tasks.execute_run(run.pk)
        r = self.client.get(self.base)
        self.assertContains(r, "newly pending")
        self.assertContains(r, "default/web-1")

    def test_it_saves_the_draft_as_a_new_revision(self):
        self.client.post(self.base + "edit/", {"op": "cordon", "node": "node-a"})
        r = self.client.post(self.base + "save/", {"message": "cordon a"})
        self.assertRedirects(r, f"/scenarios/{self.scenario.pk}/")
        head = self.scenario.revisions.get(number=2)
        self.assertIn("unschedulable: true", head.manifests)
        self.assertEqual(head.message, "cordon a")
        self.assertFalse(Draft.objects.exists())

    def test_a_stale_save_is_a_conflict_keeping_the_draft(self):
        self.client.post(self.base + "edit/", {"op": "cordon", "node": "node-a"})
        from webapp.scenarios import services
        services.save_revision(self.scenario, manifests=TWO_PODS, author=self.owner)
        r = self.client.post(self.base + "save/")
        self.assertContains(r, "Someone saved revision r2", status_code=409)
        self.assertTrue(Draft.objects.exists())
        self.client.post(self.base + "rebase/")
        r = self.client.post(self.base + "save/")
        self.assertEqual(self.scenario.revisions.count(), 3)

    def test_it_discards(self):
        self.client.get(self.base)
        self.assertRedirects(self.client.post(self.base + "discard/"), f"/scenarios/{self.scenario.pk}/")
        self.assertFalse(Draft.objects.exists())

    def test_viewers_and_outsiders_cannot_draft(self):
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.get(self.base).status_code, 403)
        self.client.force_login(self.outsider)
        self.assertEqual(self.client.get(self.base).status_code, 404)
        self.assertFalse(Draft.objects.exists())
