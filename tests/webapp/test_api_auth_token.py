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
