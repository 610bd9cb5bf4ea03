"""POST/GET /api/scenarios/{id}/pods/{namespace}/{name}/updates/ and GET /api/scenarios/{id}/pod-updates/."""

import json
from unittest import mock

import yaml

from webapp.scenarios import services
from webapp.scenarios.models import PodUpdateAttempt

from .base import BaseTestCase
from .test_pod_updates_service import LOOSEN, MULTI, REMOVE_GATE_AND_TIGHTEN


class PodUpdatesApiTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.gated = services.create_scenario(team=cls.team, name="gated", manifests=MULTI, author=cls.owner)

    def setUp(self):
        patcher = mock.patch("webapp.scenarios.tasks.enqueue")
        self.enqueue = patcher.start()
        self.addCleanup(patcher.stop)

    def pod_url(self, name="db-0", namespace="data"):
        return f"/api/scenarios/{self.gated.pk}/pods/{namespace}/{name}/updates/"

    def post(self, body, content_type="application/merge-patch+json", user=None, **extra):
        data = body if isinstance(body, str) else json.dumps(body)
        with self.captureOnCommitCallbacks(execute=True):
            return self.api(user or self.editor).post(self.pod_url(), data, content_type=content_type, **extra)

    def test_it_accepts_a_merge_patch_as_a_new_revision_with_a_run(self):
        response = self.post(REMOVE_GATE_AND_TIGHTEN, HTTP_IF_MATCH='"1"')
        self.assertEqual(response.status_code, 201, response.content)
        body = response.json()
        self.assertTrue(body["allowed"])
        self.assertEqual((body["base_revision"], body["revision"]), (1, 2))
        self.assertEqual(body["pod"], "data/db-0")
        self.assertTrue(body["run_url"].endswith(f"/api/runs/{body['run']}/"))
        self.assertEqual(response["ETag"], '"2"')
        self.assertEqual(body["patch"], REMOVE_GATE_AND_TIGHTEN)
        self.gated.refresh_from_db()
        self.assertEqual(self.gated.current_revision, 2)
        self.enqueue.assert_called_once_with(body["run"])

    def test_it_rejects_a_loosened_affinity_with_422_and_the_apiserver_errors(self):
        response = self.post(LOOSEN)
        self.assertEqual(response.status_code, 422, response.content)
        body = response.json()
        self.assertFalse(body["allowed"])
        self.assertIsNone(body["revision"])
        self.assertIsNone(body["run_url"])
        self.assertEqual(body["errors"], [{
            "field": "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]",
            "type": "FieldValueInvalid", "detail": "only additions are allowed (no mutations or deletions)"}])
        self.assertEqual(body["explanation"]["terms"][0]["changes"][0]["kind"], "changed")
        self.gated.refresh_from_db()
        self.assertEqual(self.gated.current_revision, 1)
        self.assertEqual(PodUpdateAttempt.objects.filter(scenario=self.gated, allowed=False).count(), 1)
        self.enqueue.assert_not_called()

    def test_it_takes_a_whole_pod_as_yaml(self):
        pod = yaml.safe_load(MULTI.split("---\n")[1])
        pod["spec"]["nodeSelector"] = {"disktype": "ssd"}
        response = self.post(yaml.safe_dump(pod), content_type="application/yaml")
        self.assertEqual(response.status_code, 201, response.content)
        self.assertEqual(response.json()["proposed"]["spec"]["nodeSelector"], {"disktype": "ssd"})
        self.assertIsNone(response.json()["patch"])

    def test_it_takes_json_wrappers_and_a_bare_pod(self):
        response = self.post({"patch": {"spec": {"nodeSelector": {"disktype": "ssd"}}}, "revision": 1},
                             content_type="application/json")
        self.assertEqual(response.status_code, 201, response.content)
        pod = response.json()["proposed"]
        del pod["spec"]["schedulingGates"]  # the last gate goes: accepted
        response = self.post({"pod": pod}, content_type="application/json", HTTP_IF_MATCH='"2"')
        self.assertEqual(response.status_code, 201, response.content)
        self.assertEqual(response.json()["revision"], 3)
        pod["spec"]["nodeSelector"] = {}  # no longer gated: directives are immutable again
        response = self.post(pod, content_type="application/json")
        self.assertEqual(response.status_code, 422, response.content)
        self.assertEqual(response.json()["errors"][0]["type"], "FieldValueForbidden")

    def test_a_stale_revision_answers_409_and_stores_nothing(self):
        response = self.post(REMOVE_GATE_AND_TIGHTEN, HTTP_IF_MATCH='"5"')
        self.assertEqual(response.status_code, 409)
        self.assertEqual(response.json()["current_revision"], 1)
        self.assertFalse(PodUpdateAttempt.objects.exists())

    def test_an_unknown_pod_answers_404_naming_it(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self.api(self.editor).post(self.pod_url("ghost"), "{}", content_type="application/merge-patch+json")
        self.assertEqual(response.status_code, 404)
        self.assertIn("Pod data/ghost is not in revision r1", response.json()["detail"])

    def test_bad_bodies_answer_400_naming_the_field(self):
        response = self.post([1, 2])
        self.assertEqual(response.status_code, 400)
        self.assertIn("patch", response.json())
        response = self.post({"something": 1}, content_type="application/json")
        self.assertEqual(response.status_code, 400)
        self.assertIn("pod", response.json())
        response = self.post("a: [", content_type="application/yaml")
        self.assertEqual(response.status_code, 400)
        self.assertIn("YAML parse error", response.json()["detail"])

    def test_viewers_may_not_propose_and_outsiders_do_not_see_the_scenario(self):
        self.assertEqual(self.post(REMOVE_GATE_AND_TIGHTEN, user=self.viewer).status_code, 403)
        self.assertEqual(self.post(REMOVE_GATE_AND_TIGHTEN, user=self.outsider).status_code, 404)
        self.assertEqual(self.api(self.outsider).get(self.pod_url()).status_code, 404)
        self.assertFalse(PodUpdateAttempt.objects.exists())
        self.assertEqual(self.api(self.viewer).get(self.pod_url()).status_code, 200)

    def test_it_lists_attempts_per_pod_and_per_scenario(self):
        self.post(LOOSEN)
        self.post(REMOVE_GATE_AND_TIGHTEN)
        listed = self.api(self.viewer).get(self.pod_url()).json()
        self.assertEqual(listed["count"], 2)
        self.assertEqual([a["allowed"] for a in listed["results"]], [True, False])
        self.assertEqual(self.api(self.viewer).get(self.pod_url("web-1", "default")).json()["count"], 0)
        every = self.api(self.viewer).get(f"/api/scenarios/{self.gated.pk}/pod-updates/").json()
        self.assertEqual(every["count"], 2)
        self.assertEqual(every["results"][0]["author"], "ed")
