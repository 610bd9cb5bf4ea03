from webapp.scenarios.models import Revision

from .base import SMALL, TWO_PODS, BaseTestCase


class RevisionCreateTestCase(BaseTestCase):
    def save(self, user=None, **kwargs):
        body = {"manifests": TWO_PODS, "message": "add web-2"}
        headers = kwargs.pop("headers", {})
        body.update(kwargs)
        return self.api(user or self.editor).post(self.url("revisions/"), body, format="json", headers=headers)

    def test_it_adds_revision_n_plus_one_with_if_match(self):
        r = self.save(headers={"If-Match": '"1"'})
        self.assertEqual(r.status_code, 201, r.content)
        self.assertEqual(r.json()["number"], 2)
        self.assertEqual(r["ETag"], '"2"')
        self.scenario.refresh_from_db()
        self.assertEqual(self.scenario.current_revision, 2)
        self.assertEqual(self.scenario.head().manifests, TWO_PODS)
        self.assertEqual(self.scenario.head().author, self.editor)

    def test_it_accepts_the_base_revision_as_a_body_field(self):
        self.assertEqual(self.save(revision=1).status_code, 201)

    def test_it_answers_409_with_the_current_revision_for_a_stale_base(self):
        self.assertEqual(self.save(revision=1).status_code, 201)
        r = self.save(manifests=SMALL + "# mine\n", headers={"If-Match": '"1"'})
        self.assertEqual(r.status_code, 409)
        self.assertEqual(r.json()["current_revision"], 2)
        self.assertIn("detail", r.json())
        # The other save's content is intact and nothing was added.
        self.assertEqual(Revision.objects.filter(scenario=self.scenario).count(), 2)
        self.assertEqual(Revision.objects.get(scenario=self.scenario, number=2).manifests, TWO_PODS)

    def test_it_answers_428_when_no_base_revision_is_given(self):
        r = self.save()
        self.assertEqual(r.status_code, 428)
        self.assertEqual(Revision.objects.filter(scenario=self.scenario).count(), 1)

    def test_it_accepts_a_yaml_body_with_if_match(self):
        r = self.api(self.editor).post(
            self.url("revisions/?message=from+yaml"), data=TWO_PODS, content_type="application/yaml",
            headers={"If-Match": '"1"'},
        )
        self.assertEqual(r.status_code, 201, r.content)
        self.assertEqual(Revision.objects.get(scenario=self.scenario, number=2).manifests, TWO_PODS)
        # a raw body has no room for the message: it comes as a query parameter
        self.assertEqual(r.json()["message"], "from yaml")

    def test_it_refuses_a_viewer(self):
        self.assertEqual(self.save(user=self.viewer, revision=1).status_code, 403)

    def test_it_answers_400_for_a_garbled_if_match(self):
        self.assertEqual(self.save(headers={"If-Match": "soon"}).status_code, 400)


class RevisionReadTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        from webapp.scenarios import services

        services.save_revision(cls.scenario, manifests=TWO_PODS, author=cls.editor, message="add web-2", base=1)

    def test_it_lists_revisions_newest_first(self):
        rows = self.api(self.viewer).get(self.url("revisions/")).json()["results"]
        self.assertEqual([(r["number"], r["author"], r["message"]) for r in rows],
                         [(2, "ed", "add web-2"), (1, "olga", "first")])

    def test_it_reads_an_old_revision(self):
        r = self.api(self.viewer).get(self.url("revisions/1/"))
        self.assertEqual(r.status_code, 200)
        self.assertEqual(r.json()["manifests"], SMALL)
        self.assertEqual(self.api(self.viewer).get(self.url("revisions/9/")).status_code, 404)

    def test_it_shows_what_the_engine_read_of_a_revision(self):
        body = self.api(self.viewer).get(self.url("revisions/1/")).json()
        self.assertEqual(body["load_summary"], {"file": "scenario.yaml", "read": {"Node": 1, "Pod": 1}, "ignored": [],
                                                "added": [], "warnings": []})

    def test_it_diffs_two_revisions(self):
        r = self.api(self.viewer).get(self.url("revisions/2/diff/"))
        self.assertEqual(r.status_code, 200)
        text = r.content.decode()
        self.assertIn("--- r1/scenario.yaml", text)
        self.assertIn("+++ r2/scenario.yaml", text)
        self.assertIn("+  metadata: {name: web-2, namespace: default, labels: {app: web}}", text)

    def test_it_restores_an_old_revision_as_a_new_one(self):
        r = self.api(self.editor).post(self.url("revisions/1/restore/"))
        self.assertEqual(r.status_code, 201, r.content)
        self.assertEqual(r.json()["number"], 3)
        restored = Revision.objects.get(scenario=self.scenario, number=3)
        self.assertEqual(restored.manifests, SMALL)
        self.assertEqual(restored.message, "Restored revision 1")
        # History is kept: revision 2 is still there.
        self.assertEqual(Revision.objects.get(scenario=self.scenario, number=2).manifests, TWO_PODS)

    def test_it_refuses_a_restore_by_a_viewer(self):
        self.assertEqual(self.api(self.viewer).post(self.url("revisions/1/restore/")).status_code, 403)

    def test_it_downloads_the_yaml_as_text_yaml_when_asked(self):
        # clients generated from the schema read text/* bodies as text, application/yaml not at all
        r = self.api(self.viewer).get(self.url("manifests/?revision=1"), headers={"Accept": "text/yaml"})
        self.assertEqual((r.status_code, r["Content-Type"]), (200, "text/yaml; charset=utf-8"))
        self.assertEqual(r.content.decode(), SMALL)
        r = self.api(self.viewer).get(self.url("manifests/"))
        self.assertEqual((r.status_code, r["Content-Type"]), (200, "application/yaml; charset=utf-8"))

    def test_it_downloads_an_old_revision(self):
        r = self.api(self.viewer).get(self.url("manifests/?revision=1"))
        self.assertEqual(r.content.decode(), SMALL)
