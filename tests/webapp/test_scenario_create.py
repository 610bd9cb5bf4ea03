from django.core.files.uploadedfile import SimpleUploadedFile

from webapp.scenarios.models import Scenario

from .base import BAD_SKEW, SMALL, BaseTestCase
from .dumps import TYPED_LISTS


class ScenarioCreateTestCase(BaseTestCase):
    def test_it_creates_a_scenario_from_pasted_yaml(self):
        self.client.force_login(self.editor)
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Pasted", "manifests": SMALL})
        scenario = Scenario.objects.get(name="Pasted")
        self.assertRedirects(r, f"/scenarios/{scenario.pk}/")
        self.assertEqual(scenario.head().manifests, SMALL)
        self.assertEqual(scenario.head().author, self.editor)

    def test_it_creates_a_scenario_from_an_uploaded_file(self):
        self.client.force_login(self.editor)
        upload = SimpleUploadedFile("cluster.yaml", SMALL.encode(), content_type="application/yaml")
        self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Uploaded", "upload": upload})
        self.assertEqual(Scenario.objects.get(name="Uploaded").head().manifests, SMALL)

    def test_it_reads_an_upload_with_a_byte_order_mark_as_kubectl_does(self):
        self.client.force_login(self.editor)
        for name, data in (("utf16.yaml", SMALL.replace("\n", "\r\n").encode("utf-16")),  # Windows PowerShell
                           ("bom.json", b"\xef\xbb\xbf" + TYPED_LISTS.encode())):
            upload = SimpleUploadedFile(name, data, content_type="application/octet-stream")
            r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": name, "upload": upload})
            self.assertEqual(r.status_code, 302, r.content.decode()[:2000])
        self.assertEqual(Scenario.objects.get(name="utf16.yaml").head().manifests, SMALL)
        self.assertTrue(Scenario.objects.get(name="bom.json").head().manifests.startswith('{"kind": "NodeList"'))

    def test_it_shows_what_the_engine_read_and_ignored_of_a_dump(self):
        self.client.force_login(self.editor)
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Dump", "manifests": TYPED_LISTS},
                             follow=True)
        self.assertTemplateUsed(r, "front/_load_summary.html")
        self.assertContains(r, "Read: 1 Node · 2 Pod")
        self.assertContains(r, "Ignored: 84 Event")
        self.assertContains(r, "<td>Event</td><td>84</td><td>kind not read by the scheduler</td>", html=False)
        # one line for the 84 Events, not 84
        self.assertContains(r, "Event: 84 objects ignored (shop/e0, shop/e1, shop/e2 and 81 more)", count=2)
        self.assertContains(r, "node-a")  # the typed list's node is in the node table

    def test_it_shows_yaml_errors_on_the_field(self):
        self.client.force_login(self.editor)
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Bad", "manifests": "a: [b"})
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "scenario.yaml:")
        self.assertFalse(Scenario.objects.filter(name="Bad").exists())

    def test_it_shows_the_engines_object_and_field(self):
        self.client.force_login(self.editor)
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Bad", "manifests": BAD_SKEW})
        self.assertContains(r, "spec.topologySpreadConstraints[0].maxSkew")
        self.assertFalse(Scenario.objects.filter(name="Bad").exists())

    def test_it_passes_on_the_engines_warnings(self):
        self.client.force_login(self.editor)
        manifests = SMALL + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n"
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Warned", "manifests": manifests},
                             follow=True)
        self.assertContains(r, "Engine warning:")
        self.assertContains(r, "ConfigMap")

    def test_it_offers_only_teams_where_i_can_edit(self):
        self.client.force_login(self.viewer)
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Nope", "manifests": SMALL})
        self.assertContains(r, "not an editor in any team")
        self.assertFalse(Scenario.objects.filter(name="Nope").exists())

    def test_a_refused_upload_keeps_its_text_in_the_editor_and_the_error_names_the_file_and_line(self):
        self.client.force_login(self.editor)
        broken = SMALL + "  bad: [unclosed\n"
        upload = SimpleUploadedFile("prod-dump.yaml", broken.encode(), content_type="application/yaml")
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Refused", "upload": upload})
        self.assertEqual(r.status_code, 200)
        page = r.content.decode()
        self.assertIn("prod-dump.yaml", page)
        self.assertRegex(page, r"prod-dump\.yaml:? .*line \d+")
        self.assertNotIn("scenario.yaml", page.split('id="id_manifests"')[0].split("<main")[-1])
        textarea = page[page.index('id="id_manifests"'):]
        self.assertIn("bad: [unclosed", textarea[:textarea.index("</textarea>")])
        self.assertFalse(Scenario.objects.filter(name="Refused").exists())

    def test_a_refused_object_in_an_upload_is_named_with_the_file(self):
        self.client.force_login(self.editor)
        upload = SimpleUploadedFile("team-a.yaml", BAD_SKEW.encode(), content_type="application/yaml")
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Refused", "upload": upload})
        self.assertContains(r, "team-a.yaml: ")
        self.assertContains(r, "maxSkew")

    def test_after_an_import_a_message_says_what_was_read_from_which_file(self):
        self.client.force_login(self.editor)
        upload = SimpleUploadedFile("cluster.yaml", SMALL.encode(), content_type="application/yaml")
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Read", "upload": upload}, follow=True)
        self.assertContains(r, "Scenario “Read” created from cluster.yaml: read 1 Node, 1 Pod.")
