"""A run's pages read its result once per process: the next page of the same run costs no read of the result,
pages change nothing in it, and a run finished again is read again."""

import re
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import timezone

from scheduler_core import scenario_io
from webapp.scenarios import frozen, results_cache, tasks, texts
from webapp.scenarios.manifests import documents
from webapp.scenarios import services
from webapp.scenarios.models import Run, RunPage

from .base import SMALL, BaseTestCase


def result_reads(queries):
    return [q["sql"] for q in queries if '"result"' in q["sql"] and "SELECT" in q["sql"]]


@override_settings(RESULT_CACHE_RUNS=4, RESULT_PARTS_MIN_BYTES=2**40)  # (read whole: see StoredResultTests)
class ResultCacheTests(BaseTestCase):
    def setUp(self):
        super().setUp()
        results_cache.forget()
        self.run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner)
        tasks.execute_run(self.run.pk)
        self.client.force_login(self.viewer)

    def pages(self):
        return [f"/runs/{self.run.pk}/nodes/", f"/runs/{self.run.pk}/topology/", f"/runs/{self.run.pk}/timeline/",
                f"/runs/{self.run.pk}/nodes/node-a/", f"/runs/{self.run.pk}/?all=1"]

    def test_the_run_page_reads_the_rows_the_worker_laid_out_not_the_result(self):
        with CaptureQueriesContext(connection) as queries:
            page = self.client.get(f"/runs/{self.run.pk}/")
        self.assertContains(page, "1 Scheduled")
        self.assertContains(page, '<a href="/runs/%d/nodes/node-a/">node-a</a>' % self.run.pk)
        self.assertEqual(result_reads(queries.captured_queries), [])

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
        everything = f"/runs/{self.run.pk}/?all=1"  # (laid out from the result itself)
        self.assertNotContains(self.client.get(everything), "No pending pods to schedule.")
        Run.objects.filter(pk=self.run.pk).update(result={**Run.objects.get(pk=self.run.pk).result, "pods": [],
                                                          "counts": None}, finished_at=timezone.now())
        self.assertContains(self.client.get(everything), "No pending pods to schedule.")
        with CaptureQueriesContext(connection) as again:
            self.client.get(everything)
        self.assertEqual(result_reads(again.captured_queries), [])


def part_reads(queries):
    """(how many parts of a result the queries read, whether one of them read the whole result)."""
    parts, whole = 0, False
    for q in queries:
        sql = q["sql"]
        if not sql.startswith("SELECT") or "pg_column_size" in sql or "length(result)" in sql:
            continue  # (the probe of a result's size and parts)
        if "(r -> " in sql:  # PostgreSQL: parts from one decompression
            parts += sql.count("(r -> ")
        elif '"scenarios_run"."result", \'$.' in sql:  # SQLite: one part
            parts += 1
        elif '"scenarios_run"."result"' in sql:
            whole = True
    return parts, whole


@override_settings(RESULT_CACHE_RUNS=4, RESULT_PARTS_MIN_BYTES=0)
class StoredResultTests(BaseTestCase):
    """A page that reads a few parts of a large result (every result here: RESULT_PARTS_MIN_BYTES=0), the draft
    editor comparing the draft's run with the saved one, the nodes pages, the topology and the timeline, read those
    parts only (and of the parts keyed by pod, the entries of the pods they show)."""

    def setUp(self):
        super().setUp()
        results_cache.forget()
        self.client.force_login(self.editor)
        self.draft_url = f"/scenarios/{self.scenario.pk}/draft/"
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"), \
                self.captureOnCommitCallbacks(execute=True):
            self.client.post(self.draft_url + "edit/", {"op": "add_gate", "workload": "app=web", "name": "hold"})
        self.runs = list(Run.objects.order_by("id"))
        for run in self.runs:
            tasks.execute_run(run.pk)
        self.client.get(self.draft_url)  # (shows the edit's message once)
        results_cache.forget()

    def shown(self, url):  # (without the page's CSRF token, new on every response)
        return re.sub(rb"\b[A-Za-z0-9]{64}\b", b"token", self.client.get(url).content)

    def test_the_draft_editor_reads_the_facts_kept_for_comparing_and_no_result(self):
        with CaptureQueriesContext(connection) as first:
            page = self.client.get(self.draft_url)
        self.assertEqual(part_reads(first.captured_queries), (0, False))
        self.assertContains(page, "newly pending")

    def test_the_compare_page_and_api_read_the_kept_facts_and_no_result_or_text(self):
        saved, mine = self.runs[0], self.runs[-1]
        for url in (f"/scenarios/{self.scenario.pk}/compare/?a={saved.pk}&b={mine.pk}",
                    f"/scenarios/{self.scenario.pk}/compare/?a=r{saved.revision.number}&b={mine.pk}",
                    f"/api/runs/{saved.pk}/compare/{mine.pk}/"):
            texts.forget()
            with CaptureQueriesContext(connection) as queries:
                page = self.client.get(url)
            self.assertEqual(page.status_code, 200, url)
            self.assertEqual(part_reads(queries.captured_queries), (0, False), url)
            self.assertFalse([q for q in queries.captured_queries if "scenarios_text" in q["sql"]], url)
            self.assertIn(b"pending", page.content)

    def forget_comparison_facts(self):
        """The runs as a worker stored them before it kept the facts a comparison reads."""
        for kept in RunPage.objects.filter(run__in=self.runs):
            kept.data.pop("compare")
            kept.save()
        results_cache.forget()

    def test_the_draft_editor_of_runs_stored_before_their_facts_reads_only_the_parts_it_compares(self):
        self.forget_comparison_facts()
        parts_in_all = sum(len(Run.objects.get(pk=r.pk).result) for r in self.runs)
        with mock.patch.object(results_cache, "SMALL_PART", 0), CaptureQueriesContext(connection) as first:
            page = self.client.get(self.draft_url)  # (every part counts as large: one at a time)
        parts, whole = part_reads(first.captured_queries)
        self.assertFalse(whole)
        self.assertTrue(0 < parts < parts_in_all, parts)  # (not the explanations, say)
        self.assertContains(page, "newly pending")
        with CaptureQueriesContext(connection) as again:
            self.client.get(self.draft_url)
        self.assertEqual(part_reads(again.captured_queries), (0, False))

    def test_the_comparison_shows_the_same_from_kept_facts_from_parts_and_from_whole_results(self):
        kept = self.shown(self.draft_url)
        self.forget_comparison_facts()
        by_parts = self.shown(self.draft_url)
        results_cache.forget()
        with override_settings(RESULT_PARTS_MIN_BYTES=2**40):
            self.assertEqual(by_parts, self.shown(self.draft_url))
        self.assertEqual(kept, by_parts)

    def test_the_topology_and_timeline_read_the_parts_they_draw_not_every_pods_entries(self):
        for page in ("topology/", "timeline/", "topology/?step=1"):
            results_cache.forget()
            with self.subTest(page=page), mock.patch.object(results_cache, "SMALL_PART", 0), \
                    CaptureQueriesContext(connection) as queries:
                self.assertEqual(self.client.get(f"/runs/{self.runs[1].pk}/{page}").status_code, 200)
            parts, whole = part_reads(queries.captured_queries)
            self.assertFalse(whole)
            self.assertGreater(parts, 0)
            if connection.vendor == "postgresql":  # (where parts keyed by pod are read an entry at a time)
                read = " ".join(q["sql"] for q in queries.captured_queries)
                for part in ("podInfo", "explanations", "preemptions", "boundPods"):
                    self.assertNotIn(f"(r -> '{part}')", read)

    def test_the_topology_and_timeline_by_parts_show_what_the_whole_result_shows(self):
        run = self.runs[1]  # (the draft's: its pods are held by a gate)
        for page in ("topology/", "timeline/", "topology/?step=1", "topology/?key=kubernetes.io/hostname"):
            url = f"/runs/{run.pk}/{page}"
            results_cache.forget()
            with mock.patch.object(results_cache, "SMALL_PART", 0):
                by_parts = self.shown(url)
            results_cache.forget()
            with override_settings(RESULT_PARTS_MIN_BYTES=2**40):
                whole = self.shown(url)
            self.assertEqual(by_parts, whole, page)

    def test_a_run_stored_before_its_topology_facts_draws_the_same_topology(self):
        url = f"/runs/{self.runs[1].pk}/topology/"
        laid_out = self.shown(url)
        page = RunPage.objects.get(run_id=self.runs[1].pk)
        del page.data["topology"]
        page.save()
        results_cache.forget()
        self.assertEqual(self.shown(url), laid_out)

    def test_the_nodes_pages_read_only_the_parts_they_show(self):
        for page in ("nodes/", "nodes/node-a/"):
            results_cache.forget()
            with self.subTest(page=page), CaptureQueriesContext(connection) as queries:
                self.assertContains(self.client.get(f"/runs/{self.runs[0].pk}/{page}"), "node-a")
            parts, whole = part_reads(queries.captured_queries)
            self.assertFalse(whole)
            self.assertGreater(parts, 0)

    def node_with_pods(self):
        """The node page of a run that schedules web-1 onto node-a, where db-1 was running before the run."""
        bound = SMALL + """\
- apiVersion: v1
  kind: Pod
  metadata: {name: db-1, namespace: default, labels: {app: db}}
  spec:
    nodeName: node-a
    priority: 7
    containers:
    - name: db
      image: postgres
      resources: {requests: {cpu: 300m, memory: 128Mi}}
"""
        scenario = services.create_scenario(team=self.team, name="bound", manifests=bound, author=self.owner)
        run = Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=self.owner)
        tasks.execute_run(run.pk)
        results_cache.forget()
        return f"/runs/{run.pk}/nodes/node-a/", ["default/web-1", "default/db-1"]

    def test_the_node_page_reads_its_pods_entries_not_every_bound_pods_row(self):
        url, pods = self.node_with_pods()
        with mock.patch.object(results_cache, "SMALL_PART", 0), CaptureQueriesContext(connection) as queries:
            page = self.client.get(url)  # (every part counts as large: one at a time)
        for pod in pods:
            self.assertContains(page, pod)
        self.assertContains(page, "300 millicores")  # (db-1's request, from its entry)
        self.assertContains(page, "<td data-label=\"Priority\">7</td>", html=False)
        if connection.vendor == "postgresql":  # (every bound pod's row: 20 MB at 150,000 pods)
            self.assertNotIn("(r -> 'boundPods')", " ".join(q["sql"] for q in queries.captured_queries))

    def test_the_node_page_by_parts_shows_what_the_whole_result_shows(self):
        url, pods = self.node_with_pods()
        with mock.patch.object(results_cache, "SMALL_PART", 0):
            by_parts = self.shown(url)
        results_cache.forget()
        with override_settings(RESULT_PARTS_MIN_BYTES=2**40):
            whole = self.shown(url)
        self.assertEqual(by_parts, whole)
        self.assertIn(pods[0].encode(), whole)

    def test_a_result_read_by_parts_equals_the_stored_one(self):
        run = self.runs[0]
        read = results_cache.result_of(Run.objects.defer("result").get(pk=run.pk), by_parts=True)
        self.assertIsInstance(read, results_cache.StoredResult)
        self.assertEqual(dict(read), Run.objects.get(pk=run.pk).result)
        self.assertIsNone(read.get("no such part"))

    @pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL reads small parts together")
    def test_small_parts_come_together_from_one_read(self):
        self.forget_comparison_facts()  # (the draft editor then reads the runs' results)
        with CaptureQueriesContext(connection) as first:
            self.client.get(self.draft_url)
        reads = [q["sql"] for q in first.captured_queries if "(r -> " in q["sql"]]
        self.assertEqual(len(reads), 2)  # (one per run)


@override_settings(RESULT_CACHE_RUNS=1, FROZEN_CACHE_MIN_BYTES=0)  # (every result counts as large)
class FrozenResultTests(BaseTestCase):
    """A large cached result is kept out of the cycle collector's scans while cached, and handed back to it
    when the cache lets it go (else the process would hold everything frozen with it for good)."""

    def setUp(self):
        super().setUp()
        results_cache.forget()
        self.addCleanup(results_cache.forget)
        frozen.enable(False)  # (unfrozen: what earlier tests left, a live server among them, let go)
        frozen.enable()  # (as a web process does: webapp/wsgi.py)
        self.addCleanup(frozen.enable, False)
        # (the parsed manifests of every text count as large here too: leave them to their own test)
        holders = mock.patch.dict(frozen._holders, {"documents": lambda: False})
        holders.start()
        self.addCleanup(holders.stop)
        self.runs = []
        for _ in range(2):
            run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner)
            tasks.execute_run(run.pk)
            self.runs.append(run)
        self.client.force_login(self.viewer)

    def test_a_cached_result_is_frozen_after_the_request_and_unfrozen_when_dropped(self):
        # (frozen.is_frozen: this process's own freezing; the engine freezes around simulations, in any thread)
        import gc
        self.assertFalse(frozen.is_frozen())
        self.assertContains(self.client.get(f"/runs/{self.runs[0].pk}/topology/"), "node-a")
        self.assertTrue(frozen.is_frozen())
        self.assertGreater(gc.get_freeze_count(), 0)
        # the engine is told, and asks no count of the frozen objects (a walk of all of them) in a page's loads
        self.assertTrue(scenario_io.something_frozen())
        results_cache.forget(self.runs[0].pk)
        self.assertFalse(frozen.is_frozen())
        self.assertFalse(scenario_io.something_frozen())

    def test_the_next_result_evicts_the_first_and_is_frozen_in_its_place(self):
        import gc
        def page():  # (without its CSRF token, which differs per response)
            return re.sub(r"[A-Za-z0-9]{64}", "", self.client.get(f"/runs/{self.runs[0].pk}/topology/").content.decode())
        first = page()
        self.client.get(f"/runs/{self.runs[1].pk}/topology/")  # (the cache holds one: the first is let go)
        self.assertTrue(frozen.is_frozen())
        self.assertEqual(page(), first)


class FrozenManifestsTests(BaseTestCase):
    """The parsed manifests a web process keeps (the latest text read) are kept out of the collector's scans
    likewise, and handed back when another text takes their place."""

    def setUp(self):
        super().setUp()
        holders = mock.patch.dict(frozen._holders, {"results": lambda: False})
        holders.start()
        self.addCleanup(holders.stop)
        frozen.enable(False)  # (unfrozen: what earlier tests left, a live server among them, let go)
        frozen.enable()  # (as a web process does: webapp/wsgi.py)
        self.addCleanup(frozen.enable, False)
        self.addCleanup(documents.read, "kind: Namespace\nmetadata: {name: small}\n")  # (none large kept)
        self.client.force_login(self.editor)

    def test_the_latest_parsed_text_is_frozen_after_the_request_and_let_go_for_the_next(self):
        import gc
        self.assertFalse(frozen.is_frozen())
        text = self.scenario.head().manifests + f"\n# {self.id()}\n"  # (a text no earlier test read)
        scenario = services.create_scenario(team=self.team, name="unique", manifests=text, author=self.owner)
        documents.read("kind: Namespace\nmetadata: {name: small}\n")  # (the page parses it in its request)
        with override_settings(FROZEN_CACHE_MIN_BYTES=0):
            self.assertEqual(self.client.get(f"/scenarios/{scenario.pk}/draft/").status_code, 200)
            self.assertTrue(frozen.is_frozen())
            self.assertGreater(gc.get_freeze_count(), 0)
        documents.read("kind: Namespace\nmetadata: {name: other}\n")  # (a small text takes its place)
        self.assertFalse(frozen.is_frozen())
