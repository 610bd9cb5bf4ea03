"""The pod and node pages of a large result read the entries they show of the parts keyed by pod (a pod's
explanation, preemption and labels; a node's pods' labels) instead of those parts whole, and show exactly what
they show from the whole result."""

import re
from pathlib import Path
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from webapp.scenarios import results_cache, services, tasks
from webapp.scenarios.models import Run, RunPage

from .base import BaseTestCase

EXAMPLE = Path(__file__).resolve().parents[2] / "webapp" / "scenarios" / "examples" / "preemption.yaml"
# a pod that fits no node and may preempt nothing: left pending, with its explanation
STUCK = """\
- apiVersion: v1
  kind: Pod
  metadata: {name: huge, namespace: default, labels: {app: huge}}
  spec:
    containers:
    - name: huge
      image: nginx
      resources: {requests: {cpu: "64"}}
"""


@override_settings(RESULT_CACHE_RUNS=4, RESULT_PARTS_MIN_BYTES=0)  # (every result counts as large)
class PodPageByEntriesTests(BaseTestCase):
    def setUp(self):
        super().setUp()
        results_cache.forget()
        text = EXAMPLE.read_text()
        items = text.index("\nitems:\n") + len("\nitems:\n")
        scenario = services.create_scenario(team=self.team, name="Preemption", author=self.owner, message="m",
                                            manifests=text[:items] + STUCK + text[items:])
        self.run = Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=self.owner)
        tasks.execute_run(self.run.pk)
        self.stored = Run.objects.get(pk=self.run.pk).result
        self.client.force_login(self.viewer)

    def url(self, pod):
        namespace, name = pod.split("/")
        return f"/runs/{self.run.pk}/pods/{namespace}/{name}/"

    def shown(self, pod, url=None):  # (without the page's CSRF token, new on every response)
        page = self.client.get(url or self.url(pod))
        self.assertEqual(page.status_code, 200, pod)
        return re.sub(rb"\b[A-Za-z0-9]{64}\b", b"token", page.content)

    def every_pod(self):
        return [r["pod"] for r in self.stored["pods"]] + [b["pod"] for b in self.stored["boundPods"]]

    def test_the_example_has_a_preemptor_a_victim_and_a_pod_left_pending(self):
        outcomes = {r["pod"]: r["outcome"] for r in self.stored["pods"]}
        self.assertIn("default/huge", self.stored["explanations"])
        self.assertTrue(self.stored["preemptions"])
        self.assertTrue(any(b.get("evicted") for b in self.stored["boundPods"]))
        self.assertNotEqual(outcomes["default/huge"], "Scheduled")

    def test_each_pod_page_shows_the_same_as_from_the_whole_result(self):
        for pod in self.every_pod():
            with self.subTest(pod=pod):
                results_cache.forget()
                with mock.patch.object(results_cache, "SMALL_PART", 0):
                    by_entries = self.shown(pod)
                results_cache.forget()
                with override_settings(RESULT_PARTS_MIN_BYTES=2**40):
                    self.assertEqual(by_entries, self.shown(pod))

    @pytest.mark.skipif(connection.vendor != "postgresql", reason="entries are read on PostgreSQL")
    def test_a_pending_pods_page_reads_its_entries_not_the_parts_keyed_by_pod(self):
        results_cache.forget()
        with mock.patch.object(results_cache, "SMALL_PART", 0), CaptureQueriesContext(connection) as queries:
            page = self.client.get(self.url("default/huge"))
        self.assertContains(page, "huge")
        sql = [q["sql"] for q in queries.captured_queries]
        entries = [s for s in sql if "#> ARRAY" in s]
        self.assertTrue(entries)
        self.assertFalse([s for s in sql if "(r -> " in s and "#> ARRAY" not in s and
                          re.search(r"'(explanations|preemptions|podInfo)'", s)], sql)

    @pytest.mark.skipif(connection.vendor != "postgresql", reason="entries are read on PostgreSQL")
    def test_a_pods_page_reads_the_parts_of_its_kind_of_pod(self):
        # a pod pending at the start: not the pods bound before the run; a pod bound before: not the cycles
        victim = next(b["pod"] for b in self.stored["boundPods"] if b.get("evicted"))
        for pod, read, unread in [("default/huge", "'cycles'", "'boundPods'"), (victim, "'boundPods'", "'cycles'")]:
            results_cache.forget()
            with self.subTest(pod=pod), mock.patch.object(results_cache, "SMALL_PART", 0), \
                    CaptureQueriesContext(connection) as queries:
                self.assertContains(self.client.get(self.url(pod)), pod.split("/")[1])
            parts = " ".join(q["sql"] for q in queries.captured_queries if "(r -> " in q["sql"])
            self.assertIn(read, parts)
            self.assertNotIn(unread, parts)

    @pytest.mark.skipif(connection.vendor != "postgresql", reason="entries are read on PostgreSQL")
    def test_entries_equal_the_stored_object(self):
        with mock.patch.object(results_cache, "SMALL_PART", 0):
            read = results_cache.result_of(Run.objects.defer("result").get(pk=self.run.pk), by_parts=True)
            entries = read["explanations"]
        self.assertIsInstance(entries, results_cache.PartEntries)
        want = self.stored["explanations"]
        self.assertEqual(entries["default/huge"], want["default/huge"])
        self.assertNotIn("default/no-such-pod", entries)
        self.assertIsNone(entries.get("default/no-such-pod"))
        self.assertTrue(entries)
        self.assertEqual(list(entries), list(want))  # (keys alone, in the stored order)
        self.assertEqual(len(entries), len(want))
        self.assertEqual(dict(entries), want)
        self.assertEqual(entries, want)
        self.assertEqual(dict(read), self.stored)

    @pytest.mark.skipif(connection.vendor != "postgresql", reason="the worker keeps sizes on PostgreSQL")
    def test_the_worker_keeps_the_part_sizes_so_a_page_does_not_measure_them(self):
        kept = RunPage.objects.get(run_id=self.run.pk).data["sizes"]
        self.assertEqual(set(kept), set(self.stored))
        self.assertEqual(kept, results_cache._probe(self.run.pk)[1])
        results_cache.forget()
        with CaptureQueriesContext(connection) as queries:
            self.assertEqual(self.client.get(self.url("default/huge")).status_code, 200)
        self.assertFalse([q["sql"] for q in queries.captured_queries if "json_object_agg" in q["sql"]])

    def test_each_node_page_shows_the_same_as_from_the_whole_result(self):
        for node in [n["name"] for n in self.stored["nodes"]]:
            url = f"/runs/{self.run.pk}/nodes/{node}/"
            with self.subTest(node=node):
                results_cache.forget()
                with mock.patch.object(results_cache, "SMALL_PART", 0):
                    by_entries = self.shown(node, url)
                results_cache.forget()
                with override_settings(RESULT_PARTS_MIN_BYTES=2**40):
                    self.assertEqual(by_entries, self.shown(node, url))

    @pytest.mark.skipif(connection.vendor != "postgresql", reason="entries are read on PostgreSQL")
    def test_a_node_page_reads_its_pods_labels_in_one_query_not_every_pods(self):
        node = max(self.stored["nodes"], key=lambda n: len(n.get("pods", [])))
        self.assertGreater(len(node["pods"]), 1)
        results_cache.forget()
        with mock.patch.object(results_cache, "SMALL_PART", 0), mock.patch.object(results_cache, "ENTRY_READS", 1), \
                CaptureQueriesContext(connection) as queries:
            self.assertContains(self.client.get(f"/runs/{self.run.pk}/nodes/{node['name']}/"), node["pods"][0])
        sql = [q["sql"] for q in queries.captured_queries]
        self.assertEqual(len([s for s in sql if "'podInfo'" in s]), 1, sql)
        self.assertFalse([s for s in sql if "(r -> 'podInfo')" in s or "jsonb_object_keys" in s], sql)

    @pytest.mark.skipif(connection.vendor != "postgresql", reason="entries are read on PostgreSQL")
    def test_an_empty_part_read_by_entries_is_empty(self):
        Run.objects.filter(pk=self.run.pk).update(result={**self.stored, "preemptions": {}})
        results_cache.keep_part_sizes(self.run.pk)  # (as the worker measures a result it stores)
        results_cache.forget()
        with mock.patch.object(results_cache, "SMALL_PART", 0):
            read = results_cache.result_of(Run.objects.defer("result").get(pk=self.run.pk), by_parts=True)
            empty, full = read["preemptions"], read["explanations"]
            self.assertIsInstance(empty, results_cache.PartEntries)
            self.assertEqual((bool(empty), len(empty), list(empty)), (False, 0, []))
            self.assertTrue(full)
