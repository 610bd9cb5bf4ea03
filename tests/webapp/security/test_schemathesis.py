"""Schemathesis against our own OpenAPI schema, in process (WSGI): every operation answers
as the schema says (status code, content type, body and headers), and none answers 500.

Ids in paths are pointed at real objects (a scenario, runs, a sweep, a share link, a pod
and a node of the run) so generated bodies and query parameters reach the views' code,
not just a 404.
"""

import pytest

schemathesis = pytest.importorskip("schemathesis")

from drf_spectacular.generators import SchemaGenerator  # noqa: E402
from django.core.signals import request_finished, request_started  # noqa: E402
from django.db import close_old_connections  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from webapp.scenarios import drafts, engine, pod_updates, services  # noqa: E402
from webapp.scenarios.models import ApiToken, Membership, Run, ShareLink, Sweep, Team  # noqa: E402
from webapp.wsgi import application  # noqa: E402

from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR  # noqa: E402

from ..base import SMALL, make_user  # noqa: E402

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance]



@schemathesis.deserializer("application/yaml", "text/yaml")
def yaml_as_text(ctx, response):
    """The schema describes YAML bodies as what they are on the wire, text (`type: string`), as generated
    clients read them; schemathesis would otherwise parse them and compare the objects with that."""
    return response.content.decode(response.encoding or "utf-8")


raw = SchemaGenerator().get_schema(request=None, public=True)
# A run with a preemption, every attempted pod explained (nominations, victims, scores, filter tables).
# Computed once: the fixture runs for each of the ~45 operations.
PREEMPTION = (EXAMPLES_DIR / "preemption.yaml").read_text()
PREEMPTOR = "default/checkout-3c5e7a9b2-x3y4z"
RESULT = engine.simulate(PREEMPTION, detail=[c["pod"] for c in engine.simulate(PREEMPTION)["cycles"]])
schema = schemathesis.openapi.from_dict(raw)
schema.app = application  # calls go to the WSGI app in this process


@pytest.fixture
def keep_test_connection():
    """The WSGI handler closes DB connections after each request; in a test that is the test's transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def world(db, keep_test_connection):
    owner = make_user("fuzzer")
    team = Team.objects.create(name="fuzz")
    Membership.objects.create(team=team, user=owner, role="owner")
    scenario = services.create_scenario(team=team, name="Fuzz", manifests=SMALL, author=owner)
    services.save_revision(scenario, manifests=PREEMPTION, author=owner)
    runs = [Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=owner, status="succeeded",
                               result=RESULT) for _ in range(2)]
    sweep = Sweep.objects.create(scenario=scenario, revision=scenario.head(), spec={}, created_by=owner)
    Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=owner, sweep=sweep, label="maxSkew=1",
                       variant={"maxSkew": 1}, status="succeeded", result=RESULT)
    # a rejected attempt (revision and run null) and the draft, listed by their GETs
    namespace, name = PREEMPTOR.split("/")
    pod_updates.propose(scenario, namespace, name, author=owner, patch={"spec": {"nodeName": "node-b"}}, pod=None,
                        base=None)
    drafts.get_or_start(scenario, owner)
    link, share = ShareLink.create(scenario, owner)
    token, key = ApiToken.create(owner, "fuzz")
    ids = {"pk": scenario.pk, "id": scenario.pk, "run_id": runs[0].pk, "a": runs[0].pk, "b": runs[1].pk,
           "number": 1, "sweep_id": sweep.pk, "link_id": link.pk, "token": share, "namespace": namespace,
           "name": name}
    return ids, key


def point_at_world(case, ids):
    for name in list(case.path_parameters or {}):
        if name == "id" and "/tokens/" in case.path:
            continue
        if name == "id" and case.path.startswith("/api/runs/"):
            case.path_parameters[name] = ids["run_id"]
        elif name == "name" and "/nodes/" in case.path:
            case.path_parameters[name] = "node-a"
        elif name in ids:
            case.path_parameters[name] = ids[name]


@schema.parametrize()
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_it_answers_as_its_schema_says(case, world):
    ids, key = world
    point_at_world(case, ids)
    case.call_and_validate(headers={"Authorization": f"Token {key}"}, checks=CHECKS)
