"""Every API endpoint and page × anonymous / other team / viewer / editor / owner / share link.

Levels: "read" needs the viewer role, "edit" the editor role, "own" the owner role.
Outsiders get 404 for anything of the team (they may not know it exists), members
without the role 403, anonymous API calls 401/403 and anonymous pages a login redirect.
Each request runs in a savepoint that is rolled back, so deletes don't disturb the rest.
"""

from django.db import transaction
from django.utils import timezone
from rest_framework.test import APIClient

from webapp.scenarios import drafts, engine, services
from webapp.scenarios.models import ApiToken, Run, ShareLink, Sweep

from ..base import SMALL, TWO_PODS, BaseTestCase

DENIED = {401, 403, 404, 405}


def add_matrix_data(cls):
    """A second revision, two finished runs, a sweep, share links and drafts on BaseTestCase's scenario."""
    s = cls.scenario
    services.save_revision(s, manifests=TWO_PODS, author=cls.owner, message="second")
    cls.run_a, cls.run_b = (
        Run.objects.create(scenario=s, revision=s.head(), created_by=cls.owner, status="succeeded",
                           result=engine.simulate(TWO_PODS))
        for _ in range(2)
    )
    cls.sweep = Sweep.objects.create(scenario=s, revision=s.head(), spec={}, created_by=cls.owner)
    cls.link, cls.share_token = ShareLink.create(s, cls.owner)
    cls.other_link, _ = ShareLink.create(s, cls.owner)
    for user in (cls.editor, cls.owner):  # so "save the draft" has something to save
        drafts.set_text(drafts.get_or_start(s, user), TWO_PODS + "# drafted\n")


def api_endpoints(self):
    """(method, url, level, body) of every API endpoint on a test case's scenario, runs, sweep and link."""
    pk, run, run2 = self.scenario.pk, self.run_a.pk, self.run_b.pk
    sc = f"/api/scenarios/{pk}"
    return [
        ("get", f"{sc}/", "read", None),
        ("patch", f"{sc}/", "edit", {"name": "renamed"}),
        ("put", f"{sc}/", "edit", {"name": "renamed"}),
        ("delete", f"{sc}/", "own", None),
        ("get", f"{sc}/revisions/", "read", None),
        ("post", f"{sc}/revisions/", "edit", {"manifests": SMALL, "revision": 2}),
        ("get", f"{sc}/revisions/1/", "read", None),
        ("get", f"{sc}/revisions/2/diff/", "read", None),
        ("post", f"{sc}/revisions/1/restore/", "edit", {}),
        ("get", f"{sc}/manifests/", "read", None),
        ("get", f"{sc}/runs/", "read", None),
        ("post", f"{sc}/runs/", "edit", {}),
        ("get", f"{sc}/share-links/", "own", None),
        ("post", f"{sc}/share-links/", "own", None),
        ("delete", f"{sc}/share-links/{self.other_link.pk}/", "own", None),
        ("get", f"{sc}/draft/", "edit", None),
        ("put", f"{sc}/draft/", "edit", {"manifests": SMALL}),
        ("delete", f"{sc}/draft/", "edit", None),
        ("post", f"{sc}/draft/edits/", "edit", {"op": "set_max_skew", "value": 2}),
        ("post", f"{sc}/draft/run/", "edit", {}),
        ("post", f"{sc}/draft/save/", "edit", {}),
        ("get", f"{sc}/compare/?a={run}&b={run2}", "read", None),
        ("get", f"/api/runs/{run}/compare/{run2}/", "read", None),
        ("post", f"{sc}/sweeps/", "edit", {"axes": []}),
        ("get", f"/api/sweeps/{self.sweep.pk}/", "read", None),
        ("get", f"{sc}/pods/default/web-1/updates/", "read", None),
        ("post", f"{sc}/pods/default/web-1/updates/", "edit", {"pod": {"metadata": {"name": "web-1"}}}),
        ("get", f"{sc}/pod-updates/", "read", None),
        ("get", f"/api/runs/{run}/", "read", None),
        ("get", f"/api/runs/{run}/pods/", "read", None),
        ("get", f"/api/runs/{run}/topology/", "read", None),
        ("get", f"/api/runs/{run}/timeline/", "read", None),
        ("get", f"/api/runs/{run}/nodes/node-a/", "read", None),
        ("get", f"/api/runs/{run}/pods/default/web-1/", "read", None),
        ("get", f"/api/teams/{self.team.pk}/", "read", None),
    ]

def page_endpoints(self):
    """The same for every page and form action."""
    pk, run, run2 = self.scenario.pk, self.run_a.pk, self.run_b.pk
    sc = f"/scenarios/{pk}"
    return [
        ("get", f"{sc}/", "read", None),
        ("post", f"{sc}/save/", "edit", {"manifests": SMALL, "base_revision": 2}),
        ("post", f"{sc}/delete/", "own", {}),
        ("get", f"{sc}/revisions/1/", "read", None),
        ("post", f"{sc}/revisions/1/restore/", "edit", {}),
        ("post", f"{sc}/runs/", "edit", {}),
        ("post", f"{sc}/share/", "own", {}),
        ("post", f"{sc}/share/{self.other_link.pk}/revoke/", "own", {}),
        ("get", f"{sc}/pods/", "read", None),
        ("post", f"{sc}/pods/default/web-1/update/", "edit", {"yaml": "metadata: {name: web-1}"}),
        ("get", f"/runs/{run}/", "read", None),
        ("get", f"/runs/{run}/topology/", "read", None),
        ("get", f"/runs/{run}/nodes/", "read", None),
        ("get", f"/runs/{run}/nodes/node-a/", "read", None),
        ("get", f"/runs/{run}/pods/default/web-1/", "read", None),
        ("get", f"/runs/{run}/timeline/", "read", None),
        ("get", f"{sc}/draft/", "edit", None),
        ("post", f"{sc}/draft/validate/", "edit", {"manifests": SMALL}),
        ("post", f"{sc}/draft/edit/", "edit", {"op": "set_max_skew", "value": "2"}),
        ("post", f"{sc}/draft/run/", "edit", {}),
        ("get", f"{sc}/draft/runs/", "edit", None),
        ("post", f"{sc}/draft/save/", "edit", {}),
        ("post", f"{sc}/draft/rebase/", "edit", {}),
        ("post", f"{sc}/draft/discard/", "edit", {}),
        ("get", f"{sc}/compare/?a={run}&b={run2}", "read", None),
        ("get", f"{sc}/sweeps/", "read", None),
        ("post", f"{sc}/sweeps/new/", "edit", {}),
        ("get", f"/sweeps/{self.sweep.pk}/", "read", None),
    ]


def shared_pages(token, run):
    """Every read-only page a share link opens (the scenario, then the run's dashboard)."""
    prefix = f"/s/{token}/runs/{run}/"
    return [f"/s/{token}/", prefix, f"{prefix}topology/", f"{prefix}nodes/", f"{prefix}nodes/node-a/",
            f"{prefix}pods/default/web-1/", f"{prefix}timeline/"]


class AccessMatrixTestCase(BaseTestCase):
    maxDiff = None

    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        add_matrix_data(cls)

    def api_endpoints(self):
        return api_endpoints(self)

    def page_endpoints(self):
        return page_endpoints(self)

    def call(self, client, method, url, data, api):
        with transaction.atomic():
            if api:
                r = getattr(client, method)(url, data, format="json")
            else:
                r = getattr(client, method)(url, data or {})
            transaction.set_rollback(True)
        return r

    def clients(self, api):
        out = {"anonymous": APIClient() if api else self.client_class()}
        for role in ("outsider", "viewer", "editor", "owner"):
            client = APIClient() if api else self.client_class()
            if api:
                client.force_authenticate(getattr(self, role))
            else:
                client.force_login(getattr(self, role))
            out[role] = client
        return out

    def expected(self, role, level, api):
        """The status codes `role` may get for an endpoint needing `level`; None: any allowed (not denied) one."""
        rank = {"viewer": 1, "editor": 2, "owner": 3}
        need = {"read": 1, "edit": 2, "own": 3}
        if role == "anonymous":
            return {401, 403} if api else {302}
        if role == "outsider":
            return {404}
        return None if rank[role] >= need[level] else {403}

    def check(self, endpoints, api):
        """Every (role, endpoint) pair; returns how many were checked, after failing with all the wrong ones."""
        wrong, checked = [], 0
        for role, client in self.clients(api).items():
            for method, url, level, data in endpoints:
                r = self.call(client, method, url, data, api)
                expected = self.expected(role, level, api)
                ok = (r.status_code not in DENIED and r.status_code < 500) if expected is None \
                    else r.status_code in expected
                if ok and role == "anonymous" and not api:
                    ok = r["Location"].startswith("/login/")
                if not ok:
                    wrong.append(f"{role} {method.upper()} {url}: {r.status_code} {r.content[:120]!r}")
                checked += 1
        self.assertEqual(wrong, [])
        return checked

    def test_it_enforces_roles_on_every_api_endpoint(self):
        self.assertEqual(self.check(self.api_endpoints(), api=True), 5 * len(self.api_endpoints()))

    def test_it_enforces_roles_on_every_page(self):
        self.assertEqual(self.check(self.page_endpoints(), api=False), 5 * len(self.page_endpoints()))

    def test_it_lists_only_my_teams_scenarios_runs_and_teams(self):
        for url in ("/api/scenarios/", "/api/runs/"):
            r = self.api(self.outsider).get(url)
            self.assertEqual(r.status_code, 200)
            self.assertEqual(r.json()["results"], [], url)
            self.assertEqual(self.api(self.viewer).get(url).json()["count"], 1 if "scenarios" in url else 2)
        teams = self.api(self.outsider).get("/api/teams/").json()
        self.assertEqual([t["name"] for t in teams.get("results", teams)], ["elsewhere"])
        self.client.force_login(self.outsider)
        self.assertNotContains(self.client.get("/scenarios/"), "Small cluster")

    def test_it_keeps_tokens_to_their_owner(self):
        token, _ = ApiToken.create(self.viewer, "mine")
        for role in ("outsider", "editor", "owner"):
            api = self.api(getattr(self, role))
            self.assertNotIn(token.pk, [t["id"] for t in api.get("/api/tokens/").json()["results"]])
            self.assertEqual(api.delete(f"/api/tokens/{token.pk}/").status_code, 404)
            self.client.force_login(getattr(self, role))
            self.assertEqual(self.client.post(f"/tokens/{token.pk}/revoke/").status_code, 404)
        token.refresh_from_db()
        self.assertIsNone(token.revoked_at)

    def test_it_gives_a_share_link_read_access_only(self):
        anon = APIClient()
        base = f"/api/shared/{self.share_token}/"
        self.assertEqual(anon.get(base).status_code, 200)
        self.assertEqual(anon.get(f"{base}runs/{self.run_a.pk}/").status_code, 200)
        pages = shared_pages(self.share_token, self.run_a.pk)
        for url in pages:
            self.assertEqual(self.client.get(url).status_code, 200, url)
        for method in ("post", "put", "patch", "delete"):
            self.assertIn(getattr(anon, method)(base, {"manifests": SMALL}, format="json").status_code, (403, 405))
            for url in pages:
                self.assertIn(getattr(self.client, method)(url).status_code, (403, 405), f"{method} {url}")
        # The token opens nothing else: not the scenario's own API or pages, not as an API token.
        self.assertIn(anon.get(f"/api/scenarios/{self.scenario.pk}/").status_code, (401, 403))
        anon.credentials(HTTP_AUTHORIZATION=f"Token {self.share_token}")
        self.assertEqual(anon.get(f"/api/scenarios/{self.scenario.pk}/").status_code, 401)
        self.assertEqual(self.client.get(f"/scenarios/{self.scenario.pk}/").status_code, 302)
        # Another scenario's runs are not reachable through this link.
        other = services.create_scenario(team=self.other_team, name="Theirs", manifests=SMALL, author=self.outsider)
        theirs = Run.objects.create(scenario=other, revision=other.head(), created_by=self.outsider,
                                    status="succeeded", result=self.run_a.result)
        self.assertEqual(APIClient().get(f"{base}runs/{theirs.pk}/").status_code, 404)
        for url in shared_pages(self.share_token, theirs.pk)[1:]:
            self.assertEqual(self.client.get(url).status_code, 404, url)

    def test_a_revoked_or_unknown_share_link_opens_nothing(self):
        self.link.revoked_at = timezone.now()
        self.link.save()
        for token in (self.share_token, "not-a-token"):
            for url in shared_pages(token, self.run_a.pk):
                self.assertEqual(self.client.get(url).status_code, 404, url)
