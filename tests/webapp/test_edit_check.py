"""A quick edit's check: the engine's scenario of the edited text, which the editor's verdict is worked out from
and which is kept (in this process, and on disk for the others) as that text's loaded scenario.

A change of a spread constraint's fields is not loaded from the new text: the engine sets the fields in the
scenario of the text before (scheduler_core.with_spread_fields). Whatever reads that scenario afterwards (the
verdict, a run of the draft in this process, another process's run from the disk cache) must get what loading
the new text gives; a value the engine refuses, or a text over the size limit, is refused as loading it refuses.
"""

import logging
import tempfile
from pathlib import Path
from unittest import mock

from django.test import override_settings

from tests.bench.generate import generate, to_yaml
from webapp.scenarios import engine, services
from webapp.scenarios.manifests import documents, summary
from webapp.scenarios.models import Draft

from .base import BaseTestCase

OBJECTS = generate("30x90", seed=1).objects  # bound and pending pods, two spread constraints per app
CLUSTER = to_yaml(OBJECTS)
FRONTEND_POD = next(f'{o["metadata"]["namespace"]}/{o["metadata"]["name"]}' for o in OBJECTS
                    if o["kind"] == "Pod" and o["metadata"]["labels"].get("app") == "frontend")
SET_IN_SCENARIO = "the edit's check set its spread constraint fields"
PUT_IN_SCENARIO = "documents it changed into the scenario"
NODES = [o["metadata"]["name"] for o in OBJECTS if o["kind"] == "Node"]
PENDING_POD = next(f'Pod/{o["metadata"]["namespace"]}/{o["metadata"]["name"]}' for o in OBJECTS
                   if o["kind"] == "Pod" and not o["spec"].get("nodeName"))

# Edits of other scheduling directives, in turn: the documents they change are read into the scenario of the text
# before (what the worker's run ahead does with them)
DIRECTIVE_EDITS = (
    {"op": "cordon", "node": NODES[0]},
    {"op": "add_taint", "node": NODES[1], "name": "dedicated=infra:NoSchedule"},
    {"op": "add_gate", "workload": PENDING_POD, "name": "example.com/wait"},
    {"op": "set_priority", "workload": "app=batch", "priority": "2000"},
    {"op": "uncordon", "node": NODES[0]},
    {"op": "remove_taint", "node": NODES[1], "name": "dedicated"},
    {"op": "remove_gate", "workload": PENDING_POD, "name": "example.com/wait"},
    {"op": "set_spread", "workload": "app=frontend", "index": "0", "maxSkew": "2"},  # (the pods agree: fields set)
    {"op": "set_spread", "workload": f"Pod/{FRONTEND_POD}", "index": "0", "maxSkew": "3"},
    # (the pods now disagree on maxSkew: not set as fields, but each document read in)
    {"op": "set_spread", "workload": "app=frontend", "index": "0", "maxSkew": "4"},
)

# (what the editor's form sends, on the draft the edit before left)
EDITS = (
    {"maxSkew": "2"},
    {"minDomains": "4"},
    {"minDomains": "unset"},
    {"index": "1", "topologyKey": "topology.kubernetes.io/region"},
    {"whenUnsatisfiable": "ScheduleAnyway"},
    # every field of the constraint, as the constraint form sends them
    {"maxSkew": "4", "minDomains": "unset", "whenUnsatisfiable": "ScheduleAnyway",
     "topologyKey": "topology.kubernetes.io/zone"},
    {"workload": f"Pod/{FRONTEND_POD}", "maxSkew": "3"},
)


def another_process():
    """Forget what this process holds of any text, as a process that has read none."""
    documents._memo.clear()
    documents._latest = (None, None, False)
    engine._fast_latest = (None, None)
    engine._LOADED.clear()
    engine._CHECKED[:] = [None, None]
    engine.forget_decoded()


def loaded_from_text(manifests):
    """(the engine's verdict, its result) of a text loaded from the text itself, by a process with no cache."""
    another_process()
    with override_settings(ENGINE_CACHE_DIR=""):
        verdict = summary._check(manifests)
        result = engine.simulate(manifests, seed=0, detail=True)
    another_process()
    return verdict, result


class EditorTestCase(BaseTestCase):
    """The editor logged in, the generated cluster as a scenario, a disk cache of its own and this process's caches
    forgotten before and after (``patches()``: the settings and patches the tests run under)."""

    def patches(self, cache):
        return [override_settings(ENGINE_CACHE_DIR=cache, EDIT_RUN_AHEAD_MIN_BYTES=-1)]

    def setUp(self):
        super().setUp()
        cache = tempfile.TemporaryDirectory()
        self.addCleanup(cache.cleanup)
        self.cache = Path(cache.name)
        for patch in self.patches(cache.name):
            patch.enable() if hasattr(patch, "enable") else patch.start()
            self.addCleanup(patch.disable if hasattr(patch, "disable") else patch.stop)
        another_process()
        self.addCleanup(another_process)
        self.client.force_login(self.editor)
        self.scenario = services.create_scenario(team=self.team, name="Generated", manifests=CLUSTER,
                                                 author=self.owner)
        self.base = f"/scenarios/{self.scenario.pk}/draft/"


class QuickEditCheckTests(EditorTestCase):
    large = False  # every text counts as large: the scenario is kept as the latest checked, not in _LOADED

    def patches(self, cache):
        return super().patches(cache) + [
            mock.patch.object(engine, "LOADED_MAX_BYTES", 1000 if self.large else engine.LOADED_MAX_BYTES)]

    def edit(self, **fields):
        """Post a quick edit as the editor does (a spread constraint's fields unless ``op`` says otherwise): (the
        response's text, whether the check set the fields)."""
        return self.edit_saying(SET_IN_SCENARIO, **{"op": "set_spread", "workload": "app=frontend", "index": "0",
                                                    **fields})

    def edit_saying(self, said, **fields):
        """(the response's text, whether the engine's log said ``said``) of a quick edit posted as the editor does."""
        with self.assertLogs("webapp.scenarios.engine", "INFO") as logs:
            engine.log.info("(the edit)")
            response = self.client.post(self.base + "edit/", fields, headers={"HX-Request": "true"})
        self.assertEqual(response.status_code, 200)
        return response.content.decode(), any(said in line for line in logs.output)

    def draft(self):
        return Draft.objects.get(scenario=self.scenario, author=self.editor)

    def test_a_spread_field_edit_is_checked_and_run_as_loading_its_text_gives(self):
        for fields in EDITS:
            with self.subTest(**fields):
                page, set_in_scenario = self.edit(**fields)
                self.assertTrue(set_in_scenario)
                manifests = self.draft().manifests
                # what this process now holds as the edited text's scenario: the editor's verdict, and a run
                verdict = summary._check(manifests)
                result = engine.simulate(manifests, seed=0, detail=True)
                self.assertIn(verdict["message"], page)
                self.assertEqual((verdict, result), loaded_from_text(manifests))

    def test_a_directive_edit_is_checked_and_run_as_loading_its_text_gives(self):
        for fields in DIRECTIVE_EDITS:
            with self.subTest(**fields):
                page, put_in = self.edit_saying("the edit's check", **fields)
                self.assertTrue(put_in)
                self.assertIn("Applied:", page)
                manifests = self.draft().manifests
                verdict, result = summary._check(manifests), engine.simulate(manifests, seed=0, detail=True)
                self.assertIn(verdict["message"], page)
                self.assertEqual((verdict, result), loaded_from_text(manifests))
        self.assertEqual(len(self.draft().edits), len(DIRECTIVE_EDITS))

    def test_an_edit_that_writes_a_nul_is_refused_as_loading_its_text_refuses_it(self):
        self.edit_saying(PUT_IN_SCENARIO, op="cordon", node=NODES[0])
        before = self.draft_or_none()
        page, put_in = self.edit_saying(PUT_IN_SCENARIO, op="add_taint", node=NODES[1], name="dedicated=in\x00fra")
        self.assertFalse(put_in)
        self.assertIn("NUL", page)
        self.assertEqual(self.draft_or_none(), before)

    def draft_or_none(self):
        draft = Draft.objects.filter(scenario=self.scenario, author=self.editor).first()
        return None if draft is None else (draft.manifests, draft.edits)

    def test_another_process_runs_the_edited_text_from_the_scenario_kept_on_disk(self):
        self.edit(maxSkew="1")
        manifests = self.draft().manifests
        expected = loaded_from_text(manifests)[1]
        another_process()
        with mock.patch("scheduler_core.load_scenario", side_effect=AssertionError("loaded the text again")):
            self.assertEqual(engine.simulate(manifests, seed=0, detail=True), expected)

    def test_the_edit_after_another_process_s_starts_from_the_scenario_on_disk(self):
        self.edit(maxSkew="2")
        another_process()
        with mock.patch("scheduler_core.load_scenario", side_effect=AssertionError("loaded the text again")):
            _, set_in_scenario = self.edit(maxSkew="3")
        self.assertTrue(set_in_scenario)
        manifests = self.draft().manifests
        self.assertIn("maxSkew: 3", manifests)
        self.assertEqual(engine.simulate(manifests, seed=0, detail=True), loaded_from_text(manifests)[1])

    def test_a_value_the_engine_refuses_is_refused_as_loading_the_text_refuses_it(self):
        self.edit(maxSkew="2")
        before = self.draft()
        for fields, said in (
                ({"index": "1", "minDomains": "2"}, "minDomains"),  # (the second constraint is ScheduleAnyway)
                ({"maxSkew": "0"}, "maxSkew"),
                ({"index": "1", "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"},
                 "topologySpreadConstraints")):  # (the first constraint's key and whenUnsatisfiable)
            with self.subTest(**fields):
                page, set_in_scenario = self.edit(**fields)
                self.assertFalse(set_in_scenario)
                self.assertIn(said, page)
                after = self.draft()
                self.assertEqual((after.manifests, after.edits), (before.manifests, before.edits))

    def test_a_text_the_edit_takes_over_the_size_limit_is_refused_naming_the_limit(self):
        self.edit(maxSkew="2")
        before = self.draft()
        with override_settings(MANIFEST_MAX_BYTES=len(before.manifests) + 1):
            page, set_in_scenario = self.edit(index="1", topologyKey="topology.kubernetes.io/longer-region")
        self.assertFalse(set_in_scenario)
        self.assertIn("MANIFEST_MAX_BYTES", page)
        self.assertEqual(self.draft().manifests, before.manifests)


class LargeTextQuickEditCheckTests(QuickEditCheckTests):
    large = True


class DraftEditorPreparesItsProcessTests(EditorTestCase):
    """The draft editor's page, once its response is sent, reads into its web process from the disk cache what the
    draft's first quick edit there reads first (its documents, its scenario); it never parses or loads the text."""

    def patches(self, cache):
        # (each text counts as large: what pages show of it is kept in the database, its documents on disk)
        return super().patches(cache) + [override_settings(TEXT_FACT_MIN_BYTES=0),
                                         mock.patch.object(engine, "LOADED_MAX_BYTES", 1000),
                                         mock.patch.object(documents, "DISK_MIN_BYTES", 1000)]

    def setUp(self):
        super().setUp()
        self.edit(maxSkew="2")  # (the draft's text, its documents and scenario kept on disk)
        another_process()

    def edit(self, **fields):
        r = self.client.post(self.base + "edit/", {"op": "set_spread", "workload": "app=frontend", "index": "0",
                                                   **fields}, headers={"HX-Request": "true"})
        self.assertContains(r, "Applied:")
        return r

    def open_the_editor(self, **settings):
        """The draft editor's page, as a person opens it (run-ahead sizes from 0 up): the drafts log's lines."""
        with override_settings(**{"EDIT_RUN_AHEAD_MIN_BYTES": 0, **settings}), \
                self.assertLogs("webapp.scenarios.drafts", "INFO") as logs, \
                mock.patch.object(engine, "parse_fast", side_effect=AssertionError("parsed the text")), \
                mock.patch("scheduler_core.load_scenario", side_effect=AssertionError("loaded the text")):
            logging.getLogger("webapp.scenarios.drafts").info("(the page)")
            self.assertContains(self.client.get(self.base), "Quick edits")
        return logs.output

    def test_the_first_edit_after_the_editor_s_page_reads_nothing_from_the_disk_cache(self):
        said = self.open_the_editor()
        self.assertTrue(any("read the draft's documents and scenario from the disk cache" in line for line in said))
        with mock.patch.object(engine, "_read_disk", side_effect=AssertionError("read the disk cache")), \
                mock.patch.object(engine, "parse_fast", side_effect=AssertionError("parsed the text")):
            self.edit(maxSkew="3")
        manifests = Draft.objects.get(scenario=self.scenario, author=self.editor).manifests
        self.assertIn("maxSkew: 3", manifests)
        self.assertEqual(engine.simulate(manifests, seed=0, detail=True), loaded_from_text(manifests)[1])

    def test_the_editor_s_page_reads_nothing_of_a_text_the_disk_cache_does_not_hold(self):
        for kept in self.cache.iterdir():
            kept.unlink()
        said = self.open_the_editor()
        self.assertTrue(any("found nothing of the draft's text in the disk cache" in line for line in said))
        self.assertEqual(documents._latest[0], None)

    def test_the_editor_s_page_leaves_a_text_over_engine_keep_loaded_bytes_alone(self):
        said = self.open_the_editor(ENGINE_KEEP_LOADED_BYTES=len(CLUSTER) // 2)
        self.assertEqual(said, ["INFO:webapp.scenarios.drafts:(the page)"])
        self.assertEqual(documents._latest[0], None)
