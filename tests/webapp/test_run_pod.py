"""A pod's explanation page: FailedScheduling message, filter table, sentences, nomination."""

from webapp.scenarios.models import Run

from .base import BaseTestCase
from .test_run_topology import example_run


class RunPodTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.the_run = example_run(cls, "min-domains")
        cls.preempt = example_run(cls, "preemption")
        cls.gated = example_run(cls, "gated-pods")

    def test_it_explains_a_pending_pod(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/pods/default/api-5b7d9c8f4-e1f2g/")
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "0/3 nodes are available: 3 node(s) didn&#x27;t match pod topology spread constraints")
        self.assertContains(r, "zone eu-west-1b already has 2 matching pods; placing the pod there (node-b) would make skew 3 &gt; maxSkew 2.")
        self.assertContains(r, "<th scope=\"col\">PodTopologySpread</th>", html=False)
        self.assertContains(r, "3 of 5 domains: global minimum treated as 0")

    def test_it_shows_the_nomination_victims_and_before_after(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.preempt.pk}/pods/default/checkout-3c5e7a9b2-x3y4z/")
        self.assertContains(r, "Nominated node")
        self.assertContains(r, "<del>default/batch-4f6c8d7b9-m6n7p</del>", html=False)
        self.assertContains(r, "lost on lowest highest-priority victim against node-a")

    def test_it_offers_a_copy_link_to_the_pod_view(self):
        self.client.force_login(self.viewer)
        url = f"/runs/{self.the_run.pk}/pods/default/api-5b7d9c8f4-e1f2g/"
        r = self.client.get(url)
        self.assertContains(r, f'data-copy="http://testserver{url}"', html=False)
        self.assertContains(r, 'aria-label="Copy link to this pod view"', html=False)

    def test_it_redirects_the_namespace_slash_name_link(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/pod/default/api-5b7d9c8f4-e1f2g/")
        self.assertRedirects(r, f"/runs/{self.the_run.pk}/pods/default/api-5b7d9c8f4-e1f2g/")

    def test_it_is_404_for_an_unknown_pod_or_outsider(self):
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.get(f"/runs/{self.the_run.pk}/pods/default/nope/").status_code, 404)
        self.client.force_login(self.outsider)
        self.assertEqual(self.client.get(f"/runs/{self.the_run.pk}/pods/default/api-5b7d9c8f4-e1f2g/").status_code, 404)

    def test_it_survives_a_run_whose_result_lacks_cycles(self):
        run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), status="succeeded",
                                 result={"pods": [{"pod": "default/web", "outcome": "Unschedulable",
                                                   "message": "0/1 nodes are available."}]})
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{run.pk}/pods/default/web/")
        self.assertContains(r, "0/1 nodes are available.")

    def test_it_lists_earlier_attempts_with_their_messages(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.preempt.pk}/pods/default/checkout-3c5e7a9b2-x3y4z/")
        self.assertContains(r, "<h2>Attempts</h2>", html=False)
        self.assertContains(r, "0/2 nodes are available: 2 Insufficient cpu.")
        self.assertContains(r, f'href="/runs/{self.preempt.pk}/timeline/?step=1"')

    def test_it_says_why_a_gated_pod_waits_and_links_to_its_update_page(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.gated.pk}/pods/default/db-9a1b3c5d7-p1q2r/")
        self.assertContains(r, "Held back by scheduling gate <code>example.com/placement-decision</code>")
        self.assertContains(r, f'href="/scenarios/{self.gated.scenario_id}/pods/default/db-9a1b3c5d7-p1q2r/update/"')
        r = self.client.get(f"/runs/{self.the_run.pk}/pods/default/api-5b7d9c8f4-e1f2g/")
        self.assertNotContains(r, "Held back")


class BoundPodPageTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.preempt = example_run(cls, "preemption")
        cls.zones = example_run(cls, "zone-spreading")

    def test_it_shows_a_pod_that_ran_before_the_run_instead_of_a_404(self):
        self.client.force_login(self.viewer)
        bound = next(b for b in self.zones.result["boundPods"] if not b["evicted"])
        ns, name = bound["pod"].split("/")
        r = self.client.get(f"/runs/{self.zones.pk}/pods/{ns}/{name}/")
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "before the run: the scheduler had nothing to decide for it")
        self.assertContains(r, f'Still running</span> on <a href="/runs/{self.zones.pk}/nodes/{bound["node"]}/">',
                            html=False)

    def test_it_names_the_preemptor_of_an_evicted_pod(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.preempt.pk}/pods/default/batch-4f6c8d7b9-m6n7p/")
        self.assertContains(r, "Evicted</span> in cycle")
        self.assertContains(r, 'preempted by <a href="/runs/%d/pods/default/checkout-3c5e7a9b2-x3y4z/">' % self.preempt.pk,
                            html=False)

    def test_its_api_twin_answers_for_a_bound_pod(self):
        r = self.api(self.viewer).get(f"/api/runs/{self.preempt.pk}/pods/default/batch-4f6c8d7b9-m6n7p/")
        self.assertEqual(r.status_code, 200)
        self.assertEqual((r.json()["outcome"], r.json()["evictedBy"]["pod"]),
                         ("Evicted", "default/checkout-3c5e7a9b2-x3y4z"))


class ScoreTablePageTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.zones = example_run(cls, "zone-spreading")

    def test_it_shows_weights_and_weighted_cells_that_add_up_to_the_total(self):
        from django.test import override_settings
        from webapp.scenarios import tasks
        run = Run.objects.create(scenario=self.zones.scenario, revision=self.zones.revision)
        with override_settings(RUN_DETAIL=True):
            tasks.execute_run(run.pk)
        run.refresh_from_db()
        pod, explained = next((p, e) for p, e in run.result["explanations"].items() if e["scores"]["nodes"])
        ns, name = pod.split("/")
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{run.pk}/pods/{ns}/{name}/")
        self.assertContains(r, '<span class="muted score-weight">× 3</span>', html=False)  # TaintToleration
        first = explained["scores"]["nodes"][0]
        self.assertContains(r, f'<strong class="score-total">{first["total"]}</strong>', html=False)
        self.assertEqual(sum(first["weighted"].values()), first["total"])
        # TaintToleration: no PreferNoSchedule taint counted (raw 0), normalized to 100, weighted 300
        self.assertContains(r, '300 <span class="muted">(100; raw 0)</span>', html=False)
