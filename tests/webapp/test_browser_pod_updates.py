"""A real browser proposes a rejected update of a gated pod (loosened affinity), then an accepted one
(the last gate removed and nodeSelector tightened) and sees where the pod lands after the real worker ran it."""

import pytest

from webapp.scenarios import services
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Membership, PodUpdateAttempt, Team

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)

POD = "default/db-9a1b3c5d7-p1q2r"
AFFINITY = """\
nodeAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms:
    - matchExpressions:
      - key: topology.kubernetes.io/zone
        operator: In
        values: [eu-west-1a, eu-west-1b, eu-west-1c{extra}]
"""


def test_it_proposes_a_rejected_and_an_accepted_pod_update(page, live_server, celery_worker_proc, artifacts):
    user = make_user("gatekeeper", password="gate-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="editor")
    scenario = services.create_scenario(team=team, name="Gated pods", author=user,
                                        manifests=(EXAMPLES_DIR / "gated-pods.yaml").read_text())

    browser_log_in(page, live_server, "gatekeeper", "gate-pass-1")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    panel = page.locator("#gated-pods-table")  # loaded by htmx into the scenario page
    panel.wait_for()
    assert panel.locator("tbody tr").count() == 3
    page.locator("#gated-h").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "pod-updates-panel.png"))

    page.get_by_role("link", name=f"Propose update of {POD}").click()
    assert page.url.endswith(f"/scenarios/{scenario.pk}/pods/default/db-9a1b3c5d7-p1q2r/update/")

    # Loosen the required affinity: the apiserver refuses, nothing changes.
    page.get_by_label("affinity (YAML)").fill(AFFINITY.format(extra=", eu-west-1d"))
    page.get_by_role("button", name="Propose update").click()
    result = page.locator("#pod-update-result")
    result.wait_for()
    text = result.inner_text()
    assert "Rejected — nothing changed" in text
    assert "nodeSelectorTerms[0]: FieldValueInvalid: only additions are allowed" in text
    assert "changed matchExpressions[0]" in text and "loosened" in text
    page.screenshot(path=str(artifacts / "pod-update-rejected.png"), full_page=True)
    scenario.refresh_from_db()
    assert scenario.current_revision == 1

    # Remove the last gate and tighten with a nodeSelector: accepted, simulated by the worker.
    page.get_by_label("affinity (YAML)").fill(AFFINITY.format(extra=""))
    page.get_by_label("example.com/placement-decision").check()
    page.get_by_label("nodeSelector").fill("disktype=ssd")
    page.get_by_role("button", name="Propose update").click()
    page.get_by_role("heading", name="Accepted — applied as revision r2").wait_for()
    page.locator("#pod-lands").wait_for(timeout=60_000)  # the fragment polls until the run finished
    assert page.locator("#pod-update-run-status").inner_text() == "Succeeded"
    lands = " ".join(page.locator("#pod-lands").inner_text().split())
    # disktype=ssd leaves node-a and node-b, which score the same: the seeded tie-break picks one
    assert "Scheduled on node node-a" in lands or "Scheduled on node node-b" in lands
    page.screenshot(path=str(artifacts / "pod-update-accepted.png"), full_page=True)
    rows = page.locator(".pod-update-attempts tbody tr")
    assert rows.count() == 2
    assert "Accepted" in rows.nth(0).inner_text() and "Rejected" in rows.nth(1).inner_text()

    scenario.refresh_from_db()
    assert scenario.current_revision == 2
    assert [a.allowed for a in PodUpdateAttempt.objects.order_by("pk")] == [False, True]

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/pods/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(artifacts / "pod-updates-narrow.png"), full_page=True)
