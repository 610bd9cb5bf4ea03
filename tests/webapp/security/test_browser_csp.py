"""In a real browser the Content-Security-Policy blocks nothing our pages use (htmx, app.js, styles)."""

import pytest

from webapp.scenarios import engine, services
from webapp.scenarios.models import Membership, Run, Team

from ..base import TWO_PODS, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_loads_every_kind_of_page_without_csp_violations(page, live_server, artifacts):
    user = make_user("csp", password="csp-pass-123")
    team = Team.objects.create(name="csp")
    Membership.objects.create(team=team, user=user, role="owner")
    scenario = services.create_scenario(team=team, name="CSP", manifests=TWO_PODS, author=user)
    run = Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=user, status="succeeded",
                             result=engine.simulate(TWO_PODS))
    violations = []
    page.on("console", lambda m: violations.append(f"{page.url}: {m.text}") if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda e: violations.append(str(e)))

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("csp")
    page.get_by_label("Password").fill("csp-pass-123")
    page.get_by_role("button", name="Log in").click()
    for path in (f"/scenarios/{scenario.pk}/", f"/scenarios/{scenario.pk}/draft/", f"/runs/{run.pk}/",
                 f"/runs/{run.pk}/topology/", f"/runs/{run.pk}/timeline/", f"/scenarios/{scenario.pk}/pods/",
                 "/tokens/", "/api/docs/"):
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
    assert page.locator("#swagger-ui .info").count() == 1  # Swagger UI rendered from its script file
    page.screenshot(path=str(artifacts / "security-csp-api-docs.png"))
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/draft/")
    assert page.evaluate("typeof htmx") == "object"
    assert page.evaluate("htmx.config.allowEval") is False
    # The delete confirmation is a data-confirm handled by app.js (no inline onsubmit); dismissing keeps it.
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.locator(".danger-zone form button[type=submit]").click()
    assert dialogs and dialogs[0].startswith("Delete this scenario?")
    scenario.refresh_from_db()
    assert scenario.deleted_at is None
    assert violations == []
