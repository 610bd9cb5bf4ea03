"""A real browser saves a new revision of a scenario too large for a text box by uploading a file."""

import pytest
from django.test import override_settings

from webapp.scenarios import services
from webapp.scenarios.models import Membership, Revision, Team

from .base import TWO_PODS, browser_log_in, make_user
from .test_large_manifests_pages import LONG

pytestmark = pytest.mark.django_db(transaction=True)


@override_settings(EDITOR_MAX_BYTES=1000)
@pytest.mark.parametrize("width", [1280, 390])  # a desktop and a phone
def test_it_saves_a_large_scenario_from_an_uploaded_file(page, live_server, artifacts, width, tmp_path):
    user = make_user("uploader", password="uploader-pass-1")
    team = Team.objects.create(name="big")
    Membership.objects.create(team=team, user=user, role="owner")
    scenario = services.create_scenario(team=team, name="Big", author=user, manifests=LONG)
    page.set_viewport_size({"width": width, "height": 900})
    browser_log_in(page, live_server, "uploader", "uploader-pass-1")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    assert page.locator("#id_manifests").count() == 0
    assert "These manifests are" in page.locator("#manifests-too-large").inner_text()
    upload = tmp_path / "cluster.yaml"
    upload.write_text(TWO_PODS)
    page.locator("#id_upload").set_input_files(str(upload))
    page.get_by_label("What changed").fill("two pods")
    page.get_by_role("button", name="Save the file as r2").click()  # htmx posts the file (multipart)
    page.get_by_text("Saved revision 2.").wait_for()
    page.screenshot(path=str(artifacts / f"large-manifests-upload-{width}.png"), full_page=True)
    revision = Revision.objects.get(scenario=scenario, number=2)
    assert (revision.manifests, revision.message) == (TWO_PODS, "two pods")
    assert page.locator("#manifests-too-large").count() == 0  # small again: shown whole
    assert "web-2" in page.locator("section[aria-labelledby=manifests-h] pre").inner_text()
