"""/api/teams/: create a team, manage members and roles, leave, hand over ownership, read activity."""

from webapp.scenarios.models import Activity, Membership, Team

from .base import BaseTestCase, make_user


class TeamApiTestCase(BaseTestCase):
    def setUp(self):
        self.t = f"/api/teams/{self.team.pk}"

    def roles(self):
        return dict(Membership.objects.filter(team=self.team).values_list("user__username", "role"))

    def test_it_creates_a_team_owned_by_its_creator(self):
        r = self.api(self.viewer).post("/api/teams/", {"name": "data"}, format="json")
        self.assertEqual(r.status_code, 201, r.content)
        self.assertEqual((r.json()["name"], r.json()["role"]), ("data", "owner"))
        self.assertEqual(r.json()["members"], [{"username": "vic", "role": "owner"}])
        again = self.api(self.editor).post("/api/teams/", {"name": "data"}, format="json")
        self.assertEqual(again.status_code, 400)
        self.assertEqual(again.json(), {"name": ["A team named “data” already exists."]})

    def test_it_lets_owners_add_change_and_remove_members(self):
        make_user("nina")
        api = self.api(self.owner)
        r = api.post(f"{self.t}/members/", {"username": "nina", "role": "editor"}, format="json")
        self.assertEqual((r.status_code, r.json()), (201, {"username": "nina", "role": "editor"}))
        r = api.patch(f"{self.t}/members/nina/", {"role": "viewer"}, format="json")
        self.assertEqual((r.status_code, r.json()), (200, {"username": "nina", "role": "viewer"}))
        self.assertEqual(api.delete(f"{self.t}/members/nina/").status_code, 204)
        self.assertNotIn("nina", self.roles())
        self.assertEqual(
            [a.verb for a in Activity.objects.filter(team=self.team, scenario=None).order_by("id")],
            ["member.added", "member.role_changed", "member.removed"])

    def test_it_names_the_field_of_a_bad_member(self):
        api = self.api(self.owner)
        r = api.post(f"{self.t}/members/", {"username": "nobody", "role": "viewer"}, format="json")
        self.assertEqual((r.status_code, r.json()), (400, {"username": ["No user is named “nobody”."]}))
        r = api.post(f"{self.t}/members/", {"username": "ed", "role": "viewer"}, format="json")
        self.assertEqual(r.json(), {"username": ["ed is already a member of platform."]})
        r = api.patch(f"{self.t}/members/ed/", {"role": "admin"}, format="json")
        self.assertEqual(r.json(), {"role": ["\"admin\" is not a valid choice."]})
        self.assertEqual(api.patch(f"{self.t}/members/mallory/", {"role": "viewer"}, format="json").status_code, 404)

    def test_it_keeps_the_last_owner(self):
        api = self.api(self.owner)
        for r in (api.delete(f"{self.t}/members/olga/"), api.post(f"{self.t}/leave/")):
            self.assertEqual(r.status_code, 400)
            self.assertEqual(r.json(), {"username": [
                "You are the last owner of platform: hand ownership to another member first."]})
        r = api.patch(f"{self.t}/members/olga/", {"role": "editor"}, format="json")
        self.assertEqual(r.json(), {"role": [
            "olga is the last owner of platform: make someone else an owner first."]})
        self.assertEqual(self.roles()["olga"], "owner")

    def test_it_lets_an_owner_leave_once_another_owner_exists(self):
        self.api(self.owner).patch(f"{self.t}/members/ed/", {"role": "owner"}, format="json")
        self.assertEqual(self.api(self.owner).post(f"{self.t}/leave/").status_code, 204)
        self.assertEqual(self.roles(), {"ed": "owner", "vic": "viewer"})
        self.assertEqual(self.api(self.owner).get(f"{self.t}/").status_code, 404)  # no longer a member

    def test_it_lets_any_member_leave(self):
        self.assertEqual(self.api(self.viewer).delete(f"{self.t}/members/vic/").status_code, 204)
        self.assertEqual(self.api(self.editor).post(f"{self.t}/leave/").status_code, 204)
        self.assertEqual(self.roles(), {"olga": "owner"})
        self.assertEqual(self.api(self.viewer).get(f"/api/scenarios/{self.scenario.pk}/").status_code, 404)

    def test_it_hands_over_ownership(self):
        r = self.api(self.owner).post(f"{self.t}/transfer/", {"username": "vic"}, format="json")
        self.assertEqual(r.status_code, 200, r.content)
        self.assertEqual(self.roles(), {"olga": "editor", "ed": "editor", "vic": "owner"})
        self.assertEqual(r.json()["role"], "editor")
        r = self.api(self.viewer).post(f"{self.t}/transfer/", {"username": "vic"}, format="json")
        self.assertEqual(r.json(), {"username": ["You already own this team; choose another member."]})

    def test_it_lists_team_activity_newest_first(self):
        self.api(self.editor).post(self.url("runs/"), {}, format="json")
        r = self.api(self.viewer).get(f"{self.t}/activity/")
        self.assertEqual(r.status_code, 200)
        rows = r.json()["results"]
        self.assertEqual([(a["actor"], a["verb"]) for a in rows],
                         [("ed", "run.queued"), ("olga", "scenario.created")])
        self.assertEqual(rows[0]["scenario_name"], "Small cluster")
        self.assertEqual(rows[0]["action"], "ran")

    def test_it_lists_only_my_teams_with_my_role(self):
        Team.objects.create(name="zzz")
        r = self.api(self.editor).get("/api/teams/")
        self.assertEqual([(t["name"], t["role"]) for t in r.json()["results"]], [("platform", "editor")])

    def test_it_lists_members_by_username(self):
        r = self.api(self.viewer).get(f"{self.t}/members/")
        self.assertEqual(r.json()["results"], [{"username": "ed", "role": "editor"}, {"username": "olga", "role": "owner"},
                                               {"username": "vic", "role": "viewer"}])
