"""The explain_pod task and the pages that ask for an explanation a run did not keep."""

from django.test import override_settings

from webapp.scenarios import tasks
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import PodExplanation, Revision, Run, Scenario

from .base import BaseTestCase

MIN_DOMAINS = (EXAMPLES_DIR / "min-domains.yaml").read_text()


class ExplainPodBase(BaseTestCase):
    def setUp(self):
        self.sc = Scenario.objects.create(team=self.team, name="md", current_revision=1)
        rev = Revision.objects.create(scenario=self.sc, number=1, manifests=MIN_DOMAINS)
        self.run = Run.objects.create(scenario=self.sc, revision=rev, status=Run.Status.QUEUED)
        tasks.execute_run.run(self.run.pk)
        self.run.refresh_from_db()
        pods = self.run.result["pods"]
        self.placed = next(p["pod"] for p in pods if p["outcome"] == "Scheduled")
        self.pending = next(p["pod"] for p in pods if p["outcome"] == "Unschedulable")


class ExplainPodTestCase(ExplainPodBase):

    def test_it_keeps_explanations_of_pending_pods_only(self):
        self.assertIn(self.pending, self.run.result["explanations"])
        self.assertNotIn(self.placed, self.run.result["explanations"])
        self.assertTrue(self.run.result["spreadConstraints"])

    def test_it_computes_a_scheduled_pods_explanation(self):
        pe = PodExplanation.objects.create(run=self.run, pod=self.placed)
        tasks.explain_pod.run(pe.pk)
        pe.refresh_from_db()
        self.assertEqual(pe.status, Run.Status.SUCCEEDED)
        explained = pe.result["explanation"]
        self.assertEqual((explained["result"], explained["node"]),
                         ("Scheduled", next(p["node"] for p in self.run.result["pods"]
                                            if p["pod"] == self.placed)))

    def test_it_ignores_an_explanation_already_claimed(self):
        pe = PodExplanation.objects.create(run=self.run, pod=self.placed, status=Run.Status.RUNNING)
        tasks.explain_pod.run(pe.pk)
        pe.refresh_from_db()
        self.assertEqual((pe.status, pe.result), (Run.Status.RUNNING, None))

    def test_it_shows_a_working_note_that_polls_until_the_worker_is_done(self):
        self.client.force_login(self.viewer)
        ns, name = self.placed.split("/")
        url = f"/runs/{self.run.pk}/pods/{ns}/{name}/"
        r = self.client.get(url)
        self.assertContains(r, "A worker is simulating it again")
        self.assertContains(r, 'hx-trigger="every 1s"')
        pe = PodExplanation.objects.get(run=self.run, pod=self.placed)
        tasks.explain_pod.run(pe.pk)
        r = self.client.get(url, headers={"HX-Request": "true"})
        self.assertNotContains(r, "hx-trigger")
        self.assertContains(r, "Scores of feasible nodes")
        self.assertNotContains(r, "<html")  # the fragment only

    def test_it_asks_once_per_pod(self):
        self.client.force_login(self.viewer)
        ns, name = self.placed.split("/")
        for _ in range(3):
            self.client.get(f"/runs/{self.run.pk}/pods/{ns}/{name}/")
        self.assertEqual(PodExplanation.objects.filter(run=self.run).count(), 1)

    def test_a_pending_pods_page_needs_no_worker(self):
        self.client.force_login(self.viewer)
        ns, name = self.pending.split("/")
        r = self.client.get(f"/runs/{self.run.pk}/pods/{ns}/{name}/")
        self.assertContains(r, "FailedScheduling")
        self.assertFalse(PodExplanation.objects.exists())

    def test_the_api_answers_202_until_the_explanation_is_there(self):
        url = f"/api/runs/{self.run.pk}/pods/{self.placed}/"
        r = self.api(self.viewer).get(url)
        self.assertEqual((r.status_code, r.json()["status"]), (202, "queued"))
        tasks.explain_pod.run(PodExplanation.objects.get().pk)
        r = self.api(self.viewer).get(url)
        self.assertEqual((r.status_code, r.json()["status"]), (200, "ready"))
        self.assertTrue(r.json()["scores"])

    @override_settings(RUN_DETAIL=True)
    def test_with_all_detail_a_run_explains_every_pod(self):
        run = Run.objects.create(scenario=self.sc, revision=self.run.revision, status=Run.Status.QUEUED)
        tasks.execute_run.run(run.pk)
        run.refresh_from_db()
        self.assertEqual(len(run.result["explanations"]), 10)


class EngineLoadTestCase(BaseTestCase):
    def test_it_loads_a_text_once_per_process(self):
        from webapp.scenarios import engine

        first = engine.load(MIN_DOMAINS)
        self.assertIs(engine.load(MIN_DOMAINS), first)
        self.assertIsNot(engine.load(MIN_DOMAINS + "\n# another text\n"), first)

    def test_a_deep_fast_path_text_is_refused_with_its_position(self):
        from webapp.scenarios import engine

        deep = "a: " + "[" * 60 + "]" * 60 + "\n"
        with self.assertRaisesMessage(engine.ScenarioInvalid, "nesting deeper than 50 levels at line 1"):
            engine.load(deep)


class ExplainPodLimitsTestCase(ExplainPodBase):
    """Each explanation not kept is a whole simulation on a worker: who may ask, and how many at once."""

    def scheduled(self):
        return [p["pod"] for p in self.run.result["pods"] if p["outcome"] == "Scheduled"]

    def test_it_queues_nothing_for_a_share_link(self):
        from webapp.scenarios.models import ShareLink

        _, token = ShareLink.create(self.sc, self.owner)
        for pod in self.scheduled():
            ns, name = pod.split("/")
            r = self.client.get(f"/s/{token}/runs/{self.run.pk}/pods/{ns}/{name}/")
            self.assertContains(r, "has not been computed yet")
            self.assertNotContains(r, "hx-trigger")  # nothing to wait for
            r = self.client.get(f"/s/{token}/runs/{self.run.pk}/topology/", {"pod": pod})
            self.assertEqual(r.status_code, 200)
        self.assertFalse(PodExplanation.objects.exists())
        # A member's view computes it; the share link then shows it.
        self.client.force_login(self.viewer)
        ns, name = self.placed.split("/")
        self.client.get(f"/runs/{self.run.pk}/pods/{ns}/{name}/")
        tasks.explain_pod.run(PodExplanation.objects.get().pk)
        self.client.logout()
        r = self.client.get(f"/s/{token}/runs/{self.run.pk}/pods/{ns}/{name}/")
        self.assertContains(r, "Scores of feasible nodes")

    def test_it_keeps_at_most_a_few_explanations_pending_per_run(self):
        self.client.force_login(self.viewer)
        for pod in self.scheduled():
            ns, name = pod.split("/")
            r = self.client.get(f"/runs/{self.run.pk}/pods/{ns}/{name}/")
            self.assertContains(r, 'hx-trigger="every 1s"')  # the others wait their turn, polling
        self.assertGreater(len(self.scheduled()), 4)
        self.assertEqual(PodExplanation.objects.filter(run=self.run).count(), 4)

    def test_it_answers_404_to_a_pod_that_is_no_namespace_and_name(self):
        from webapp.scenarios.models import ShareLink

        _, token = ShareLink.create(self.sc, self.owner)
        self.assertEqual(self.client.get(f"/s/{token}/runs/{self.run.pk}/topology/", {"pod": "x"}).status_code, 404)
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.get(f"/runs/{self.run.pk}/topology/", {"pod": "x"}).status_code, 404)
