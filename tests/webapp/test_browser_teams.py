"""Team pages in Chromium at a phone's and a desktop's width: nothing scrolls sideways; adding a member works."""

import pytest

from webapp.scenarios import services, teams
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORTS = [(390, 844), (1280, 800)]


def test_team_pages_fit_and_a_member_can_be_added(page, live_server, artifacts):
    owner = make_user("olga", password="olga-pass-1")
    for name in ("ed", "vic", "a-colleague-with-a-very-long-username-indeed"):
        make_user(name)
    team = teams.create_team("platform-reliability-engineering", owner)
    teams.add_member(team, "ed", "editor", by=owner)
    teams.add_member(team, "vic", "viewer", by=owner)
    scenario = services.create_scenario(team=team, name="Zone spreading", author=owner,
                                        manifests=(EXAMPLES_DIR / "zone-spreading.yaml").read_text())
    services.queue_run(scenario, scenario.head(), user=owner)  # no worker: the row is all the activity needs
    mine = teams.create_team("olgas-lab", owner)
    fork = teams.fork_scenario(scenario, team=mine, name="Zone spreading, 4 zones", author=owner)

    browser_log_in(page, live_server, "olga", "olga-pass-1")
    page.goto(f"{live_server.url}/teams/{team.pk}/")
    page.get_by_label("Add a member by username").fill("a-colleague-with-a-very-long-username-indeed")
    page.get_by_label("as", exact=True).select_option("editor")
    page.get_by_role("button", name="Add member").click()
    page.get_by_text("a-colleague-with-a-very-long-username-indeed added as editor.").wait_for()

    urls = {"team-list": "/teams/", "team": f"/teams/{team.pk}/", "activity": f"/scenarios/{scenario.pk}/activity/",
            "fork": f"/scenarios/{scenario.pk}/fork/", "forked": f"/scenarios/{fork.pk}/", "scenario-list": "/scenarios/"}
    overflowing = []
    for width, height in VIEWPORTS:
        page.set_viewport_size({"width": width, "height": height})
        for name, url in urls.items():
            page.goto(live_server.url + url)
            page.wait_for_load_state("networkidle")
            scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            if scroll > inner:
                overflowing.append(f"{name} at {width}px: {scroll} > {inner}")
            page.screenshot(path=str(artifacts / f"teams-{name}-{width}.png"), full_page=True)
    assert overflowing == []
