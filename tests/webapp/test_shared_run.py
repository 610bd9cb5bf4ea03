"""A share link opens a run's whole dashboard read-only: result, topology, nodes, node, pod, timeline."""

import re

from django.utils import timezone

from webapp.scenarios.models import Run, ShareLink

from .base import BaseTestCase
from .test_run_topology import example_run

POD = "default/api-5b7d9c8f4-e1f2g"
# href, action, hx-get, hx-post and the URL a copy-link button copies.
LINK = re.compile(r'\s(?:href|action|hx-get|hx-post|data-copy)="([^"]*)"')


class SharedRunTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.the_run = example_run(cls, "min-domains")
        cls.link, cls.token = ShareLink.create(cls.the_run.scenario, cls.owner)
        cls.preempt = example_run(cls, "preemption")
        _, cls.preempt_token = ShareLink.create(cls.preempt.scenario, cls.owner)

    def prefix(self):
        return f"/s/{self.token}/runs/{self.the_run.pk}/"

    def pages(self):
        p = self.prefix()
        return {"result": p, "topology": f"{p}topology/", "nodes": f"{p}nodes/", "node": f"{p}nodes/node-a/",
                "pod": f"{p}pods/{POD}/", "timeline": f"{p}timeline/?step=3"}

    def test_it_serves_every_dashboard_view_without_login(self):
        expect = {"result": "FailedScheduling", "topology": "Pending (4)", "nodes": "Nodes of run",
                  "node": "Node node-a", "pod": "would make skew 3 &gt; maxSkew 2", "timeline": "Cycle <strong"}
        for name, url in self.pages().items():
            r = self.client.get(url)
            self.assertEqual(r.status_code, 200, name)
            self.assertContains(r, expect[name], msg_prefix=name)

    def test_it_keeps_every_link_under_the_share_prefix(self):
        # every page of both runs, every node page included (the preemption run's have nominated and evicted pods)
        pages = [(self.token, name, url) for name, url in self.pages().items()]
        for token, run in ((self.token, self.the_run), (self.preempt_token, self.preempt)):
            p = f"/s/{token}/runs/{run.pk}/"
            pages += [(token, f"run {run.pk} node {n['name']}", f"{p}nodes/{n['name']}/") for n in run.result["nodes"]]
            pages += [(token, f"run {run.pk} {view}", f"{p}{view}") for view in ("", "topology/", "nodes/", "timeline/")]
        for token, name, url in pages:
            share = f"/s/{token}/"
            response = self.client.get(url)
            self.assertEqual(response.status_code, 200, name)
            html = response.content.decode()
            for link in LINK.findall(html):
                link = link.replace("http://testserver", "")
                ok = link.startswith((share, "?", "#", "/static/")) or link == "/login/"
                self.assertTrue(ok, f"{name} links to {link}, which needs a login")
            self.assertNotIn('method="post"', html, name)

    def test_it_shows_a_nomination_with_links_under_the_prefix(self):
        prefix = f"/s/{self.preempt_token}/runs/{self.preempt.pk}/"
        r = self.client.get(f"{prefix}pods/default/checkout-3c5e7a9b2-x3y4z/")
        self.assertContains(r, "Nominated node")
        self.assertContains(r, f'href="{prefix}nodes/node-a/"')
        self.assertContains(r, f'href="{prefix}timeline/?step=1"')
        self.assertNotContains(r, f'href="/runs/{self.preempt.pk}/')

    def test_a_gated_pod_says_why_it_waits_without_the_update_link(self):
        gated = example_run(self, "gated-pods")
        _, token = ShareLink.create(gated.scenario, self.owner)
        r = self.client.get(f"/s/{token}/runs/{gated.pk}/pods/default/db-9a1b3c5d7-p1q2r/")
        self.assertContains(r, "Held back by scheduling gate")
        self.assertNotContains(r, "/update/")

    def test_it_hides_write_controls(self):
        for name, url in self.pages().items():
            r = self.client.get(url)
            for control in ('id="run-button"', 'id="draft-link"', "Save the file as r", "Create a read-only link",
                            "Propose update", "compare…", "csrfmiddlewaretoken"):
                self.assertNotContains(r, control, msg_prefix=name)

    def test_its_copy_link_buttons_copy_the_share_link(self):
        for name in ("result", "node", "pod"):
            url = self.pages()[name]
            r = self.client.get(url)
            self.assertContains(r, f'data-copy="http://testserver{url}"', msg_prefix=name)

    def test_it_switches_the_topology_key_with_an_htmx_fragment(self):
        r = self.client.get(f"{self.prefix()}topology/?key=kubernetes.io/hostname", headers={"HX-Request": "true"})
        self.assertNotContains(r, "<html")
        self.assertContains(r, 'aria-label="hostname node-b"')
        self.assertContains(r, f'href="{self.prefix()}nodes/node-b/"')

    def test_it_shows_the_spread_constraint_view(self):
        r = self.client.get(f"{self.prefix()}topology/?pod={POD}")
        self.assertContains(r, "3 of 5 domains: global minimum treated as 0")
        self.assertContains(r, "Global minimum <strong>0</strong>; allowed band 0–2")

    def test_it_redirects_the_namespace_slash_name_link_under_the_prefix(self):
        r = self.client.get(f"{self.prefix()}pod/{POD}/")
        self.assertRedirects(r, f"{self.prefix()}pods/{POD}/")

    def test_its_polled_result_fragment_keeps_share_links(self):
        r = self.client.get(self.prefix(), headers={"HX-Request": "true"})
        self.assertContains(r, f'href="{self.prefix()}topology/"')
        self.assertContains(r, f'href="{self.prefix()}pod/{POD}/"')

    def test_it_is_404_for_an_unknown_or_revoked_token(self):
        pages = self.pages()
        for name, url in pages.items():
            self.assertEqual(self.client.get(url.replace(self.token, "nope")).status_code, 404, name)
        ShareLink.objects.filter(pk=self.link.pk).update(revoked_at=timezone.now())
        for name, url in pages.items():
            self.assertEqual(self.client.get(url).status_code, 404, name)
        self.assertEqual(self.client.get(f"{self.prefix()}pod/{POD}/").status_code, 404)

    def test_it_is_404_for_a_run_of_another_scenario(self):
        other = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), status="succeeded",
                                   result=self.the_run.result)
        for name, url in self.pages().items():
            url = url.replace(f"/runs/{self.the_run.pk}/", f"/runs/{other.pk}/")
            self.assertEqual(self.client.get(url).status_code, 404, name)

    def test_it_refuses_writes(self):
        for name, url in self.pages().items():
            self.assertEqual(self.client.post(url).status_code, 405, name)

    def test_members_still_need_to_log_in_at_the_plain_urls(self):
        r = self.client.get(f"/runs/{self.the_run.pk}/topology/")
        self.assertEqual(r.status_code, 302)
        self.assertTrue(r["Location"].startswith("/login/"))
