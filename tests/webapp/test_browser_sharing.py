"""Sharing and deleting in a real browser: a new read-only link shows beside a copy button that copies it,
and the destructive actions stand apart and ask before they act."""

import pytest

from webapp.scenarios import services
from webapp.scenarios.models import Membership, Scenario, Team

from .base import SMALL, browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1280, 390])
def test_a_new_link_is_copied_with_one_click_and_delete_asks_first(page, live_server, artifacts, width):
    owner = make_user("owner", password="owner-pass-1")
    team = Team.objects.create(name="sharers")
    Membership.objects.create(team=team, user=owner, role="owner")
    scenario = services.create_scenario(team=team, name="Shared", manifests=SMALL, author=owner)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.set_viewport_size({"width": width, "height": 900})
    browser_log_in(page, live_server, "owner", "owner-pass-1")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")

    page.get_by_role("button", name="Create a read-only link").click()
    shown = page.get_by_label("New read-only link: copy it now, it is shown only once")
    url = shown.input_value()
    assert url.startswith(f"{live_server.url}/s/")
    section = page.locator("section", has=page.get_by_role("heading", name="Sharing"))
    section.get_by_role("link", name="Copy link").click()
    section.get_by_text("Copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == url
    page.screenshot(path=str(artifacts / f"scenario-sharing-{width}.png"), full_page=True)

    # Delete is in a section of its own, and asks: dismissing keeps the scenario.
    danger = page.locator("section", has=page.get_by_role("heading", name="Delete"))
    assert danger.get_by_role("button", name="Delete scenario").count() == 1
    assert section.get_by_role("button", name="Delete scenario").count() == 0
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    danger.get_by_role("button", name="Delete scenario").click()
    page.wait_for_timeout(300)
    assert asked and asked[0].startswith("Delete this scenario?")
    assert Scenario.objects.alive().filter(pk=scenario.pk).exists()

    page.goto(url)  # the link reads the scenario without logging in (same browser, but under /s/)
    assert page.get_by_role("heading", name="Shared").count() == 1
