"""API tokens and share links are stored hashed and revocable; logins and the token endpoint are throttled."""

import hashlib

from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from webapp.scenarios.models import ApiToken, ShareLink

from ..base import BaseTestCase, make_user


class StoredSecretsTestCase(BaseTestCase):
    def test_it_stores_only_the_hash_of_an_api_token_and_revocation_stops_it(self):
        r = self.api(self.editor).post("/api/tokens/", {"name": "ci"}, format="json")
        key = r.json()["token"]
        token = ApiToken.objects.get(pk=r.json()["id"])
        self.assertEqual(token.key_hash, hashlib.sha256(key.encode()).hexdigest())
        self.assertNotIn(key, str(ApiToken.objects.filter(pk=token.pk).values().get()))
        self.assertNotIn(key, self.api(self.editor).get("/api/tokens/").content.decode())
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        self.assertEqual(client.get("/api/scenarios/").status_code, 200)
        self.assertEqual(self.api(self.editor).delete(f"/api/tokens/{token.pk}/").status_code, 204)
        r = client.get("/api/scenarios/")
        self.assertEqual(r.status_code, 401)
        self.assertEqual(r.json()["detail"], "Invalid or revoked token.")
        # The stored hash itself is not a key.
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key_hash}")
        self.assertEqual(client.get("/api/scenarios/").status_code, 401)

    def test_it_stores_only_the_hash_of_a_share_link_and_revocation_stops_it(self):
        r = self.api(self.owner).post(self.url("share-links/"))
        url = r.json()["api_url"]
        secret = url.rstrip("/").rsplit("/", 1)[1]
        link = ShareLink.objects.get(pk=r.json()["id"])
        self.assertEqual(link.token_hash, hashlib.sha256(secret.encode()).hexdigest())
        self.assertNotIn(secret, self.api(self.owner).get(self.url("share-links/")).content.decode())
        self.assertEqual(APIClient().get(f"/api/shared/{secret}/").status_code, 200)
        self.assertEqual(self.api(self.owner).delete(self.url(f"share-links/{link.pk}/")).status_code, 204)
        self.assertEqual(APIClient().get(f"/api/shared/{secret}/").status_code, 404)
        self.assertEqual(self.client.get(f"/s/{secret}/").status_code, 404)
        self.assertEqual(APIClient().get(f"/api/shared/{link.token_hash}/").status_code, 404)


@override_settings(LOGIN_MAX_FAILURES=3, LOGIN_LOCKOUT_SECONDS=600)
class LoginThrottleTestCase(BaseTestCase):
    def setUp(self):
        cache.clear()
        self.addCleanup(cache.clear)
        self.user = make_user("pat", password="correct horse battery")

    def login(self, password, username="pat", address="10.0.0.1"):
        return self.client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=address)

    def test_it_locks_an_account_out_after_repeated_failures_even_for_the_right_password(self):
        for _ in range(3):
            r = self.login("wrong")
            self.assertEqual(r.status_code, 200)
            self.assertContains(r, "Please enter a correct username and password")
        r = self.login("correct horse battery")
        self.assertEqual(r.status_code, 429)
        self.assertContains(r, "Too many failed log-ins for this account. Wait 10 minutes and try again.",
                            status_code=429)
        self.assertNotIn("_auth_user_id", self.client.session)
        # Another address may still log in (someone can't lock the owner out from elsewhere) …
        self.assertEqual(self.login("correct horse battery", address="10.0.0.2").status_code, 302)

    def test_it_locks_a_username_out_everywhere_after_four_times_the_failures(self):
        for i in range(12):
            self.login("wrong", address=f"10.1.0.{i}")
        self.assertEqual(self.login("correct horse battery", address="10.2.0.1").status_code, 429)
        self.assertEqual(self.login("wrong", username="someone-else").status_code, 200)

    def test_it_forgets_failures_after_a_successful_login(self):
        self.login("wrong")
        self.login("wrong")
        self.assertEqual(self.login("correct horse battery").status_code, 302)
        self.client.logout()
        for _ in range(2):
            self.login("wrong")
        self.assertEqual(self.login("correct horse battery").status_code, 302)

    def test_it_locks_the_admin_login_out_too(self):
        self.user.is_staff = True
        self.user.save()
        for _ in range(3):
            self.client.post("/admin/login/", {"username": "pat", "password": "wrong"}, REMOTE_ADDR="10.0.0.1")
        r = self.client.post("/admin/login/?next=/admin/", {"username": "pat", "password": "correct horse battery"},
                             REMOTE_ADDR="10.0.0.1")
        self.assertContains(r, "Too many failed log-ins for this account.")
        self.assertNotIn("_auth_user_id", self.client.session)

    def test_it_throttles_the_token_endpoint(self):
        client = APIClient()
        # Guesses at 12 usernames (one name's own failures would meet its lockout first: 3 here).
        codes = [client.post("/api/auth/token/", {"username": f"pat{i}", "password": "wrong"},
                             format="json").status_code for i in range(12)]
        self.assertEqual(codes[:10], [400] * 10)
        self.assertEqual(codes[10:], [429, 429])
        r = client.post("/api/auth/token/", {"username": "pat", "password": "correct horse battery"}, format="json")
        self.assertEqual(r.status_code, 429)
        self.assertIn("Request was throttled", r.json()["detail"])
        self.assertIn("Retry-After", r.headers)
