"""Manifest texts are stored once, compressed: revisions, drafts, runs and sweep cells that share a text share
its bytes, every row still reads its text, deleting a scenario leaves another's texts readable, and the
migration moves texts stored in rows into the store (and back)."""

import zlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from webapp.scenarios import drafts, services, sweeps, texts
from webapp.scenarios.models import Draft, Revision, Run, Text

from .base import SMALL, TWO_PODS, BaseTestCase


def keys_in(table):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT manifests FROM {table} WHERE manifests <> ''")
        return {r[0] for r in cursor.fetchall()}


class StoredTextTests(BaseTestCase):
    def setUp(self):
        super().setUp()
        texts.forget()

    def test_rows_with_the_same_text_share_one_compressed_copy(self):
        services.save_revision(self.scenario, manifests=TWO_PODS, config="", author=self.owner, message="", base=1)
        services.save_revision(self.scenario, manifests=SMALL, config="", author=self.owner, message="", base=2)
        draft = drafts.get_or_start(self.scenario, self.owner)  # starts as r3's text
        run = services.queue_run(self.scenario, self.scenario.head(), user=self.owner, source=Run.Source.DRAFT,
                                 manifests=draft.manifests)
        self.assertEqual(Text.objects.count(), 2)  # SMALL (r1, r3, the draft, its run) and TWO_PODS (r2)
        self.assertEqual(keys_in("scenarios_revision") | keys_in("scenarios_run") | keys_in("scenarios_draft"),
                         {texts.key_of(SMALL), texts.key_of(TWO_PODS)})
        stored = Text.objects.get(key=texts.key_of(TWO_PODS))
        self.assertEqual((zlib.decompress(bytes(stored.data)).decode(), stored.size), (TWO_PODS, len(TWO_PODS)))
        texts.forget()  # read back from the database, not from this process's copies
        self.assertEqual(Revision.objects.get(scenario=self.scenario, number=2).manifests, TWO_PODS)
        self.assertEqual(Run.objects.get(pk=run.pk).manifests, SMALL)
        self.assertEqual(Draft.objects.get().manifests, SMALL)
        self.assertEqual(Run.objects.filter(pk=run.pk).values_list("manifests", flat=True)[0], SMALL)

    def test_a_large_quick_edit_stores_its_text_compressed_beside_the_engines_check_as_it_would_alone(self):
        """A large draft's quick edit starts compressing its new text while the engine checks it; what is stored
        is the same bytes as compressing it then, and a text the engine rejects is not kept waiting for ever."""
        from unittest import mock

        from webapp.scenarios.manifests import edits

        big = SMALL + "\n".join(f"# padding line {i} " + "x" * 60 for i in range(20_000)) + "\n"
        scenario = services.create_scenario(team=self.team, name="Large", manifests=big, author=self.owner)
        draft = drafts.get_or_start(scenario, self.owner)
        with mock.patch.object(texts, "zlib", wraps=zlib) as compressing:
            drafts.apply(draft, {"op": "cordon", "node": "node-a"})
        self.assertEqual(compressing.compress.call_count, 1)  # (once, in the thread: put() took its result)
        stored = Text.objects.get(key=texts.key_of(Draft.objects.get(pk=draft.pk).manifests))
        self.assertGreater(len(draft.manifests), texts.PREPARE_MIN_BYTES)
        self.assertEqual(bytes(stored.data), zlib.compress(draft.manifests.encode(), texts.LEVEL))
        self.assertEqual(stored.size, len(draft.manifests.encode()))
        self.assertEqual(len(texts._prepared), 0)
        for n in range(4):  # texts prepared and never stored: the latest PREPARED_MAX are held
            texts.prepare(big + f"# {n}\n")
        self.assertEqual(len(texts._prepared), texts.PREPARED_MAX)

    def test_a_sweeps_cells_store_each_distinct_text_once(self):
        sweep = sweeps.start(self.scenario, self.scenario.head(), {"type": "zones"}, self.owner)
        cells = list(sweep.runs.all())
        distinct = {c.manifests for c in cells}
        self.assertEqual(Text.objects.exclude(key=texts.key_of(SMALL)).count(), len(distinct))
        self.assertEqual(Run.objects.filter(pk=cells[0].pk).update(manifests=cells[-1].manifests), 1)
        self.assertEqual(Text.objects.exclude(key=texts.key_of(SMALL)).count(), len(distinct))

    def test_deleting_a_scenario_leaves_anothers_shared_text_readable(self):
        other = services.create_scenario(team=self.team, name="copy", author=self.owner, manifests=SMALL)
        self.scenario.delete()
        texts.forget()
        self.assertEqual(other.head().manifests, SMALL)


@pytest.mark.django_db(transaction=True)
def test_the_migration_stores_row_texts_once_and_gives_them_back():
    executor = MigrationExecutor(connection)
    executor.migrate([("scenarios", "0011_analyses")])
    old = executor.loader.project_state([("scenarios", "0011_analyses")]).apps
    team = old.get_model("scenarios", "Team").objects.create(name="old")
    scenario = old.get_model("scenarios", "Scenario").objects.create(team=team, name="old")
    for n in (1, 2):
        old.get_model("scenarios", "Revision").objects.create(scenario=scenario, number=n, manifests=SMALL)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    texts.forget()
    assert keys_in("scenarios_revision") == {texts.key_of(SMALL)}
    assert Text.objects.count() == 1
    assert [r.manifests for r in Revision.objects.filter(scenario_id=scenario.pk)] == [SMALL, SMALL]
    executor = MigrationExecutor(connection)
    executor.migrate([("scenarios", "0011_analyses")])  # and back: the texts in the rows again
    assert keys_in("scenarios_revision") == {SMALL}
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


class RolledBackTests(BaseTestCase):
    def test_a_text_stored_in_a_rolled_back_transaction_is_stored_again(self):
        from django.db import transaction

        with self.assertRaises(RuntimeError), transaction.atomic():
            texts.put(TWO_PODS)
            raise RuntimeError("the save failed after the text was stored")
        self.assertFalse(Text.objects.filter(key=texts.key_of(TWO_PODS)).exists())
        services.save_revision(self.scenario, manifests=TWO_PODS, config="", author=self.owner, message="", base=1)
        texts.forget()
        self.assertEqual(self.scenario.head().manifests, TWO_PODS)
