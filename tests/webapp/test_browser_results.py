"""A real browser runs the min-domains example through the worker, then explores the result dashboard."""

import pytest

from webapp.scenarios import services
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Membership, Team

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_explores_topology_pod_and_timeline(page, live_server, celery_worker_proc, artifacts):
    user = make_user("dash", password="dash-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="viewer")
    owner = make_user("dash-owner")
    Membership.objects.create(team=team, user=owner, role="owner")
    scenario = services.create_scenario(team=team, name="Min domains", author=owner,
                                        manifests=(EXAMPLES_DIR / "min-domains.yaml").read_text())
    run = services.queue_run(scenario, scenario.head(), user=owner)

    page.set_viewport_size({"width": 1280, "height": 900})
    browser_log_in(page, live_server, "dash", "dash-pass-1")
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    # The result fragment polls until the worker has finished.
    page.locator("#run-result:not([hx-trigger])").wait_for(timeout=60_000)
    assert page.locator("#run-status").inner_text() == "Succeeded"

    page.get_by_role("link", name="Topology").first.click()
    assert page.locator("section.domain").count() == 3
    assert page.get_by_text("3 of 5 domains: global minimum treated as 0").first.is_visible()
    page.screenshot(path=str(artifacts / "results-topology-1280.png"), full_page=True)

    # Switch the key: htmx swaps the panel in place and pushes the URL.
    page.get_by_label("Topology key").select_option("kubernetes.io/hostname")
    page.locator('section[aria-label="hostname node-a"]').wait_for()
    assert "key=kubernetes.io%2Fhostname" in page.url or "key=kubernetes.io/hostname" in page.url
    assert page.locator("section.domain").count() == 3

    # Open a pending pod's explanation from the tray.
    page.locator(".tray a.chip").first.click()
    page.get_by_role("heading", name="Why").wait_for()
    assert "didn't match pod topology spread constraints" in page.locator(".failed-msg").inner_text()
    assert page.locator(".sentences li").filter(has_text="would make skew 3 > maxSkew 2").count() == 3
    page.screenshot(path=str(artifacts / "results-pod-1280.png"), full_page=True)

    # Step the timeline with the keyboard.
    page.goto(f"{live_server.url}/runs/{run.pk}/timeline/")
    assert page.locator("#step-number").inner_text() == "1"
    page.locator("#step-next").focus()
    page.keyboard.press("Enter")
    page.locator("#step-number", has_text="2").wait_for()
    assert "step=2" in page.url
    page.locator("#step-next").click()
    page.locator("#step-number", has_text="3").wait_for()
    assert page.locator(".tray").get_by_text("Pending (7)").is_visible()
    page.locator("#step-prev").click()
    page.locator("#step-number", has_text="2").wait_for()
    page.screenshot(path=str(artifacts / "results-timeline-1280.png"), full_page=True)

    page.set_viewport_size({"width": 390, "height": 844})
    for name, url in (("topology", f"/runs/{run.pk}/topology/"),
                      ("pod", f"/runs/{run.pk}/pods/default/api-5b7d9c8f4-e1f2g/"),
                      ("timeline", f"/runs/{run.pk}/timeline/?step=7"),
                      ("nodes", f"/runs/{run.pk}/nodes/")):
        page.goto(live_server.url + url)
        # Nothing wider than the viewport at 390px.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
        page.screenshot(path=str(artifacts / f"results-{name}-390.png"), full_page=True)
