"""At a phone's width (390 px) and a desktop's (1280 px) no page scrolls sideways.

Every page is visited with real data: runs executed by the real worker (a plain run, a draft run,
a sweep's cells, a preemption), a token and a share link. Screenshots go to test-artifacts/.
"""

import time

import pytest

from webapp.scenarios import drafts, services, sweeps
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import ApiToken, Membership, Run, ShareLink, Team

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORTS = [(390, 844), (1280, 800)]
PENDING_POD = "default/api-5b7d9c8f4-e1f2g"
NOMINATED_POD = "default/checkout-3c5e7a9b2-x3y4z"
WORKLOAD = "ReplicaSet/default/api-5b7d9c8f4"


def example(team, user, name):
    return services.create_scenario(team=team, name=name.replace("-", " ").capitalize(), author=user,
                                    manifests=(EXAMPLES_DIR / f"{name}.yaml").read_text())


def wait_for_runs(timeout=90):
    deadline = time.monotonic() + timeout
    while Run.objects.exclude(status__in=Run.FINISHED).exists():
        assert time.monotonic() < deadline, "the worker did not finish the runs"
        time.sleep(0.2)
    assert not Run.objects.exclude(status="succeeded").exists()


def pages(scenario, run, draft_run, sweep, preempt_run, share_token):
    s, r = scenario.pk, run.pk
    shared = f"/s/{share_token}/runs/{r}/"
    return [
        ("scenario-list", "/scenarios/"), ("scenario", f"/scenarios/{s}/"), ("draft", f"/scenarios/{s}/draft/"),
        ("run", f"/runs/{r}/"), ("topology", f"/runs/{r}/topology/"), ("nodes", f"/runs/{r}/nodes/"),
        ("node", f"/runs/{r}/nodes/node-a/"), ("pod", f"/runs/{r}/pods/{PENDING_POD}/"),
        ("pod-nominated", f"/runs/{preempt_run.pk}/pods/{NOMINATED_POD}/"),
        ("timeline", f"/runs/{r}/timeline/?step=7"), ("compare", f"/scenarios/{s}/compare/?a={r}&b={draft_run.pk}"),
        ("sweep-list", f"/scenarios/{s}/sweeps/"), ("sweep", f"/sweeps/{sweep.pk}/"), ("tokens", "/tokens/"),
        ("shared-scenario", f"/s/{share_token}/"), ("shared-run", shared), ("shared-topology", f"{shared}topology/"),
        ("shared-nodes", f"{shared}nodes/"), ("shared-node", f"{shared}nodes/node-a/"),
        ("shared-pod", f"{shared}pods/{PENDING_POD}/"), ("shared-timeline", f"{shared}timeline/?step=7"),
    ]


def test_no_page_scrolls_sideways_or_fails_to_load_a_resource(page, live_server, celery_worker_proc, artifacts):
    user = make_user("narrow", password="narrow-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="owner")
    scenario = example(team, user, "min-domains")
    run = services.queue_run(scenario, scenario.head(), user=user)
    draft = drafts.get_or_start(scenario, user)
    drafts.apply(draft, {"op": "set_spread", "workload": WORKLOAD, "index": 0, "maxSkew": 4})
    draft_run = drafts.run(draft, user)
    sweep = sweeps.start(scenario, scenario.head(), {"type": "skew", "workload": WORKLOAD, "index": 0,
                                                     "maxSkew": "1,2", "minDomains": "none,5"}, user)
    preemption = example(team, user, "preemption")
    preempt_run = services.queue_run(preemption, preemption.head(), user=user)
    ApiToken.create(user, "a laptop with a rather long name for a token")
    _, share_token = ShareLink.create(scenario, user)
    wait_for_runs()

    browser_log_in(page, live_server, "narrow", "narrow-pass-1")
    overflowing, failed = [], []
    # every page's own resources load: stylesheet, scripts, icon, htmx fragments
    page.on("response", lambda r: r.status >= 400 and failed.append(f"{r.status} {r.url}"))
    for width, height in VIEWPORTS:
        page.set_viewport_size({"width": width, "height": height})
        for name, url in pages(scenario, run, draft_run, sweep, preempt_run, share_token):
            page.goto(live_server.url + url)
            page.wait_for_load_state("networkidle")  # the scenario page loads its gated-pods panel by htmx
            scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            if scroll > inner:
                overflowing.append(f"{name} at {width}px: {scroll} > {inner}")
            page.screenshot(path=str(artifacts / f"narrow-{name}-{width}.png"), full_page=True)
    assert overflowing == []
    assert failed == []


def test_the_filter_table_scrolls_in_its_own_focusable_region(page, live_server, celery_worker_proc):
    user = make_user("keys", password="keys-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="viewer")
    scenario = example(team, user, "min-domains")
    run = services.queue_run(scenario, scenario.head(), user=user)
    wait_for_runs()

    page.set_viewport_size({"width": 390, "height": 844})
    browser_log_in(page, live_server, "keys", "keys-pass-1")
    page.goto(f"{live_server.url}/runs/{run.pk}/pods/{PENDING_POD}/")
    region = page.get_by_role("region", name="Filter, last cycle")
    assert region.evaluate("el => el.scrollWidth > el.clientWidth")  # too wide for 390 px: it scrolls …
    region.focus()
    for _ in range(20):  # … by keyboard too (wait_for_function would need eval, which the CSP forbids)
        page.keyboard.press("ArrowRight")
        if region.evaluate("el => el.scrollLeft") > 0:
            break
    assert region.evaluate("el => el.scrollLeft") > 0
