"""A real browser makes a quick edit of a draft whose run is queued ahead of its new text (as a large draft's is):
the runs panel fills in with the engine's numbers for the edited text, on the real worker."""

import pytest
from django.conf import settings
from django.test import override_settings

from tests.bench.generate import generate, to_yaml
from webapp.scenarios import compare, engine, services
from webapp.scenarios.models import Draft, Membership, Run, Team

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1280, 390])  # a desktop and a phone
def test_a_quick_edit_runs_ahead_and_the_panel_shows_the_edited_texts_counts(page, live_server, celery_worker_proc,
                                                                             artifacts, width):
    user = make_user("ahead", password="ahead-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="editor")
    scenario = services.create_scenario(team=team, name="Generated", author=user,
                                        manifests=to_yaml(generate("30x90", seed=1).objects))
    page.set_viewport_size({"width": width, "height": 900})
    browser_log_in(page, live_server, "ahead", "ahead-pass-1")
    with override_settings(EDIT_RUN_AHEAD_MIN_BYTES=0):  # (the live server runs in this process)
        page.goto(f"{live_server.url}/scenarios/{scenario.pk}/draft/")
        card = page.locator(".quick-card", has=page.get_by_role("heading", name="app=frontend · constraint 0"))
        card.get_by_label("maxSkew").fill("1")
        card.get_by_role("button", name="Apply").click()
        page.locator("#edit-ok", has_text="Applied: maxSkew 1 on app=frontend").wait_for()
        page.locator("#draft-diff-summary").wait_for(timeout=60_000)

    run = Run.objects.get(source=Run.Source.DRAFT)
    draft = Draft.objects.get(scenario=scenario)
    assert (run.status, run.manifests, "ahead" in run.params) == (Run.Status.SUCCEEDED, draft.manifests, True)
    expected = compare.counts(engine.simulate(draft.manifests, seed=0, detail=settings.RUN_DETAIL))
    draft_card = page.locator(".side-by-side .card").nth(1).inner_text()
    assert f"{expected['scheduled']} scheduled · {expected['pending']} pending" in draft_card, draft_card
    page.screenshot(path=str(artifacts / f"draft-run-ahead-{width}.png"), full_page=True)
