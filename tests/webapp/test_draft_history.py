"""A draft is its base revision plus its edits: typed text stored as it is typed, every edit listed in words,
undo and redo on the page and in the API, and the draft running by itself after each change."""

import re
from unittest import mock

from webapp.scenarios.models import Draft, Run

from .base import BAD_SKEW, SMALL, TWO_PODS, BaseTestCase

queued = mock.patch("webapp.scenarios.tasks.execute_run.apply_async")


class DraftHistoryTests(BaseTestCase):
    def setUp(self):
        self.client.force_login(self.editor)
        self.base = f"/scenarios/{self.scenario.pk}/draft/"

    def autosave(self, manifests):
        with queued as send, self.captureOnCommitCallbacks(execute=True):
            r = self.client.post(self.base + "autosave/", {"manifests": manifests, "config": ""},
                                 HTTP_HX_REQUEST="true")
        self.assertEqual(r.status_code, 200)
        return r, send

    def post(self, path, **fields):
        with queued, self.captureOnCommitCallbacks(execute=True):
            return self.client.post(self.base + path, fields, HTTP_HX_REQUEST="true")

    def test_typed_text_is_stored_after_a_pause_and_is_there_on_reload(self):
        self.client.get(self.base)
        r, send = self.autosave(TWO_PODS)
        self.assertContains(r, "stored in the draft at")
        self.assertContains(r, "valid: 1 nodes, 2 pods")
        self.assertEqual(send.call_count, 2)  # the draft runs by itself, beside a run of the saved revision
        self.assertContains(self.client.get(self.base), "web-2")
        self.assertEqual(Run.objects.filter(source="draft").get().manifests, TWO_PODS)

    def test_typing_on_is_one_edit_and_invalid_text_is_stored_but_not_run(self):
        self.client.get(self.base)
        self.autosave(TWO_PODS)
        r, send = self.autosave(BAD_SKEW)
        self.assertContains(r, "Not valid")
        self.assertEqual(send.call_count, 0)
        draft = Draft.objects.get()
        self.assertEqual((draft.manifests, [e["op"] for e in draft.edits]), (BAD_SKEW, ["text"]))

    def test_undo_and_redo_walk_the_edits_and_a_new_edit_drops_the_redo(self):
        self.client.get(self.base)
        self.post("edit/", op="cordon", node="node-a")
        self.autosave(SMALL + "# a note\n")
        r = self.post("undo/")
        self.assertContains(r, "Undid: Edited the YAML.")
        draft = Draft.objects.get()
        self.assertIn("unschedulable: true", draft.manifests)
        self.assertNotIn("# a note", draft.manifests)
        self.assertContains(r, '<li class="undone">Edited the YAML <span class="muted">(undone)</span></li>', html=True)
        r = self.post("undo/")
        self.assertContains(r, "Undid: Cordoned node-a.")
        self.assertEqual(Draft.objects.get().manifests, SMALL)
        r = self.post("redo/")
        self.assertContains(r, "Redid: Cordoned node-a.")
        self.assertIn("unschedulable: true", Draft.objects.get().manifests)
        self.post("edit/", op="add_gate", target="app=web", name="hold")
        draft = Draft.objects.get()
        self.assertEqual(([e["op"] for e in draft.edits], draft.undone), (["cordon", "add_gate"], []))
        r = self.post("redo/")
        self.assertContains(r, "There is no undone edit to redo.")

    def test_the_api_lists_the_edits_in_words_and_undoes_and_redoes(self):
        api = self.api(self.editor)
        api.post(self.url("draft/edits/"), {"op": "remove_zone", "zone": "z1"}, format="json")
        r = api.post(self.url("draft/undo/"))
        self.assertEqual((r.status_code, r.data["manifests"], r.data["can_redo"]), (200, SMALL, True))
        self.assertEqual(r.data["history"], [{"n": None, "text": "Removed zone z1", "undone": True}])
        r = api.post(self.url("draft/redo/"))
        self.assertEqual((r.status_code, r.data["edits"], r.data["can_undo"]), (200, [{"op": "remove_zone", "zone": "z1"}], True))
        api.post(self.url("draft/undo/"))
        r = api.post(self.url("draft/undo/"))
        self.assertEqual((r.status_code, r.data["detail"]), (409, "There is no edit to undo."))

    def test_a_saved_draft_says_what_its_edits_did(self):
        self.client.get(self.base)
        self.post("edit/", op="cordon", node="node-a")
        self.post("edit/", op="add_gate", target="app=web", name="hold")
        self.client.post(self.base + "save/", {"message": ""})
        self.assertEqual(self.scenario.revisions.get(number=2).message, "Cordoned node-a; Gate hold added to app=web")

    def test_an_autosave_sent_before_a_quick_edit_landed_does_not_undo_it(self):
        page = self.client.get(self.base).content.decode()
        version = re.search(r'name="version" id="draft-version" value="([^"]+)"', page).group(1)
        self.post("edit/", op="cordon", node="node-a")  # lands first
        with queued, self.captureOnCommitCallbacks(execute=True):  # the autosave of the text as it was loaded
            self.client.post(self.base + "autosave/", {"manifests": SMALL + "# typed\n", "config": "",
                                                       "version": version}, HTTP_HX_REQUEST="true")
        draft = Draft.objects.get()
        self.assertEqual([e["op"] for e in draft.edits], ["cordon"])
        self.assertIn("unschedulable: true", draft.manifests)
        r, _ = self.autosave(draft.manifests + "# typed\n")  # one from the page as it is now is stored
        self.assertIn("# typed", Draft.objects.get().manifests)
        self.assertRegex(r.content.decode(), r'id="draft-version" value="[^"]+" hx-swap-oob="true"')
