"""The analyses' REST endpoints: start (202 and Location), list, read with progress, cancel (200, then 409),
400 naming the field, and the roles (viewers read, editors start and cancel)."""

from unittest import mock

from webapp.scenarios import tasks
from webapp.scenarios.models import Analysis

from .base import BaseTestCase


@mock.patch("webapp.scenarios.tasks._send")  # the plan and the parts are run here, by hand
class AnalysisApiTests(BaseTestCase):
    def start(self, user, body):
        with self.captureOnCommitCallbacks(execute=True):
            return self.api(user).post(self.url("analyses/"), body, format="json")

    def test_an_editor_starts_one_and_reads_its_answer(self, sent):
        r = self.start(self.editor, {"kind": "zones", "seed": 4})
        self.assertEqual(r.status_code, 202, r.content)
        analysis = Analysis.objects.get()
        self.assertEqual(r["Location"], f"http://testserver/api/analyses/{analysis.pk}/")
        self.assertEqual((r.json()["status"], r.json()["seed"], r.json()["progress"]), ("queued", 4, {"done": 0, "total": 0}))
        with self.captureOnCommitCallbacks(execute=True):
            tasks.plan_analysis.run(analysis.pk)
        for part in analysis.parts.all():
            with self.captureOnCommitCallbacks(execute=True):
                tasks.run_analysis_part.run(part.pk)
        body = self.api(self.viewer).get(r["Location"]).json()
        self.assertEqual((body["status"], body["progress"]), ("succeeded", {"done": 1, "total": 1}))
        self.assertEqual(body["answer"]["sentence"], "survives losing z1")  # web-1 was pending before: not the loss's doing
        listed = self.api(self.viewer).get(self.url("analyses/")).json()
        self.assertEqual([a["id"] for a in listed["results"]], [analysis.pk])

    def test_cancel_stops_it_once(self, sent):
        r = self.start(self.editor, {"kind": "tuning"})
        url = r["Location"] + "cancel/"
        self.assertEqual(self.api(self.viewer).post(url).status_code, 403)
        cancelled = self.api(self.editor).post(url)
        self.assertEqual((cancelled.status_code, cancelled.json()["status"]), (200, "cancelled"))
        self.assertEqual(self.api(self.editor).post(url).status_code, 409)
        tasks.plan_analysis.run(Analysis.objects.get().pk)  # a worker that picks it up after: nothing to do
        self.assertEqual(Analysis.objects.get().parts.count(), 0)

    def test_bad_input_is_a_400_naming_the_field_and_stores_nothing(self, sent):
        for body, field in (({"kind": "weather"}, "kind"), ({"kind": "zones", "seed": -1}, "seed"),
                            ({"kind": "drain", "spec": ["n1"]}, "spec")):
            r = self.start(self.editor, body)
            self.assertEqual((r.status_code, r.json()["field"]), (400, field), body)
        self.assertEqual(Analysis.objects.count(), 0)

    def test_a_viewer_cannot_start_one_and_outsiders_see_none(self, sent):
        self.assertEqual(self.start(self.viewer, {"kind": "zones"}).status_code, 403)
        self.start(self.editor, {"kind": "zones"})
        analysis = Analysis.objects.get()
        self.assertEqual(self.api(self.outsider).get(f"/api/analyses/{analysis.pk}/").status_code, 404)
