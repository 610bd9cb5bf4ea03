"""A real browser (Debian's chromium) logs in, opens a scenario, presses Run and sees the result."""

import pytest

from webapp.scenarios import services
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Membership, Team

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1280, 390])  # a desktop and a phone
def test_it_runs_a_scenario_from_the_browser(page, live_server, celery_worker_proc, artifacts, width):
    user = make_user("pilot", password="pilot-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="owner")
    scenario = services.create_scenario(team=team, name="Min domains", author=user,
                                        manifests=(EXAMPLES_DIR / "min-domains.yaml").read_text())

    page.set_viewport_size({"width": width, "height": 900})
    browser_log_in(page, live_server, "pilot", "pilot-pass-1")
    page.get_by_role("link", name="Min domains").click()
    assert page.url == f"{live_server.url}/scenarios/{scenario.pk}/"
    page.screenshot(path=str(artifacts / f"scenario-detail-{width}.png"), full_page=True)

    page.get_by_role("button", name="Run r1").click()
    # The fragment polls until the worker is done, then swaps in the result.
    # The fragment polls until the worker is done; the finished one has no hx-trigger.
    page.locator("#run-result:not([hx-trigger])").wait_for(timeout=60_000)
    page.screenshot(path=str(artifacts / f"run-result-{width}.png"), full_page=True)
    assert page.locator("#run-status").inner_text() == "Succeeded", page.locator("#run-result").inner_text()
    table = page.locator("#pod-table")
    assert table.locator("tr.outcome-scheduled").count() == 6
    assert table.locator("tr.outcome-unschedulable").count() == 4
