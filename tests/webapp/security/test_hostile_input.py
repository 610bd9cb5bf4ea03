"""Hostile input through the API and pages: never a 500, errors name the object and field, limits hold.

Property tests (hypothesis) throw generated bodies at every API write and generated
manifests at the engine's loader through the API.
"""

import contextlib
import copy
import json
import os
import re
import resource
import select
import signal
import subprocess
import sys

import pytest
import yaml
from django.conf import settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase as HypothesisTestCase

from webapp.scenarios.models import Revision, Scenario

from ..base import SMALL, BaseTestCase
from ..conftest import ROOT

# Bounded so the package stays fast: 15 bodies × 18 endpoint calls; 60 manifests through the loader.
EXAMPLES = hsettings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
MANY = hsettings(EXAMPLES, max_examples=60)
TRACEBACK = re.compile(r"Traceback|File \"/|line \d+, in ")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70) | st.floats(allow_nan=False)
    | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
FIELDS = ["team", "name", "manifests", "config", "message", "revision", "seed", "options", "username", "password",
          "op", "pod", "variants", "values", "parameter", "key", "value"]
bodies = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6) | json_values


def assert_no_server_error(test, response, what):
    test.assertLess(response.status_code, 500, f"{what}: {response.status_code} {response.content[:300]!r}")
    test.assertNotRegex(response.content.decode(errors="replace"), TRACEBACK, what)


class GeneratedBodiesTestCase(BaseTestCase, HypothesisTestCase):
    """Every API write with generated JSON bodies, as the owner (who may reach the deepest code)."""

    def writes(self):
        pk = self.scenario.pk
        return [
            ("post", "/api/scenarios/"),
            ("patch", f"/api/scenarios/{pk}/"),
            ("put", f"/api/scenarios/{pk}/"),
            ("post", f"/api/scenarios/{pk}/revisions/"),
            ("post", f"/api/scenarios/{pk}/revisions/1/restore/"),
            ("post", f"/api/scenarios/{pk}/runs/"),
            ("post", f"/api/scenarios/{pk}/share-links/"),
            ("put", f"/api/scenarios/{pk}/draft/"),
            ("post", f"/api/scenarios/{pk}/draft/"),
            ("post", f"/api/scenarios/{pk}/draft/edits/"),
            ("post", f"/api/scenarios/{pk}/draft/run/"),
            ("post", f"/api/scenarios/{pk}/draft/save/"),
            ("post", f"/api/scenarios/{pk}/sweeps/"),
            ("post", f"/api/scenarios/{pk}/pods/default/web-1/updates/"),
            ("patch", f"/api/scenarios/{pk}/pods/default/web-1/updates/"),
            ("post", "/api/tokens/"),
            ("post", "/api/auth/token/"),
        ]

    @EXAMPLES
    @given(body=bodies, if_match=st.none() | st.text(max_size=8) | st.integers(-5, 5).map(lambda n: f'"{n}"'))
    def test_it_never_answers_500_to_a_generated_body(self, body, if_match):
        api = self.api(self.owner)
        headers = {"If-Match": if_match} if if_match is not None else {}
        for method, url in self.writes():
            r = getattr(api, method)(url, data=json.dumps(body), content_type="application/json", headers=headers)
            assert_no_server_error(self, r, f"{method.upper()} {url} {body!r}")
            if r.status_code == 400:
                self.assertIsInstance(r.json(), (dict, list), url)
        url = f"/api/scenarios/{self.scenario.pk}/pods/default/web-1/updates/"
        r = api.post(url, data=json.dumps(body), content_type="application/merge-patch+json", headers=headers)
        assert_no_server_error(self, r, f"merge patch {body!r}")

    @EXAMPLES
    @given(junk=st.binary(max_size=300),
           content_type=st.sampled_from(["application/json", "application/yaml", "text/yaml",
                                         "application/merge-patch+json", "multipart/form-data; boundary=x",
                                         "application/x-www-form-urlencoded", "application/octet-stream"]))
    def test_it_refuses_binary_junk_with_a_4xx(self, junk, content_type):
        api = self.api(self.owner)
        for method, url in self.writes():
            r = getattr(api, method)(url, data=junk, content_type=content_type)
            assert_no_server_error(self, r, f"{method.upper()} {url} {content_type} {junk!r}")


def mutate(document, path, value):
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return document


def paths(node, prefix=()):
    """Every (path) to a value in a parsed manifest."""
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            out.extend(paths(value, prefix + (key,)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.extend(paths(value, prefix + (i,)))
    return out


SMALL_DOC = yaml.safe_load(SMALL)
ITEM_PATHS = [p for p in paths(SMALL_DOC) if p[0] == "items" and len(p) > 3 and p[2] not in ("kind", "apiVersion")]
WRONG_VALUES = st.one_of(
    st.integers(-10**6, 10**6), st.text(max_size=20), st.none(), st.booleans(), st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


class GeneratedManifestsTestCase(BaseTestCase, HypothesisTestCase):
    """The manifest loader through the API: a save is stored, or refused naming object and field."""

    @MANY
    @given(path=st.sampled_from(ITEM_PATHS), value=WRONG_VALUES)
    def test_it_names_the_object_and_field_of_a_bad_value(self, path, value):
        document = mutate(copy.deepcopy(SMALL_DOC), path, value)
        manifests = yaml.safe_dump(document, sort_keys=False)
        before = Revision.objects.count()
        r = self.api(self.editor).post(self.url("revisions/"), {"manifests": manifests}, format="json",
                                       headers={"If-Match": f'"{Scenario.objects.get(pk=self.scenario.pk).current_revision}"'})
        assert_no_server_error(self, r, f"{path} = {value!r}")
        if r.status_code == 201:
            self.assertEqual(Revision.objects.count(), before + 1)
            return
        self.assertEqual(r.status_code, 400, r.content)
        self.assertEqual(Revision.objects.count(), before)
        [message] = r.json()["manifests"]
        kind = document["items"][path[1]]["kind"]
        self.assertTrue(message.startswith("scenario.yaml: "), message)
        self.assertIn(kind, message)  # the object…
        field = ".".join(str(p) for p in path[3:4])
        self.assertIn(field, message)  # …and the field, from its top-level key down

    @MANY
    @given(text=st.text(alphabet=st.sampled_from(list("abc:-[]{}&*!|>'\"#%@`\t\n ,?0123456789.")), max_size=120))
    def test_it_refuses_yaml_noise_with_a_message_about_the_file(self, text):
        r = self.api(self.editor).post("/api/scenarios/", {"team": "platform", "name": "noise", "manifests": text},
                                       format="json")
        assert_no_server_error(self, r, repr(text))
        if r.status_code == 400:
            body = r.json()
            if "manifests" in body:
                self.assertTrue(any("scenario.yaml" in m or "blank" in m for m in body["manifests"]), body)


class LimitsTestCase(BaseTestCase):
    def post_manifests(self, manifests, **extra):
        return self.api(self.editor).post(self.url("revisions/"), {"manifests": manifests, **extra}, format="json",
                                          headers={"If-Match": '"1"'})

    def test_it_refuses_a_yaml_alias_bomb(self):
        lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
        lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 12)]
        bomb = SMALL + "    annotations:\n" + "".join(f"      {line}\n" for line in lines)
        r = self.post_manifests(bomb)
        self.assertEqual(r.status_code, 400)
        self.assertRegex(r.json()["manifests"][0],
                         r"^scenario\.yaml: YAML aliases \(\*name\) expand to more than 1,000,000 values \(at line \d+\)")
        r = self.api(self.editor).post("/api/scenarios/", data=bomb, content_type="application/yaml")
        self.assertEqual(r.status_code, 400)
        self.assertIn("aliases", json.dumps(r.json()))
        r = self.api(self.editor).post(f"/api/scenarios/{self.scenario.pk}/pods/default/web-1/updates/",
                                       data="metadata: {name: web-1}\n" + "\n".join(lines), content_type="application/yaml",
                                       headers={"If-Match": '"1"'})
        self.assertEqual(r.status_code, 400)
        self.assertIn("aliases", r.json()["detail"])
        self.assertEqual(Revision.objects.count(), 1)

    def test_it_accepts_ordinary_anchors_and_aliases(self):
        shared = SMALL.replace("labels: {app: web}}", "labels: &web {app: web}}") + """\
- apiVersion: v1
  kind: Pod
  metadata: {name: web-2, namespace: default, labels: *web}
  spec:
    containers:
    - name: web
      image: nginx
      resources: {requests: {cpu: 100m, memory: 64Mi}}
"""
        r = self.post_manifests(shared)
        self.assertEqual(r.status_code, 201, r.content)

    def test_it_refuses_deep_nesting_in_yaml_and_json(self):
        deep_yaml = SMALL + "    annotations: {x: " + "[" * 100_000 + "]" * 100_000 + "}\n"
        r = self.post_manifests(deep_yaml)
        self.assertEqual(r.status_code, 400)
        self.assertRegex(r.json()["manifests"][0], r"^scenario\.yaml: nesting deeper than 50 levels at line 19, column \d+")
        r = self.api(self.editor).post("/api/scenarios/", data=deep_yaml, content_type="application/yaml")
        self.assertEqual(r.status_code, 400)
        deep_json = '{"manifests": "x", "options": ' + "[" * 50_000 + "]" * 50_000 + "}"
        for url in ("/api/scenarios/", self.url("runs/"), self.url("revisions/")):
            r = self.api(self.editor).post(url, data=deep_json, content_type="application/json")
            self.assertEqual(r.status_code, 400, url)
            self.assertIn("nested deeper than 50 levels", r.json()["detail"])
        r = self.api(self.editor).post(self.url("draft/"), {"manifests": deep_yaml}, format="json")
        self.assertLess(r.status_code, 500)
        # The page form too.
        self.client.force_login(self.editor)
        r = self.client.post(f"/scenarios/{self.scenario.pk}/save/", {"manifests": deep_yaml, "revision": 1})
        self.assertLess(r.status_code, 500)
        self.assertContains(r, "nesting deeper than 50 levels", status_code=r.status_code)
        self.assertEqual(Revision.objects.count(), 1)

    def test_it_answers_413_to_a_50_mb_body_naming_the_limit(self):
        body = b'{"manifests": "' + b"x" * (50 * 1024 * 1024) + b'"}'
        r = self.api(self.editor).post("/api/scenarios/", data=body, content_type="application/json")
        self.assertEqual(r.status_code, 413)
        self.assertIn("the limit is 41.9 MB (MAX_REQUEST_BYTES)", r.json()["detail"])
        for header in ("Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy",
                       "Permissions-Policy"):
            self.assertIn(header, r.headers)  # as on every other response
        self.client.force_login(self.editor)
        r = self.client.post("/scenarios/new/", data=body, content_type="application/x-www-form-urlencoded")
        self.assertEqual(r.status_code, 413)
        self.assertIn(b"MAX_REQUEST_BYTES", r.content)
        self.assertEqual(Scenario.objects.count(), 1)

    def test_it_refuses_manifests_over_the_manifest_limit_with_400(self):
        big = SMALL + "# " + "x" * (settings.MANIFEST_MAX_BYTES + 10) + "\n"
        r = self.post_manifests(big)
        self.assertEqual(r.status_code, 400)
        self.assertRegex(r.json()["manifests"][0], r"^scenario\.yaml is 33\.6 MB; the limit is 33\.6 MB")
        self.assertEqual(Revision.objects.count(), 1)

    def test_it_reads_form_bodies_as_one_value_per_field(self):
        # Form-encoded edits and sweeps used to arrive as lists ({"op": ["cordon"]}): a 500, or a wrong error.
        api = self.api(self.editor)
        r = api.post(self.url("draft/edits/"), data="op=cordon&node=node-a",
                     content_type="application/x-www-form-urlencoded")
        self.assertEqual(r.status_code, 200, r.content)
        r = api.post(self.url("draft/edits/"), data="op=", content_type="application/x-www-form-urlencoded")
        self.assertEqual(r.status_code, 400, r.content)
        self.assertIn("unknown edit op", json.dumps(r.json()))
        r = api.post(self.url("sweeps/"), data="type=zones", content_type="application/x-www-form-urlencoded")
        self.assertIn(r.status_code, (201, 202), r.content)

    def test_it_refuses_nul_characters_naming_where_they_are(self):
        # PostgreSQL text and jsonb cannot hold NUL: these were 500s there.
        api = self.api(self.editor)
        pod = f"/api/scenarios/{self.scenario.pk}/pods/default/web-1/updates/"
        r = api.post(pod, data='{"metadata": {"labels": {"a": "x\\u0000y"}}}',
                     content_type="application/merge-patch+json", headers={"If-Match": '"1"'})
        self.assertEqual(r.status_code, 400)
        self.assertIn("metadata.labels.a contains a NUL", r.json()["detail"])
        r = api.post(self.url("runs/"), data='{"options": {"k\\u0000": 1}}', content_type="application/json")
        self.assertEqual(r.status_code, 400)
        self.assertIn("NUL", r.json()["detail"])
        r = api.post(pod, data='metadata: {name: web-1, labels: {a: "x\\0y"}}', content_type="application/yaml",
                     headers={"If-Match": '"1"'})
        self.assertEqual(r.status_code, 400)
        self.assertIn("a NUL character", r.json()["detail"])
        r = self.post_manifests(SMALL.replace("app: web}", 'app: web, note: "a\\0b"}'))
        self.assertEqual(r.status_code, 400)
        self.assertIn("NUL", r.json()["manifests"][0])

    def test_it_stores_unicode_names_and_finds_them(self):
        name = "集群 ☸ Zürich — ünïcödé 🚀"
        r = self.api(self.editor).post("/api/scenarios/", {"team": "platform", "name": name, "manifests": SMALL},
                                       format="json")
        self.assertEqual(r.status_code, 201, r.content)
        self.assertEqual(r.json()["name"], name)
        found = self.api(self.viewer).get("/api/scenarios/", {"search": "zürich"}).json()["results"]
        self.assertEqual([s["name"] for s in found], [name])
        self.client.force_login(self.viewer)
        self.assertContains(self.client.get("/scenarios/"), name)
        self.assertContains(self.client.get(f"/scenarios/{r.json()['id']}/"), name)

    def test_it_refuses_control_characters_in_names(self):
        for name in ("a\x00b", "\ud800"):
            r = self.api(self.editor).post("/api/scenarios/", data=json.dumps(
                {"team": "platform", "name": name, "manifests": SMALL}), content_type="application/json")
            self.assertEqual(r.status_code, 400, (name, r.content))


UNICODE_DIGITS = ["²", "١٢", "𝟙", "٣", "9" * 5000, "99999999999999999999999999999"]


class QueryValuesTestCase(BaseTestCase):
    """Numbers in query strings and form fields: str.isdigit() takes "²", which int() refuses."""

    def setUp(self):
        from webapp.scenarios import tasks
        from webapp.scenarios.models import Run

        self.run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner)
        tasks.execute_run.run(self.run.pk)

    def test_it_answers_4xx_to_unicode_and_huge_digits_in_query_values(self):
        api = self.api(self.editor)
        pk, run = self.scenario.pk, self.run.pk
        self.client.force_login(self.editor)
        for value in UNICODE_DIGITS:
            for url, params in [
                ("/api/scenarios/", {"team": value}),
                (f"/api/scenarios/{pk}/revisions/1/diff/", {"against": value}),
                (f"/api/scenarios/{pk}/manifests/", {"revision": value}),
                (f"/api/runs/{run}/timeline/", {"step": value}),
                (f"/api/runs/{run}/topology/", {"step": value}),
                (f"/api/scenarios/{pk}/compare/", {"a": value, "b": str(run)}),
            ]:
                r = api.get(url, params)
                assert_no_server_error(self, r, f"{url} {params}")
            for url, params in [
                (f"/scenarios/{pk}/revisions/1/", {"against": value}),
                (f"/runs/{run}/timeline/", {"step": value}),
                (f"/runs/{run}/topology/", {"step": value}),
                (f"/scenarios/{pk}/compare/", {"a": value, "b": str(run)}),
                (f"/scenarios/{pk}/compare/", {"a": "r" + value, "b": str(run)}),
            ]:
                r = self.client.get(url, params)
                assert_no_server_error(self, r, f"{url} {params}")
            r = api.post("/api/scenarios/", {"team": value, "name": "x", "manifests": SMALL}, format="json")
            self.assertEqual(r.status_code, 400, r.content)
            r = self.client.post(f"/scenarios/{pk}/save/", {"manifests": SMALL + "#\n", "revision": 1,
                                                           "overwrite": value})
            assert_no_server_error(self, r, f"overwrite={value}")


class SelfReferenceAndOverflowTestCase(BaseTestCase):
    """Texts that save but could never run, or never finish being read: refused when saved, naming the field."""

    def save(self, manifests):
        return self.api(self.editor).post(self.url("revisions/"), {"manifests": manifests}, format="json",
                                          headers={"If-Match": '"1"'})

    def test_it_refuses_a_number_of_thousands_of_digits(self):
        r = self.save(SMALL.replace('pods: "110"', "pods: &p " + "9" * 5000))
        self.assertEqual(r.status_code, 400)
        self.assertIn("a number of 5,000 digits at line 10", r.json()["manifests"][0])

    def test_it_refuses_a_yaml_alias_inside_the_node_it_names(self):
        for text in ("a: &a [*a]\n", SMALL + "    annotations: &x {y: *x}\n"):
            r = self.save(text)
            self.assertEqual(r.status_code, 400, r.content)
            self.assertIn("inside the node &", r.json()["manifests"][0])
            r = self.api(self.editor).post("/api/scenarios/", data=text, content_type="application/yaml")
            self.assertEqual(r.status_code, 400)
            r = self.api(self.editor).put(self.url("draft/"), {"manifests": text}, format="json")
            self.assertLess(r.status_code, 500)
            self.client.force_login(self.editor)
            r = self.client.post(f"/scenarios/{self.scenario.pk}/draft/validate/", {"manifests": text})
            self.assertContains(r, "inside the node &")
        self.assertEqual(Revision.objects.count(), 1)

    def test_it_refuses_replicas_past_the_pod_limit(self):
        workload = SMALL + """\
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: big, namespace: default}
  spec:
    replicas: %s
    selector: {matchLabels: {app: big}}
    template:
      metadata: {labels: {app: big}}
      spec: {containers: [{name: c, image: nginx}]}
"""
        r = self.save(workload % "1000000000000")
        self.assertEqual(r.status_code, 400)
        self.assertIn("Deployment default/big: spec.replicas: Invalid value: 1000000000000: must be a 32-bit integer",
                      r.json()["manifests"][0])
        r = self.save(workload % "200000")
        self.assertIn("spec.replicas: Invalid value: 200000: a scenario holds at most 100,000 pods",
                      r.json()["manifests"][0])
        self.assertEqual(self.save(workload % "3").status_code, 201)
        # The quick edit refuses it by itself.
        r = self.api(self.editor).post(self.url("draft/edits/"), {"op": "set_replicas", "workload": "Deployment/default/big",
                                                                  "replicas": "9" * 30}, format="json")
        self.assertEqual(r.status_code, 400, r.content)
        self.assertIn("replicas must be ≤ 100000", json.dumps(r.json(), ensure_ascii=False))

    def test_it_refuses_quantities_and_integers_that_overflow_naming_the_field(self):
        cases = [
            ("cpu: 100m", "cpu: 1e400", "spec.containers[0].resources.requests.cpu: Invalid value: \"1e400\": "
                                        "must be less than or equal to 9007199254740992m"),
            ("cpu: 100m", f"cpu: '{2 ** 70}'", "resources.requests.cpu: Invalid value"),
            ("memory: 64Mi", "memory: 99999999Ei", "resources.requests.memory: Invalid value"),
        ]
        for old, new, message in cases:
            r = self.save(SMALL.replace(old, new))
            self.assertEqual(r.status_code, 400, new)
            self.assertIn(message, r.json()["manifests"][0])
        r = self.save(SMALL + "    topologySpreadConstraints: [{maxSkew: 1.0e+23, topologyKey: zone, "
                              "whenUnsatisfiable: DoNotSchedule}]\n")
        self.assertEqual(r.status_code, 400)
        self.assertIn("spec.topologySpreadConstraints[0].maxSkew: Invalid value: 1e+23: must be a 32-bit integer",
                      r.json()["manifests"][0])
        self.assertEqual(Revision.objects.count(), 1)


# --- Standing fuzz: structures that contain themselves, huge and overflowing numbers, Unicode digits ----------

HUGE = st.sampled_from([
    "1e400", "1.0e+23", "-1e309", "1e-400", str(2 ** 70), str(2 ** 63), str(2 ** 31), "9" * 30, "9" * 5000,
    ".inf", "-.inf", ".nan", "0x" + "f" * 40, "1_000_000_000_000", "99999999999999999999Ei", "1e1000",
    "'1e400'", "'9223372036854775808'", "²", "١٢", "𝟗", "'²'", "'١٠٠m'", "1²",
]) | st.integers(2 ** 31, 10 ** 40).map(str) | st.integers(-(10 ** 40), -(2 ** 31) - 1).map(str)
SELF_CONTAINING = st.sampled_from([
    "&a [*a]", "&a {k: *a}", "&a [1, [2, *a]]", "&a [&b [*a, *b]]", "&a [*a, *a]", "&a {k: [{j: *a}]}",
])
DEEP = st.integers(45, 3000).map(lambda n: "[" * n + "]" * n)
HOSTILE_VALUE = HUGE | SELF_CONTAINING | DEEP
# Where a value goes in the manifest below (each is read as a number, a quantity or anything).
SLOTS = ("REPLICAS", "CPU", "MEMORY", "SKEW", "PRIORITY", "ANNOTATION", "ALLOCATABLE")
FUZZ_MANIFEST = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {topology.kubernetes.io/zone: z1}}
status: {allocatable: {cpu: ALLOCATABLE, memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, annotations: {note: ANNOTATION}}
spec:
  replicas: REPLICAS
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      priority: PRIORITY
      containers: [{name: c, resources: {requests: {cpu: CPU, memory: MEMORY}}}]
      topologySpreadConstraints: [{maxSkew: SKEW, topologyKey: topology.kubernetes.io/zone,
                                   whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}]
"""
DEFAULTS = {"REPLICAS": "3", "CPU": "100m", "MEMORY": "64Mi", "SKEW": "1", "PRIORITY": "0", "ANNOTATION": "x",
            "ALLOCATABLE": '"4"'}


@st.composite
def hostile_manifests(draw):
    """FUZZ_MANIFEST with one to three slots given hostile values; sometimes JSON-like flow text."""
    values = dict(DEFAULTS)
    for slot in draw(st.lists(st.sampled_from(SLOTS), min_size=1, max_size=3, unique=True)):
        values[slot] = draw(HOSTILE_VALUE)
    text = FUZZ_MANIFEST
    for slot, value in values.items():
        text = text.replace(slot, value)
    return text


# The reader runs in a child process under RLIMIT_AS (1 GiB more than it needs once loaded) and an alarm per
# text: a self-referencing alias or a replica count that fills memory fails the test instead of the machine.
READER = r"""
import json, os, resource, signal, sys, time
import django
django.setup()
import scheduler_core
from webapp.scenarios import engine
from webapp.scenarios.manifests import documents, limits
vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize:")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + (1 << 30), resource.RLIM_INFINITY))

def alarm(*_):
    raise TimeoutError("over 10 s")

signal.signal(signal.SIGALRM, alarm)
for line in sys.stdin:
    text = json.loads(line)
    started, outcome = time.monotonic(), []
    signal.alarm(10)
    for name, read, refusals in (
            ("engine", lambda: scheduler_core.load_scenario(text), scheduler_core.ScenarioError),
            ("validate", lambda: engine.validate(text), engine.ScenarioInvalid),
            ("documents", lambda: documents.parse(text), (limits.TooLarge, documents.yaml.YAMLError))):
        try:
            read()
            outcome.append([name, "ok", ""])
        except refusals as e:
            outcome.append([name, "refused", str(e)])
        except BaseException as e:
            outcome.append([name, "crash", f"{type(e).__name__}: {str(e)[:300]}"])
    signal.alarm(0)
    print(json.dumps({"outcome": outcome, "seconds": time.monotonic() - started}), flush=True)
"""


@pytest.fixture(scope="module")
def reader():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "webapp.settings", "ENGINE_CACHE_DIR": ""}
    proc = subprocess.Popen([sys.executable, "-c", READER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env, cwd=ROOT)
    yield proc
    proc.kill()
    proc.wait()


def read_in_child(proc, text):
    proc.stdin.write(json.dumps(text) + "\n")
    proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    assert ready and proc.poll() is None, f"the reader died or hung on {text[:200]!r}"
    return json.loads(proc.stdout.readline())


@hsettings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(text=hostile_manifests() | SELF_CONTAINING.map(lambda v: f"a: {v}\n") | DEEP.map(lambda v: f"a: {v}\n"))
def test_the_reader_refuses_hostile_text_in_bounded_time_and_memory(reader, text):
    answer = read_in_child(reader, text)
    for name, kind, detail in answer["outcome"]:
        assert kind in ("ok", "refused"), (name, detail, text[:300])
    assert answer["seconds"] < 10


class HostileWritesTestCase(BaseTestCase, HypothesisTestCase):
    """Every API write with hostile manifests and hostile numbers in its fields: a 4xx, never a 5xx."""

    writes = GeneratedBodiesTestCase.writes

    @hsettings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(manifests=hostile_manifests(), field=st.sampled_from(FIELDS + ["replicas", "maxSkew", "minDomains",
                                                                          "priority", "index"]),
           number=HUGE | st.sampled_from(["²", "١٢", "𝟗", "1²"]), as_json_number=st.booleans())
    def test_it_refuses_hostile_writes_with_a_4xx(self, manifests, field, number, as_json_number):
        api = self.api(self.owner)
        raw = number.strip("'")
        value = f"{raw}" if as_json_number and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?", raw) \
            else json.dumps(raw)
        body = '{"manifests": %s, "team": "platform", "name": "fuzz", "op": "set_replicas", ' \
               '"workload": "Deployment/default/web", "%s": %s}' % (json.dumps(manifests), field, value)
        with bounded():
            for method, url in self.writes():
                r = getattr(api, method)(url, data=body, content_type="application/json",
                                         headers={"If-Match": '"1"'})
                assert_no_server_error(self, r, f"{method.upper()} {url} {field}={value[:80]}")
            for url in ("/api/scenarios/", self.url("revisions/")):
                r = api.post(url, data=manifests, content_type="application/yaml", headers={"If-Match": '"1"'})
                assert_no_server_error(self, r, f"YAML to {url}")
            r = api.post(self.url("revisions/"), data="a: &a [*a]\n", content_type="application/yaml",
                         headers={"If-Match": '"1"'})
            self.assertEqual(r.status_code, 400)


@contextlib.contextmanager
def bounded(seconds=20, extra_memory=2 << 30):
    """Fail (TimeoutError, MemoryError) rather than hang or exhaust the machine: a timer, and an address-space
    limit of what this process has now plus `extra_memory`, both lifted afterwards."""
    def expire(*_):
        raise TimeoutError(f"over {seconds} s")

    vm = int(next(line for line in open("/proc/self/status") if line.startswith("VmSize:")).split()[1]) * 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    previous = signal.signal(signal.SIGALRM, expire)
    resource.setrlimit(resource.RLIMIT_AS, (vm + extra_memory, hard))
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
