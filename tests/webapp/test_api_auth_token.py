from rest_framework.test import APIClient

from webapp.scenarios.models import ApiToken

from .base import BaseTestCase, make_user


class ObtainTokenTestCase(BaseTestCase):
    def setUp(self):
        self.user = make_user("scripter", password="s3cret-pass")
        self.client = APIClient()

    def test_it_returns_a_token_for_a_username_and_password(self):
        r = self.client.post("/api/auth/token/", {"username": "scripter", "password": "s3cret-pass"}, format="json")
        self.assertEqual(r.status_code, 201)
        key = r.json()["token"]
        # Only a hash is stored: the key itself is nowhere in the table.
        self.assertFalse(ApiToken.objects.filter(key_hash=key).exists())
        self.assertEqual(ApiToken.objects.get(user=self.user).prefix, key[:8])

    def test_it_refuses_a_wrong_password_in_drf_shape(self):
        r = self.client.post("/api/auth/token/", {"username": "scripter", "password": "nope"}, format="json")
        self.assertEqual(r.status_code, 400)
        self.assertIn("non_field_errors", r.json())

    def test_it_authenticates_requests_with_the_token(self):
        key = self.client.post("/api/auth/token/", {"username": "scripter", "password": "s3cret-pass"},
                               format="json").json()["token"]
        self.assertEqual(self.client.get("/api/scenarios/").status_code, 401)
        self.client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        self.assertEqual(self.client.get("/api/scenarios/").status_code, 200)
        self.assertIsNotNone(ApiToken.objects.get(user=self.user).last_used_at)

    def test_it_refuses_a_revoked_token(self):
        key = self.client.post("/api/auth/token/", {"username": "scripter", "password": "s3cret-pass"},
                               format="json").json()["token"]
        self.client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        token_id = ApiToken.objects.get(user=self.user).pk
        self.assertEqual(self.client.delete(f"/api/tokens/{token_id}/").status_code, 204)
        self.assertEqual(self.client.get("/api/scenarios/").status_code, 401)
        self.assertIsNotNone(ApiToken.objects.get(pk=token_id).revoked_at)


class TokenListTestCase(BaseTestCase):
    def test_it_creates_and_lists_my_tokens_only(self):
        api = self.api(self.editor)
        r = api.post("/api/tokens/", {"name": "ci"}, format="json")
        self.assertEqual(r.status_code, 201)
        self.assertIn("token", r.json())
        ApiToken.create(self.viewer, "someone else's")
        listed = api.get("/api/tokens/").json()["results"]
        self.assertEqual([t["name"] for t in listed], ["ci"])
        self.assertNotIn("token", listed[0])

    def test_it_cannot_revoke_another_users_token(self):
        token, _ = ApiToken.create(self.viewer, "theirs")
        self.assertEqual(self.api(self.editor).delete(f"/api/tokens/{token.pk}/").status_code, 404)
        token.refresh_from_db()
        self.assertIsNone(token.revoked_at)


class TokenGuessingTestCase(BaseTestCase):
    """Password guessing through the token endpoint meets the same limits as the login page."""

    def setUp(self):
        from django.core.cache import cache

        cache.clear()  # throttle and lockout counters live in the cache
        self.user = make_user("scripter", password="s3cret-pass")
        self.client = APIClient()

    def guess(self, password, **extra):
        return self.client.post("/api/auth/token/", {"username": "scripter", "password": password}, format="json",
                                **extra)

    def test_it_throttles_per_address_whatever_x_forwarded_for_says(self):
        codes = [self.guess("nope", HTTP_X_FORWARDED_FOR=f"10.0.0.{i}").status_code for i in range(12)]
        # 10/minute per client address (REMOTE_ADDR): a new X-Forwarded-For per try is no new client.
        self.assertEqual(codes[:5], [400] * 5)
        self.assertEqual(codes[-1], 429)

    def test_it_refuses_a_token_to_an_account_the_login_page_locked_out(self):
        for _ in range(5):
            r = self.client.post("/login/", {"username": "scripter", "password": "nope"})
        self.assertEqual(r.status_code, 200)
        self.assertEqual(self.client.post("/login/", {"username": "scripter", "password": "nope"}).status_code, 429)
        r = self.guess("s3cret-pass")
        self.assertEqual(r.status_code, 429)
        self.assertIn("Too many failed log-ins", r.json()["detail"])
        self.assertFalse(ApiToken.objects.filter(user=self.user).exists())

    def test_it_counts_its_own_failures_towards_the_lockout(self):
        for _ in range(5):
            self.assertEqual(self.guess("nope").status_code, 400)
        self.assertEqual(self.guess("s3cret-pass").status_code, 429)
        r = self.client.post("/login/", {"username": "scripter", "password": "s3cret-pass"})
        self.assertEqual(r.status_code, 429)  # and the login page sees them
