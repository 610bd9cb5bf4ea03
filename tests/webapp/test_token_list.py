from webapp.scenarios.models import ApiToken

from .base import BaseTestCase


class TokenListTestCase(BaseTestCase):
    def test_it_creates_a_token_and_shows_the_key_once(self):
        self.client.force_login(self.editor)
        r = self.client.post("/tokens/", {"name": "laptop"})
        token = ApiToken.objects.get(user=self.editor)
        self.assertContains(r, 'id="new-token"')
        self.assertContains(r, token.prefix)
        self.assertNotContains(self.client.get("/tokens/"), 'id="new-token"')

    def test_it_revokes_my_token(self):
        token, _ = ApiToken.create(self.editor, "old")
        self.client.force_login(self.editor)
        self.assertRedirects(self.client.post(f"/tokens/{token.pk}/revoke/"), "/tokens/")
        token.refresh_from_db()
        self.assertFalse(token.is_active)

    def test_it_cannot_revoke_someone_elses_token(self):
        token, _ = ApiToken.create(self.viewer, "theirs")
        self.client.force_login(self.editor)
        self.client.post(f"/tokens/{token.pk}/revoke/")
        token.refresh_from_db()
        self.assertTrue(token.is_active)

    def test_its_name_field_is_described_by_its_help_text(self):
        self.client.force_login(self.editor)
        r = self.client.get("/tokens/")
        self.assertContains(r, 'aria-describedby="id_name_helptext"')
        self.assertContains(r, 'id="id_name_helptext"')
