"""20 clients saving one scenario at once through the API, on PostgreSQL: nothing lost, nothing doubled."""

import threading
from collections import Counter

import pytest
from django.db import connection
from rest_framework.test import APIClient

from webapp.scenarios import services
from webapp.scenarios.models import Membership, Revision, Scenario, Team

from ..base import SMALL, make_user

WRITERS = 20
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def race():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (row locks); make test provides it")
    team = Team.objects.create(name="race20")
    users = [make_user(f"racer{i}") for i in range(WRITERS)]
    for user in users:
        Membership.objects.create(team=team, user=user, role="editor")
    return services.create_scenario(team=team, name="Race", manifests=SMALL, author=users[0]), users


def run_writers(target):
    barrier = threading.Barrier(WRITERS)
    results = [None] * WRITERS
    errors = []

    def body(i):
        try:
            barrier.wait(timeout=20)
            results[i] = target(i)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))
        finally:
            connection.close()

    threads = [threading.Thread(target=body, args=(i,)) for i in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    return results


def client_for(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def content(i):
    return SMALL + f"# writer {i}\n"


def test_it_keeps_one_of_twenty_saves_on_one_base_and_answers_409_to_the_rest(race):
    scenario, users = race

    def save(i):
        r = client_for(users[i]).post(f"/api/scenarios/{scenario.pk}/revisions/",
                                      {"manifests": content(i), "message": f"w{i}"}, format="json",
                                      headers={"If-Match": '"1"'})
        return r.status_code, r.json()

    results = run_writers(save)
    assert Counter(code for code, _ in results) == {201: 1, 409: WRITERS - 1}, results
    winner = next(i for i, (code, _) in enumerate(results) if code == 201)
    assert all(body["current_revision"] == 2 for code, body in results if code == 409)
    revisions = list(Revision.objects.filter(scenario=scenario).order_by("number"))
    assert [r.number for r in revisions] == [1, 2]
    assert (revisions[1].manifests, revisions[1].author) == (content(winner), users[winner])


def test_it_lands_every_save_as_its_own_revision_when_writers_retry_after_409(race):
    scenario, users = race

    def save_until_it_lands(i):
        client = client_for(users[i])
        conflicts = 0
        for _ in range(WRITERS * 3):
            head = client.get(f"/api/scenarios/{scenario.pk}/")["ETag"]
            r = client.post(f"/api/scenarios/{scenario.pk}/revisions/",
                            {"manifests": content(i), "message": f"w{i}"}, format="json", headers={"If-Match": head})
            if r.status_code == 201:
                return r.json()["number"], conflicts
            assert r.status_code == 409, r.content
            conflicts += 1
        raise AssertionError(f"writer {i} never landed")

    results = run_writers(save_until_it_lands)
    numbers = sorted(number for number, _ in results)
    assert numbers == list(range(2, WRITERS + 2))  # each save its own revision, no gaps, no duplicates
    revisions = Revision.objects.filter(scenario=scenario).order_by("number")
    assert [r.number for r in revisions] == list(range(1, WRITERS + 2))
    landed = Counter(r.manifests for r in revisions[1:])
    assert landed == Counter(content(i) for i in range(WRITERS))  # every writer's text exactly once
    for i, (number, _) in enumerate(results):
        assert revisions.get(number=number).author == users[i]
    assert Scenario.objects.get(pk=scenario.pk).current_revision == WRITERS + 1
    assert sum(conflicts for _, conflicts in results) > 0  # they really did collide
