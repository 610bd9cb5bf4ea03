"""Volume verdicts on the run pages: the pod page explains which claim, volume, zone and
why; the topology marks where pods' volumes live; the node page counts attached volumes
against the CSINode limit. Built on the "zonal-volumes" example."""

from .base import BaseTestCase
from .test_run_topology import example_run


class RunVolumesTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.the_run = example_run(cls, "zonal-volumes")

    def test_it_explains_the_volume_verdict_of_a_pending_pod(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/pods/default/web-1/")
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "<h2 id=\"volumes-h\">Volumes</h2>", html=False)
        self.assertContains(r, "default/data-web-1")
        self.assertContains(r, "pvc-7c1e")
        self.assertContains(r, "eu-west-1a")
        self.assertContains(r, "WaitForFirstConsumer")
        # why node-b and node-c were refused, in one sentence naming the claim and volume
        self.assertContains(r, "node-b, node-c: claim default/data-web-1 is bound to PersistentVolume "
                               "pvc-7c1e, whose node affinity (topology.kubernetes.io/zone In (eu-west-1a)) "
                               "this node does not match.")
        self.assertContains(r, "node(s) had volume node affinity conflict")

    def test_it_marks_where_the_pods_volumes_live_in_the_topology(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/topology/")
        self.assertEqual(r.status_code, 200)
        # web-1 waits in the tray; its volume lives in eu-west-1a
        self.assertContains(r, 'title="a volume of this pod lives in eu-west-1a">volume: eu-west-1a</span>',
                            html=False)
        self.assertContains(r, 'title="Volumes of these pods live in eu-west-1a (end of the run)"', html=False)

    def test_it_counts_attached_volumes_against_the_node_limit(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/nodes/node-a/")
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "Attached volumes")
        self.assertContains(r, "<tr><th scope=\"row\"><code>ebs.csi.aws.com</code></th><td>1</td><td>25</td></tr>",
                            html=False)

    def test_it_shows_no_volume_section_for_a_pod_without_claims(self):
        run = example_run(self, "min-domains")
        self.client.force_login(self.viewer)
        pending = next(p["pod"] for p in run.result["pods"] if p["outcome"] == "Unschedulable")
        namespace, name = pending.split("/")
        r = self.client.get(f"/runs/{run.pk}/pods/{namespace}/{name}/")
        self.assertEqual(r.status_code, 200)
        self.assertNotContains(r, "volumes-h")
