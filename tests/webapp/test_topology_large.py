"""The topology and timeline pages of a large cluster draw at most TOPOLOGY_NODES nodes per domain (lowered
here), always the nodes with nominated pods and, on the timeline, the node the step's pod landed on; the pod
counts cover every node and ?all=1 draws them all."""

import re
from unittest import mock

from webapp.front import views_results
from webapp.scenarios import engine

from .base import BaseTestCase
from .test_run_topology import example_run


def drawn(page):
    """Node names drawn in the topology, in page order."""
    topology = page.split('id="topology"', 1)[1].split('aria-label="Pending pods"', 1)[0]
    return re.findall(r'<div class="topo-node">\s*<h4><a href="[^"]*">([^<]+)</a>', topology)


class TopologyCapTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.spread = example_run(cls, "zone-spreading")  # two nodes in each of three zones
        cls.preemption = example_run(cls, "preemption")  # node-a (nominated at cycle 1), node-b

    def setUp(self):
        self.client.force_login(self.viewer)
        patcher = mock.patch.object(views_results, "TOPOLOGY_NODES", 1)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_each_domain_draws_its_first_nodes_and_counts_the_rest(self):
        full = self.spread.result
        page = self.client.get(f"/runs/{self.spread.pk}/topology/?key=topology.kubernetes.io/zone").content.decode()
        self.assertEqual(drawn(page), ["node-a1", "node-b1", "node-c1"])
        hidden = sum(1 for n in full["nodes"] if n["name"] == "node-a2" for _ in n["pods"])
        self.assertIn(f"+ 1 more node with {hidden} pod", page)
        self.assertIn('id="topology-capped"', page)
        self.assertIn('href="?key=topology.kubernetes.io%2Fzone&amp;all=1">Draw every node</a>', page)
        zone_a = sum(len(n["pods"]) for n in full["nodes"] if n["name"] in ("node-a1", "node-a2"))
        self.assertRegex(page, rf"eu-west-1a <span class=\"muted\">\({zone_a} pods? in all\)")

    def test_all_draws_every_node(self):
        page = self.client.get(f"/runs/{self.spread.pk}/topology/?all=1").content.decode()
        self.assertEqual(drawn(page), ["node-a1", "node-a2", "node-b1", "node-b2", "node-c1", "node-c2"])
        self.assertNotIn('id="topology-capped"', page)

    def test_a_small_cluster_has_no_note(self):
        with mock.patch.object(views_results, "TOPOLOGY_NODES", 50):
            page = self.client.get(f"/runs/{self.spread.pk}/topology/").content.decode()
        self.assertEqual(len(drawn(page)), 6)
        self.assertNotIn('id="topology-capped"', page)

    def test_nodes_with_nominated_pods_and_the_steps_node_are_always_drawn(self):
        with mock.patch.object(views_results, "TOPOLOGY_NODES", 0):
            nominated = self.client.get(f"/runs/{self.preemption.pk}/timeline/?step=1").content.decode()
            landed = self.client.get(f"/runs/{self.preemption.pk}/timeline/?step=2").content.decode()
            capped_steps = self.client.get(f"/runs/{self.preemption.pk}/timeline/?step=1&all=1").content.decode()
        self.assertEqual(drawn(nominated), ["node-a"])  # nominated at cycle 1
        self.assertIn("where this cycle's pod landed", nominated)
        self.assertEqual(drawn(landed), ["node-a"])  # bound there at cycle 2
        self.assertEqual(drawn(capped_steps), ["node-a", "node-b"])
        self.assertIn('href="?step=2&key=topology.kubernetes.io/zone&all=1"', capped_steps)  # Next keeps all

    def test_the_pending_tray_draws_its_first_pods_those_attempted_first_and_counts_them_all(self):
        run = example_run(self, "min-domains")  # cycles 7 to 10 leave four pods unschedulable
        with mock.patch.object(views_results, "TOPOLOGY_PENDING", 2):
            page = self.client.get(f"/runs/{run.pk}/timeline/?step=8").content.decode()
            every = self.client.get(f"/runs/{run.pk}/timeline/?step=8&all=1").content.decode()
        tray = page.split('aria-label="Pending pods"', 1)[1]
        self.assertIn("Pending (4)", tray)
        self.assertIn("2 of 4 drawn, those attempted first.", tray)
        self.assertEqual(re.findall(r">(api-[\w-]+) <span class=\"chip-status chip-status-(\w+)\"", tray),
                         [("api-5b7d9c8f4-v4w5x", "unschedulable"), ("api-5b7d9c8f4-y6z7a", "unschedulable")])
        self.assertEqual(every.split('aria-label="Pending pods"', 1)[1].count('class="chip chip-pending"'), 4)

    def test_a_second_view_does_not_load_the_scenario_again(self):
        first = self.client.get(f"/runs/{self.spread.pk}/topology/").content.decode()
        with mock.patch.object(engine, "load", side_effect=AssertionError("loaded the scenario again")):
            again = self.client.get(f"/runs/{self.spread.pk}/topology/").content.decode()
            timeline = self.client.get(f"/runs/{self.spread.pk}/timeline/")
        self.assertEqual(drawn(again), drawn(first))
        self.assertContains(timeline, "ReplicaSet/")  # chips still name their workloads

    def test_the_legend_names_the_workloads_on_nodes_not_drawn(self):
        with mock.patch.object(views_results, "TOPOLOGY_NODES", 0):
            page = self.client.get(f"/runs/{self.preemption.pk}/topology/").content.decode()
        self.assertEqual(drawn(page), [])
        legend = page.split('aria-label="Workloads"', 1)[1].split("</ul>", 1)[0]
        self.assertEqual(re.findall(r"</span>([^<]+)</li>", legend),
                         ["ReplicaSet/batch-4f6c8d7b9", "ReplicaSet/checkout-3c5e7a9b2", "ReplicaSet/report-8e2a4c6d1"])
