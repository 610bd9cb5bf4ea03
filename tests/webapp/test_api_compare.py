from webapp.scenarios import services, tasks
from webapp.scenarios.manifests import edits
from webapp.scenarios.models import Run

from .base import BaseTestCase
from .test_compare import MIN_DOMAINS, RS


class ApiCompareTestCase(BaseTestCase):
    def setUp(self):
        self.scenario = services.create_scenario(team=self.team, name="md", manifests=MIN_DOMAINS, author=self.owner)
        head = self.scenario.head()
        self.a = Run.objects.create(scenario=self.scenario, revision=head)
        self.b = Run.objects.create(scenario=self.scenario, revision=head, label="draft", manifests=edits.apply_edit(
            MIN_DOMAINS, {"op": "set_max_skew", "workload": RS, "value": 4}))
        for run in (self.a, self.b):
            tasks.execute_run(run.pk)

    def test_it_compares_two_runs_both_ways(self):
        api = self.api(self.viewer)
        r = api.get(f"/api/scenarios/{self.scenario.pk}/compare/?a={self.a.pk}&b={self.b.pk}")
        self.assertEqual(r.status_code, 200)
        self.assertEqual((r.data["counts"]["a"]["pending"], r.data["counts"]["b"]["pending"]), (4, 0))
        self.assertEqual((len(r.data["got_scheduled"]), r.data["unchanged"]), (4, 6))
        r2 = api.get(f"/api/runs/{self.a.pk}/compare/{self.b.pk}/")
        self.assertEqual(r2.data, r.data)

    def test_it_names_a_bad_parameter(self):
        r = self.api(self.viewer).get(f"/api/scenarios/{self.scenario.pk}/compare/?a=x&b={self.b.pk}")
        self.assertEqual(r.status_code, 400)
        self.assertIn("a", r.data)
        queued = Run.objects.create(scenario=self.scenario, revision=self.scenario.head())
        r = self.api(self.viewer).get(f"/api/runs/{self.a.pk}/compare/{queued.pk}/")
        self.assertEqual(r.status_code, 400)
        self.assertIn("no result", str(r.data["b"]))

    def test_outsiders_get_404(self):
        r = self.api(self.outsider).get(f"/api/runs/{self.a.pk}/compare/{self.b.pk}/")
        self.assertEqual(r.status_code, 404)
