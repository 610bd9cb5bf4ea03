from unittest import mock

from webapp.scenarios import services
from webapp.scenarios.models import Draft, Run

from .base import SMALL, SPREAD_AND_CLASS, TWO_PODS, BaseTestCase


class ApiDraftsTestCase(BaseTestCase):
    def test_it_gets_and_puts_the_draft_text(self):
        api = self.api(self.editor)
        r = api.get(self.url("draft/"))
        self.assertEqual((r.status_code, r.data["base_revision"], r.data["manifests"]), (200, 1, SMALL))
        self.assertTrue(r.data["check"]["ok"])
        r = api.put(self.url("draft/"), {"manifests": TWO_PODS}, format="json")
        self.assertEqual((r.status_code, r.data["check"]["pods"]), (200, 2))
        self.assertEqual(Draft.objects.get().manifests, TWO_PODS)

    def test_it_applies_an_edit_and_names_a_bad_one(self):
        api = self.api(self.editor)
        r = api.post(self.url("draft/edits/"), {"op": "cordon", "node": "node-a"}, format="json")
        self.assertEqual(r.status_code, 200)
        self.assertEqual(r.data["edits"], [{"op": "cordon", "node": "node-a"}])
        r = api.post(self.url("draft/edits/"), {"op": "set_max_skew", "workload": "ReplicaSet/default/api", "value": 2},
                     format="json")
        self.assertEqual((r.status_code, r.data["object"], r.data["field"]), (400, "ReplicaSet/default/api", "workload"))

    def test_an_edit_that_changes_nothing_is_200_with_the_draft_as_it_was(self):
        api = self.api(self.editor)
        api.post(self.url("draft/edits/"), {"op": "cordon", "node": "node-a"}, format="json")
        text = Draft.objects.get().manifests
        r = api.post(self.url("draft/edits/"), {"op": "cordon", "node": "node-a"}, format="json")
        self.assertEqual((r.status_code, r.data["edits"], r.data["manifests"]),
                         (200, [{"op": "cordon", "node": "node-a"}], text))
        self.assertEqual(Draft.objects.get().edits, [{"op": "cordon", "node": "node-a"}])

    def test_a_quick_edit_of_a_large_text_loads_the_new_text_with_the_engine_once(self):
        # A text over LOADED_MAX_BYTES is not kept loaded in the web process: the response's verdict loaded the
        # edited text again from the engine's disk cache (a second at 150,000 pods). (A directive's change, as this
        # cordon, is read into the scenario of the text before, when the process or the disk cache holds it: no load.)
        from webapp.scenarios import engine

        api = self.api(self.editor)
        with mock.patch.object(engine, "LOADED_MAX_BYTES", 100), \
                mock.patch.object(engine, "_load_through_disk", wraps=engine._load_through_disk) as loaded:
            r = api.post(self.url("draft/edits/"), {"op": "cordon", "node": "node-a"}, format="json")
        self.assertEqual(r.status_code, 200)
        self.assertTrue(r.data["check"]["ok"], r.data["check"])
        self.assertTrue(r.data["check"]["message"].startswith("valid: 1 nodes"), r.data["check"])
        self.assertLessEqual(loaded.call_count, 1)  # (the edited text, once at most)

    def test_it_runs_and_saves_the_draft(self):
        api = self.api(self.editor)
        api.post(self.url("draft/edits/"), {"op": "cordon", "node": "node-a"}, format="json")
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async") as send:
            with self.captureOnCommitCallbacks(execute=True):
                r = api.post(self.url("draft/run/"))
        self.assertEqual(r.status_code, 202)
        run = Run.objects.get(pk=r.data["id"])
        self.assertEqual((run.label, run.revision.number), ("draft", 1))
        self.assertIn("unschedulable", run.manifests)
        send.assert_called_once()
        self.assertEqual(r["Location"], r.data["url"])
        r = api.post(self.url("draft/save/"), {"message": "cordoned"}, format="json", headers={"If-Match": '"1"'})
        self.assertEqual((r.status_code, r.data["number"], r.data["message"]), (201, 2, "cordoned"))
        self.assertEqual((r["ETag"], r["Location"]), ('"2"', r.data["url"]))
        self.assertFalse(Draft.objects.exists())

    def test_a_draft_save_with_a_stale_if_match_is_409(self):
        api = self.api(self.editor)
        api.post(self.url("draft/edits/"), {"op": "cordon", "node": "node-a"}, format="json")
        # the caller last saw revision 0, which is not the current one: nothing is saved, the draft stays
        r = api.post(self.url("draft/save/"), headers={"If-Match": '"0"'})
        self.assertEqual((r.status_code, r.data["current_revision"], r["ETag"]), (409, 1, '"1"'))
        self.assertEqual(self.scenario.revisions.count(), 1)
        self.assertTrue(Draft.objects.exists())

    def test_a_stale_draft_save_is_409(self):
        api = self.api(self.editor)
        api.get(self.url("draft/"))
        services.save_revision(self.scenario, manifests=TWO_PODS, author=self.owner)
        r = api.post(self.url("draft/save/"))
        self.assertEqual((r.status_code, r.data["current_revision"]), (409, 2))

    def test_viewers_get_403_and_outsiders_404(self):
        self.assertEqual(self.api(self.viewer).get(self.url("draft/")).status_code, 403)
        self.assertEqual(self.api(self.outsider).get(self.url("draft/")).status_code, 404)

    def test_it_removes_a_constraint_and_sets_priorities(self):
        services.save_revision(self.scenario, manifests=SPREAD_AND_CLASS, author=self.owner)
        api = self.api(self.editor)
        for edit in ({"op": "remove_spread", "workload": "Pod/default/web-1", "index": 0},
                     {"op": "set_priority", "target": "Pod/default/web-1", "priorityClassName": "high"},
                     {"op": "set_priority", "target": "app=web", "priority": 5}):
            r = api.post(self.url("draft/edits/"), edit, format="json")
            self.assertEqual(r.status_code, 200, r.data)
        text = Draft.objects.get().manifests
        self.assertNotIn("topologySpreadConstraints", text)
        self.assertIn("priorityClassName: high", text)
        self.assertIn("priority: 5", text)
        self.assertEqual([e["op"] for e in r.data["edits"]], ["remove_spread", "set_priority", "set_priority"])

    def test_bad_removals_and_priorities_are_400_naming_object_and_field(self):
        services.save_revision(self.scenario, manifests=SPREAD_AND_CLASS, author=self.owner)
        api = self.api(self.editor)
        for edit, obj, field in (
            ({"op": "remove_spread", "workload": "Pod/default/web-1", "index": 3}, "Pod/default/web-1",
             "spec.topologySpreadConstraints[3]"),
            ({"op": "set_priority", "target": "Pod/default/web-1", "priorityClassName": "ghost"}, "Pod/default/web-1",
             "spec.priorityClassName"),
            ({"op": "set_priority", "target": "Pod/default/web-1", "priority": 2 ** 40}, "Pod/default/web-1", "priority"),
            ({"op": "remove_gate", "target": "Pod/default/web-1", "name": "none-here"}, "Pod/default/web-1",
             "spec.schedulingGates"),
        ):
            r = api.post(self.url("draft/edits/"), edit, format="json")
            self.assertEqual((r.status_code, r.data["object"], r.data["field"]), (400, obj, field), edit)
        self.assertEqual(Draft.objects.get().manifests, SPREAD_AND_CLASS)  # nothing applied
        self.assertEqual(Draft.objects.get().edits, [])
