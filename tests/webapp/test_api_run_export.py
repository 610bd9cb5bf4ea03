"""/api/runs/{id}/export.json and export.csv: per pod, outcome, node, nominated node, message."""

from webapp.scenarios import engine
from webapp.scenarios.models import Run, ShareLink

from .base import BaseTestCase

CROWDED = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
  status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: small, namespace: default}
  spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: big, namespace: default}
  spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
"""


class RunExportTestCase(BaseTestCase):
    def setUp(self):
        self.run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), status="succeeded",
                                      result=engine.simulate(CROWDED), params={"seed": 3})

    def test_it_exports_json(self):
        r = self.api(self.viewer).get(f"/api/runs/{self.run.pk}/export.json")
        self.assertEqual(r.status_code, 200)
        self.assertEqual(r.json(), {
            "run": self.run.pk, "scenario": self.scenario.pk, "revision": 1, "seed": 3, "evicted": [],
            "pods": [
                {"pod": "default/small", "outcome": "Scheduled", "node": "node-a", "nominated_node": None, "message": ""},
                {"pod": "default/big", "outcome": "Unschedulable", "node": None, "nominated_node": None,
                 "message": "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
                            "1 Preemption is not helpful for scheduling."},
            ]})

    def test_it_exports_csv(self):
        r = self.api(self.viewer).get(f"/api/runs/{self.run.pk}/export.csv")
        self.assertEqual((r.status_code, r["Content-Type"]), (200, "text/csv; charset=utf-8"))
        self.assertEqual(r["Content-Disposition"], f'attachment; filename="run-{self.run.pk}.csv"')
        self.assertEqual(r.content.decode().splitlines(), [
            "pod,outcome,node,nominated_node,message",
            "default/small,Scheduled,node-a,,",
            "default/big,Unschedulable,,,0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
            "available: 1 Preemption is not helpful for scheduling.",
        ])

    def test_it_has_nothing_to_export_before_the_run_succeeds(self):
        queued = Run.objects.create(scenario=self.scenario, revision=self.scenario.head())
        for suffix in ("json", "csv"):
            r = self.api(self.viewer).get(f"/api/runs/{queued.pk}/export.{suffix}")
            self.assertEqual(r.status_code, 404)
            self.assertEqual(r.json(), {"detail": f"Run {queued.pk} has no result yet (status queued)."})

    def test_it_links_the_exports_from_the_run_page_for_members_only(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.run.pk}/")
        self.assertContains(r, f'<a href="/api/runs/{self.run.pk}/export.csv" download>CSV</a>', html=True)
        # the session opens the API for a member
        self.assertEqual(self.client.get(f"/api/runs/{self.run.pk}/export.csv").status_code, 200)
        _, token = ShareLink.create(self.scenario, self.owner)
        self.assertNotContains(self.client.get(f"/s/{token}/runs/{self.run.pk}/"), "export.csv")
