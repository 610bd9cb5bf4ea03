"""A preemptor's pod page names its victims as links to their own pod pages."""

from .base import BaseTestCase
from .test_run_topology import example_run

VICTIM = "default/batch-4f6c8d7b9-m6n7p"
PREEMPTOR = "default/checkout-3c5e7a9b2-x3y4z"


class PreemptionVictimLinksTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.preempt = example_run(cls, "preemption")

    def test_the_pod_page_links_each_victim_to_its_pod_page(self):
        self.client.force_login(self.viewer)
        page = self.client.get(f"/runs/{self.preempt.pk}/pods/{PREEMPTOR}/").content.decode()
        victims = page.split("<h3>Victims</h3>", 1)[1].split("</ul>", 1)[0]
        self.assertIn(f'<li><a href="/runs/{self.preempt.pk}/pod/{VICTIM}/">{VICTIM}</a></li>', victims)
        self.assertEqual(self.client.get(f"/runs/{self.preempt.pk}/pod/{VICTIM}/", follow=True).status_code, 200)
