"""A scenario's activity: saves, runs, sweeps, pod updates and share links write a row where they happen."""

from webapp.scenarios.models import Activity

from .base import BaseTestCase, SPREAD_AND_CLASS


class ScenarioActivityTestCase(BaseTestCase):
    def verbs(self):
        return [(a.actor.username, a.verb, a.object) for a in Activity.objects.filter(scenario=self.scenario)
                .order_by("id")]

    def test_it_records_each_action_through_the_api(self):
        ed, olga = self.api(self.editor), self.api(self.owner)
        self.assertEqual(ed.post(self.url("revisions/"), {"manifests": SPREAD_AND_CLASS, "revision": 1},
                                 format="json").status_code, 201)
        run = ed.post(self.url("runs/"), {}, format="json").json()
        r = ed.post(self.url("pods/default/web-1/updates/"), {"patch": {"spec": {"nodeName": "node-a"}}},
                    format="json")
        self.assertEqual(r.status_code, 422)
        link = olga.post(self.url("share-links/"), format="json").json()
        olga.delete(self.url(f"share-links/{link['id']}/"))
        olga.patch(self.url(), {"name": "Renamed"}, format="json")
        self.assertEqual(self.verbs(), [
            ("olga", "scenario.created", "Small cluster"),
            ("ed", "revision.saved", "revision 2"),
            ("ed", "run.queued", f"run {run['id']} of revision 2"),
            ("ed", "pod_update.proposed", "default/web-1 (rejected)"),
            ("olga", "share_link.created", f"link {link['prefix']}…"),
            ("olga", "share_link.revoked", f"link {link['prefix']}…"),
            ("olga", "scenario.renamed", "Small cluster → Renamed"),
        ])

    def test_it_lists_the_activity_on_a_page_and_in_the_api(self):
        self.api(self.editor).post(self.url("runs/"), {}, format="json")
        self.client.force_login(self.viewer)
        r = self.client.get(f"/scenarios/{self.scenario.pk}/activity/")
        self.assertTemplateUsed(r, "front/scenario_activity.html")
        run = self.scenario.runs.get()
        self.assertContains(r, f'<strong>ed</strong> ran <a href="/runs/{run.pk}/">run {run.pk} of revision 1</a>')
        self.assertContains(r, "<strong>olga</strong> created the scenario")
        rows = self.api(self.viewer).get(self.url("activity/")).json()["results"]
        self.assertEqual([(a["actor"], a["verb"], a["data"].get("run")) for a in rows],
                         [("ed", "run.queued", run.pk), ("olga", "scenario.created", None)])

    def test_it_records_share_links_made_on_the_page(self):
        self.client.force_login(self.owner)
        self.client.post(f"/scenarios/{self.scenario.pk}/share/")
        link = self.scenario.share_links.get()
        self.client.post(f"/scenarios/{self.scenario.pk}/share/{link.pk}/revoke/")
        self.client.post(f"/scenarios/{self.scenario.pk}/share/{link.pk}/revoke/")  # twice: one row
        self.assertEqual([v for _, v, _ in self.verbs()],
                         ["scenario.created", "share_link.created", "share_link.revoked"])
