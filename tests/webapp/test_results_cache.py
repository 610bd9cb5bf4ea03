"""A run's pages read its result once per process: the next page of the same run costs no read of the result,
pages change nothing in it, and a run finished again is read again."""

from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import timezone

from webapp.scenarios import results_cache, tasks
from webapp.scenarios.models import Run

from .base import BaseTestCase


def result_reads(queries):
    return [q["sql"] for q in queries if '"result"' in q["sql"] and "SELECT" in q["sql"]]


@override_settings(RESULT_CACHE_RUNS=4)
class ResultCacheTests(BaseTestCase):
    def setUp(self):
        super().setUp()
        results_cache.forget()
        self.run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner)
        tasks.execute_run(self.run.pk)
        self.client.force_login(self.viewer)

    def pages(self):
        return [f"/runs/{self.run.pk}/", f"/runs/{self.run.pk}/nodes/", f"/runs/{self.run.pk}/topology/",
                f"/runs/{self.run.pk}/timeline/", f"/runs/{self.run.pk}/nodes/node-a/"]

    def test_a_runs_pages_read_its_result_once(self):
        with CaptureQueriesContext(connection) as first:
            self.assertEqual(self.client.get(self.pages()[0]).status_code, 200)
        with CaptureQueriesContext(connection) as later:
            for url in self.pages():
                self.assertEqual(self.client.get(url).status_code, 200, url)
        self.assertEqual(len(result_reads(first.captured_queries)), 1)
        self.assertEqual(result_reads(later.captured_queries), [])

    def test_pages_leave_the_result_as_stored(self):
        for url in self.pages():
            self.client.get(url)
        self.client.get(f"/runs/{self.run.pk}/?step=1")
        cached = results_cache.result_of(Run.objects.defer("result").get(pk=self.run.pk))
        self.assertEqual(cached, Run.objects.get(pk=self.run.pk).result)

    def test_a_run_finished_again_is_read_again(self):
        self.assertNotContains(self.client.get(self.pages()[0]), "No pending pods to schedule.")
        Run.objects.filter(pk=self.run.pk).update(result={**Run.objects.get(pk=self.run.pk).result, "pods": []}, finished_at=timezone.now())
        self.assertContains(self.client.get(self.pages()[0]), "No pending pods to schedule.")
        with CaptureQueriesContext(connection) as again:
            self.client.get(self.pages()[0])
        self.assertEqual(result_reads(again.captured_queries), [])
