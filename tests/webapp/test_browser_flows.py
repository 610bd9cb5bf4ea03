"""The editing loop's flows walked in Chromium at a desktop's and a phone's width, on the real worker: a run
that leads with its answer and a one-click fix, a preemption with its nominated node and victims, compare from
a picker, a two-axis sweep grid and a one-axis chart, nodes grouped by zone in human units, and the examples
that say what to try first."""

import re
import time

import pytest
from django.core.management import call_command

from webapp.scenarios import services
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Draft, Membership, Run, Team

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = [1280, 390]
API = "ReplicaSet/default/api-5b7d9c8f4"


def no_sideways_scroll(page):
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def set_up(page, live_server, width, example):
    user = make_user("flow", password="flow-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="owner")
    scenario = services.create_scenario(team=team, name=example, author=user,
                                        manifests=(EXAMPLES_DIR / f"{example}.yaml").read_text())
    page.set_viewport_size({"width": width, "height": 844 if width < 600 else 900})
    browser_log_in(page, live_server, "flow", "flow-pass-1")
    return user, scenario


def run_from_the_scenario_page(page, live_server, scenario):
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.get_by_role("button", name="Run r1").click()
    page.wait_for_url(re.compile(r".*/runs/\d+/$"))
    page.locator("#run-result:not([hx-trigger])").wait_for(timeout=90_000)
    return Run.objects.latest("id")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_run_leads_with_its_answer_and_its_smallest_fix_is_one_click(
        page, live_server, celery_worker_proc, artifacts, width):
    _, scenario = set_up(page, live_server, width, "min-domains")
    run_from_the_scenario_page(page, live_server, scenario)

    why = page.locator("#pending-why")
    assert "4 pods unschedulable" in why.inner_text()
    assert "Root cause: topology.kubernetes.io/zone: 3 of 5 domains: global minimum treated as 0" in why.inner_text()
    assert page.evaluate("() => document.getElementById('pending-why').compareDocumentPosition("
                         "document.getElementById('pod-table')) & Node.DOCUMENT_POSITION_FOLLOWING")

    page.get_by_role("button", name="Find the smallest fix").click()
    best = page.locator(".best-fix")
    best.wait_for(timeout=120_000)
    assert f"Smallest change that schedules every pod: minDomains 3 on {API}" in best.inner_text()
    assert no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"flow-run-answer-{width}.png"), full_page=True)

    page.get_by_role("button", name=f"Apply “minDomains 3 on {API}” in my draft").click()
    page.wait_for_url(re.compile(r".*/draft/$"))
    assert page.locator("#edit-count").inner_text() == "1 edit"
    assert "minDomains: 3" in Draft.objects.get(scenario=scenario).manifests
    # the draft runs by itself: the side by side says the four pods now schedule
    page.locator("#draft-diff-summary").wait_for(timeout=90_000)
    assert page.locator("#draft-diff-summary").inner_text().startswith("4 newly scheduled · 0 newly pending")
    # and the constraint's skew, saved → draft, as the engine counted it (minDomains 5 of 3 zones: minimum 0)
    row = page.locator("#draft-skews tbody tr").first
    assert row.locator("th").inner_text().startswith("topology.kubernetes.io/zone")
    assert [row.locator("td").nth(i).inner_text() for i in (0, 1)] == ["2", "1"]
    page.screenshot(path=str(artifacts / f"flow-draft-after-fix-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_preemption_shows_the_nominated_node_the_victims_and_priorities_linked(
        page, live_server, celery_worker_proc, artifacts, width):
    _, scenario = set_up(page, live_server, width, "preemption")
    run = run_from_the_scenario_page(page, live_server, scenario)

    evicted = page.locator("#evicted-list li").first
    assert re.search(r"default/batch-\S+ \(priority 100\) preempted on node-a by default/checkout-\S+ at cycle 1",
                     evicted.inner_text())
    page.screenshot(path=str(artifacts / f"flow-preemption-run-{width}.png"), full_page=True)
    evicted.locator("a[href*='/pod/default/checkout-']").click()  # the preemptor
    page.wait_for_url(re.compile(rf".*/runs/{run.pk}/pods?/default/checkout-.*"))
    facts = page.locator("dl.pod-facts").inner_text()
    assert re.search(r"Priority\s+1000000", facts)
    assert page.get_by_role("heading", name=re.compile("Nominated node")).count() == 1
    page.locator("ul.victims a").first.click()  # a victim, with its own priority
    page.wait_for_url(re.compile(rf".*/runs/{run.pk}/pods?/default/batch-.*"))
    assert re.search(r"Priority\s+100\b", page.locator("main dl").first.inner_text())  # (a bound pod's page)
    assert no_sideways_scroll(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_from_a_picker_and_sweeps_as_a_grid_and_a_chart(
        page, live_server, celery_worker_proc, artifacts, width):
    user, scenario = set_up(page, live_server, width, "min-domains")
    first = run_from_the_scenario_page(page, live_server, scenario)
    second = run_from_the_scenario_page(page, live_server, scenario)

    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/compare/")
    for side, run in (("a", first), ("b", second)):
        select = page.locator(f"#cmp-{side}")
        value = select.locator("option", has_text=f"#{run.pk}").first.get_attribute("value")
        select.select_option(value)
    page.get_by_role("button", name="Compare", exact=True).click()
    page.locator("p.counts").first.wait_for()
    assert [c.inner_text() for c in page.locator("p.counts").all()] == ["6 scheduled · 4 pending"] * 2
    assert no_sideways_scroll(page)

    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/sweeps/")
    page.get_by_role("button", name="Run grid").click()
    grid = page.locator("#sweep-grid")
    grid.wait_for()
    deadline = time.monotonic() + 180
    while page.locator("#sweep-table[hx-trigger]").count():
        assert time.monotonic() < deadline, "the sweep did not finish"
        page.wait_for_timeout(500)
    cells = grid.locator("td a")
    assert cells.count() == 12  # maxSkew 1..4 × minDomains none, 3, 5
    page.screenshot(path=str(artifacts / f"flow-sweep-grid-{width}.png"), full_page=True)
    cells.first.click()
    page.wait_for_url(re.compile(r".*/runs/\d+/$"))

    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/sweeps/")
    page.get_by_role("button", name="Run one cell per zone").click()
    page.locator("#sweep-chart-title").wait_for(state="attached")
    deadline = time.monotonic() + 180
    while page.locator("#sweep-table[hx-trigger]").count():
        assert time.monotonic() < deadline, "the sweep did not finish"
        page.wait_for_timeout(500)
    assert page.locator("svg[aria-labelledby=sweep-chart-title] rect").count() >= 3  # one bar per zone
    assert no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"flow-sweep-chart-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
def test_nodes_grouped_by_zone_in_human_units(page, live_server, celery_worker_proc, artifacts, width):
    _, scenario = set_up(page, live_server, width, "zone-spreading")
    run = run_from_the_scenario_page(page, live_server, scenario)
    page.goto(f"{live_server.url}/runs/{run.pk}/nodes/")
    page.locator("#id_group").select_option("topology.kubernetes.io/zone")
    page.get_by_role("button", name="Group").click()
    page.wait_for_url(re.compile(r".*group=topology.kubernetes.io%2Fzone.*|.*group=topology\.kubernetes\.io/zone.*"))
    text = page.locator("main").inner_text()
    assert "GiB" in text and "Ki" not in text
    assert re.search(r"cores?", text)
    assert page.locator("main h2, main h3").filter(has_text=re.compile(r"zone|eu-west|us-east|z\d")).count() >= 2
    assert no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"flow-nodes-grouped-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
def test_each_example_says_what_it_shows_and_what_to_try_first(page, live_server, width):
    call_command("load_examples", verbosity=0)
    page.set_viewport_size({"width": width, "height": 844 if width < 600 else 900})
    browser_log_in(page, live_server, "demo", "demo")
    links = page.locator("main a[href^='/scenarios/'][href$='/']").filter(has_text=re.compile(r"\w"))
    names = [a.inner_text() for a in links.all() if re.fullmatch(r"/scenarios/\d+/", a.get_attribute("href"))]
    assert len(names) >= 5
    for name in names:
        page.goto(live_server.url + "/scenarios/")
        page.locator("main").get_by_role("link", name=name, exact=True).first.click()
        description = page.locator(".scenario-description").inner_text()
        assert "Loaded from" not in description
        assert re.search(r"[Tt]ry", description), (name, description)
    assert page.locator("#seed-help").inner_text().startswith("Breaks ties between equally scored nodes")


@pytest.mark.parametrize("width", WIDTHS)
def test_answers_are_started_on_the_page_and_read_when_the_workers_are_done(
        page, live_server, celery_worker_proc, artifacts, width):
    _, scenario = set_up(page, live_server, width, "min-domains")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.get_by_role("link", name="Answers").click()
    capacity = page.locator("#start-capacity")
    capacity.get_by_label("Also in new zones").fill("eu-west-1d, eu-west-1e")
    capacity.get_by_role("button", name="Find the nodes to add").click()
    page.wait_for_url(re.compile(r".*/answers/\d+/$"))
    answer = page.locator("#analysis-answer")
    answer.wait_for(timeout=120_000)
    assert answer.inner_text() == "Add 1 × m5.xlarge in eu-west-1d, 1 × m5.xlarge in eu-west-1e."
    assert re.fullmatch(r"\d+ of \1 parts done".replace(r"\1", r"\d+"), page.locator("#analysis-progress").inner_text())
    page.locator("#verifying-run strong", has_text="0 pods pending").wait_for(timeout=60_000)
    assert no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"flow-answer-capacity-{width}.png"), full_page=True)

    page.get_by_role("link", name="answers").click()
    page.locator("#start-zones").get_by_role("button", name="Lose each zone in turn").click()
    page.locator("#failure-table").wait_for(timeout=120_000)
    rows = page.locator("#failure-table tbody tr")
    assert rows.count() == 3  # eu-west-1a, 1b, 1c
    assert all("survives" in rows.nth(i).inner_text() for i in range(3))
    page.get_by_role("link", name="answers").click()
    assert page.locator("#analysis-list tbody tr").count() == 2
