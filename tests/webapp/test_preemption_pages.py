"""A preemption run names its victims as links to their pod pages and shows each pod's priority
on the run page and the pod page (both read from the engine's result)."""

from .base import BaseTestCase
from .test_run_topology import example_run

VICTIM = "default/batch-4f6c8d7b9-m6n7p"
PREEMPTOR = "default/checkout-3c5e7a9b2-x3y4z"


class PreemptionPagesTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.preempt = example_run(cls, "preemption")

    def test_the_run_page_links_the_evicted_pod_and_shows_priorities(self):
        self.client.force_login(self.viewer)
        page = self.client.get(f"/runs/{self.preempt.pk}/").content.decode()
        link = f'<a href="/runs/{self.preempt.pk}/pods/{VICTIM}/">{VICTIM}</a>'
        evicted = page.split("<h2>Evicted pods</h2>", 1)[1].split("<h2>", 1)[0]
        self.assertIn(link, evicted)
        self.assertIn('<th scope="col">Priority</th>', page)
        row = page.split(f">{PREEMPTOR}</a></th>", 1)[1].split("</tr>", 1)[0]
        self.assertIn('<td data-label="Priority">1000000</td>', row)

    def test_the_pod_page_links_the_victims_and_shows_the_priority(self):
        self.client.force_login(self.viewer)
        page = self.client.get(f"/runs/{self.preempt.pk}/pods/{PREEMPTOR}/").content.decode()
        victims = page.split("<h3>Victims</h3>", 1)[1].split("</ul>", 1)[0]
        self.assertIn(f'<a href="/runs/{self.preempt.pk}/pods/{VICTIM}/">{VICTIM}</a>', victims)
        self.assertIn("Priority <strong>1000000</strong>", page)
