"""What pages work out from a large text alone (the quick-edit outline, the engine's verdict) is worked out once
and kept in the database: a process that has never seen the text shows the draft editor without parsing it or
loading it into the engine. (TEXT_FACT_MIN_BYTES is lowered so that the small test cluster counts as large.)"""

from unittest import mock

from django.test import override_settings
from django.urls import reverse

from webapp.scenarios import engine, services, texts
from webapp.scenarios.manifests import documents, edits, summary
from webapp.scenarios.models import TextFact

from .base import SMALL, TWO_PODS, BaseTestCase


def a_new_process():
    """Forget what this process keeps of texts: their copies, and what pages worked out from them."""
    texts.forget()
    with documents._lock:
        documents._memo.clear()
    engine._LOADED.clear()


def nothing_parses_or_loads_a_text():
    return mock.patch.multiple(edits, _outline=mock.Mock(side_effect=AssertionError("the text was parsed"))), \
        mock.patch.object(engine, "load", side_effect=AssertionError("the text was loaded"))


@override_settings(TEXT_FACT_MIN_BYTES=0)
class TextFactsTests(BaseTestCase):
    def test_a_saved_revisions_draft_editor_shows_the_outline_and_verdict_without_reading_the_text_again(self):
        scenario = services.create_scenario(team=self.team, name="Large", manifests=SMALL, author=self.owner)
        a_new_process()
        self.client.force_login(self.owner)
        no_parse, no_load = nothing_parses_or_loads_a_text()
        with no_parse, no_load:
            r = self.client.get(reverse("draft-detail", args=[scenario.pk]))
        page = r.content.decode()
        self.assertEqual(r.status_code, 200)
        self.assertIn("valid: 1 nodes, 1 pods (1 pending, 0 gated)", page)  # the engine's verdict
        self.assertIn('<option value="node-a">node-a (z1)</option>', page)  # a quick-edit choice from the outline

    def test_an_edited_drafts_outline_is_kept_for_the_next_process(self):
        self.client.force_login(self.owner)
        url = reverse("draft-detail", args=[self.scenario.pk])
        r = self.client.post(reverse("draft-edit", args=[self.scenario.pk]), {"op": "cordon", "node": "node-a"},
                             follow=True)  # to the draft editor, which works the edited text's outline out
        self.assertEqual(r.status_code, 200)
        a_new_process()
        no_parse, no_load = nothing_parses_or_loads_a_text()
        with no_parse, no_load:
            page = self.client.get(url).content.decode()
        self.assertIn('<option value="node-a">node-a (z1) cordoned</option>', page)  # the edited text's outline

    def test_a_texts_node_table_is_kept_for_the_next_process(self):
        rows = summary.nodes(TWO_PODS)  # (a draft run's pages show its text's node table)
        a_new_process()
        with mock.patch.object(summary, "_nodes", side_effect=AssertionError("the text was parsed")):
            self.assertEqual(summary.nodes(TWO_PODS), rows)
        self.assertEqual([r["name"] for r in rows], ["node-a"])

    def test_a_fact_is_worked_out_once_per_text_and_name(self):
        compute = mock.Mock(side_effect=lambda text: {"lines": text.count("\n")})
        first = texts.fact(TWO_PODS, "lines v1", compute)
        a_new_process()
        again = texts.fact(TWO_PODS, "lines v1", compute)
        other = texts.fact(TWO_PODS, "lines v2", compute)  # another version of the code: worked out again
        self.assertEqual((first, again, other), ({"lines": TWO_PODS.count("\n")},) * 3)
        self.assertEqual(compute.call_count, 2)
        self.assertEqual(TextFact.objects.filter(key=texts.key_of(TWO_PODS)).count(), 2)


class SmallTextFactsTests(BaseTestCase):
    def test_a_small_texts_facts_are_worked_out_and_not_stored(self):
        compute = mock.Mock(side_effect=lambda text: len(text))
        with override_settings(TEXT_FACT_MIN_BYTES=len(TWO_PODS) + 1):
            self.assertEqual(texts.fact(TWO_PODS, "length", compute), len(TWO_PODS))
        self.assertFalse(TextFact.objects.exists())


class KeyOfTests(BaseTestCase):
    def test_a_held_large_text_and_an_equal_copy_have_the_same_key(self):
        big = "x" * (texts.KNOWN_BY_IDENTITY + 1)
        key = texts.put(big)  # held by this process
        copy = "".join(["x"] * (texts.KNOWN_BY_IDENTITY + 1))
        self.assertIsNot(copy, big)
        self.assertEqual((texts.key_of(big), texts.key_of(copy)), (key, key))
        self.assertNotEqual(texts.key_of(big + "y"), key)
