"""The access matrix again, for the team pages and API, forks, activity lists and run exports.

Same rules as test_access_matrix.py: outsiders get 404, members without the role 403,
anonymous API calls 401/403 and anonymous pages a login redirect. "read" here means any
member of the team: viewers may read a team's members and activity, fork into a team of
their own, and leave.
"""

from webapp.scenarios.models import Team

from . import test_access_matrix as matrix


def team_api_endpoints(self):
    t, sc, run = self.team.pk, f"/api/scenarios/{self.scenario.pk}", self.run_a.pk
    return [
        ("get", f"/api/teams/{t}/", "read", None),
        ("get", f"/api/teams/{t}/members/", "read", None),
        ("post", f"/api/teams/{t}/members/", "own", {"username": "pat", "role": "viewer"}),
        ("patch", f"/api/teams/{t}/members/nina/", "own", {"role": "editor"}),
        ("delete", f"/api/teams/{t}/members/nina/", "own", None),
        ("post", f"/api/teams/{t}/transfer/", "own", {"username": "ed"}),
        ("post", f"/api/teams/{t}/leave/", "read", None),
        ("get", f"/api/teams/{t}/activity/", "read", None),
        ("get", f"{sc}/activity/", "read", None),
        ("post", f"{sc}/fork/", "read", {"team": "platform"}),
        ("get", f"/api/runs/{run}/export.json", "read", None),
        ("get", f"/api/runs/{run}/export.csv", "read", None),
    ]


def team_page_endpoints(self):
    t, sc = self.team.pk, f"/scenarios/{self.scenario.pk}"
    return [
        ("get", f"/teams/{t}/", "read", None),
        ("post", f"/teams/{t}/members/", "own", {"username": "pat", "role": "viewer"}),
        ("post", f"/teams/{t}/members/nina/role/", "own", {"role": "editor"}),
        ("post", f"/teams/{t}/members/nina/remove/", "own", {}),
        ("post", f"/teams/{t}/transfer/", "own", {"username": "ed"}),
        ("post", f"/teams/{t}/leave/", "read", {}),
        ("get", f"{sc}/activity/", "read", None),
        ("get", f"{sc}/fork/", "read", None),
        ("post", f"{sc}/fork/", "read", {"team": self.team.pk, "name": "copy"}),
    ]


class TeamAccessMatrixTestCase(matrix.AccessMatrixTestCase):
    # The scenario-level tests of the parent run once, in their own module.
    test_it_lists_only_my_teams_scenarios_runs_and_teams = None
    test_it_keeps_tokens_to_their_owner = None
    test_it_gives_a_share_link_read_access_only = None
    test_a_revoked_or_unknown_share_link_opens_nothing = None

    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        from webapp.scenarios.models import Membership

        from ..base import make_user

        # Members other than the role users are changed, so that no request is someone leaving.
        Membership.objects.create(team=cls.team, user=make_user("nina"), role="viewer")
        make_user("pat")

    def api_endpoints(self):
        return team_api_endpoints(self)

    def page_endpoints(self):
        return team_page_endpoints(self)

    def test_it_keeps_an_outsiders_own_team_to_them(self):
        # The outsider owns "elsewhere": team members of "platform" get 404 there, as outsiders do here.
        other = self.other_team.pk
        theirs = self.api(self.outsider).get(f"/api/teams/{other}/members/")
        self.assertEqual(theirs.json()["results"], [{"username": "mallory", "role": "owner"}])
        for role in ("viewer", "editor", "owner"):
            api = self.api(getattr(self, role))
            for url in (f"/api/teams/{other}/", f"/api/teams/{other}/members/", f"/api/teams/{other}/activity/"):
                self.assertEqual(api.get(url).status_code, 404, f"{role} {url}")
            self.client.force_login(getattr(self, role))
            self.assertEqual(self.client.get(f"/teams/{other}/").status_code, 404)

    def test_it_asks_anonymous_users_to_log_in_for_team_lists(self):
        from rest_framework.test import APIClient

        anon = APIClient()
        self.assertIn(anon.get("/api/teams/").status_code, (401, 403))
        self.assertIn(anon.post("/api/teams/", {"name": "x"}, format="json").status_code, (401, 403))
        for method in ("get", "post"):
            r = getattr(self.client, method)("/teams/", {"name": "x"} if method == "post" else None)
            self.assertEqual((r.status_code, r["Location"][:7]), (302, "/login/"))
        self.assertFalse(Team.objects.filter(name="x").exists())
