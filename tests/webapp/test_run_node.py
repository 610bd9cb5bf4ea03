"""Node pages: requested vs allocatable bars, cordon/taints, pods, nominations."""

from .base import BaseTestCase
from .test_run_topology import example_run


class RunNodeTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.the_run = example_run(cls, "preemption")

    def test_it_shows_a_node_with_bars_and_its_pods(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/nodes/node-a/")
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "Node node-a")
        self.assertContains(r, 'aria-label="cpu requested"')
        self.assertContains(r, "checkout-3c5e7a9b2-x3y4z")
        self.assertContains(r, "Evicted from this node")

    def test_a_pod_nominated_and_then_bound_is_no_longer_marked_nominated(self):
        # checkout preempted a batch pod on node-a, was nominated there, and bound in cycle 2
        self.client.force_login(self.viewer)
        for url in (f"/runs/{self.the_run.pk}/nodes/node-a/", f"/runs/{self.the_run.pk}/nodes/",
                    f"/runs/{self.the_run.pk}/topology/"):
            r = self.client.get(url)
            self.assertEqual(r.status_code, 200)
            self.assertNotContains(r, "nominated: default/checkout-3c5e7a9b2-x3y4z")
        self.assertContains(self.client.get(f"/runs/{self.the_run.pk}/nodes/node-a/"), "checkout-3c5e7a9b2-x3y4z")

    def test_it_offers_a_copy_link_to_the_node_view(self):
        self.client.force_login(self.viewer)
        url = f"/runs/{self.the_run.pk}/nodes/node-a/"
        self.assertContains(self.client.get(url), f'data-copy="http://testserver{url}"', html=False)

    def test_it_lists_all_nodes_with_bars(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/nodes/")
        self.assertContains(r, 'aria-label="node node-a"')
        self.assertContains(r, 'aria-label="node node-b"')
        self.assertContains(r, "(95%)")

    def test_it_marks_cordoned_and_tainted_nodes(self):
        result = {"nodes": [{"name": "n1", "labels": {}, "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}],
                             "unschedulable": True, "allocatable": {"cpu": 1000}, "requested": {"cpu": 0}, "pods": []}]}
        self.the_run.result = result
        self.the_run.save()
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/nodes/n1/")
        self.assertContains(r, "cordoned")
        self.assertContains(r, "k=v:NoSchedule")

    def test_it_is_404_for_an_unknown_node(self):
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.get(f"/runs/{self.the_run.pk}/nodes/nope/").status_code, 404)
