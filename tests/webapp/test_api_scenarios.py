from webapp.scenarios.models import Revision, Scenario

from .base import BAD_SKEW, SMALL, TWO_PODS, BaseTestCase
from .dumps import LOAD_SUMMARY, PODS_ONLY, TYPED_LISTS


class ScenarioListTestCase(BaseTestCase):
    def test_it_lists_only_my_teams_scenarios(self):
        Scenario.objects.create(team=self.other_team, name="Secret", current_revision=0)
        names = [s["name"] for s in self.api(self.viewer).get("/api/scenarios/").json()["results"]]
        self.assertEqual(names, ["Small cluster"])
        outsider = [s["name"] for s in self.api(self.outsider).get("/api/scenarios/").json()["results"]]
        self.assertEqual(outsider, ["Secret"])

    def test_it_filters_by_team_and_searches_by_name(self):
        api = self.api(self.viewer)
        self.assertEqual(api.get("/api/scenarios/?team=platform").json()["count"], 1)
        self.assertEqual(api.get(f"/api/scenarios/?team={self.team.pk}").json()["count"], 1)
        self.assertEqual(api.get("/api/scenarios/?team=elsewhere").json()["count"], 0)
        self.assertEqual(api.get("/api/scenarios/?search=SMALL").json()["count"], 1)
        self.assertEqual(api.get("/api/scenarios/?search=zzz").json()["count"], 0)

    def test_it_requires_authentication(self):
        from rest_framework.test import APIClient

        self.assertEqual(APIClient().get("/api/scenarios/").status_code, 401)


class ScenarioCreateTestCase(BaseTestCase):
    def test_it_creates_a_scenario_from_json(self):
        r = self.api(self.editor).post(
            "/api/scenarios/", {"team": "platform", "name": "New", "manifests": SMALL, "message": "hello"},
            format="json",
        )
        self.assertEqual(r.status_code, 201, r.content)
        body = r.json()
        self.assertEqual(body["current_revision"], 1)
        self.assertEqual(body["manifests"], SMALL)
        self.assertEqual(r["Location"], f"http://testserver/api/scenarios/{body['id']}/")
        revision = Revision.objects.get(scenario_id=body["id"])
        self.assertEqual((revision.number, revision.author, revision.message), (1, self.editor, "hello"))

    def test_it_creates_a_scenario_from_a_yaml_body(self):
        r = self.api(self.editor).post(
            f"/api/scenarios/?team={self.team.pk}&name=From+YAML", data=SMALL, content_type="application/yaml"
        )
        self.assertEqual(r.status_code, 201, r.content)
        scenario = Scenario.objects.get(name="From YAML")
        # The text is stored as sent, comments and layout included.
        self.assertEqual(scenario.head().manifests, SMALL)

    def test_it_answers_with_what_the_engine_read_and_ignored(self):
        r = self.api(self.editor).post("/api/scenarios/", {"team": "platform", "name": "Dump", "manifests": TYPED_LISTS},
                                       format="json")
        self.assertEqual(r.status_code, 201, r.content)
        self.assertEqual(r.json()["load_summary"], LOAD_SUMMARY)
        again = self.api(self.viewer).get(f"/api/scenarios/{r.json()['id']}/").json()
        self.assertEqual(again["load_summary"], LOAD_SUMMARY)

    def test_it_reads_a_yaml_body_sent_with_a_byte_order_mark(self):
        r = self.api(self.editor).post("/api/scenarios/?team=platform&name=Bom", SMALL.encode("utf-16"),
                                       content_type="application/yaml")
        self.assertEqual(r.status_code, 201, r.content)
        self.assertEqual(r.json()["load_summary"]["read"], {"Node": 1, "Pod": 1})

    def test_it_answers_400_for_a_dump_of_pods_without_nodes(self):
        r = self.api(self.editor).post("/api/scenarios/", {"team": "platform", "name": "Pods", "manifests": PODS_ONLY},
                                       format="json")
        self.assertEqual(r.status_code, 400)
        self.assertEqual(r.json(), {"manifests": [
            "scenario.yaml: the file has 1 pod(s) bound to nodes (node-1) but no Node objects: add the nodes "
            "(kubectl get nodes -o yaml) to simulate"]})

    def test_it_answers_400_for_yaml_that_does_not_parse(self):
        r = self.api(self.editor).post(
            "/api/scenarios/?team=platform&name=x", data="items: [unclosed", content_type="application/yaml"
        )
        self.assertEqual(r.status_code, 400)
        self.assertIn("detail", r.json())

    def test_it_answers_400_naming_the_object_and_field_of_invalid_manifests(self):
        r = self.api(self.editor).post(
            "/api/scenarios/", {"team": "platform", "name": "Bad", "manifests": BAD_SKEW}, format="json"
        )
        self.assertEqual(r.status_code, 400, r.content)
        message = r.json()["manifests"][0]
        self.assertIn("Pod default/web-1", message)
        self.assertIn("spec.topologySpreadConstraints[0].maxSkew", message)
        self.assertFalse(Scenario.objects.filter(name="Bad").exists())

    def test_it_answers_400_with_the_apiservers_words_for_an_invalid_affinity_label_value(self):
        manifests = ("apiVersion: v1\nkind: Pod\nmetadata: {name: web-1}\nspec:\n  containers: [{name: c}]\n"
                     "  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
                     "      - topologyKey: zone\n        labelSelector: {matchLabels: {app: 'a b'}}\n")
        r = self.api(self.editor).post(
            "/api/scenarios/", {"team": "platform", "name": "BadLabel", "manifests": manifests}, format="json"
        )
        self.assertEqual(r.status_code, 400, r.content)
        message = r.json()["manifests"][0]
        self.assertIn("Pod default/web-1: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                      "[0].labelSelector.matchLabels: Invalid value: \"a b\": a valid label must be an empty "
                      "string or consist of alphanumeric characters", message)
        self.assertFalse(Scenario.objects.filter(name="BadLabel").exists())

    def test_it_answers_400_on_the_config_field_for_a_bad_scheduler_configuration(self):
        config = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n" \
                 "- pluginConfig:\n  - name: PodTopologySpread\n    args: {defaultingType: Bogus}\n"
        r = self.api(self.editor).post(
            "/api/scenarios/", {"team": "platform", "name": "Bad", "manifests": SMALL, "config": config}, format="json"
        )
        self.assertEqual(r.status_code, 400, r.content)
        self.assertIn("defaultingType", r.json()["config"][0])

    def test_it_refuses_a_viewer(self):
        r = self.api(self.viewer).post(
            "/api/scenarios/", {"team": "platform", "name": "New", "manifests": SMALL}, format="json"
        )
        self.assertEqual(r.status_code, 400)
        self.assertIn("team", r.json())

    def test_it_refuses_a_team_i_am_not_in(self):
        r = self.api(self.outsider).post(
            "/api/scenarios/", {"team": "platform", "name": "New", "manifests": SMALL}, format="json"
        )
        self.assertEqual(r.status_code, 400)
        self.assertFalse(Scenario.objects.filter(name="New").exists())

    def test_it_reports_missing_fields(self):
        r = self.api(self.editor).post("/api/scenarios/", {"team": "platform"}, format="json")
        self.assertEqual(r.status_code, 400)
        self.assertEqual(set(r.json()), {"name", "manifests"})


class ScenarioDetailTestCase(BaseTestCase):
    def test_it_shows_the_current_manifests_with_an_etag(self):
        r = self.api(self.viewer).get(self.url())
        self.assertEqual(r.status_code, 200)
        self.assertEqual(r.json()["manifests"], SMALL)
        self.assertEqual(r.json()["role"], "viewer")
        self.assertEqual(r["ETag"], '"1"')

    def test_it_hides_the_scenario_from_non_members(self):
        self.assertEqual(self.api(self.outsider).get(self.url()).status_code, 404)
        self.assertEqual(self.api(self.outsider).patch(self.url(), {"name": "x"}, format="json").status_code, 404)

    def test_it_renames_for_an_editor(self):
        r = self.api(self.editor).patch(self.url(), {"name": "Renamed"}, format="json")
        self.assertEqual(r.status_code, 200)
        self.scenario.refresh_from_db()
        self.assertEqual(self.scenario.name, "Renamed")
        # A rename is not a content change.
        self.assertEqual(self.scenario.current_revision, 1)

    def test_it_refuses_a_rename_by_a_viewer(self):
        self.assertEqual(self.api(self.viewer).patch(self.url(), {"name": "x"}, format="json").status_code, 403)

    def test_it_soft_deletes_for_an_owner_only(self):
        self.assertEqual(self.api(self.editor).delete(self.url()).status_code, 403)
        self.assertEqual(self.api(self.owner).delete(self.url()).status_code, 204)
        self.assertEqual(self.api(self.owner).get(self.url()).status_code, 404)
        # Nothing is lost: the row and its revisions are still there.
        self.assertTrue(Scenario.objects.get(pk=self.scenario.pk).is_deleted)
        self.assertEqual(Revision.objects.filter(scenario=self.scenario).count(), 1)

    def test_it_downloads_the_manifests_as_yaml(self):
        r = self.api(self.viewer).get(self.url("manifests/"))
        self.assertEqual(r.status_code, 200)
        self.assertTrue(r["Content-Type"].startswith("application/yaml"))
        self.assertIn('filename="small-cluster-r1.yaml"', r["Content-Disposition"])
        self.assertEqual(r.content.decode(), SMALL)


class ScenarioLimitTests(BaseTestCase):
    """The API refuses a cluster over the configured node or pod limits, as the pages do, naming the limit."""

    def test_create_and_save_over_the_limits_are_400_naming_the_limit_and_store_nothing(self):
        from django.test import override_settings

        with override_settings(SCENARIO_MAX_PODS=1):
            r = self.api(self.editor).post("/api/scenarios/", {"team": self.team.name, "name": "big",
                                                               "manifests": TWO_PODS}, format="json")
            self.assertEqual(r.status_code, 400)
            self.assertIn("the scenario has 2 pods; the limit is 1 (SCENARIO_MAX_PODS)", r.json()["manifests"][0])
            self.assertFalse(Scenario.objects.filter(name="big").exists())
        with override_settings(SCENARIO_MAX_NODES=0):
            r = self.api(self.editor).post(self.url("revisions/"), {"manifests": TWO_PODS, "revision": 1},
                                           format="json")
            self.assertEqual(r.status_code, 400)
            self.assertIn("the limit is 0 (SCENARIO_MAX_NODES)", r.json()["manifests"][0])
        self.assertEqual(Revision.objects.filter(scenario=self.scenario).count(), 1)
