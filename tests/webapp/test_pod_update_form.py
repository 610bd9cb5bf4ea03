"""The gated pods panel, the pod update form (htmx fragment and full page) and the attempt page."""

from unittest import mock

from webapp.scenarios import services
from webapp.scenarios.models import PodUpdateAttempt, Run

from .base import BaseTestCase
from .test_pod_updates_service import MULTI

AFFINITY_LOOSE = """\
nodeAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms:
    - matchExpressions:
      - key: topology.kubernetes.io/zone
        operator: In
        values: [z1, z2, z3]
"""
AFFINITY_NOW = AFFINITY_LOOSE.replace("[z1, z2, z3]", "[z1, z2]")


class PodUpdateFormTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.gated = services.create_scenario(team=cls.team, name="gated", manifests=MULTI, author=cls.owner)

    def setUp(self):
        patcher = mock.patch("webapp.scenarios.tasks.enqueue")
        self.enqueue = patcher.start()
        self.addCleanup(patcher.stop)

    def url(self, name="db-0"):
        return f"/scenarios/{self.gated.pk}/pods/data/{name}/update/"

    def form(self, **over):
        data = {"base_revision": "1", "node_selector": "", "affinity": AFFINITY_NOW,
                "tolerations": "", "remove_gates": []}
        data.update(over)
        return data

    def post(self, data, user=None, htmx=False):
        self.client.force_login(user or self.editor)
        headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        with self.captureOnCommitCallbacks(execute=True):
            return self.client.post(self.url(), data, **headers)

    def test_a_yaml_field_that_breaks_a_limit_is_refused_by_name(self):
        cases = [
            ("tolerations", '- key: "a\\0b"\n  operator: Exists\n', "tolerations (YAML list): a NUL character"),
            ("affinity", "nodeAffinity: {}\n---\nnodeAffinity: {}\n", "affinity (YAML) must be one YAML document, not 2"),
        ]
        for field, value, message in cases:
            with self.subTest(field=field, value=value):
                r = self.post(self.form(**{field: value}))
                self.assertEqual(r.status_code, 200)
                self.assertContains(r, message)
                self.assertFalse(PodUpdateAttempt.objects.exists())

    def test_the_scenario_page_loads_the_gated_pods_panel(self):
        self.client.force_login(self.viewer)
        page = self.client.get(f"/scenarios/{self.gated.pk}/").content.decode()
        self.assertIn(f'hx-get="/scenarios/{self.gated.pk}/pods/"', page)
        panel = self.client.get(f"/scenarios/{self.gated.pk}/pods/", HTTP_HX_REQUEST="true").content.decode()
        self.assertNotIn("<html", panel)
        self.assertIn("data/db-0", panel)
        self.assertIn("example.com/placement", panel)
        self.assertIn("topology.kubernetes.io/zone In z1, z2", panel)
        self.assertNotIn("web-1", panel)  # not gated
        self.assertIn("Updates</a>", panel)  # a viewer reads, does not propose

    def test_the_form_is_prefilled_with_the_pods_directives(self):
        self.client.force_login(self.editor)
        page = self.client.get(self.url()).content.decode()
        self.assertIn("<html", page)
        self.assertIn("values:\n        - z1\n        - z2\n</textarea>", page)
        self.assertIn('value="example.com/placement"', page)
        self.assertIn("Propose update</button>", page)

    def test_a_rejected_update_shows_the_apiserver_errors_term_by_term_in_a_fragment(self):
        response = self.post(self.form(affinity=AFFINITY_LOOSE), htmx=True)
        self.assertEqual(response.status_code, 200)
        html = response.content.decode()
        self.assertNotIn("<html", html)
        self.assertIn("Rejected — nothing changed", html)
        self.assertIn('nodeSelectorTerms[0]</code>: <strong>FieldValueInvalid</strong>: <span class="detail">only additions are allowed', html)
        self.assertIn("<strong>changed</strong> matchExpressions[0]", html)
        self.assertIn("(values changed: loosened)", html)
        self.assertIn('class="attempt-rejected"', html)
        self.gated.refresh_from_db()
        self.assertEqual(self.gated.current_revision, 1)

    def test_an_accepted_update_without_js_renders_the_page_with_the_new_revision(self):
        response = self.post(self.form(node_selector="disktype=ssd", remove_gates=["example.com/placement"]))
        self.assertEqual(response.status_code, 200)
        html = response.content.decode()
        self.assertIn("<html", html)
        self.assertIn("Accepted — applied as revision r2", html)
        run = Run.objects.get(scenario=self.gated)
        self.assertIn(f'href="/runs/{run.pk}/"', html)
        attempt = PodUpdateAttempt.objects.get()
        self.assertIn(f'hx-get="/scenarios/{self.gated.pk}/pod-updates/{attempt.pk}/"', html)  # polls the run
        self.assertEqual(attempt.proposed["spec"]["nodeSelector"], {"disktype": "ssd"})
        self.assertNotIn("schedulingGates", attempt.proposed["spec"])
        self.enqueue.assert_called_once_with(run.pk)

    def test_the_result_shows_where_the_pod_lands_once_the_run_finished(self):
        self.post(self.form(node_selector="disktype=ssd", remove_gates=["example.com/placement"]))
        attempt = PodUpdateAttempt.objects.get()
        Run.objects.filter(pk=attempt.run_id).update(status=Run.Status.SUCCEEDED, result={"pods": [
            {"pod": "data/db-0", "outcome": "Scheduled", "node": "node-a"}]})
        self.client.force_login(self.viewer)
        html = self.client.get(f"/scenarios/{self.gated.pk}/pod-updates/{attempt.pk}/", HTTP_HX_REQUEST="true").content.decode()
        self.assertNotIn("hx-trigger", html)
        self.assertIn("Scheduled</span>\n         on node <strong>node-a</strong>", html)

    def test_bad_input_names_the_field(self):
        html = self.post(self.form(node_selector="disktype", tolerations="a: b"), htmx=True).content.decode()
        self.assertIn("nodeSelector line 1: expected key=value", html)
        self.assertIn("tolerations (YAML list) must be a list", html)
        html = self.post(self.form(affinity="nodeAffinity: ["), htmx=True).content.decode()
        self.assertIn("affinity (YAML): YAML parse error", html)
        self.assertFalse(PodUpdateAttempt.objects.exists())

    def test_a_stale_form_says_so_and_stores_nothing(self):
        html = self.post(self.form(base_revision="9"), htmx=True).content.decode()
        self.assertIn("Revision r1 was saved after the revision you edited", html)
        self.assertFalse(PodUpdateAttempt.objects.exists())

    def test_permissions(self):
        self.assertEqual(self.post(self.form(), user=self.viewer).status_code, 403)
        self.assertEqual(self.post(self.form(), user=self.outsider).status_code, 404)
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.get(self.url()).status_code, 200)
        self.assertEqual(self.client.get(self.url("ghost")).status_code, 404)
        self.assertFalse(PodUpdateAttempt.objects.exists())

