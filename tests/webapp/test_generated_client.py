"""A script author's path through a Python client generated from /api/schema/ (openapi-python-client),
unchanged, against the live server and a real worker: no hand-written HTTP.

If the schema stops telling the truth, the generator drops an operation, a module fails to
import, or the typed client raises (or returns None) on a response it was not told about.
"""

import importlib
import os
import pkgutil
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Membership, Team

from .base import make_user

pytestmark = pytest.mark.django_db(transaction=True)

GATED_POD = ("default", "db-9a1b3c5d7-p1q2r")  # gated in the gated-pods example
PLAIN_POD = ("default", "worker-2d4f6a8c1-z7a8b")  # not gated: its scheduling directives are frozen
# The generator reads JSON bodies; a raw YAML body is an alternative it says it skips, nothing else.
ACCEPTED_WARNING = "Unsupported content type application/yaml"


def generate(schema_url, tmp_path):
    """Generate the client package `whatif_client` under tmp_path; return the generator's output."""
    bin_dir = Path(sys.executable).parent  # its ruff post-hooks run from the same virtualenv
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [bin_dir / "openapi-python-client", "generate", "--url", schema_url,
         "--output-path", tmp_path / "whatif_client", "--meta", "none"],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


def warnings_of(output):
    """The generator's warnings other than the one about raw YAML bodies."""
    blocks = re.split(r"\n(?=WARNING|ERROR)", output)
    return [b for b in blocks if b.startswith(("WARNING", "ERROR")) and ACCEPTED_WARNING not in b]


@pytest.fixture
def client_package(live_server, tmp_path):
    output = generate(f"{live_server.url}/api/schema/", tmp_path)
    assert warnings_of(output) == []
    sys.path.insert(0, str(tmp_path))
    try:
        package = importlib.import_module("whatif_client")
        # every generated module imports (a multipart body used to leave `Unset` undefined)
        for module in pkgutil.walk_packages(package.__path__, "whatif_client."):
            importlib.import_module(module.name)
        yield package
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == "whatif_client" or n.startswith("whatif_client.")]:
            del sys.modules[name]


def api(name):
    return importlib.import_module(f"whatif_client.api.{name}")


def models():
    return importlib.import_module("whatif_client.models")


def wait_for_run(run_id, client, timeout=60):
    runs_retrieve = api("runs.runs_retrieve")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = runs_retrieve.sync(run_id, client=client)
        if run.status.value in ("succeeded", "failed"):
            return run
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} still {run.status} after {timeout} s")


def test_it_drives_the_api_through_a_generated_client(live_server, celery_worker_proc, client_package):
    team = Team.objects.create(name="sre")
    Membership.objects.create(team=team, user=make_user("script", password="script-pass-1"), role="owner")
    m = models()
    anonymous = client_package.Client(base_url=live_server.url, raise_on_unexpected_status=True)

    # token, then the same key as a bearer token (the generated client's default prefix)
    got = api("auth.auth_token_create").sync_detailed(
        client=anonymous, body=m.ObtainToken(username="script", password="script-pass-1"))
    assert got.status_code == 201, got.content
    client = client_package.AuthenticatedClient(base_url=live_server.url, token=got.parsed.token,
                                                raise_on_unexpected_status=True)

    manifests = (EXAMPLES_DIR / "gated-pods.yaml").read_text()
    created = api("scenarios.scenarios_create").sync_detailed(
        client=client, body=m.ScenarioCreate(team="sre", name="Gated", manifests=manifests))
    assert created.status_code == 201, created.content
    scenario = created.parsed
    assert isinstance(scenario, m.ScenarioDetail)
    assert created.headers["ETag"] == '"1"'
    assert scenario.links.runs.endswith(f"/api/scenarios/{scenario.id}/runs/")

    # a run: 202 with its URL, polled until the worker is done, then its pods and topology, typed
    queued = api("scenarios.scenarios_runs_create").sync_detailed(scenario.id, client=client, body=m.RunCreate(seed=0))
    assert queued.status_code == 202, queued.content
    assert queued.headers["Location"] == queued.parsed.url
    run = wait_for_run(queued.parsed.id, client)
    assert run.status.value == "succeeded", run.error
    pods = api("runs.runs_pods_retrieve").sync(run.id, client=client)
    outcomes = {p.pod: p.outcome.value for p in pods.pods}
    assert outcomes[f"{GATED_POD[0]}/{GATED_POD[1]}"] == "Gated"
    assert outcomes[f"{PLAIN_POD[0]}/{PLAIN_POD[1]}"] == "Scheduled"
    topology = api("runs.runs_topology_retrieve").sync(run.id, client=client)
    assert isinstance(topology, m.Topology)
    assert [d.name for d in topology.domains][:1] == ["eu-west-1a"]
    assert sum(d.count for d in topology.domains) >= 2
    assert f"{GATED_POD[0]}/{GATED_POD[1]}" in [c.pod for c in topology.pending]
    assert {c.status for c in topology.pending} == {"Gated"}

    # a save based on revision 1 after revision 2 was saved: 409, typed, naming the current revision
    save = api("scenarios.scenarios_revisions_create")
    body = m.RevisionCreate(manifests=manifests, message="same text")
    first = save.sync_detailed(scenario.id, client=client, body=body, if_match='"1"')
    assert first.status_code == 201, first.content
    stale = save.sync_detailed(scenario.id, client=client, body=body, if_match='"1"')
    assert stale.status_code == 409
    assert isinstance(stale.parsed, m.StaleRevision)
    assert stale.parsed.current_revision == 2
    assert stale.headers["ETag"] == '"2"'

    # pod updates: a pod that is not gated keeps its directives (422, nothing created) ...
    propose = api("scenarios.scenarios_pods_updates_create")
    patch = m.PodUpdateProposalPatch.from_dict({"spec": {"nodeSelector": {"disktype": "ssd"}}})
    rejected = propose.sync_detailed(scenario.id, *PLAIN_POD, client=client,
                                     body=m.PodUpdateProposal(patch=patch), if_match='"2"')
    assert rejected.status_code == 422, rejected.content
    assert rejected.parsed.allowed is False
    assert rejected.parsed.revision is None and rejected.parsed.run is None
    assert rejected.parsed.errors
    # ... and the gated one takes the node selector: 201, revision 3 and a queued run
    accepted = propose.sync_detailed(scenario.id, *GATED_POD, client=client,
                                     body=m.PodUpdateProposal(patch=patch), if_match='"2"')
    assert accepted.status_code == 201, accepted.content
    assert (accepted.parsed.revision, accepted.headers["ETag"]) == (3, '"3"')
    assert accepted.headers["Location"] == accepted.parsed.run_url
    attempts = api("scenarios.scenarios_pod_updates_list").sync(scenario.id, client=client)
    assert [a.allowed for a in attempts.results] == [True, False]

    # a share link, read without credentials
    link = api("scenarios.scenarios_share_links_create").sync(scenario.id, client=client)
    shared = api("shared.shared_retrieve").sync(link.token, client=anonymous)
    assert isinstance(shared, m.SharedScenario)
    assert shared.url == link.api_url
    assert shared.current_revision == 3
    assert run.id in [r.id for r in shared.runs]
    shared_run = api("shared.shared_runs_retrieve").sync(link.token, run.id, client=anonymous)
    assert shared_run.url == f"{link.api_url}runs/{run.id}/"
    assert [s.prefix for s in api("scenarios.scenarios_share_links_list").sync(scenario.id, client=client)] == [
        link.prefix]

    # the YAML as saved, revision 1
    text = api("scenarios.scenarios_manifests_retrieve").sync(scenario.id, client=client, revision=1)
    assert text == manifests

    # an error body is typed too
    missing = api("runs.runs_retrieve").sync_detailed(10**9, client=client)
    assert missing.status_code == 404
    assert isinstance(missing.parsed, m.Error) and missing.parsed.detail
