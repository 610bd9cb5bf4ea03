"""Forking a scenario into a team you can edit, by the API and the page; the copy links back."""

from webapp.scenarios import services
from webapp.scenarios.models import Activity, Membership, Scenario, Team

from .base import TWO_PODS, BaseTestCase


class ForkTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        services.save_revision(cls.scenario, manifests=TWO_PODS, author=cls.owner, message="two pods")
        cls.mine = Team.objects.create(name="vics-lab")
        Membership.objects.create(team=cls.mine, user=cls.viewer, role="owner")

    def test_it_copies_the_current_revision_into_my_team(self):
        r = self.api(self.viewer).post(self.url("fork/"), {"team": "vics-lab"}, format="json")
        self.assertEqual(r.status_code, 201, r.content)
        self.assertEqual((r.json()["forked_from"], r.json()["forked_from_revision"]), (self.scenario.pk, 2))
        copy = Scenario.objects.get(pk=r.json()["id"])
        self.assertEqual((copy.team, copy.name, copy.current_revision), (self.mine, "Small cluster (fork)", 1))
        self.assertEqual((copy.forked_from, copy.forked_from_revision), (self.scenario, 2))
        self.assertEqual(copy.head().manifests, TWO_PODS)
        self.assertEqual(copy.head().message, "Forked from “Small cluster” r2")
        # The source's team learns a copy left, not where it went.
        self.assertEqual(Activity.objects.get(scenario=self.scenario, verb="scenario.forked").object,
                         "r2 into another team")

    def test_it_refuses_a_team_i_cannot_edit(self):
        for team in ("platform", "elsewhere", "nope"):
            r = self.api(self.viewer).post(self.url("fork/"), {"team": team}, format="json")
            self.assertEqual(r.status_code, 400)
            self.assertEqual(r.json(), {"team": ["You are not an editor or owner of a team with this id or name."]})
        self.assertEqual(Scenario.objects.count(), 1)

    def test_it_hides_the_scenario_from_outsiders(self):
        r = self.api(self.outsider).post(self.url("fork/"), {"team": "elsewhere"}, format="json")
        self.assertEqual(r.status_code, 404)

    def test_it_forks_from_the_page_and_links_back(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/scenarios/{self.scenario.pk}/fork/")
        self.assertContains(r, '<option value="%d">vics-lab</option>' % self.mine.pk, html=True)
        self.assertNotContains(r, ">platform<")  # viewers cannot fork into their viewer team
        r = self.client.post(f"/scenarios/{self.scenario.pk}/fork/", {"team": self.mine.pk, "name": "what if"},
                             follow=True)
        copy = Scenario.objects.get(name="what if")
        self.assertRedirects(r, f"/scenarios/{copy.pk}/")
        self.assertContains(r, f'Forked from <a href="/scenarios/{self.scenario.pk}/">Small cluster</a> r2')

    def test_it_does_not_link_to_a_source_i_cannot_open(self):
        copy = self.api(self.viewer).post(self.url("fork/"), {"team": "vics-lab"}, format="json").json()
        Membership.objects.filter(team=self.team, user=self.viewer).delete()
        self.client.force_login(self.viewer)
        r = self.client.get(f"/scenarios/{copy['id']}/")
        self.assertContains(r, "Forked from a scenario you cannot open r2")
