"""A change's message appears beside the control that made it, is read out, and keyboard focus stays where
the person was: on the button they pressed, or on the message when that button is gone (desktop and phone)."""

import pytest

from webapp.scenarios import services
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Membership, Team

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)

API = "ReplicaSet/default/api-5b7d9c8f4"


def in_viewport(page, selector):
    return page.evaluate("""(s) => { const r = document.querySelector(s).getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }""", selector)


def focused(page, expected):
    """The id of the focused element once the swap has settled (or what it is after 2 s)."""
    try:
        page.wait_for_function("(id) => document.activeElement.id === id", arg=expected, timeout=2000)
    except Exception:  # (the assertion below shows what has the focus instead)
        pass
    return page.evaluate("() => document.activeElement.id || document.activeElement.outerHTML.slice(0, 200)")


@pytest.mark.parametrize("width", [1280, 390])
def test_messages_sit_beside_their_control_and_focus_stays(page, live_server, artifacts, width):
    user = make_user("msgs", password="msgs-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="editor")
    scenario = services.create_scenario(team=team, name="Min domains", author=user,
                                        manifests=(EXAMPLES_DIR / "min-domains.yaml").read_text())
    page.set_viewport_size({"width": width, "height": 800})
    browser_log_in(page, live_server, "msgs", "msgs-pass-1")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/draft/")

    # A refused edit: the error is in the constraint's own card, on screen, and focus is still on Apply.
    page.locator("#md-1-0").fill("three")
    page.locator("#quick-spread-1-0-submit").focus()
    page.keyboard.press("Enter")
    error = page.locator("#quick-spread-1-0 #edit-error")
    error.wait_for()
    assert "Edit not applied" in error.inner_text() and "minDomains" in error.inner_text()
    assert error.get_attribute("role") == "alert"
    assert in_viewport(page, "#quick-spread-1-0 #edit-error")
    assert focused(page, "quick-spread-1-0-submit") == "quick-spread-1-0-submit"
    assert page.locator("#md-1-0").input_value() == "three"  # what was typed is there to correct
    page.screenshot(path=str(artifacts / f"edit-message-error-{width}.png"))

    # A quick edit far down the page: its message is beside its button, read out, and nothing jumped.
    priority = page.locator("#quick-priority")
    priority.get_by_label("Pod or workload").select_option(API)
    priority.get_by_label("PriorityClass").select_option("system-cluster-critical")
    page.locator("#quick-priority-submit").click()
    ok = page.locator("#quick-priority #edit-ok")  # (there once the page has placed it)
    ok.wait_for()
    assert ok.inner_text() == f"Applied: Priority of {API} set to system-cluster-critical."
    assert in_viewport(page, "#quick-priority #edit-ok") and in_viewport(page, "#quick-priority-submit")
    assert focused(page, "quick-priority-submit") == "quick-priority-submit"
    assert page.locator("#announce").inner_text() == ok.inner_text()
    assert page.locator("#edit-error").count() == 0  # the earlier error went with the change
    page.screenshot(path=str(artifacts / f"edit-message-ok-{width}.png"))

    # The control is gone after the change (the constraint was removed): the message takes the focus.
    page.locator(f"button[aria-label='Remove constraint 0 of {API}']").click()
    page.locator("#edit-ok", has_text=f"Applied: Removed spread constraint 0 of {API}.").wait_for()
    assert focused(page, "edit-ok") == "edit-ok"
    assert in_viewport(page, "#edit-ok")

    # Undo: the message is just below the Undo/Redo row, focus on Undo (still enabled: two edits left).
    page.locator("#undo-button").click()
    page.locator("#edit-ok", has_text=f"Undid: Removed spread constraint 0 of {API}.").wait_for()
    page.locator("#edit-history .actions + #edit-ok").wait_for()
    assert focused(page, "undo-button") == "undo-button"
