"""Schemathesis against our own OpenAPI schema, in process (WSGI): no operation answers 500.

Ids in paths are pointed at real objects (a scenario, runs, a sweep, a share link)
so generated bodies and query parameters reach the views' code, not just a 404.
"""

import pytest

schemathesis = pytest.importorskip("schemathesis")

from drf_spectacular.generators import SchemaGenerator  # noqa: E402
from django.core.signals import request_finished, request_started  # noqa: E402
from django.db import close_old_connections  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402

from webapp.scenarios import engine, services  # noqa: E402
from webapp.scenarios.models import ApiToken, Membership, Run, ShareLink, Sweep, Team  # noqa: E402
from webapp.wsgi import application  # noqa: E402

from ..base import SMALL, TWO_PODS, make_user  # noqa: E402

raw = SchemaGenerator().get_schema(request=None, public=True)
RESULT = engine.simulate(TWO_PODS)  # once: the fixture runs for each of the ~45 operations
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
    services.save_revision(scenario, manifests=TWO_PODS, author=owner)
    runs = [Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=owner, status="succeeded",
                               result=RESULT) for _ in range(2)]
    sweep = Sweep.objects.create(scenario=scenario, revision=scenario.head(), spec={}, created_by=owner)
    link, share = ShareLink.create(scenario, owner)
    token, key = ApiToken.create(owner, "fuzz")
    ids = {"pk": scenario.pk, "id": scenario.pk, "run_id": runs[0].pk, "a": runs[0].pk, "b": runs[1].pk,
           "number": 1, "sweep_id": sweep.pk, "link_id": link.pk, "token": share}
    return ids, key


@schema.parametrize()
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_it_never_answers_500(case, world):
    ids, key = world
    for name in list(case.path_parameters or {}):
        if name in ids and not (name == "id" and "/tokens/" in case.path):
            case.path_parameters[name] = ids[name]
    case.call_and_validate(headers={"Authorization": f"Token {key}"}, checks=[not_a_server_error],
                           excluded_checks=[c for c in _all_other_checks()])


def _all_other_checks():
    from schemathesis import checks

    every = [getattr(checks, n) for n in dir(checks) if callable(getattr(checks, n)) and not n.startswith("_")]
    return [c for c in every if c is not not_a_server_error and getattr(c, "__module__", "").startswith("schemathesis")
            and c.__name__ not in ("CheckFunction", "load_all_checks")]
