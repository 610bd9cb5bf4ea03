"""A page that shows a large manifests text by its head and size (over EDITOR_MAX_BYTES) reads them from the stored
text without decompressing all of it, and shows exactly what the whole text would give."""

import re
import zlib
from unittest import mock

from django.test.utils import override_settings

from webapp.scenarios import services, texts
from webapp.scenarios.manifests import limits
from webapp.scenarios.models import Revision

from .base import SMALL, BaseTestCase

LONG_LINE = "# " + "x" * 70_000 + "\n"  # (one line over PREVIEW_CHARS)
ACCENTED = "# déploiement ünïcode ✓\n"


@override_settings(EDITOR_MAX_BYTES=1000)
class TextPreviewTests(BaseTestCase):
    def revision(self, text):
        scenario = services.create_scenario(team=self.team, name="big", manifests=text, author=self.owner,
                                            message="m")
        return scenario, Revision.objects.defer("manifests").get(pk=scenario.head().pk)

    def test_the_head_and_size_equal_the_whole_texts(self):
        for label, text in [("many short lines", "# comment\n" * 500 + SMALL),
                            ("a line over the preview", LONG_LINE + SMALL),
                            ("non-ASCII, counted in bytes", ACCENTED * 60 + SMALL),
                            ("small: shown whole", SMALL)]:
            for held in (False, True):
                with self.subTest(label, held=held):
                    _, revision = self.revision(text)
                    if not held:
                        texts.forget()
                    self.assertEqual(limits.in_browser_stored(revision, "manifests"), limits.in_browser(text))

    def test_the_scenario_page_shows_a_large_text_without_decompressing_it_whole(self):
        scenario, _ = self.revision("# comment\n" * 500 + SMALL)
        texts.forget()
        self.client.force_login(self.viewer)
        whole = mock.Mock(wraps=zlib)  # (texts' zlib: a whole decompression fails the test)
        whole.decompress.side_effect = AssertionError("decompressed whole")
        with mock.patch.object(texts, "zlib", whole):
            page = self.client.get(f"/scenarios/{scenario.pk}/")
            gated = self.client.get(f"/scenarios/{scenario.pk}/pods/")
        self.assertContains(page, "# comment")
        self.assertContains(page, "download YAML")
        self.assertEqual(gated.status_code, 200)

    def test_the_head_is_read_when_a_page_asks_for_its_text(self):
        scenario, _ = self.revision("# comment\n" * 500 + SMALL)
        texts.forget()
        head = scenario.head()
        self.assertIn("manifests", head.get_deferred_fields())
        self.assertEqual(head.manifests, "# comment\n" * 500 + SMALL)

    @override_settings(TEXT_FACT_MIN_BYTES=0)  # (every text's verdict and outline are kept in the database)
    def test_the_draft_page_of_a_large_text_shows_what_is_kept_of_it_without_decompressing_it(self):
        scenario, _ = self.revision("# comment\n" * 500 + SMALL)
        url = f"/scenarios/{scenario.pk}/draft/"
        self.client.force_login(self.editor)
        first = self.client.get(url)  # (works the verdict and the outline out, and keeps them)
        self.assertContains(first, "# comment")
        texts.forget()
        whole = mock.Mock(wraps=zlib)
        whole.decompress.side_effect = AssertionError("decompressed whole")
        with mock.patch.object(texts, "zlib", whole), \
                mock.patch("webapp.scenarios.manifests.documents.memo", side_effect=AssertionError("parsed")):
            again = self.client.get(url)
        self.assertEqual(*(re.sub(rb"\b[A-Za-z0-9]{64}\b", b"token", page.content) for page in (first, again)))
