"""A result the database refuses for its size (PostgreSQL takes no jsonb document over 256 MB: a
5,000-node run's explanations once made 282 MB) fails the run with a message saying so, at once,
instead of retrying the write and leaving the run "running"."""

import pytest
from django.db import connection
from django.test import Client, TransactionTestCase

from webapp.scenarios import tasks
from webapp.scenarios.models import Run, RunPage

from .base import owner_and_small_scenario

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own size limit")


class RefuseForSize:
    """Runs, in place of the first write of a run's result, a query PostgreSQL refuses with a real
    program-limit error (SQLSTATE 54000), as it refuses a jsonb document over 256 MB."""

    def __init__(self):
        self.refused = 0

    def __call__(self, execute, sql, params, many, context):
        if not self.refused and sql.startswith('UPDATE "scenarios_run"') and '"result" = %s' in sql:
            self.refused += 1
            return execute("SELECT array_fill(1, ARRAY[200000000])", [], False, context)
        return execute(sql, params, many, context)


class ResultTooLargeTests(TransactionTestCase):
    def setUp(self):
        self.owner, self.scenario = owner_and_small_scenario()

    def test_a_result_too_large_to_store_fails_the_run_with_a_message(self):
        run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head(), created_by=self.owner)
        refuse = RefuseForSize()
        with connection.execute_wrapper(refuse):
            tasks.execute_run(run.pk)
        run.refresh_from_db()
        assert (refuse.refused, run.status, run.result, run.error) == (
            1, Run.Status.FAILED, None, tasks.RESULT_TOO_LARGE)
        # the counts and page rows stored before the result are not left behind
        assert run.summary is None and not RunPage.objects.filter(run_id=run.pk).exists()
        client = Client()
        client.force_login(self.owner)
        assert client.get(f"/api/runs/{run.pk}/").json()["error"] == tasks.RESULT_TOO_LARGE
        assert "larger than the database can store" in client.get(f"/runs/{run.pk}/").content.decode()

    def test_a_write_refused_for_its_size_is_not_tried_again(self):
        tries = []

        def update():
            tries.append(1)
            with connection.cursor() as c:
                c.execute("SELECT array_fill(1, ARRAY[200000000])")

        with pytest.raises(tasks.ResultTooLarge):
            tasks.store(update, "a test write")
        assert len(tries) == 1
