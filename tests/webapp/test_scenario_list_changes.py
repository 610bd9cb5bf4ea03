"""The scenario list says what others changed since I last opened each scenario."""

from webapp.scenarios import services

from .base import TWO_PODS, BaseTestCase


class ScenarioListChangesTestCase(BaseTestCase):
    def changes(self):
        r = self.client.get("/scenarios/")
        self.assertEqual(r.status_code, 200)
        [(_, _, _, changed)] = r.context["rows"]
        return changed

    def test_it_lists_what_others_did_since_my_last_visit(self):
        self.client.force_login(self.viewer)
        self.assertEqual(self.changes(), {"seen": False, "changes": [], "by": []})
        self.assertContains(self.client.get("/scenarios/"), "not opened yet")
        self.client.get(f"/scenarios/{self.scenario.pk}/")
        self.assertContains(self.client.get("/scenarios/"), "no change")

        services.save_revision(self.scenario, manifests=TWO_PODS, author=self.editor, message="more")
        services.queue_run(self.scenario, self.scenario.head(), user=self.owner)
        services.queue_run(self.scenario, self.scenario.head(), user=self.editor)
        self.assertEqual(self.changes(), {"seen": True, "changes": ["1 revision", "2 runs"], "by": ["ed", "olga"]})
        self.assertContains(self.client.get("/scenarios/"), "1 revision, 2 runs</span> by ed, olga")

        self.client.get(f"/scenarios/{self.scenario.pk}/")  # looking again starts over
        self.assertEqual(self.changes()["changes"], [])

    def test_it_leaves_out_my_own_changes(self):
        self.client.force_login(self.editor)
        self.client.get(f"/scenarios/{self.scenario.pk}/")
        services.save_revision(self.scenario, manifests=TWO_PODS, author=self.editor)
        self.assertEqual(self.changes(), {"seen": True, "changes": [], "by": []})

    def test_it_counts_from_creation_for_the_scenarios_author(self):
        self.client.force_login(self.owner)
        self.assertEqual(self.changes(), {"seen": True, "changes": [], "by": []})
        services.queue_run(self.scenario, self.scenario.head(), user=self.viewer)
        self.assertEqual(self.changes(), {"seen": True, "changes": ["1 run"], "by": ["vic"]})
