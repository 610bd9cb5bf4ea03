"""A manifest text holding a lone surrogate (possible in JSON, as "\\ud800") is refused with DRF's message,
naming the field, wherever the API takes a text; nothing is stored."""

import json

from webapp.scenarios.models import Draft, Revision, Scenario

from .base import SMALL, BaseTestCase

BAD = SMALL + "# a lone surrogate: \ud800\n"
MESSAGE = "Surrogate characters are not allowed: U+D800."


class SurrogateTests(BaseTestCase):
    def test_each_text_field_refuses_a_lone_surrogate_and_stores_nothing(self):
        api = self.api(self.editor)
        pk = self.scenario.pk
        cases = [
            ("create a scenario", "post", "/api/scenarios/", {"team": "platform", "name": "Bad", "manifests": BAD},
             "manifests"),
            ("create a scenario, config", "post", "/api/scenarios/",
             {"team": "platform", "name": "Bad", "manifests": SMALL, "config": "# \ud800"}, "config"),
            ("save a revision", "post", f"/api/scenarios/{pk}/revisions/", {"manifests": BAD}, "manifests"),
            ("store the draft's text", "put", f"/api/scenarios/{pk}/draft/", {"manifests": BAD}, "manifests"),
        ]
        before = (Scenario.objects.count(), Revision.objects.count())
        for name, method, url, body, field in cases:
            with self.subTest(name):
                # (json.dumps writes the surrogate as the escape "\ud800", as a client would send it)
                r = getattr(api, method)(url, json.dumps(body), content_type="application/json", HTTP_IF_MATCH='"1"')
                self.assertEqual(r.status_code, 400, r.content)
                self.assertIn(MESSAGE, str(r.json()))
                self.assertIn(field, str(r.json()))
        self.assertEqual(before, (Scenario.objects.count(), Revision.objects.count()))
        # (the draft PUT started the editor's draft, from the current revision: its text is that one's)
        self.assertEqual([d.manifests for d in Draft.objects.all()], [self.scenario.head().manifests])

    def test_a_text_with_other_non_ascii_characters_is_taken(self):
        text = SMALL + "# ünïcode — ✓ 🚀\n"
        r = self.api(self.editor).post("/api/scenarios/", {"team": "platform", "name": "Fine", "manifests": text},
                                       format="json")
        self.assertEqual(r.status_code, 201, r.content)
        self.assertEqual(Scenario.objects.get(name="Fine").head().manifests, text)
