"""The pod update service: finds the pod, applies the patch to it alone, keeps rejected attempts only."""

from unittest import mock

import yaml

from webapp.scenarios import pod_updates, services
from webapp.scenarios.manifests import pods
from webapp.scenarios.models import PodUpdateAttempt, Revision, Run

from .base import BaseTestCase

NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {kubernetes.io/hostname: node-a, topology.kubernetes.io/zone: z1, disktype: ssd}
status:
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
"""

GATED = """\
apiVersion: v1
kind: Pod
metadata: {name: db-0, namespace: data}
spec:
  schedulingGates:
  - name: example.com/placement
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: topology.kubernetes.io/zone, operator: In, values: [z1, z2]}
  containers:
  - name: db
    image: postgres
"""

WEB = """\
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: default}
spec:
  containers:
  - name: web
    image: nginx
"""

MULTI = "# my cluster\n" + NODE + "---\n# the gated one\n" + GATED + "---\n" + WEB


def as_list(*docs):
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                           "items": [yaml.safe_load(d) for d in docs]}, sort_keys=False)


REMOVE_GATE_AND_TIGHTEN = {"spec": {"schedulingGates": None, "nodeSelector": {"disktype": "ssd"}}}
LOOSEN = {"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["z1", "z2", "z3"]}]}]}}}}}


class PodUpdateServiceTests(BaseTestCase):
    def scenario_with(self, manifests):
        return services.create_scenario(team=self.team, name="gated", manifests=manifests, author=self.owner)

    def propose(self, scenario, patch, **kw):
        with mock.patch("webapp.scenarios.tasks.enqueue") as enqueue, self.captureOnCommitCallbacks(execute=True):
            attempt = pod_updates.propose(scenario, "data", "db-0", author=self.editor, patch=patch, **kw)
        return attempt, enqueue

    def test_it_applies_a_patch_to_the_right_pod_of_a_multi_document_file(self):
        scenario = self.scenario_with(MULTI)
        attempt, enqueue = self.propose(scenario, REMOVE_GATE_AND_TIGHTEN)
        self.assertTrue(attempt.allowed, attempt.errors)
        self.assertEqual(attempt.revision.number, 2)
        text = attempt.revision.manifests
        docs = list(yaml.safe_load_all(text))
        self.assertEqual([d["kind"] for d in docs], ["Node", "Pod", "Pod"])
        self.assertEqual(docs[1]["spec"]["nodeSelector"], {"disktype": "ssd"})
        self.assertNotIn("schedulingGates", docs[1]["spec"])
        # The other documents keep their text, comments included.
        self.assertTrue(text.startswith("# my cluster\n" + NODE + "---\n# the gated one\n"))
        self.assertTrue(text.endswith("---\n" + WEB))
        self.assertEqual(attempt.run.revision, attempt.revision)
        enqueue.assert_called_once_with(attempt.run.pk)

    def test_it_applies_a_patch_inside_a_kind_list_and_keeps_the_order(self):
        scenario = self.scenario_with(as_list(NODE, WEB, GATED))
        attempt, _ = self.propose(scenario, REMOVE_GATE_AND_TIGHTEN)
        self.assertTrue(attempt.allowed, attempt.errors)
        doc = yaml.safe_load(attempt.revision.manifests)
        self.assertEqual(doc["kind"], "List")
        self.assertEqual([(o["kind"], o["metadata"]["name"]) for o in doc["items"]],
                         [("Node", "node-a"), ("Pod", "web-1"), ("Pod", "db-0")])
        self.assertEqual(doc["items"][1], yaml.safe_load(WEB))
        self.assertEqual(doc["items"][0], yaml.safe_load(NODE))
        self.assertEqual(doc["items"][2]["spec"]["nodeSelector"], {"disktype": "ssd"})
        self.assertEqual(attempt.revision.message, "Pod update data/db-0: removed gate example.com/placement, nodeSelector")

    def test_it_applies_a_patch_to_a_pod_of_a_typed_list(self):
        # a dump as the raw API writes it: a PodList whose items carry no kind
        pods = {"apiVersion": "v1", "kind": "PodList", "items": [
            {k: v for k, v in yaml.safe_load(d).items() if k not in ("kind", "apiVersion")} for d in (WEB, GATED)]}
        scenario = self.scenario_with(NODE + "---\n" + yaml.safe_dump(pods, sort_keys=False))
        attempt, _ = self.propose(scenario, REMOVE_GATE_AND_TIGHTEN)
        self.assertTrue(attempt.allowed, attempt.errors)
        node, pod_list = yaml.safe_load_all(attempt.revision.manifests)
        self.assertEqual(pod_list["kind"], "PodList")
        self.assertEqual([o["metadata"]["name"] for o in pod_list["items"]], ["web-1", "db-0"])
        self.assertEqual(pod_list["items"][1]["spec"]["nodeSelector"], {"disktype": "ssd"})
        self.assertNotIn("schedulingGates", pod_list["items"][1]["spec"])

    def test_a_rejected_update_changes_no_revision_and_is_stored(self):
        scenario = self.scenario_with(MULTI)
        attempt, enqueue = self.propose(scenario, LOOSEN)
        self.assertFalse(attempt.allowed)
        self.assertEqual(Revision.objects.filter(scenario=scenario).count(), 1)
        self.assertEqual(Run.objects.filter(scenario=scenario).count(), 0)
        enqueue.assert_not_called()
        stored = PodUpdateAttempt.objects.get(pk=attempt.pk)
        self.assertIsNone(stored.revision)
        self.assertEqual(stored.patch, LOOSEN)
        self.assertEqual(stored.errors[0]["field"], "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]")
        self.assertEqual(stored.errors[0]["type"], "FieldValueInvalid")
        self.assertIn("only additions", stored.errors[0]["detail"])
        change = stored.explanation["terms"][0]["changes"][0]
        self.assertEqual(change["kind"], "changed")
        self.assertEqual(change["new"]["values"], ["z1", "z2", "z3"])

    def test_a_stale_base_raises_and_stores_nothing(self):
        scenario = self.scenario_with(MULTI)
        with self.assertRaises(services.StaleRevision):
            pod_updates.propose(scenario, "data", "db-0", author=self.editor, patch={}, base=7)
        self.assertFalse(PodUpdateAttempt.objects.exists())

    def test_an_unknown_pod_is_named(self):
        scenario = self.scenario_with(MULTI)
        with self.assertRaisesMessage(pod_updates.PodNotFound, "Pod data/nope is not in revision r1"):
            pod_updates.propose(scenario, "data", "nope", author=self.editor, patch={})

    def test_merge_patch_follows_rfc_7386(self):
        self.assertEqual(pods.merge_patch({"a": "b", "c": {"d": "e", "f": "g"}}, {"a": "z", "c": {"f": None}}),
                         {"a": "z", "c": {"d": "e"}})
        self.assertEqual(pods.merge_patch({"a": [1, 2]}, {"a": [3]}), {"a": [3]})
        self.assertEqual(pods.merge_patch({"a": "b"}, {"b": {"c": None}}), {"a": "b", "b": {}})

    def test_it_lists_gated_pods_with_their_directives(self):
        scenario = self.scenario_with(MULTI)
        [pod] = pod_updates.gated_pods(scenario.head())
        self.assertEqual((pod["namespace"], pod["name"], pod["gates"]), ("data", "db-0", ["example.com/placement"]))
        self.assertEqual(pod["required_terms"], ["topology.kubernetes.io/zone In z1, z2"])
