"""Uploading a big cluster shows its progress: the megabytes sent, then that the server is reading them, and
the page that follows says what was read (on a slow link, at a desktop's and a phone's width)."""

import re

import pytest

from webapp.scenarios.models import Membership, Scenario, Team

from .base import TWO_PODS, browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1280, 390])
def test_a_big_upload_shows_its_progress_and_then_what_was_read(page, live_server, tmp_path, width):
    user = make_user("big", password="big-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="editor")
    dump = tmp_path / "prod-dump.yaml"
    dump.write_text(TWO_PODS + "".join(f"# padding line {i:07d} {'x' * 100}\n" for i in range(40_000)))  # ~4.6 MB
    page.set_viewport_size({"width": width, "height": 900})
    browser_log_in(page, live_server, "big", "big-pass-1")
    page.goto(f"{live_server.url}/scenarios/new/")
    page.get_by_label("Name").fill("Prod")
    page.locator("#id_upload").set_input_files(str(dump))

    cdp = page.context.new_cdp_session(page)  # a 2 MB/s uplink, so that the upload takes a while
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 20, "downloadThroughput": -1,
                                                  "uploadThroughput": 2 * 1024 * 1024})
    page.get_by_role("button", name="Create scenario").click()
    sending = page.locator(".upload-progress-text", has_text=re.compile(r"Sending \d+\.\d MB of 4\.\d MB"))
    sending.wait_for(timeout=20_000)
    assert page.locator(".upload-progress").is_visible()
    page.wait_for_url(re.compile(r".*/scenarios/\d+/$"), timeout=60_000)
    assert "Scenario “Prod” created from prod-dump.yaml: read 1 Node, 2 Pod" in page.locator(".messages").inner_text()
    assert Scenario.objects.get(name="Prod").head().manifests.startswith(TWO_PODS)


def test_a_refused_upload_through_the_page_shows_its_error_in_place(page, live_server, tmp_path):
    user = make_user("bad", password="bad-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="editor")
    broken = tmp_path / "broken.yaml"
    broken.write_text(TWO_PODS + "  bad: [unclosed\n")
    browser_log_in(page, live_server, "bad", "bad-pass-1")
    page.goto(f"{live_server.url}/scenarios/new/")
    page.get_by_label("Name").fill("Broken")
    page.locator("#id_upload").set_input_files(str(broken))
    page.get_by_role("button", name="Create scenario").click()
    error = page.locator(".has-error .error").first
    error.wait_for()
    assert re.search(r"broken\.yaml:? .*line \d+", error.inner_text())
    assert page.url.endswith("/scenarios/new/")
    assert "bad: [unclosed" in page.locator("#id_manifests").input_value()  # kept in the editor
    assert page.locator(".cm-editor").count() == 1  # the code editor over it again after the swap
    assert not Scenario.objects.filter(name="Broken").exists()
