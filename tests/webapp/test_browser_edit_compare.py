"""A real browser edits maxSkew through a quick edit, runs the draft, sees the outcome change, compares."""

import pytest

from webapp.scenarios import services
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Membership, Run, Team

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_edits_runs_and_compares_a_draft(page, live_server, celery_worker_proc, artifacts):
    user = make_user("editor", password="editor-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="editor")
    scenario = services.create_scenario(team=team, name="Min domains", author=user,
                                        manifests=(EXAMPLES_DIR / "min-domains.yaml").read_text())

    page.set_viewport_size({"width": 1280, "height": 900})
    browser_log_in(page, live_server, "editor", "editor-pass-1")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.get_by_role("link", name="Edit a draft").click()
    assert page.locator("#editor-check").inner_text().startswith("valid: 3 nodes, 10 pods")

    # Quick edit: maxSkew 2 → 4 on the ReplicaSet's (and its pods') zone constraint.
    quick = page.locator("form.quick").first
    quick.get_by_label("maxSkew").fill("4")
    quick.get_by_role("button", name="Apply").click()
    page.locator("#edit-ok", has_text="Applied: maxSkew 4").wait_for()

    # Live validation names the object and field while typing.
    editor = page.locator("#id_draft_manifests")  # the form's field, which the code editor keeps up to date
    # (the swapped-in field gets its code editor once htmx has settled, a moment after the message shows)
    page.wait_for_function("() => document.getElementById('id_draft_manifests').codeEditor !== undefined")
    text = editor.input_value()
    assert "maxSkew: 4" in text
    page.evaluate("""() => {  // a change in the code editor, as typing makes one
        const view = document.getElementById("id_draft_manifests").codeEditor;
        const at = view.state.doc.toString().indexOf("maxSkew: 4");
        view.dispatch({changes: {from: at + 9, to: at + 10, insert: "0"}});
    }""")
    page.locator("#editor-check.bad").wait_for(timeout=10_000)
    assert "maxSkew" in page.locator("#editor-check").inner_text()
    # Typed text is stored as typed, broken or not: it is there after a reload, and Undo takes it back.
    page.locator("#editor-check .autosaved").wait_for(timeout=10_000)
    page.goto(page.url)
    assert "maxSkew: 0" in page.locator("#id_draft_manifests").input_value()
    assert page.locator("#edit-history li").all_inner_texts() == ["maxSkew 4 on ReplicaSet/default/api-5b7d9c8f4",
                                                                  "Edited the YAML"]
    page.get_by_role("button", name="Undo").click()
    page.locator("#edit-ok", has_text="Undid: Edited the YAML.").wait_for()
    assert "maxSkew: 4" in page.locator("#id_draft_manifests").input_value()

    # The quick edit ran the draft by itself: the panel fills in without pressing "Run draft".
    page.locator("#draft-diff-summary").wait_for(timeout=60_000)
    page.screenshot(path=str(artifacts / "draft-1280.png"), full_page=True)
    summary = page.locator("#draft-diff-summary").inner_text()
    assert summary.startswith("4 newly scheduled · 0 newly pending"), summary
    cards = page.locator(".side-by-side .card")
    assert "6 scheduled · 4 pending" in cards.nth(0).inner_text()
    assert "10 scheduled · 0 pending" in cards.nth(1).inner_text()
    page.set_viewport_size({"width": 390, "height": 800})
    page.screenshot(path=str(artifacts / "draft-390.png"), full_page=True)

    page.get_by_role("link", name="compare in detail").click()
    page.locator("#compare-summary").wait_for()
    assert "4 got scheduled" in page.locator("#compare-summary").inner_text()
    assert page.locator("#compare-pods tbody tr").count() == 4
    page.screenshot(path=str(artifacts / "compare-390.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=str(artifacts / "compare-1280.png"), full_page=True)
    assert Run.objects.filter(label="draft", status="succeeded").count() == 1
