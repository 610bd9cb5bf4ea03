"""Gzip-compressed uploads (a body with Content-Encoding: gzip, a .gz file), held to the size limits
once expanded, and the node and pod limits: all read from the environment."""

import gzip
import json
import os
import subprocess
import sys

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from webapp.scenarios.models import Scenario

from .base import SMALL, BaseTestCase
from .conftest import ROOT

# ten million spaces compress to about 10 kB: a small upload that expands far past a 1 MB limit
BOMB = gzip.compress(b"# " + b" " * 10_000_000)


class GzipApiTests(BaseTestCase):
    def post(self, body, content_type, path="/api/scenarios/"):
        return self.api(self.editor).generic("POST", path, gzip.compress(body), content_type=content_type,
                                             HTTP_CONTENT_ENCODING="gzip")

    def test_it_creates_a_scenario_from_a_gzip_compressed_json_body(self):
        body = json.dumps({"team": self.team.name, "name": "Zipped", "manifests": SMALL}).encode()
        r = self.post(body, "application/json")
        self.assertEqual(r.status_code, 201, r.content)
        self.assertEqual(Scenario.objects.get(name="Zipped").head().manifests, SMALL)

    def test_it_creates_a_scenario_from_a_gzip_compressed_yaml_body(self):
        r = self.post(SMALL.encode(), "application/yaml", f"/api/scenarios/?team={self.team.pk}&name=Zipped")
        self.assertEqual(r.status_code, 201, r.content)
        self.assertEqual(Scenario.objects.get(name="Zipped").head().manifests, SMALL)

    @override_settings(MAX_REQUEST_BYTES=1_000_000)
    def test_it_refuses_a_body_that_expands_past_the_request_limit(self):
        r = self.api(self.editor).generic("POST", "/api/scenarios/", BOMB, content_type="application/yaml",
                                          HTTP_CONTENT_ENCODING="gzip")
        self.assertEqual(r.status_code, 413)
        self.assertEqual(r.json(), {"detail": "The request body expands to more than 1.0 MB when decompressed; "
                                              "the limit is 1.0 MB (MAX_REQUEST_BYTES)."})
        self.assertEqual(Scenario.objects.count(), 1)

    def test_it_refuses_a_body_that_is_not_gzip_or_an_unknown_encoding(self):
        api = self.api(self.editor)
        r = api.generic("POST", "/api/scenarios/", SMALL.encode(), content_type="application/yaml",
                        HTTP_CONTENT_ENCODING="gzip")
        self.assertEqual(r.status_code, 400)
        self.assertTrue(r.json()["detail"].startswith("The request body is not valid gzip data"), r.json())
        r = api.generic("POST", "/api/scenarios/", gzip.compress(SMALL.encode())[:-20],
                        content_type="application/yaml", HTTP_CONTENT_ENCODING="gzip")
        self.assertEqual(r.status_code, 400)
        self.assertIn("ends before the compressed stream does", r.json()["detail"])
        r = api.generic("POST", "/api/scenarios/", SMALL.encode(), content_type="application/yaml",
                        HTTP_CONTENT_ENCODING="br")
        self.assertEqual(r.status_code, 415)
        self.assertEqual(r.json(), {"detail": "Content-Encoding 'br' is not supported; send gzip or no encoding."})


class GzipPageTests(BaseTestCase):
    def setUp(self):
        self.client.force_login(self.editor)

    def upload(self, name, data):
        upload = SimpleUploadedFile(name, data, content_type="application/gzip")
        return self.client.post("/scenarios/new/", {"team": self.team.pk, "name": name, "upload": upload})

    def test_it_creates_a_scenario_from_a_gz_file(self):
        r = self.upload("cluster.yaml.gz", gzip.compress(SMALL.encode()))
        self.assertEqual(r.status_code, 302, r.content.decode()[:2000])
        self.assertEqual(Scenario.objects.get(name="cluster.yaml.gz").head().manifests, SMALL)

    def test_it_knows_gzip_by_its_first_bytes_whatever_the_name(self):
        r = self.upload("cluster.yaml", gzip.compress(SMALL.encode()))
        self.assertEqual(r.status_code, 302, r.content.decode()[:2000])
        self.assertEqual(Scenario.objects.get(name="cluster.yaml").head().manifests, SMALL)

    @override_settings(MANIFEST_MAX_BYTES=1_000_000)
    def test_it_refuses_a_gz_file_that_expands_past_the_manifest_limit_naming_it(self):
        r = self.upload("bomb.yaml.gz", BOMB)
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "bomb.yaml.gz expands to more than 1.0 MB when decompressed; "
                               "the limit is 1.0 MB (MANIFEST_MAX_BYTES).")
        self.assertEqual(Scenario.objects.count(), 1)

    def test_it_names_a_gz_file_that_is_cut_short(self):
        r = self.upload("cut.yaml.gz", gzip.compress(SMALL.encode())[:-20])
        self.assertContains(r, "cut.yaml.gz is not complete gzip data")
        self.assertEqual(Scenario.objects.count(), 1)

    def test_it_reads_a_form_sent_gzip_compressed(self):
        from urllib.parse import urlencode

        body = urlencode({"team": self.team.pk, "name": "Form", "manifests": SMALL}).encode()
        r = self.client.generic("POST", "/scenarios/new/", gzip.compress(body),
                                content_type="application/x-www-form-urlencoded", HTTP_CONTENT_ENCODING="gzip")
        self.assertEqual(r.status_code, 302, r.content.decode()[:2000])
        self.assertEqual(Scenario.objects.get(name="Form").head().manifests, SMALL)


class ScenarioSizeLimitTests(BaseTestCase):
    @override_settings(SCENARIO_MAX_PODS=0)
    def test_it_refuses_more_pods_than_the_limit(self):
        self.client.force_login(self.editor)
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Big", "manifests": SMALL})
        self.assertContains(r, "scenario.yaml: the scenario has 1 pod; the limit is 0 (SCENARIO_MAX_PODS).")
        self.assertEqual(Scenario.objects.count(), 1)

    @override_settings(SCENARIO_MAX_NODES=0)
    def test_it_refuses_more_nodes_than_the_limit_naming_the_uploaded_file(self):
        self.client.force_login(self.editor)
        upload = SimpleUploadedFile("prod.yaml", SMALL.encode())
        r = self.client.post("/scenarios/new/", {"team": self.team.pk, "name": "Big", "upload": upload})
        self.assertContains(r, "prod.yaml: the scenario has 1 node; the limit is 0 (SCENARIO_MAX_NODES).")


def test_the_limits_come_from_the_environment_with_defaults_for_150000_pods():
    show = ("from django.conf import settings as s; print(s.MAX_REQUEST_BYTES, s.MANIFEST_MAX_BYTES, "
            "s.SCENARIO_MAX_NODES, s.SCENARIO_MAX_PODS)")
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAX_REQUEST_BYTES", "MANIFEST_MAX_BYTES", "SCENARIO_MAX_NODES", "SCENARIO_MAX_PODS")}
    cmd = [sys.executable, "manage.py", "shell", "-c", show]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.splitlines()[-1].split() == ["536870912", "402653184", "5000", "150000"], out.stderr
    env.update(MAX_REQUEST_BYTES="2000", MANIFEST_MAX_BYTES="1000", SCENARIO_MAX_NODES="7", SCENARIO_MAX_PODS="None")
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.splitlines()[-1].split() == ["2000", "1000", "7", "None"], out.stderr
