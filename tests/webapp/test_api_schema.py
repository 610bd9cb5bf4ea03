from rest_framework.test import APIClient

from .base import BaseTestCase


class SchemaTestCase(BaseTestCase):
    def test_it_serves_the_openapi_schema(self):
        r = APIClient().get("/api/schema/")
        self.assertEqual(r.status_code, 200)
        self.assertIn(b"/api/scenarios/{id}/runs/", r.content)

    def test_it_serves_swagger_ui_from_local_static_files(self):
        r = APIClient().get("/api/docs/")
        self.assertEqual(r.status_code, 200)
        html = r.content.decode()
        self.assertIn("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js", html)
        self.assertNotIn("cdn.jsdelivr.net", html)

    def test_it_generates_a_valid_schema_without_warnings(self):
        import tempfile

        from django.core.management import call_command

        with tempfile.NamedTemporaryFile(suffix=".yaml") as out:
            # --fail-on-warn: an endpoint the generator cannot describe fails here, not in the docs.
            call_command("spectacular", "--validate", "--fail-on-warn", "--file", out.name)
            self.assertIn(b"/api/scenarios/{id}/revisions/{number}/restore/", open(out.name, "rb").read())


class SchemaContentTestCase(BaseTestCase):
    """What a generated client needs from the schema, beyond what the schemathesis run sends."""

    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        from drf_spectacular.generators import SchemaGenerator

        cls.schema = SchemaGenerator().get_schema(request=None, public=True)

    def operation(self, path, method):
        return self.schema["paths"][path][method]

    def test_it_documents_json_bodies_and_raw_yaml_where_it_is_taken(self):
        bodies = {(path, method): sorted(op["requestBody"]["content"])
                  for path, ops in self.schema["paths"].items() for method, op in ops.items() if "requestBody" in op}
        yaml_bodies = {key for key, types in bodies.items() if "application/yaml" in types}
        self.assertEqual(yaml_bodies, {("/api/scenarios/", "post"), ("/api/scenarios/{id}/revisions/", "post"),
                                       ("/api/scenarios/{id}/draft/", "put"),
                                       ("/api/scenarios/{id}/pods/{namespace}/{name}/updates/", "post")})
        for key, types in bodies.items():
            self.assertEqual(set(types) - {"application/json", "application/merge-patch+json", "application/yaml"},
                             set(), key)
        yaml_body = self.operation("/api/scenarios/", "post")["requestBody"]["content"]["application/yaml"]
        self.assertEqual(yaml_body["schema"], {"type": "string"})
        query = {p["name"] for p in self.operation("/api/scenarios/", "post")["parameters"]}
        self.assertEqual(query, {"team", "name", "message"})

    def test_it_documents_if_match_wherever_a_base_revision_is_taken(self):
        for path in ("/api/scenarios/{id}/revisions/", "/api/scenarios/{id}/revisions/{number}/restore/",
                     "/api/scenarios/{id}/draft/save/", "/api/scenarios/{id}/pods/{namespace}/{name}/updates/"):
            operation = self.operation(path, "post")
            self.assertIn(("If-Match", "header"), [(p["name"], p["in"]) for p in operation["parameters"]], path)
            self.assertIn("409", operation["responses"], path)
            self.assertIn("ETag", operation["responses"]["409"]["headers"], path)

    def test_it_documents_token_and_bearer_authentication(self):
        schemes = self.schema["components"]["securitySchemes"]
        self.assertEqual(schemes["bearerAuth"], {"type": "http", "scheme": "bearer",
                                                 "description": schemes["bearerAuth"]["description"]})
        self.assertIn({"bearerAuth": []}, self.operation("/api/runs/", "get")["security"])

    def test_it_documents_error_statuses_and_headers(self):
        create = self.operation("/api/scenarios/{id}/runs/", "post")["responses"]
        self.assertEqual(sorted(create), ["202", "400", "401", "403", "404", "413", "415", "503"])
        self.assertIn("Location", create["202"]["headers"])
        self.assertIn("Retry-After", create["503"]["headers"])
        self.assertIn("429", self.operation("/api/auth/token/", "post")["responses"])
        self.assertIn("428", self.operation("/api/scenarios/{id}/revisions/", "post")["responses"])
        explanation = self.operation("/api/runs/{run_id}/pods/{namespace}/{name}/", "get")["responses"]
        self.assertEqual(explanation["202"]["content"]["application/json"]["schema"],
                         {"$ref": "#/components/schemas/Explanation"})

    def test_it_types_the_run_results(self):
        def schema_of(path):
            return self.operation(path, "get")["responses"]["200"]["content"]["application/json"]["schema"]

        self.assertEqual(schema_of("/api/runs/{id}/pods/"), {"$ref": "#/components/schemas/RunPods"})
        self.assertEqual(schema_of("/api/runs/{run_id}/topology/"), {"$ref": "#/components/schemas/Topology"})
        self.assertEqual(schema_of("/api/runs/{run_id}/timeline/"), {"$ref": "#/components/schemas/Timeline"})
        self.assertEqual(schema_of("/api/runs/{run_id}/nodes/{name}/"), {"$ref": "#/components/schemas/Node"})
        outcome = self.schema["components"]["schemas"]["PodOutcome"]
        self.assertEqual(outcome["properties"]["node"]["nullable"], True)
        self.assertEqual(self.schema["components"]["schemas"]["PodUpdateAttempt"]["properties"]["run"]["nullable"], True)
        # lists as the server sends them: share links plain, pod updates paginated
        self.assertEqual(schema_of("/api/scenarios/{id}/share-links/")["type"], "array")
        self.assertEqual(schema_of("/api/scenarios/{id}/pod-updates/"),
                         {"$ref": "#/components/schemas/PaginatedPodUpdateAttemptList"})
