"""The Nodes view of a run: every node of a small cluster; past NODE_CARDS (lowered here) the first ones, with a
filter by name and a link to show them all."""

from unittest import mock

from webapp.front import views_results
from webapp.scenarios import engine, services
from webapp.scenarios.models import Run

from .base import SMALL, BaseTestCase

# SMALL with a second node in another zone, cordoned
TWO_NODES = SMALL.replace("""- apiVersion: v1
  kind: Pod
""", """- apiVersion: v1
  kind: Node
  metadata:
    name: node-b
    labels: {kubernetes.io/hostname: node-b, topology.kubernetes.io/zone: z2}
  spec: {unschedulable: true}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
""", 1)


class RunNodesViewTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        scenario = services.create_scenario(team=cls.team, name="two nodes", manifests=TWO_NODES, author=cls.owner)
        cls.the_run = Run.objects.create(scenario=scenario, revision=scenario.head(), status="succeeded",
                                         result=engine.simulate(TWO_NODES))

    def setUp(self):
        self.client.force_login(self.viewer)

    def cards(self, page):
        return [part.split('"', 1)[0] for part in page.split('aria-label="node ')[1:]]

    def test_a_small_cluster_shows_every_node_without_a_filter(self):
        page = self.client.get(f"/runs/{self.the_run.pk}/nodes/").content.decode()
        self.assertEqual(self.cards(page), ["node-a", "node-b"])
        self.assertNotIn('id="nodes-capped"', page)
        self.assertNotIn('role="search"', page)

    def test_past_the_cap_it_shows_the_first_nodes_and_says_how_to_see_the_rest(self):
        with mock.patch.object(views_results, "NODE_CARDS", 1):
            page = self.client.get(f"/runs/{self.the_run.pk}/nodes/").content.decode()
            self.assertEqual(self.cards(page), ["node-a"])
            self.assertIn("1 of 2 nodes shown", page)
            self.assertIn('href="?all=1">show them all</a>', page)
            every = self.client.get(f"/runs/{self.the_run.pk}/nodes/?all=1").content.decode()
        self.assertEqual(self.cards(every), ["node-a", "node-b"])

    def test_the_filter_keeps_the_nodes_whose_name_contains_the_text(self):
        page = self.client.get(f"/runs/{self.the_run.pk}/nodes/?q=-b").content.decode()
        self.assertEqual(self.cards(page), ["node-b"])
        self.assertIn("1 of 2 nodes match “-b”", page)
        none = self.client.get(f"/runs/{self.the_run.pk}/nodes/?q=gpu").content.decode()
        self.assertEqual(self.cards(none), [])
        self.assertIn("No node matches “gpu”", none)


class NodesGroupedTests(BaseTestCase):
    def test_the_nodes_view_groups_nodes_by_a_chosen_label_key_with_the_engines_pod_counts(self):
        import re

        from webapp.scenarios import services, tasks
        from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
        from webapp.scenarios.models import Run

        scenario = services.create_scenario(team=self.team, name="zs", author=self.owner,
                                            manifests=(EXAMPLES_DIR / "zone-spreading.yaml").read_text())
        run = Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=self.owner)
        tasks.execute_run(run.pk)
        self.client.force_login(self.owner)
        page = self.client.get(f"/runs/{run.pk}/nodes/", {"group": "topology.kubernetes.io/zone"}).content.decode()
        groups = re.findall(r'<h2 id="group-\d+">topology.kubernetes.io/zone = ([^ ]+) <span class="muted">· (\d+) '
                            r'nodes? · (\d+) pods?</span></h2>', page)
        result = Run.objects.get(pk=run.pk).result
        self.assertEqual({z: int(p) for z, _, p in groups},
                         result["podsPerDomain"]["topology.kubernetes.io/zone"]["domains"])
        self.assertEqual(sum(int(n) for _, n, _ in groups), len(result["nodes"]))
        self.assertIn('<option value="topology.kubernetes.io/zone" selected>', page)
        plain = self.client.get(f"/runs/{run.pk}/nodes/").content.decode()
        self.assertNotIn('id="group-1"', plain)
