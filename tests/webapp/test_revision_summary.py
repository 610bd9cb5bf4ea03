"""What pages show of a scenario's text (node table, objects per kind) is worked out when a revision is saved
and kept with it, so that a page opened in a web process that never read the text does not parse it again;
lists of revisions and runs leave the texts and results out."""

import hashlib
import importlib
from unittest import mock

from django.apps import apps as django_apps

from django.db import connection
from django.test.utils import CaptureQueriesContext

from webapp.scenarios import engine, services, texts
from webapp.scenarios.manifests import documents
from webapp.scenarios.models import Revision, Run

from .base import SMALL, TWO_PODS, BaseTestCase
from .test_compare import MIN_DOMAINS, RS
from .test_pod_updates_service import MULTI
from .test_run_nodes_view import TWO_NODES

fill_summaries = importlib.import_module("webapp.scenarios.migrations.0006_fill_summaries").fill


def forget_every_text():
    """As in a web process that has read no text yet."""
    documents._memo.clear()
    documents._latest = (None, None, False)
    engine._fast_latest = (None, None)


def no_parsing(*args, **kwargs):
    raise AssertionError("the page parsed the scenario's text")


class RevisionSummaryTests(BaseTestCase):
    def setUp(self):
        self.client.force_login(self.viewer)

    def test_a_saved_revision_keeps_its_node_table_and_object_counts(self):
        scenario = services.create_scenario(team=self.team, name="two nodes", manifests=TWO_NODES, author=self.owner)
        summary = scenario.head().summary
        self.assertEqual([(n["name"], n["zone"], n["cpu"], n["unschedulable"]) for n in summary["nodes"]],
                         [("node-a", "z1", "2", False), ("node-b", "z2", "4", True)])
        self.assertEqual(summary["counts"], {"Node": 2, "Pod": 1})
        services.save_revision(scenario, manifests=TWO_PODS, author=self.owner, message="two pods")
        self.assertEqual(Revision.objects.get(scenario=scenario, number=2).summary["counts"], {"Node": 1, "Pod": 2})

    def test_the_scenario_page_of_a_fresh_process_shows_the_nodes_without_parsing_the_text(self):
        scenario = services.create_scenario(team=self.team, name="two nodes", manifests=TWO_NODES, author=self.owner)
        forget_every_text()
        with mock.patch.object(documents, "_parse", no_parsing):
            r = self.client.get(f"/scenarios/{scenario.pk}/")
        self.assertContains(r, "node-b")
        self.assertContains(r, "z2")
        self.assertContains(r, "cordoned")

    def test_the_data_migration_gives_revisions_saved_before_summaries_were_kept_a_whole_one(self):
        scenario = services.create_scenario(team=self.team, name="old", manifests=MULTI, author=self.owner)
        kept = Revision.objects.get(scenario=scenario).summary
        Revision.objects.filter(scenario=scenario).update(summary=None)
        fill_summaries(django_apps, None)
        stored = Revision.objects.get(scenario=scenario, number=1).summary
        self.assertEqual(stored, kept)
        self.assertEqual([p["name"] for p in stored["gated"]], ["db-0"])
        forget_every_text()
        with mock.patch.object(documents, "_parse", no_parsing):
            self.assertContains(self.client.get(f"/scenarios/{scenario.pk}/"), "db-0")

    def test_the_data_migration_keeps_the_node_rows_of_a_text_the_engine_now_refuses(self):
        scenario = services.create_scenario(team=self.team, name="old", manifests=TWO_NODES, author=self.owner)
        Revision.objects.filter(scenario=scenario).update(summary={"nodes": []})
        with mock.patch.object(engine, "load", side_effect=engine.ScenarioInvalid("refused")):
            fill_summaries(django_apps, None)
        stored = Revision.objects.get(scenario=scenario).summary
        self.assertEqual([n["name"] for n in stored["nodes"]], ["node-a", "node-b"])
        self.assertEqual((stored["load"], stored["gated"]), (None, []))

    def test_saving_a_large_text_loads_it_with_the_engine_once_and_hashes_it_once(self):
        # A text over LOADED_MAX_BYTES is not kept loaded in the web process: each part of the summary that
        # loaded it again read the engine's disk cache (2 s at 150,000 pods), and each ask for its key hashed it.
        text = MULTI + "# " + "x" * 4096 + "\n"
        hashed = []
        sha256 = hashlib.sha256

        def counted(data=b"", *args, **kwargs):
            if len(data) >= len(text):
                hashed.append(1)
            return sha256(data, *args, **kwargs)

        with mock.patch.object(engine, "LOADED_MAX_BYTES", 1000), \
                mock.patch.object(texts, "KNOWN_BY_IDENTITY", 1000), \
                mock.patch.object(engine, "_load_through_disk", wraps=engine._load_through_disk) as loaded, \
                mock.patch.object(texts.hashlib, "sha256", counted):
            scenario = services.create_scenario(team=self.team, name="large", manifests=text, author=self.owner)
        self.assertEqual((loaded.call_count, len(hashed)), (1, 1))
        summary = Revision.objects.get(scenario=scenario).summary
        self.assertEqual([p["name"] for p in summary["gated"]], ["db-0"])
        self.assertEqual(summary["load"]["read"]["Pod"], 2)

    def test_the_gated_pods_panel_of_a_fresh_process_does_not_parse_the_text(self):
        scenario = services.create_scenario(team=self.team, name="gated", manifests=MULTI, author=self.owner)
        forget_every_text()
        with mock.patch.object(documents, "_parse", no_parsing):
            panel = self.client.get(f"/scenarios/{scenario.pk}/pods/", HTTP_HX_REQUEST="true").content.decode()
        self.assertIn("db-0", panel)
        self.assertIn("example.com/placement", panel)
        self.assertIn("topology.kubernetes.io/zone In z1, z2", panel)
        self.assertNotIn("web-1", panel)

    def test_the_sweep_form_of_a_fresh_process_does_not_parse_the_text(self):
        scenario = services.create_scenario(team=self.team, name="md", manifests=MIN_DOMAINS, author=self.owner)
        forget_every_text()
        self.client.force_login(self.editor)  # (the form is an editor's)
        with mock.patch.object(documents, "_parse", no_parsing):
            page = self.client.get(f"/scenarios/{scenario.pk}/sweeps/").content.decode()
        self.assertIn(f"<option>{RS}</option>", page)
        self.assertIn("3 zones: eu-west-1a, eu-west-1b, eu-west-1c", page)

    def test_values_are_kept_as_the_page_prints_them(self):
        text = TWO_NODES.replace('allocatable: {cpu: "4"', "allocatable: {cpu: 4").replace("pods: \"110\"}", "pods: 110}")
        scenario = services.create_scenario(team=self.team, name="numbers", manifests=text, author=self.owner)
        self.assertEqual([(n["cpu"], n["pods"]) for n in scenario.head().summary["nodes"]],
                         [("2", "110"), ("4", "110")])

    def test_a_draft_runs_page_lists_the_drafts_nodes_not_its_base_revisions(self):
        scenario = services.create_scenario(team=self.team, name="zone away", manifests=TWO_NODES, author=self.owner)
        run = Run.objects.create(scenario=scenario, revision=scenario.head(), manifests=SMALL, label="draft",
                                 status="succeeded", result=engine.simulate(SMALL))
        page = self.client.get(f"/runs/{run.pk}/").content.decode()
        self.assertIn("node-a", page)
        self.assertNotIn("node-b", page)

    def test_lists_of_revisions_and_runs_leave_the_texts_and_results_out(self):
        scenario = services.create_scenario(team=self.team, name="lists", manifests=TWO_NODES, author=self.owner)
        services.save_revision(scenario, manifests=TWO_PODS, author=self.owner)
        Run.objects.create(scenario=scenario, revision=scenario.head(), status="succeeded",
                           result=engine.simulate(TWO_PODS))
        for url in ["/scenarios/", f"/api/scenarios/{scenario.pk}/revisions/", f"/api/scenarios/{scenario.pk}/runs/"]:
            with CaptureQueriesContext(connection) as queries:
                self.assertEqual(self.client.get(url).status_code, 200)
            heavy = [q["sql"] for q in queries.captured_queries
                     if '"scenarios_revision"."manifests"' in q["sql"] or '"scenarios_run"."result"' in q["sql"]
                     or '"scenarios_revision"."summary"' in q["sql"]]
            self.assertEqual(heavy, [], url)
        with CaptureQueriesContext(connection) as queries:
            self.assertContains(self.client.get(f"/scenarios/{scenario.pk}/"), "node-a")
        texts = [q["sql"] for q in queries.captured_queries if '"scenarios_revision"."manifests"' in q["sql"]]
        self.assertEqual(len(texts), 1)  # the head revision's, for the page's text box
