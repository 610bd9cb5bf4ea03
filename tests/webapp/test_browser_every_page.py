"""Every page of the app in real Chromium, at desktop width and at 390 px: axe-core (vendored in
static/vendor/axe-core) finds no serious or critical accessibility violation, and a screenshot of each page is
written to test-artifacts/pages/."""

from pathlib import Path
from unittest import mock

import pytest

from webapp.scenarios import analyses, drafts, services, sweeps, tasks
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.manifests import edits
from webapp.scenarios.models import Membership, Run, ShareLink, Team

from .base import browser_log_in, make_user

pytestmark = pytest.mark.django_db(transaction=True)
AXE = Path(__file__).resolve().parents[2] / "static" / "vendor" / "axe-core" / "axe.min.js"
WIDTHS = (1280, 390)
SERIOUS = """async () => {
  const found = await axe.run(document, {resultTypes: ["violations"]});
  return found.violations.filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => `${v.id} (${v.impact}): ${v.help} — ` + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | "));
}"""


def example(team, user, name):
    return services.create_scenario(team=team, name=name.replace("-", " ").capitalize(), author=user,
                                    manifests=(EXAMPLES_DIR / f"{name}.yaml").read_text())


def finished_run(scenario, user):
    run = Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=user)
    tasks.execute_run(run.pk)
    return Run.objects.get(pk=run.pk)


def finished_analysis(scenario, user, kind, spec):
    # the parts run here, one at a time: none is sent to the session's worker, which would race us
    with mock.patch("webapp.scenarios.tasks._send"):
        analysis = analyses.start(scenario, scenario.head(), kind, spec, 0, user)
        tasks.plan_analysis.run(analysis.pk)
        for part in analysis.parts.all():
            tasks.run_analysis_part.run(part.pk)
    analysis.refresh_from_db()
    if analysis.verifying_run_id:
        tasks.execute_run(analysis.verifying_run_id)
    assert analysis.status == "succeeded", analysis.error
    return analysis


@pytest.fixture
def every_page(settings):
    settings.RUN_DETAIL = True  # every pod's explanation kept: no page waits for a worker
    owner = make_user("walker", password="walker-pass-1")
    team = Team.objects.create(name="walkers")
    Membership.objects.create(team=team, user=owner, role="owner")
    md, pre, gated = (example(team, owner, n) for n in ("min-domains", "preemption", "gated-pods"))
    md_run, pre_run, gated_run = (finished_run(s, owner) for s in (md, pre, gated))
    draft = drafts.get_or_start(md, owner)
    drafts.apply(draft, {"op": "set_spread", "workload": "ReplicaSet/default/api-5b7d9c8f4", "index": 0,
                         "minDomains": 3})
    draft_run = drafts.run(draft, owner)
    tasks.execute_run(draft_run.pk)
    sweep = sweeps.start(md, md.head(), {"type": "zones"}, owner)
    grid = sweeps.start(md, md.head(), {"type": "skew", "workload": "ReplicaSet/default/api-5b7d9c8f4",
                                        "maxSkew": [1, 2, 3], "minDomains": ["none", "3", "5"]}, owner)
    for cell in list(sweep.runs.all()) + list(grid.runs.all()):
        tasks.execute_run(cell.pk)
    answers = {kind: finished_analysis(md, owner, kind, spec) for kind, spec in (
        ("capacity", {"extraZones": ["eu-west-1d", "eu-west-1e"]}), ("zones", {}), ("tuning", {}))}
    services.save_revision(md, manifests=edits.apply_edit(md.head().manifests, {"op": "cordon", "node": "node-a"}),
                           author=owner, message="cordon node-a")
    _, token = ShareLink.create(pre, owner)
    pending = next(r["pod"] for r in md_run.result["pods"] if r["outcome"] != "Scheduled")
    victim = next(e["pod"] for e in pre_run.result["events"] if e["reason"] == "Preempted")
    gated_pod = next(r["pod"] for r in gated_run.result["pods"] if r["outcome"] == "Gated")
    node = md_run.result["nodes"][0]["name"]
    pages = {
        "scenario-list": "/scenarios/", "scenario-new": "/scenarios/new/",
        "scenario": f"/scenarios/{md.pk}/", "revision": f"/scenarios/{md.pk}/revisions/2/",
        "draft": f"/scenarios/{md.pk}/draft/", "activity": f"/scenarios/{md.pk}/activity/",
        "fork": f"/scenarios/{md.pk}/fork/", "sweeps": f"/scenarios/{md.pk}/sweeps/",
        "sweep": f"/sweeps/{sweep.pk}/", "sweep-grid": f"/sweeps/{grid.pk}/",
        "answers": f"/scenarios/{md.pk}/answers/", **{f"answer-{k}": f"/answers/{a.pk}/" for k, a in answers.items()},
        "compare": f"/scenarios/{md.pk}/compare/?a={md_run.pk}&b={draft_run.pk}",
        "run": f"/runs/{md_run.pk}/", "run-topology": f"/runs/{md_run.pk}/topology/",
        "run-topology-step": f"/runs/{md_run.pk}/topology/?step=3", "run-nodes": f"/runs/{md_run.pk}/nodes/",
        "run-nodes-by-zone": f"/runs/{md_run.pk}/nodes/?group=topology.kubernetes.io/zone",
        "run-node": f"/runs/{md_run.pk}/nodes/{node}/", "run-pod": f"/runs/{md_run.pk}/pod/{pending}/",
        "run-timeline": f"/runs/{md_run.pk}/timeline/", "preemption-run": f"/runs/{pre_run.pk}/",
        "preempted-pod": f"/runs/{pre_run.pk}/pod/{victim}/",
        "gated-pods": f"/scenarios/{gated.pk}/pods/",
        "pod-update": f"/scenarios/{gated.pk}/pods/{gated_pod.replace('/', '/', 1)}/update/",
        "teams": "/teams/", "team": f"/teams/{team.pk}/", "tokens": "/tokens/",
        "shared-scenario": f"/s/{token}/", "shared-run": f"/s/{token}/runs/{pre_run.pk}/",
        "shared-topology": f"/s/{token}/runs/{pre_run.pk}/topology/",
        "not-found": "/scenarios/999999/",
    }
    return owner, pages


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_has_no_serious_accessibility_violation(browser, live_server, artifacts, every_page, width):
    _, pages = every_page
    context = browser.new_context(viewport={"width": width, "height": 900}, bypass_csp=True)
    page = context.new_page()
    shots = artifacts / "pages"
    shots.mkdir(exist_ok=True)
    found = {}
    try:
        page.goto(f"{live_server.url}/login/")
        page.add_script_tag(path=str(AXE))
        found["login"] = page.evaluate(SERIOUS)
        page.screenshot(path=str(shots / f"login-{width}.png"), full_page=True)
        browser_log_in(page, live_server, "walker", "walker-pass-1")
        for name, path in pages.items():
            response = page.goto(live_server.url + path)
            assert response.status < 500, (name, response.status)
            assert (response.status == 404) == (name == "not-found"), (name, response.status)
            page.wait_for_load_state("networkidle")
            page.add_script_tag(path=str(AXE))
            found[name] = page.evaluate(SERIOUS)
            page.screenshot(path=str(shots / f"{name}-{width}.png"), full_page=True)
    finally:
        context.close()
    problems = {name: v for name, v in found.items() if v}
    assert not problems, "\n".join(f"{name}: {line}" for name, lines in problems.items() for line in lines)
