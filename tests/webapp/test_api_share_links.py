from rest_framework.test import APIClient

from webapp.scenarios.models import Run, ShareLink

from .base import SMALL, BaseTestCase


class ShareLinkTestCase(BaseTestCase):
    def create_link(self):
        r = self.api(self.owner).post(self.url("share-links/"))
        self.assertEqual(r.status_code, 201, r.content)
        return r.json()

    def test_it_gives_read_access_without_login(self):
        link = self.create_link()
        token = link["url"].rstrip("/").rsplit("/", 1)[1]
        r = APIClient().get(f"/api/shared/{token}/")
        self.assertEqual(r.status_code, 200)
        self.assertEqual(r.json()["manifests"], SMALL)
        self.assertEqual([rev["number"] for rev in r.json()["revisions"]], [1])
        self.assertEqual(link["api_url"], f"http://testserver/api/shared/{token}/")
        # Only the hash is stored.
        self.assertFalse(ShareLink.objects.filter(token_hash=token).exists())

    def test_it_gives_the_token_and_share_link_urls(self):
        link = self.create_link()
        self.assertEqual(link["api_url"], f"http://testserver/api/shared/{link['token']}/")
        run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), status="succeeded",
                                 result={"pods": []})
        r = APIClient().get(f"/api/shared/{link['token']}/")
        self.assertEqual(r.status_code, 200)
        shared = r.json()
        self.assertEqual(shared["url"], link["api_url"])
        run_url = f"{link['api_url']}runs/{run.pk}/"
        self.assertEqual(([r["url"] for r in shared["runs"]], shared["last_run"]["url"]), ([run_url], run_url))
        self.assertNotIn("links", shared)  # the scenario's own collections are not readable through the link
        r = APIClient().get(run_url)
        self.assertEqual((r.status_code, r.json()["url"]), (200, run_url))

    def test_it_is_read_only(self):
        token = self.create_link()["url"].rstrip("/").rsplit("/", 1)[1]
        client = APIClient()
        self.assertEqual(client.post(f"/api/shared/{token}/", {"name": "x"}, format="json").status_code, 405)
        # The token is not an API credential for the normal endpoints.
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        self.assertEqual(client.get(self.url()).status_code, 401)

    def test_it_shows_a_run_of_the_shared_scenario(self):
        token = self.create_link()["url"].rstrip("/").rsplit("/", 1)[1]
        run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), status="succeeded",
                                 result={"pods": []})
        r = APIClient().get(f"/api/shared/{token}/runs/{run.pk}/")
        self.assertEqual(r.status_code, 200)
        self.assertEqual(r.json()["status"], "succeeded")

    def test_a_shared_run_has_every_field_of_the_run_and_its_stored_result(self):
        from webapp.api.serializers import SharedRunSerializer

        token = self.create_link()["token"]
        run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), status="succeeded",
                                 label="zürich", result={"pods": [{"pod": "default/a", "message": "\"q\" \u2014"}]})
        r = APIClient().get(f"/api/shared/{token}/runs/{run.pk}/")
        self.assertEqual((r.status_code, r["Content-Type"]), (200, "application/json"))
        want = SharedRunSerializer(Run.objects.get(pk=run.pk), context={"request": r.wsgi_request, "token": token}).data
        self.assertEqual(r.json(), dict(want))

    def test_it_stops_working_once_revoked(self):
        link = self.create_link()
        token = link["url"].rstrip("/").rsplit("/", 1)[1]
        self.assertEqual(self.api(self.owner).delete(self.url(f"share-links/{link['id']}/")).status_code, 204)
        self.assertEqual(APIClient().get(f"/api/shared/{token}/").status_code, 404)
        self.assertIsNotNone(ShareLink.objects.get(pk=link["id"]).revoked_at)

    def test_it_is_managed_by_owners_only(self):
        self.assertEqual(self.api(self.editor).post(self.url("share-links/")).status_code, 403)
        self.assertEqual(self.api(self.outsider).post(self.url("share-links/")).status_code, 404)

    def test_it_answers_404_for_an_unknown_token(self):
        self.assertEqual(APIClient().get("/api/shared/not-a-token/").status_code, 404)
