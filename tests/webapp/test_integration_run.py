"""End to end: a script creates a scenario over HTTP, queues a run, and a real worker executes it."""

import json
import time
import urllib.error
import urllib.request

import pytest

from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Membership, Team

from .base import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def call(method, url, body=None, token=None, content_type="application/json"):
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", content_type)
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), json.loads(response.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read() or b"null")


def wait_for_run(url, token, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, _, run = call("GET", url, token=token)
        if run["status"] in ("succeeded", "failed"):
            return run
        time.sleep(0.2)
    raise AssertionError(f"run still {run['status']} after {timeout} s")


@pytest.fixture
def token(live_server):
    team = Team.objects.create(name="sre")
    Membership.objects.create(team=team, user=make_user("script", password="script-pass-1"), role="editor")
    status, _, body = call("POST", f"{live_server.url}/api/auth/token/",
                           {"username": "script", "password": "script-pass-1"})
    assert status == 201, body
    return body["token"]


def test_it_runs_the_min_domains_example_on_a_real_worker(live_server, celery_worker_proc, token):
    manifests = (EXAMPLES_DIR / "min-domains.yaml").read_bytes()
    status, headers, scenario = call("POST", f"{live_server.url}/api/scenarios/?team=sre&name=minDomains",
                                     manifests, token=token, content_type="application/yaml")
    assert status == 201, scenario

    status, headers, run = call("POST", scenario["links"]["runs"], {"seed": 0}, token=token)
    assert status == 202, run
    assert headers["Location"] == run["url"]
    assert run["status"] == "queued"

    run = wait_for_run(run["url"], token)
    assert run["status"] == "succeeded", run["error"]
    outcomes = [p["outcome"] for p in run["result"]["pods"]]
    # maxSkew 2, minDomains 5, 3 zones: the global minimum counts as 0, so 2 per zone.
    assert outcomes.count("Scheduled") == 6
    assert outcomes.count("Unschedulable") == 4
    per_zone_node = {}
    for pod in run["result"]["pods"]:
        if pod["node"]:
            per_zone_node[pod["node"]] = per_zone_node.get(pod["node"], 0) + 1
    assert per_zone_node == {"node-a": 2, "node-b": 2, "node-c": 2}
    pending = [p for p in run["result"]["pods"] if p["outcome"] == "Unschedulable"]
    assert all("didn't match pod topology spread constraints" in p["message"] for p in pending)

    _, _, pods = call("GET", run["url"] + "pods/", token=token)
    assert len(pods["pods"]) == 10


def test_it_records_a_failed_run_with_a_readable_error(live_server, celery_worker_proc, token):
    from webapp.scenarios.models import Revision, Run, Scenario

    # A revision the engine refuses (written directly, as an old row might be).
    scenario = Scenario.objects.create(team=Team.objects.get(name="sre"), name="Broken", current_revision=1)
    revision = Revision.objects.create(scenario=scenario, number=1, manifests="apiVersion: v1\nkind: Pod\n"
                                       "metadata: {name: p}\nspec: {containers: [{name: c, image: x}],"
                                       " topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone,"
                                       " whenUnsatisfiable: DoNotSchedule}]}\n")
    status, _, run = call("POST", f"{live_server.url}/api/scenarios/{scenario.pk}/runs/", {}, token=token)
    assert status == 202
    run = wait_for_run(run["url"], token)
    assert run["status"] == "failed"
    assert "Pod default/p" in run["error"] and "maxSkew" in run["error"]
    assert "Traceback" not in run["error"]
    assert Run.objects.get(pk=run["id"]).revision == revision


def test_it_explains_a_scheduled_pod_on_demand_on_a_real_worker(live_server, celery_worker_proc, token):
    """Runs keep explanations for pending pods only; asking for a scheduled pod's queues a
    worker that simulates the run again, and the API answers 202 until it is there."""
    manifests = (EXAMPLES_DIR / "min-domains.yaml").read_bytes()
    _, _, scenario = call("POST", f"{live_server.url}/api/scenarios/?team=sre&name=minDomains",
                          manifests, token=token, content_type="application/yaml")
    _, _, run = call("POST", scenario["links"]["runs"], {"seed": 0}, token=token)
    run = wait_for_run(run["url"], token)
    explained = run["result"]["explanations"]
    pending = [p["pod"] for p in run["result"]["pods"] if p["outcome"] == "Unschedulable"]
    placed = [p["pod"] for p in run["result"]["pods"] if p["outcome"] == "Scheduled"]
    assert sorted(explained) == sorted(pending)

    url = f"{live_server.url}/api/runs/{run['id']}/pods/{placed[0]}/"
    status, _, body = call("GET", url, token=token)
    assert (status, body["status"]) == (202, "queued") and body["outcome"] == "Scheduled"
    deadline = time.monotonic() + 60
    while status == 202 and time.monotonic() < deadline:
        time.sleep(0.2)
        status, _, body = call("GET", url, token=token)
    assert (status, body["status"]) == (200, "ready")
    assert body["node"] and body["scores"] and not body["filter_partial"]
    assert any(row["passed"] for row in body["filter"])
