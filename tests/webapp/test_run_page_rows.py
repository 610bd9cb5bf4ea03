"""The worker lays out a run page's rows when it stores the run (RunPage): the page shows the same from them as
from the whole result, for every example (pending pods and their causes, preemption, gates, volumes), capped
or not, and a run stored before the worker did so is laid out from its result."""

import re
from unittest import mock

from django.test import override_settings

from webapp.front import run_page
from webapp.scenarios import results_cache, services, tasks
from webapp.scenarios.models import Run, RunPage

from .base import BaseTestCase
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR

EXAMPLES = sorted(p.stem for p in EXAMPLES_DIR.glob("*.yaml"))


def section(page):
    """The run's result section of a page, without the parts that differ between two reads of one run."""
    body = page.content.decode().split('<section id="run-result"', 1)[1].split("</section>", 1)[0]
    return re.sub(r'csrfmiddlewaretoken" value="[^"]+"', "", body)


@override_settings(RESULT_CACHE_RUNS=0)
class RunPageRowsTests(BaseTestCase):
    def setUp(self):
        super().setUp()
        self.client.force_login(self.owner)

    def worker_run(self, name):
        text = (EXAMPLES_DIR / f"{name}.yaml").read_text()
        scenario = services.create_scenario(team=self.team, name=name, manifests=text, author=self.owner)
        run = Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=self.owner)
        tasks.execute_run(run.pk)
        return Run.objects.get(pk=run.pk)

    def test_each_example_shows_the_same_from_the_stored_rows_as_from_its_result(self):
        for name in EXAMPLES:
            for rows in (1000, 3):  # (3: the lists capped, the pods not scheduled first)
                with self.subTest(example=name, rows=rows), mock.patch.object(run_page, "RUN_PAGE_ROWS", rows):
                    run = self.worker_run(name)
                    self.assertTrue(RunPage.objects.filter(run=run).exists())
                    stored = section(self.client.get(f"/runs/{run.pk}/"))
                    RunPage.objects.filter(run=run).delete()  # as a run stored before the worker laid them out
                    results_cache.forget()
                    self.assertEqual(stored, section(self.client.get(f"/runs/{run.pk}/")))

    def test_the_stored_rows_say_why_pods_are_pending_and_who_was_preempted(self):
        page = self.client.get(f"/runs/{self.worker_run('preemption').pk}/")
        self.assertContains(page, 'id="evicted-list"')
        self.assertRegex(page.content.decode(), r"\d+ Scheduled")
        page = self.client.get(f"/runs/{self.worker_run('min-domains').pk}/")
        self.assertContains(page, "Why these pods are not scheduled")
        self.assertContains(page, "4 Unschedulable")

    def test_a_run_the_reaper_failed_has_no_rows(self):
        run = self.worker_run("min-domains")
        run.status = Run.Status.RUNNING
        run.save()
        tasks._finish(run.pk, None, status=Run.Status.FAILED, result=None, error="worker lost")
        self.assertFalse(RunPage.objects.filter(run=run).exists())
        self.assertContains(self.client.get(f"/runs/{run.pk}/"), "worker lost")
