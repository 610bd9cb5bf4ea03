from webapp.scenarios import services

from .base import SMALL, BaseTestCase


class ScenarioListTestCase(BaseTestCase):
    def test_it_lists_my_teams_scenarios(self):
        services.create_scenario(team=self.other_team, name="Secret", manifests=SMALL, author=self.outsider)
        self.client.force_login(self.viewer)
        r = self.client.get("/scenarios/")
        self.assertTemplateUsed(r, "front/scenario_list.html")
        self.assertContains(r, "Small cluster")
        self.assertNotContains(r, "Secret")
        self.assertContains(r, "never run")

    def test_it_searches_by_name(self):
        self.client.force_login(self.viewer)
        self.assertNotContains(self.client.get("/scenarios/?q=zzz"), "Small cluster")
        self.assertContains(self.client.get("/scenarios/?q=small"), "Small cluster")

    def test_it_returns_only_the_table_for_htmx(self):
        self.client.force_login(self.viewer)
        r = self.client.get("/scenarios/?q=small", headers={"HX-Request": "true"})
        self.assertContains(r, 'id="scenario-table"')
        self.assertNotContains(r, "<html")

    def test_it_redirects_anonymous_users_to_login(self):
        r = self.client.get("/scenarios/")
        self.assertRedirects(r, "/login/?next=/scenarios/")
