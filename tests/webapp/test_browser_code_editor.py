"""A real browser uses the draft's code editor: line numbers and YAML colours, typed text stored and kept
across a reload, the engine's error marked at its line; one editor on the page, the textarea behind it."""

import pytest

from webapp.scenarios import services
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Draft, Membership, Team

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = [1280, 390]


def type_at_end(page, text):
    page.locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text(text)


@pytest.mark.parametrize("width", WIDTHS)
def test_it_numbers_lines_marks_the_error_and_keeps_typed_text(page, live_server, artifacts, width):
    user = make_user("coder", password="coder-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="editor")
    text = (EXAMPLES_DIR / "min-domains.yaml").read_text()
    scenario = services.create_scenario(team=team, name="Min domains", author=user, manifests=text)

    page.set_viewport_size({"width": width, "height": 900})
    browser_log_in(page, live_server, "coder", "coder-pass-1")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/draft/")

    # One editor: CodeMirror stands in for the manifests textarea, which stays (hidden) in the form.
    assert page.locator(".cm-editor").count() == 1
    assert page.locator("#id_draft_manifests").is_hidden()
    gutter = page.locator(".cm-lineNumbers")
    assert gutter.get_by_text("1", exact=True).count() == 1  # the first line's number
    assert page.locator(".cm-line span").count() > 0  # keys and values are coloured tokens

    # A broken line: the engine's verdict names its line and the editor marks that line.
    type_at_end(page, ("" if text.endswith("\n") else "\n") + "kind: a: b")
    page.locator("#editor-check.bad").wait_for()
    assert "line" in page.locator("#editor-check").inner_text()
    marked = page.locator(".cm-error-line")
    marked.wait_for()
    assert marked.inner_text() == "kind: a: b"
    page.screenshot(path=str(artifacts / f"draft-code-editor-error-{width}.png"), full_page=True)

    # The typed text was stored in the draft: a reload shows it again.
    page.get_by_text("stored in the draft").wait_for()
    assert "kind: a: b" in Draft.objects.get().manifests
    page.reload()
    assert "kind: a: b" in page.locator("#id_draft_manifests").input_value()
    page.locator(".cm-content").click()
    page.keyboard.press("Control+End")  # the editor draws the lines in view: go to the typed one
    assert page.locator(".cm-error-line").inner_text() == "kind: a: b"


@pytest.mark.parametrize("width", WIDTHS)
def test_a_refused_file_on_the_scenario_page_opens_in_the_one_editor_with_its_line_marked(
        page, live_server, artifacts, tmp_path, width):
    user = make_user("filer", password="filer-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="editor")
    text = (EXAMPLES_DIR / "min-domains.yaml").read_text()
    scenario = services.create_scenario(team=team, name="Min domains", author=user, manifests=text)
    page.set_viewport_size({"width": width, "height": 900})
    browser_log_in(page, live_server, "filer", "filer-pass-1")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")

    # The scenario page has no second text box: it reads, takes a file, and leads to the draft's editor.
    manifests = page.locator("section[aria-labelledby=manifests-h]")
    assert manifests.locator("textarea").count() == 0 and manifests.locator(".cm-editor").count() == 0
    broken = tmp_path / "prod-dump.yaml"
    broken.write_text(text + "kind: a: b\n")
    page.locator("#id_upload").set_input_files(str(broken))
    page.get_by_role("button", name="Save the file as r2").click()
    kept = page.locator("#kept-in-draft")
    kept.wait_for()
    assert "prod-dump.yaml" in manifests.inner_text()
    page.screenshot(path=str(artifacts / f"scenario-refused-file-{width}.png"), full_page=True)

    kept.get_by_role("link", name="your draft").click()
    page.locator("#editor-check.bad").wait_for()
    page.locator(".cm-content").click()
    page.keyboard.press("Control+End")
    assert page.locator(".cm-error-line").inner_text() == "kind: a: b"


@pytest.mark.parametrize("width", WIDTHS)
def test_an_error_naming_an_object_and_field_marks_that_fields_line(page, live_server, width):
    user = make_user("fielder", password="fielder-pass-1")
    team = Team.objects.create(name="demo")
    Membership.objects.create(team=team, user=user, role="editor")
    text = (EXAMPLES_DIR / "min-domains.yaml").read_text()
    scenario = services.create_scenario(team=team, name="Min domains", author=user, manifests=text)
    page.set_viewport_size({"width": width, "height": 900})
    browser_log_in(page, live_server, "fielder", "fielder-pass-1")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/draft/")

    page.evaluate("""() => {  // maxSkew 2 → 0, which the API server refuses (no line in its message)
        const view = document.getElementById("id_draft_manifests").codeEditor;
        const at = view.state.doc.toString().indexOf("maxSkew: 2");
        view.dispatch({changes: {from: at + 9, to: at + 10, insert: "0"}, selection: {anchor: at}, scrollIntoView: true});
    }""")
    check = page.locator("#editor-check.bad")
    check.wait_for()
    assert "maxSkew" in check.inner_text() and "line" not in check.inner_text()
    page.evaluate("""(n) => {  // bring the named line into view (the editor draws the lines in view)
        const view = document.getElementById("id_draft_manifests").codeEditor;
        view.dispatch({selection: {anchor: view.state.doc.line(n).from}, scrollIntoView: true});
    }""", int(check.get_attribute("data-line")))
    marked = page.locator(".cm-error-line")
    marked.wait_for()
    assert marked.inner_text().strip() == "maxSkew: 0"
