from webapp.scenarios import services
from webapp.scenarios.models import Revision

from .base import SMALL, TWO_PODS, BaseTestCase


class RevisionRestoreTestCase(BaseTestCase):
    def test_it_restores_as_a_new_revision(self):
        services.save_revision(self.scenario, manifests=TWO_PODS, author=self.editor, base=1)
        self.client.force_login(self.editor)
        r = self.client.post(f"/scenarios/{self.scenario.pk}/revisions/1/restore/")
        self.assertRedirects(r, f"/scenarios/{self.scenario.pk}/")
        self.assertEqual(Revision.objects.get(scenario=self.scenario, number=3).manifests, SMALL)

    def test_it_is_forbidden_for_a_viewer(self):
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.post(f"/scenarios/{self.scenario.pk}/revisions/1/restore/").status_code, 403)
