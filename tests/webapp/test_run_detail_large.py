"""A large run's page lists the pods not scheduled first and caps its tables (RUN_PAGE_ROWS, lowered here)."""

import re
from unittest import mock

from webapp.front import run_page

from .base import BaseTestCase
from .test_run_topology import example_run


class LargeRunPageTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.the_run = example_run(cls, "min-domains")  # 6 pods scheduled, 4 left pending

    def setUp(self):
        patcher = mock.patch.object(run_page, "RUN_PAGE_ROWS", 5)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.client.force_login(self.viewer)

    def rows(self, page):
        table = page.split('id="pod-table"', 1)[1].split("</table>", 1)[0]
        return re.findall(r'<tr class="outcome-(\w+)">', table)

    def test_it_lists_the_pods_left_pending_first_and_says_how_many_it_shows(self):
        page = self.client.get(f"/runs/{self.the_run.pk}/").content.decode()
        self.assertEqual(self.rows(page), ["unschedulable"] * 4 + ["scheduled"])
        self.assertIn("this page lists 5 of 10 pods (those not\n      scheduled first)", page)
        self.assertIn('<a href="?all=1">List them all</a>', page)
        self.assertIn("6 Scheduled", page)  # the summary still counts every pod

    def test_all_lists_every_pod_in_the_engines_order(self):
        page = self.client.get(f"/runs/{self.the_run.pk}/?all=1").content.decode()
        rows = self.rows(page)
        self.assertEqual((rows.count("scheduled"), rows.count("unschedulable")), (6, 4))
        self.assertNotIn('id="run-capped"', page)
        pods = [r["pod"] for r in self.the_run.result["pods"]]
        self.assertEqual(re.findall(r'<tr class="outcome-\w+">\s*<th scope="row"><a href="[^"]*">([^<]+)</a>', page), pods)

    def test_a_run_within_the_cap_has_no_note(self):
        with mock.patch.object(run_page, "RUN_PAGE_ROWS", 1000):
            page = self.client.get(f"/runs/{self.the_run.pk}/").content.decode()
        self.assertNotIn('id="run-capped"', page)
        self.assertEqual(len(self.rows(page)), 10)
