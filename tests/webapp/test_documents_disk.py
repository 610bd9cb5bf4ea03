"""A large draft's documents, and what the engine decoded from them, kept on disk for the next quick edit.

A deployment runs several web processes; the next quick edit of a draft may reach one that never read its text.
That process takes the documents the last edit wrote (signed, in ENGINE_CACHE_DIR) instead of parsing the text.
"""
import tempfile
from pathlib import Path
from unittest import mock

from django.test.utils import override_settings

from webapp.scenarios import engine, services
from webapp.scenarios.manifests import documents, edits, limits
from webapp.scenarios.models import Draft

from .base import SMALL, TWO_PODS, BaseTestCase

# SMALL with a spread constraint, and a second pod whose resources and constraints are aliases of the first's:
# documents in which objects are reached from two places (read_plain's plain is False).
SPREAD = """\
    topologySpreadConstraints: &spread
    - maxSkew: 1
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: DoNotSchedule
      labelSelector: {matchLabels: {app: web}}
"""
REQUESTS = "resources: {requests: {cpu: 100m, memory: 64Mi}}"
ALIASED = TWO_PODS.replace(REQUESTS, REQUESTS.replace(": ", ": &small ", 1) + "\n" + SPREAD.rstrip("\n"), 1) \
    .replace(REQUESTS, "resources: *small\n    topologySpreadConstraints: *spread", 1)
PLAIN = SMALL + SPREAD.replace(" &spread", "")
SPREAD_EDIT = {"op": "set_spread", "workload": "app=web", "index": 0, "maxSkew": 2}  # (checked without a load)
FIRST = {"op": "cordon", "node": "node-a"}
SECOND = {"op": "add_taint", "node": "node-a", "key": "later", "effect": "NoSchedule"}


def another_process():
    """Forget what this process holds of any text, as a process that has read none."""
    documents._memo.clear()
    documents._latest = (None, None, False)
    engine._fast_latest = (None, None)
    engine._LOADED.clear()
    engine.forget_decoded()


def no_parsing(*args, **kwargs):
    raise AssertionError("the text was parsed")


class DocumentsOnDiskTests(BaseTestCase):
    def setUp(self):
        super().setUp()
        self.cache = tempfile.TemporaryDirectory()
        self.addCleanup(self.cache.cleanup)
        settings = override_settings(ENGINE_CACHE_DIR=self.cache.name)
        settings.enable()
        self.addCleanup(settings.disable)
        large = mock.patch.object(documents, "DISK_MIN_BYTES", 0)  # (every text counts as large)
        large.start()
        self.addCleanup(large.stop)
        another_process()
        self.addCleanup(another_process)
        self.api_client = self.api(self.editor)

    def edit(self, edit):
        r = self.api_client.post(self.url("draft/edits/"), edit, format="json")
        self.assertEqual(r.status_code, 200, r.data)
        return r

    def expected(self):
        """The draft's text after both edits, worked out without any cache."""
        another_process()
        with override_settings(ENGINE_CACHE_DIR=""):
            text = edits.apply_edit(edits.apply_edit(self.scenario.head().manifests, FIRST), SECOND)
        another_process()
        return text

    def test_the_next_edit_in_another_process_takes_the_documents_from_disk_and_writes_the_same_text(self):
        expected = self.expected()
        self.edit(FIRST)
        self.assertTrue(list(Path(self.cache.name).glob("*.documents")))
        another_process()
        with mock.patch.object(documents, "_parse", no_parsing):
            r = self.edit(SECOND)
        self.assertTrue(r.data["check"]["ok"], r.data["check"])
        self.assertEqual(Draft.objects.get().manifests, expected)

    def edits_in_two_processes(self, manifests, first_patch):
        """The draft's text after SPREAD_EDIT then SECOND, each in another process, against the same edits with no
        cache; the documents of the first edit's text are kept on disk under ``first_patch`` (a mock.patch)."""
        self.scenario = services.create_scenario(team=self.team, name="Kept", manifests=manifests, author=self.owner)
        another_process()
        with override_settings(ENGINE_CACHE_DIR=""):
            expected = edits.apply_edit(edits.apply_edit(manifests, SPREAD_EDIT), SECOND)
        another_process()
        engine.validate(manifests)  # (the scenario's check, which a web process made as it was created)
        with first_patch as patched:
            self.edit(SPREAD_EDIT)
        another_process()
        with mock.patch.object(documents, "_parse", no_parsing):
            self.edit(SECOND)
        self.assertEqual(Draft.objects.get().manifests, expected)
        return patched

    def test_documents_are_kept_by_marshal_and_come_back_as_they_were_read(self):
        for name, manifests in (("plain", PLAIN), ("objects in two places", ALIASED)):
            with self.subTest(name):
                Draft.objects.all().delete()
                self.assertEqual(documents.read_plain(manifests)[1], name == "plain")
                marshalled = self.edits_in_two_processes(
                    manifests, mock.patch.object(engine.marshal, "dumps", wraps=engine.marshal.dumps))
                self.assertTrue(marshalled.called)

    def test_documents_marshal_cannot_write_are_kept_all_the_same(self):
        self.edits_in_two_processes(ALIASED, mock.patch.object(engine.marshal, "dumps", side_effect=ValueError("no")))

    def test_the_edit_after_takes_over_what_the_engine_decoded_in_the_process_before(self):
        # (edits that add a document: their checks load the new text; a directive's change is read into the scenario
        # of the text before instead, test_edit_check.py)
        self.edit({"op": "add_node", "node": "node-a", "name": "node-b"})
        another_process()
        decoded = []
        real = engine.scheduler_core.load_scenario
        with mock.patch.object(engine.scheduler_core, "load_scenario",
                               lambda *a, **k: decoded.append(len(k.get("decoded") or ())) or real(*a, **k)):
            self.edit({"op": "add_node", "node": "node-a", "name": "node-c"})
        self.assertEqual(len(decoded), 1)
        self.assertGreater(decoded[0], 0)  # (it held the first edit's objects when the second's load began)

    def test_documents_kept_under_another_nesting_limit_are_not_taken(self):
        self.edit(FIRST)
        another_process()
        with override_settings(MANIFEST_MAX_NESTING=40), \
                mock.patch.object(documents, "_parse", wraps=documents._parse) as parsed:
            self.edit(SECOND)
        self.assertEqual(parsed.call_count, 1)

    def test_a_file_that_does_not_verify_is_ignored_and_the_text_parsed(self):
        expected = self.expected()
        self.edit(FIRST)
        for f in Path(self.cache.name).glob("*.documents"):
            data = bytearray(f.read_bytes())
            data[-1] ^= 0xFF
            f.write_bytes(bytes(data))
        another_process()
        with mock.patch.object(documents, "_parse", wraps=documents._parse) as parsed:
            self.edit(SECOND)
        self.assertEqual(parsed.call_count, 1)
        self.assertEqual(Draft.objects.get().manifests, expected)

    def test_a_text_over_the_size_limit_now_is_refused_though_its_documents_are_kept(self):
        self.edit(FIRST)
        another_process()
        with override_settings(MANIFEST_MAX_BYTES=100):
            with self.assertRaises(limits.TooLarge):
                documents.read(Draft.objects.get().manifests)  # (what a page reads)
            r = self.api_client.post(self.url("draft/edits/"), SECOND, format="json")
        self.assertEqual(r.status_code, 400)
        self.assertIn("MANIFEST_MAX_BYTES", str(r.data))

    def test_outside_a_request_nothing_is_kept_on_disk_nor_held_for_later(self):
        # (a worker reading a large text, for a sweep's cells: it would hold the documents until a request ended)
        text = edits.apply_edit(self.scenario.head().manifests, FIRST)
        another_process()
        documents.read(text)
        self.assertIsNone(getattr(documents._to_disk, "pending", None))
        self.assertFalse(list(Path(self.cache.name).glob("*.documents")))
