"""Team pages: list and create, members and roles, leave, hand over ownership, activity."""

from webapp.scenarios.models import Membership

from .base import BaseTestCase, make_user


class TeamPagesTestCase(BaseTestCase):
    def setUp(self):
        self.t = f"/teams/{self.team.pk}"

    def roles(self):
        return dict(Membership.objects.filter(team=self.team).values_list("user__username", "role"))

    def test_it_lists_my_teams_and_creates_one(self):
        self.client.force_login(self.viewer)
        r = self.client.get("/teams/")
        self.assertContains(r, f'<a href="{self.t}/">platform</a>', html=True)
        self.assertNotContains(r, "elsewhere")
        r = self.client.post("/teams/", {"name": "vics-lab"}, follow=True)
        self.assertContains(r, "Team “vics-lab” created; you are its owner.")
        self.assertTemplateUsed(r, "front/team_detail.html")
        r = self.client.post("/teams/", {"name": "platform"})
        self.assertContains(r, "A team named “platform” already exists.")

    def test_it_shows_owners_the_member_controls_only(self):
        self.client.force_login(self.owner)
        self.assertContains(self.client.get(f"{self.t}/"), 'id="add-member"')
        self.client.force_login(self.editor)
        r = self.client.get(f"{self.t}/")
        self.assertNotContains(r, 'id="add-member"')
        self.assertNotContains(r, "hand over ownership")
        self.assertContains(r, "Leave team")

    def test_it_adds_changes_and_removes_a_member(self):
        make_user("nina")
        self.client.force_login(self.owner)
        r = self.client.post(f"{self.t}/members/", {"username": "nina", "role": "editor"}, follow=True)
        self.assertContains(r, "nina added as editor.")
        self.client.post(f"{self.t}/members/nina/role/", {"role": "owner"})
        self.assertEqual(self.roles()["nina"], "owner")
        r = self.client.post(f"{self.t}/members/nina/remove/", follow=True)
        self.assertContains(r, "nina removed from platform.")
        self.assertContains(r, "<strong>olga</strong> removed a member <span>nina</span>")
        self.assertNotIn("nina", self.roles())

    def test_it_says_why_the_last_owner_stays(self):
        self.client.force_login(self.owner)
        r = self.client.post(f"{self.t}/leave/", follow=True)
        self.assertRedirects(r, f"{self.t}/")
        self.assertContains(r, "You are the last owner of platform: hand ownership to another member first.")
        r = self.client.post(f"{self.t}/members/olga/role/", {"role": "viewer"}, follow=True)
        self.assertContains(r, "olga is the last owner of platform: make someone else an owner first.")
        self.assertEqual(self.roles()["olga"], "owner")

    def test_it_hands_over_ownership_and_then_lets_me_leave(self):
        self.client.force_login(self.owner)
        r = self.client.post(f"{self.t}/transfer/", {"username": "ed"}, follow=True)
        self.assertContains(r, "ed now owns platform; you are an editor.")
        r = self.client.post(f"{self.t}/leave/", follow=True)
        self.assertRedirects(r, "/teams/")
        self.assertContains(r, "You left platform.")
        self.assertEqual(self.roles(), {"ed": "owner", "vic": "viewer"})
