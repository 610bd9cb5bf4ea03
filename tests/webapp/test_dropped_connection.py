"""A read whose database connection is dropped while it runs (a restart, a failover, pg_terminate_backend)
is answered on a new connection instead of with a 500; a write is not run twice."""

import psycopg
import pytest
from django.db import connection
from django.test import Client, TransactionTestCase

from webapp.scenarios.models import Scenario

from .base import owner_and_small_scenario

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_terminate_backend needs PostgreSQL")


class DropOnce:
    """Terminates the request's own PostgreSQL backend (from a second connection) just before the first query
    that reads `table`, so that query really fails as it would in a database restart."""

    def __init__(self, table):
        self.table, self.dropped = table, 0

    def __call__(self, execute, sql, params, many, context):
        if not self.dropped and self.table in sql:
            self.dropped += 1
            s = connection.settings_dict
            with psycopg.connect(host=s["HOST"] or "127.0.0.1", port=s["PORT"] or 5432, user=s["USER"],
                                 password=s["PASSWORD"] or None, dbname=s["NAME"], autocommit=True) as other:
                other.execute("SELECT pg_terminate_backend(%s)", [connection.connection.info.backend_pid])
        return execute(sql, params, many, context)


class DroppedConnectionTestCase(TransactionTestCase):
    def setUp(self):
        self.owner, self.scenario = owner_and_small_scenario()
        self.client = Client(raise_request_exception=False)
        self.client.force_login(self.owner)

    def tearDown(self):
        connection.close()  # a write's dropped connection stays broken: the flush after the test needs a new one

    def test_it_answers_a_page_whose_connection_dropped_mid_request(self):
        drop = DropOnce('"scenarios_scenario"')
        with connection.execute_wrapper(drop):
            response = self.client.get(f"/scenarios/{self.scenario.pk}/")
        self.assertEqual((drop.dropped, response.status_code), (1, 200))
        self.assertContains(response, "Small cluster")

    def test_it_answers_an_api_read_whose_connection_dropped_mid_request(self):
        drop = DropOnce('"scenarios_scenario"')
        with connection.execute_wrapper(drop):
            response = self.client.get(f"/api/scenarios/{self.scenario.pk}/")
        self.assertEqual((drop.dropped, response.status_code), (1, 200))
        self.assertEqual(response.json()["name"], "Small cluster")

    def test_it_does_not_run_a_write_twice(self):
        # A rename whose connection drops fails once, visibly; it is not silently repeated.
        drop = DropOnce('"scenarios_scenario"')
        with connection.execute_wrapper(drop):
            response = self.client.patch(f"/api/scenarios/{self.scenario.pk}/", {"name": "Renamed"},
                                         content_type="application/json")
        self.assertEqual((drop.dropped, response.status_code), (1, 500))
        connection.close()  # this process's connection was the dropped one
        self.assertEqual(Scenario.objects.get(pk=self.scenario.pk).name, "Small cluster")
