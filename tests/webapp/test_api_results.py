"""REST API of the result dashboard: topology, pod explanation, node, timeline."""

from .base import BaseTestCase
from .test_run_topology import example_run


class ApiResultsTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.the_run = example_run(cls, "min-domains")
        cls.preempt = example_run(cls, "preemption")

    def test_it_returns_the_topology_with_the_spread_explain(self):
        r = self.api(self.viewer).get(f"/api/runs/{self.the_run.pk}/topology/?key=topology.kubernetes.io/zone")
        self.assertEqual(r.status_code, 200)
        body = r.json()
        self.assertEqual([d["name"] for d in body["domains"]], ["eu-west-1a", "eu-west-1b", "eu-west-1c"])
        self.assertEqual(len(body["pending"]), 4)
        self.assertTrue(body["spread"]["constraints"][0]["min_domains_sentence"].startswith("3 of 5 domains"))

    def test_it_rejects_an_unknown_key_naming_the_field(self):
        r = self.api(self.viewer).get(f"/api/runs/{self.the_run.pk}/topology/?key=nope")
        self.assertEqual(r.status_code, 400)
        self.assertIn("key", str(r.json()))
        r = self.api(self.viewer).get(f"/api/runs/{self.the_run.pk}/topology/?step=x")
        self.assertEqual(r.status_code, 400)
        self.assertIn("step", str(r.json()))

    def test_it_explains_a_pod(self):
        r = self.api(self.viewer).get(f"/api/runs/{self.the_run.pk}/pods/default/api-5b7d9c8f4-e1f2g/")
        self.assertEqual(r.status_code, 200)
        self.assertEqual(r.json()["outcome"], "Unschedulable")
        self.assertIn("zone eu-west-1a already has 2 matching pods; placing the pod there (node-a) would make skew 3 > maxSkew 2.",
                      r.json()["sentences"])
        r = self.api(self.viewer).get(f"/api/runs/{self.preempt.pk}/pods/default/checkout-3c5e7a9b2-x3y4z/")
        self.assertEqual(r.json()["nomination"]["victims"], ["default/batch-4f6c8d7b9-m6n7p"])

    def test_it_returns_a_node_and_the_timeline(self):
        r = self.api(self.viewer).get(f"/api/runs/{self.preempt.pk}/nodes/node-a/")
        self.assertEqual(r.status_code, 200)
        self.assertEqual(r.json()["bars"][0]["resource"], "cpu")
        r = self.api(self.viewer).get(f"/api/runs/{self.preempt.pk}/timeline/?step=1")
        self.assertEqual([e["reason"] for e in r.json()["events"]], ["FailedScheduling", "Nominated", "Preempted"])

    def test_it_is_404_for_outsiders_and_unknown_objects(self):
        self.assertEqual(self.api(self.outsider).get(f"/api/runs/{self.the_run.pk}/topology/").status_code, 404)
        self.assertEqual(self.api(self.viewer).get(f"/api/runs/{self.the_run.pk}/nodes/nope/").status_code, 404)
        r = self.api(self.viewer).get(f"/api/runs/{self.the_run.pk}/pods/default/nope/")
        self.assertEqual(r.status_code, 404)
        self.assertIn("default/nope", str(r.json()))
