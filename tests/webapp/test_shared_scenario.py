import re

from webapp.scenarios import pod_updates, services
from webapp.scenarios.models import Run, ShareLink

from .base import BaseTestCase
from .test_pod_updates_service import GATED, LOOSEN, NODE


class SharedScenarioTestCase(BaseTestCase):
    def create_link(self):
        self.client.force_login(self.owner)
        r = self.client.post(f"/scenarios/{self.scenario.pk}/share/", follow=True)
        token = re.search(r"/s/([A-Za-z0-9_-]+)/", r.content.decode()).group(1)
        self.client.logout()
        return token

    def test_it_shows_the_scenario_read_only_without_login(self):
        token = self.create_link()
        r = self.client.get(f"/s/{token}/")
        self.assertTemplateUsed(r, "front/shared_scenario.html")
        self.assertContains(r, "Small cluster")
        self.assertNotContains(r, 'id="edit-form"')
        self.assertNotContains(r, "restore")

    def test_it_shows_a_run_of_the_shared_scenario(self):
        token = self.create_link()
        run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), status="failed", error="boom")
        self.assertContains(self.client.get(f"/s/{token}/runs/{run.pk}/"), "boom")

    def test_it_is_gone_once_revoked(self):
        token = self.create_link()
        link = ShareLink.objects.get()
        self.client.force_login(self.owner)
        self.client.post(f"/scenarios/{self.scenario.pk}/share/{link.pk}/revoke/")
        self.assertEqual(self.client.get(f"/s/{token}/").status_code, 404)

    def test_only_owners_create_links(self):
        self.client.force_login(self.editor)
        self.assertEqual(self.client.post(f"/scenarios/{self.scenario.pk}/share/").status_code, 403)
        self.assertFalse(ShareLink.objects.exists())


class SharedGatedPodsTestCase(BaseTestCase):
    def test_a_share_link_shows_the_gated_pods_and_rejected_updates_read_only(self):
        scenario = services.create_scenario(team=self.team, name="gated", author=self.owner,
                                            manifests=NODE + "---\n" + GATED)
        attempt = pod_updates.propose(scenario, "data", "db-0", author=self.editor, patch=LOOSEN)
        self.assertFalse(attempt.allowed)
        _, token = ShareLink.create(scenario, self.owner)
        r = self.client.get(f"/s/{token}/")
        self.assertContains(r, "Gated pods")
        self.assertContains(r, "<th scope=\"row\">data/db-0</th>", html=False)
        self.assertContains(r, "example.com/placement")
        self.assertContains(r, "Rejected")
        self.assertContains(r, "FieldValueInvalid")
        # nothing leads a link holder to a members' page or a form
        self.assertNotContains(r, f"/scenarios/{scenario.pk}/")
        self.assertNotContains(r, "Propose update")
