"""A real browser uses the draft page's quick edits: priority from a class, remove a spread constraint,
with text typed into the YAML editor kept; then the draft runs on the real worker."""

import pytest

from webapp.scenarios import services
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Draft, Membership, Team

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1280, 390])  # a desktop and a phone
def test_it_sets_a_priority_and_removes_a_constraint(page, live_server, celery_worker_proc, artifacts, width):
    user = make_user("quick", password="quick-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="editor")
    scenario = services.create_scenario(team=team, name="Min domains", author=user,
                                        manifests=(EXAMPLES_DIR / "min-domains.yaml").read_text())

    page.set_viewport_size({"width": width, "height": 900})
    browser_log_in(page, live_server, "quick", "quick-pass-1")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/draft/")

    # Typed but not stored: the quick edit below must not throw it away.
    page.evaluate("""() => {  // a change in the code editor, as typing makes one
        const view = document.getElementById("id_draft_manifests").codeEditor;
        const at = view.state.doc.toString().indexOf("m5.xlarge");
        view.dispatch({changes: {from: at, to: at + 2, insert: "m6i"}});
    }""")

    priority = page.locator("form", has=page.get_by_role("heading", name="Priority"))
    priority.get_by_label("Pod or workload").select_option("ReplicaSet/default/api-5b7d9c8f4")
    priority.get_by_label("PriorityClass").select_option("system-cluster-critical")
    priority.get_by_role("button", name="Set priority").click()
    page.locator("#edit-ok", has_text="Applied: Priority of ReplicaSet/default/api-5b7d9c8f4 set to system-cluster-critical.").wait_for()
    text = page.locator("#id_draft_manifests").input_value()
    assert "priorityClassName: system-cluster-critical" in text
    assert "instance-type: m6i.xlarge" in text

    page.get_by_role("button", name="Remove constraint 0 of ReplicaSet/default/api-5b7d9c8f4").click()
    page.locator("#edit-ok", has_text="Applied: Removed spread constraint 0 of ReplicaSet/default/api-5b7d9c8f4.").wait_for()
    assert "topologySpreadConstraints" not in page.locator("#id_draft_manifests").input_value()
    assert page.get_by_role("button", name="Remove constraint 0 of ReplicaSet/default/api-5b7d9c8f4").count() == 0
    assert [e["op"] for e in Draft.objects.get().edits] == ["text", "set_priority", "remove_spread"]
    assert page.locator("#edit-count").inner_text() == "3 edits"  # the page head follows the swapped body
    page.screenshot(path=str(artifacts / f"quick-edits-{width}.png"), full_page=True)

    page.get_by_role("button", name="Run draft").click()
    page.locator("#draft-diff-summary").wait_for(timeout=60_000)
    summary = page.locator("#draft-diff-summary").inner_text()
    assert summary.startswith("4 newly scheduled · 0 newly pending"), summary
