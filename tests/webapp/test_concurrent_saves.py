"""Concurrent saves on one base revision against the real database: one wins, the rest get 409."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from webapp.scenarios import services
from webapp.scenarios.models import Membership, Revision, Scenario, Team

from .base import SMALL, make_user

SAVERS = 6


@pytest.fixture
def scenario(db):
    team = Team.objects.create(name="race")
    users = [make_user(f"writer{i}") for i in range(SAVERS)]
    for user in users:
        Membership.objects.create(team=team, user=user, role="editor")
    return services.create_scenario(team=team, name="Race", manifests=SMALL, author=users[0]), users


@pytest.mark.django_db(transaction=True)
def test_it_lets_exactly_one_of_concurrent_saves_win(scenario):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (row locks); make test provides it")
    scenario, users = scenario
    barrier = threading.Barrier(SAVERS)
    results = [None] * SAVERS

    def save(i):
        try:
            client = APIClient()
            client.force_authenticate(users[i])
            body = {"manifests": SMALL + f"# edit by writer{i}\n", "message": f"writer{i}"}
            barrier.wait(timeout=10)
            r = client.post(f"/api/scenarios/{scenario.pk}/revisions/", body, format="json",
                            headers={"If-Match": '"1"'})
            results[i] = (r.status_code, r.json())
        finally:
            connection.close()

    threads = [threading.Thread(target=save, args=(i,)) for i in range(SAVERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)

    codes = sorted(code for code, _ in results)
    assert codes == [201] + [409] * (SAVERS - 1), results
    winner = next(i for i, (code, _) in enumerate(results) if code == 201)
    assert all(body["current_revision"] == 2 for code, body in results if code == 409)
    # Exactly one new revision, and it holds the winner's content, intact.
    revisions = Revision.objects.filter(scenario=scenario).order_by("number")
    assert [r.number for r in revisions] == [1, 2]
    assert revisions[1].manifests == SMALL + f"# edit by writer{winner}\n"
    assert revisions[1].author == users[winner]
    assert Scenario.objects.get(pk=scenario.pk).current_revision == 2


@pytest.mark.django_db(transaction=True)
def test_it_appends_every_save_made_on_the_latest_revision_in_turn(scenario):
    scenario, users = scenario
    for i in range(3):
        services.save_revision(scenario, manifests=SMALL + f"# {i}\n", author=users[i], base=i + 1)
    assert list(Revision.objects.filter(scenario=scenario).order_by("number").values_list("number", flat=True)) == [1, 2, 3, 4]
