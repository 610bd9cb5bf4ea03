"""Large manifests in the web app: written-out documents are not alias bombs, pages read each pod once,
and what a pod update writes back keeps the values as they were written."""

from unittest import mock

import yaml

from webapp.scenarios import pod_updates, services
from webapp.scenarios.manifests import limits, pods
from webapp.scenarios.models import Revision, Scenario

from .base import BaseTestCase


def node(i, extra=""):
    return f"""\
- apiVersion: v1
  kind: Node
  metadata:
    name: node-{i}
    labels: {{kubernetes.io/hostname: node-{i}, topology.kubernetes.io/zone: z{i % 3}}}
  spec: {{unschedulable: {extra or 'false'}}}
  status:
    allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
"""


def gated_pod(i):
    return f"""\
- apiVersion: v1
  kind: Pod
  metadata: {{name: job-{i}, namespace: batch, creationTimestamp: 2026-11-01T10:00:0{i % 10}Z}}
  spec:
    schedulingGates:
    - name: example.com/quota-{i}
    containers:
    - name: job
      image: busybox
      resources: {{requests: {{cpu: 100m}}}}
"""


# Twenty nodes written out in full; "no" is YAML 1.1 (false), so the text takes PyYAML's path and
# its event-stream check, where the expansion limit applies.
WRITTEN_OUT = "apiVersion: v1\nkind: List\nitems:\n" + node(0, "no") + "".join(node(i) for i in range(1, 20))
MANY_GATED = "apiVersion: v1\nkind: List\nitems:\n" + node(0) + "".join(gated_pod(i) for i in range(40))
# The same with a YAML 1.1 value: read by PyYAML (libyaml) instead of the fast path.
MANY_GATED_YAML11 = MANY_GATED.replace("unschedulable: false", "unschedulable: no", 1)


class ExpansionLimitTests(BaseTestCase):
    """The alias-bomb limit counts what aliases add, not what is written (MAX_EXPANDED_NODES lowered to 100
    so that a small text crosses it: a 5,000-node cluster has millions of values)."""

    def setUp(self):
        patcher = mock.patch.object(limits, "MAX_EXPANDED_NODES", 100)
        patcher.start()
        self.addCleanup(patcher.stop)

    def create(self, text):
        return self.api(self.editor).post(f"/api/scenarios/?team={self.team.pk}&name=big", data=text,
                                          content_type="application/yaml")

    def test_a_document_written_out_in_full_over_the_limit_is_created(self):
        r = self.create(WRITTEN_OUT)
        self.assertEqual(r.status_code, 201, r.content)
        scenario = Scenario.objects.get(pk=r.json()["id"])
        page = self.client_for(self.editor).get(f"/scenarios/{scenario.pk}/").content.decode()
        self.assertIn("node-19", page)

    def test_a_revision_written_out_in_full_over_the_limit_is_saved(self):
        r = self.api(self.editor).post(self.url("revisions/"), {"manifests": WRITTEN_OUT}, format="json",
                                       headers={"If-Match": '"1"'})
        self.assertEqual(r.status_code, 201, r.content)

    def test_aliases_expanding_past_the_limit_are_still_refused(self):
        labels = "      a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        labels += "".join(f"      a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]\n" for i in range(1, 5))
        bomb = WRITTEN_OUT.replace("  metadata:\n    name: node-3\n",
                                   "  metadata:\n    name: node-3\n    annotations:\n" + labels, 1)
        r = self.create(bomb)
        self.assertEqual(r.status_code, 400)
        self.assertIn("YAML aliases (*name) expand to more than 100 values", r.json()["detail"])
        self.assertFalse(Scenario.objects.filter(name="big").exists())

    def client_for(self, user):
        self.client.force_login(user)
        return self.client


class GatedPodsOfALargeListTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.many = services.create_scenario(team=cls.team, name="many gated", manifests=MANY_GATED, author=cls.owner)

    def setUp(self):
        patcher = mock.patch("webapp.scenarios.tasks.enqueue")
        patcher.start()
        self.addCleanup(patcher.stop)
        self.client.force_login(self.editor)

    def test_the_gated_pods_panel_lists_every_gated_pod_with_its_gate(self):
        panel = self.client.get(f"/scenarios/{self.many.pk}/pods/", HTTP_HX_REQUEST="true").content.decode()
        for i in range(40):
            self.assertIn(f"batch/job-{i}", panel)
            self.assertIn(f"example.com/quota-{i}", panel)

    def test_an_accepted_update_writes_the_other_fields_back_as_they_were_written(self):
        yaml11 = services.create_scenario(team=self.team, name="yaml 1.1", manifests=MANY_GATED_YAML11,
                                          author=self.owner)
        for scenario in (self.many, yaml11):
            with self.subTest(scenario=scenario.name):
                self.check_update_keeps_fields(scenario)

    def check_update_keeps_fields(self, scenario):
        with self.captureOnCommitCallbacks(execute=True):
            attempt = pod_updates.propose(scenario, "batch", "job-7", author=self.editor,
                                          patch={"spec": {"schedulingGates": None}})
        self.assertTrue(attempt.allowed, attempt.errors)
        text = Revision.objects.get(scenario=scenario, number=2).manifests
        pod = next(o for o in yaml.safe_load(text)["items"] if o["metadata"]["name"] == "job-7")
        self.assertNotIn("schedulingGates", pod["spec"])
        # the timestamp as kubectl wrote it, not re-formatted as a Python datetime
        self.assertIn("creationTimestamp: '2026-11-01T10:00:07Z'", text)
        self.assertIn("creationTimestamp: '2026-11-01T10:00:08Z'", text)  # and the pods around it
        self.assertNotIn("2026-11-01 10:00:0", text)
        panel = self.client.get(f"/scenarios/{scenario.pk}/pods/", HTTP_HX_REQUEST="true").content.decode()
        self.assertNotIn('<th scope="row">batch/job-7</th>', panel)
        self.assertIn('<th scope="row">batch/job-8</th>', panel)

    def test_a_proposal_does_not_change_what_the_next_page_reads(self):
        # the page's pod is the caller's own copy: changing it leaves the revision as stored
        old = pods.find_pod(self.many.head().manifests, "batch", "job-3")
        old["spec"]["schedulingGates"].clear()
        again = pods.find_pod(self.many.head().manifests, "batch", "job-3")
        self.assertEqual(again["spec"]["schedulingGates"], [{"name": "example.com/quota-3"}])
        panel = self.client.get(f"/scenarios/{self.many.pk}/pods/", HTTP_HX_REQUEST="true").content.decode()
        self.assertIn("example.com/quota-3", panel)


class RememberedSummariesTests(BaseTestCase):
    def test_a_page_changing_its_node_rows_does_not_change_the_next_pages(self):
        from webapp.scenarios.manifests import summary as manifests

        rows = manifests.nodes(WRITTEN_OUT)
        rows[0]["placed"] = ["x/y"]
        rows[0]["bound"].append("x/z")
        rows[1]["taints"].append("k=v:NoSchedule")
        again = manifests.nodes(WRITTEN_OUT)
        self.assertNotIn("placed", again[0])
        self.assertEqual((again[0]["bound"], again[1]["taints"]), ([], []))
        self.assertEqual(manifests.counts(WRITTEN_OUT), {"Node": 20})


class ScenarioPageNodeTableTests(BaseTestCase):
    def test_a_long_node_table_lists_the_first_rows_and_links_to_all(self):
        from webapp.front import run_page

        big = services.create_scenario(team=self.team, name="twenty nodes", manifests=WRITTEN_OUT, author=self.owner)
        self.client.force_login(self.viewer)
        with mock.patch.object(run_page, "RUN_PAGE_ROWS", 5):
            page = self.client.get(f"/scenarios/{big.pk}/").content.decode()
            everything = self.client.get(f"/scenarios/{big.pk}/?all=1").content.decode()
        self.assertIn("5 of 20 nodes\n  listed", page)
        self.assertIn('<th scope="row">node-4</th>', page)
        self.assertNotIn('<th scope="row">node-5</th>', page)
        self.assertIn("20 Node", page)  # the kinds line counts them all
        self.assertIn('<th scope="row">node-19</th>', everything)
        self.assertNotIn('id="nodes-capped"', everything)
