"""Pages of a run on a cluster larger than an explanation lists: the counts stay complete and
the page says what was left out (explanations of bounded size)."""

from webapp.scenarios import engine, services
from webapp.scenarios.models import Run

from .base import BaseTestCase

NODES = 130  # more than the 100 node names listed per verdict and the 50 domains per constraint

SPREAD_POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {{app: {name}}}}}
spec:
  topologySpreadConstraints:
  - {{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
     labelSelector: {{matchLabels: {{app: {name}}}}}}}
  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: {cpu}}}}}}}]
"""


def big_cluster():
    """130 nodes, one zone each; a spread pod that is placed and a pod too large for any node."""
    docs = []
    for i in range(NODES):
        docs.append(f"""apiVersion: v1
kind: Node
metadata:
  name: node-{i:03d}
  labels: {{kubernetes.io/hostname: node-{i:03d}, topology.kubernetes.io/zone: zone-{i:03d}}}
status:
  allocatable: {{cpu: "2", memory: 4Gi, pods: "110"}}
""")
    docs += [SPREAD_POD.format(name="web", cpu="100m"), SPREAD_POD.format(name="huge", cpu='"64"')]
    return "---\n".join(docs)


class LargeExplanationTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        text = big_cluster()
        scenario = services.create_scenario(team=cls.team, name="big", manifests=text, author=cls.owner)
        cls.the_run = Run.objects.create(scenario=scenario, revision=scenario.head(), status="succeeded",
                                         result=engine.simulate(text))

    def test_the_pod_page_counts_every_rejected_node_and_says_only_100_are_listed(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/pods/default/huge/")
        self.assertContains(r, "0/130 nodes are available: 130 Insufficient cpu.")
        self.assertContains(r, "130 of 130 nodes evaluated, 0 feasible.")
        self.assertContains(r, "Each verdict below lists at most 100 of its nodes; the counts are complete.")
        self.assertContains(r, "<strong>130</strong> nodes: <span class=\"bad-text\">UnschedulableAndUnresolvable</span> "
                               "by NodeResourcesFit — Insufficient cpu", html=False)
        self.assertContains(r, ">node-099</a></th>", html=False)
        self.assertNotContains(r, ">node-100</a></th>", html=False)

    def test_the_spread_panel_says_how_many_domains_it_lists(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/topology/?pod=default/huge")
        self.assertContains(r, "50 of 130 domains listed (the first by name); the global minimum "
                               "and the skews count them all.")

    def test_a_small_explanation_has_no_such_note(self):
        text = big_cluster().split("---\n")
        small = "---\n".join(text[:3] + text[-1:])
        scenario = services.create_scenario(team=self.team, name="small", manifests=small, author=self.owner)
        run = Run.objects.create(scenario=scenario, revision=scenario.head(), status="succeeded",
                                 result=engine.simulate(small))
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{run.pk}/pods/default/huge/")
        self.assertContains(r, "3 of 3 nodes evaluated, 0 feasible.")
        self.assertNotContains(r, "lists at most 100")
        r = self.client.get(f"/runs/{run.pk}/topology/?pod=default/huge")
        self.assertNotContains(r, "domains listed")
