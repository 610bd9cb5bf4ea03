"""Manifests larger than a page shows whole (EDITOR_MAX_BYTES, lowered here so SMALL-sized scenarios cross it):
pages show their first lines and a download link, the scenario is changed by uploading a file or by quick edits."""

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from webapp.scenarios import services
from webapp.scenarios.manifests import limits
from webapp.scenarios.models import Draft, Revision

from .base import SMALL, TWO_PODS, BaseTestCase

# SMALL with 300 comment lines at the end: far more than the first lines a page shows
LONG = SMALL + "".join(f"# filler line {i}\n" for i in range(300))


@override_settings(EDITOR_MAX_BYTES=1000)
class LargeManifestsPagesTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.big = services.create_scenario(team=cls.team, name="Big cluster", manifests=LONG, author=cls.owner)

    def page(self, user, url):
        self.client.force_login(user)
        r = self.client.get(url)
        self.assertEqual(r.status_code, 200)
        return r.content.decode()

    def test_the_scenario_page_shows_the_first_lines_a_download_link_and_an_upload_field(self):
        page = self.page(self.editor, f"/scenarios/{self.big.pk}/")
        self.assertNotIn('name="manifests"', page)
        self.assertIn("These manifests are", page)
        self.assertIn("EDITOR_MAX_BYTES", page)
        self.assertIn(f'href="/api/scenarios/{self.big.pk}/manifests/"', page)
        self.assertIn("# filler line 10\n", page)
        self.assertNotIn("# filler line 250\n", page)  # past the first lines
        self.assertIn('type="file" name="upload"', page)
        self.assertIn('enctype="multipart/form-data"', page)

    def test_a_small_scenario_is_shown_whole(self):
        page = self.page(self.editor, f"/scenarios/{self.scenario.pk}/")
        self.assertIn("kind: List", page)
        self.assertNotIn("These manifests are", page)

    def test_uploading_a_file_saves_the_next_revision(self):
        self.client.force_login(self.editor)
        upload = SimpleUploadedFile("cluster.yaml", TWO_PODS.replace("\n", "\r\n").encode(), "application/yaml")
        r = self.client.post(f"/scenarios/{self.big.pk}/save/",
                             {"upload": upload, "base_revision": 1, "config": "", "message": "from a file"})
        self.assertRedirects(r, f"/scenarios/{self.big.pk}/")
        revision = Revision.objects.get(scenario=self.big, number=2)
        self.assertEqual((revision.manifests, revision.message), (TWO_PODS, "from a file"))

    def test_saving_without_a_file_says_so_and_keeps_the_revisions(self):
        self.client.force_login(self.editor)
        r = self.client.post(f"/scenarios/{self.big.pk}/save/", {"base_revision": 1, "config": ""})
        self.assertContains(r, "Paste the manifests or upload a file.")
        self.assertFalse(Revision.objects.filter(scenario=self.big, number=2).exists())

    def test_an_upload_the_engine_refuses_names_the_object_and_saves_nothing(self):
        self.client.force_login(self.editor)
        upload = SimpleUploadedFile("cluster.yaml", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: 3\n")
        r = self.client.post(f"/scenarios/{self.big.pk}/save/", {"upload": upload, "base_revision": 1})
        self.assertContains(r, "Pod default/p")
        self.assertFalse(Revision.objects.filter(scenario=self.big, number=2).exists())

    def test_a_viewer_and_a_revision_page_show_the_first_lines(self):
        for url in (f"/scenarios/{self.big.pk}/", f"/scenarios/{self.big.pk}/revisions/1/"):
            with self.subTest(url=url):
                page = self.page(self.viewer, url)
                self.assertIn("These manifests are", page)
                self.assertIn("# filler line 10\n", page)
                self.assertNotIn("# filler line 250\n", page)
        page = self.page(self.viewer, f"/scenarios/{self.big.pk}/revisions/1/")
        self.assertIn(f'href="/api/scenarios/{self.big.pk}/manifests/?revision=1"', page)

    def test_the_draft_page_has_quick_edits_but_no_text_box_and_keeps_the_text(self):
        page = self.page(self.editor, f"/scenarios/{self.big.pk}/draft/")
        self.assertNotIn('id="id_draft_manifests"', page)
        self.assertIn("These manifests are", page)
        base = f"/scenarios/{self.big.pk}/draft/"
        r = self.client.post(base + "edit/", {"op": "cordon", "node": "node-a"}, HTTP_HX_REQUEST="true")
        self.assertContains(r, "Applied: Cordoned node-a.")
        self.assertIn("unschedulable: true", Draft.objects.get(scenario=self.big).manifests)
        # the editor form without a manifests box stores the configuration and keeps the text
        self.client.post(base, {"config": ""})
        self.assertIn("unschedulable: true", Draft.objects.get(scenario=self.big).manifests)


class InBrowserTests(BaseTestCase):
    def test_the_limit_counts_bytes_and_the_preview_is_the_first_lines(self):
        with override_settings(EDITOR_MAX_BYTES=10):
            self.assertTrue(limits.in_browser("ééééé")["editable"])  # 10 bytes
            shown = limits.in_browser("éééééé")
            self.assertEqual((shown["editable"], shown["size"]), (False, "12 bytes"))
        with override_settings(EDITOR_MAX_BYTES=100):
            shown = limits.in_browser(LONG)
            self.assertFalse(shown["editable"])
            self.assertEqual(shown["head"], "\n".join(LONG.split("\n")[:limits.PREVIEW_LINES]))
            self.assertTrue(shown["truncated"])


class QuickEditsOnLongListsTests(BaseTestCase):
    """Past QUICK_LIST_MAX pods or nodes (lowered here), the quick-edit forms take a typed name."""

    def test_the_forms_take_typed_names_and_the_edit_applies(self):
        from unittest import mock

        from webapp.scenarios.manifests import edits

        text = TWO_PODS + "# a text of its own: the outline is remembered per text\n"
        scenario = services.create_scenario(team=self.team, name="long lists", manifests=text, author=self.owner)
        self.client.force_login(self.editor)
        base = f"/scenarios/{scenario.pk}/draft/"
        with mock.patch.object(edits, "QUICK_LIST_MAX", 0):
            page = self.client.get(base).content.decode()
        self.assertIn('<input type="text" name="target" id="q-prio-target" required list="q-workload-refs"', page)
        self.assertIn('<input type="text" name="node" id="q-node" required', page)
        self.assertIn("2 pods: type one as Pod/namespace/name", page)
        self.assertNotIn('<select name="node" id="q-node">', page)
        r = self.client.post(base + "edit/", {"op": "cordon", "node": "node-a"}, HTTP_HX_REQUEST="true")
        self.assertContains(r, "Applied: Cordoned node-a.")
        r = self.client.post(base + "edit/", {"op": "add_gate", "target": "Pod/default/web-2", "name": "hold"},
                             HTTP_HX_REQUEST="true")
        self.assertContains(r, "Applied: Gate hold added to Pod/default/web-2.")
        self.assertIn("name: hold", Draft.objects.get(scenario=scenario).manifests)

    def test_short_lists_stay_menus(self):
        self.client.force_login(self.editor)
        page = self.client.get(f"/scenarios/{self.scenario.pk}/draft/").content.decode()
        self.assertIn('<select name="node" id="q-node">', page)
        self.assertIn('<select name="target" id="q-prio-target">', page)
