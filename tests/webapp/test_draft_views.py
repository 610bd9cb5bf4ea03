import html
import re
from datetime import timedelta
from unittest import mock

from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from webapp.scenarios import drafts, engine, tasks
from webapp.scenarios.models import Draft, Run

from webapp.scenarios import services

from .base import BAD_SKEW, SMALL, SPREAD_AND_CLASS, TWO_PODS, BaseTestCase


class DraftViewsTestCase(BaseTestCase):
    def setUp(self):
        self.client.force_login(self.editor)
        self.base = f"/scenarios/{self.scenario.pk}/draft/"

    def test_it_starts_a_draft_from_the_current_revision(self):
        r = self.client.get(self.base)
        self.assertContains(r, "Draft of Small cluster")
        self.assertContains(r, "valid: 1 nodes, 1 pods (1 pending, 0 gated)")
        self.assertContains(r, f'hx-post="{self.base}autosave/" hx-trigger="input changed delay:800ms"')
        draft = Draft.objects.get()
        self.assertEqual((draft.author, draft.base_revision.number, draft.manifests), (self.editor, 1, SMALL))

    def test_it_validates_as_you_type_naming_object_and_field(self):
        r = self.client.post(self.base + "validate/", {"manifests": BAD_SKEW}, HTTP_HX_REQUEST="true")
        self.assertContains(r, "Not valid")
        self.assertContains(r, "Pod default/web-1")
        self.assertContains(r, "maxSkew")
        r = self.client.post(self.base + "validate/", {"manifests": TWO_PODS})
        self.assertContains(r, "valid: 1 nodes, 2 pods (2 pending, 0 gated)")

    def test_it_stores_the_text_without_js(self):
        self.client.get(self.base)
        r = self.client.post(self.base, {"manifests": TWO_PODS, "config": ""})
        self.assertRedirects(r, self.base)
        self.assertEqual(Draft.objects.get().manifests, TWO_PODS)

    def test_it_applies_a_quick_edit(self):
        r = self.client.post(self.base + "edit/", {"op": "cordon", "node": "node-a"}, HTTP_HX_REQUEST="true")
        self.assertContains(r, "Applied: Cordoned node-a.")
        self.assertIn("unschedulable: true", Draft.objects.get().manifests)

    def test_a_rejected_edit_is_a_200_fragment_naming_the_node(self):
        r = self.client.post(self.base + "edit/", {"op": "cordon", "node": "ghost"}, HTTP_HX_REQUEST="true")
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "Edit not applied — Node/ghost")
        self.assertEqual(Draft.objects.get().manifests, SMALL)

    def test_a_quick_edit_runs_the_draft_by_itself_beside_the_saved_revision(self):
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async") as send:
            with self.captureOnCommitCallbacks(execute=True):
                r = self.client.post(self.base + "edit/", {"op": "add_gate", "workload": "app=web", "name": "hold"})
        self.assertRedirects(r, self.base)
        self.assertEqual(send.call_count, 2)
        draft_run = Run.objects.get(label="draft")
        saved_run = Run.objects.get(label="")
        self.assertEqual((draft_run.revision.number, draft_run.created_by), (1, self.editor))
        self.assertIn("schedulingGates", draft_run.manifests)
        for run in (draft_run, saved_run):
            tasks.execute_run(run.pk)
        r = self.client.get(self.base)
        self.assertContains(r, "newly pending")
        self.assertContains(r, "default/web-1")

    def test_a_text_changed_after_a_quick_edit_is_validated_before_it_runs(self):
        # (a quick edit's own text is checked as it is written, and runs without a second check)
        draft = drafts.get_or_start(self.scenario, self.editor)
        drafts.apply(draft, {"op": "cordon", "node": "node-a"})
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            self.assertIn("unschedulable: true", drafts.run(draft, self.editor).manifests)
            drafts.set_text(draft, BAD_SKEW)
            with self.assertRaisesMessage(engine.ScenarioInvalid, "maxSkew"):
                drafts.run(draft, self.editor)
        self.assertEqual(Run.objects.filter(label="draft").count(), 1)

    def test_the_editor_shows_a_runs_counts_from_its_summary_without_reading_its_result(self):
        run = services.queue_run(self.scenario, self.scenario.head(), user=self.editor)
        tasks.execute_run(run.pk)
        self.assertEqual(Run.objects.get(pk=run.pk).summary["scheduled"], 1)
        with CaptureQueriesContext(connection) as queries:
            r = self.client.get(self.base)
        self.assertRegex(r.content.decode(), r'<span class="big ok-text">1</span> scheduled')
        read = [q["sql"] for q in queries.captured_queries if '"scenarios_run"."result"' in q["sql"]]
        self.assertEqual(read, [])
        Run.objects.filter(pk=run.pk).update(summary=None)  # a run stored before every run kept a summary
        r = self.client.get(self.base)
        self.assertRegex(r.content.decode(), r'<span class="big ok-text">1</span> scheduled')

    def test_the_editor_lists_the_first_changed_pods_and_sends_the_rest_to_the_compare_page(self):
        scenario = services.create_scenario(team=self.team, name="Two web pods", manifests=TWO_PODS,
                                            author=self.owner)
        base = f"/scenarios/{scenario.pk}/draft/"
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            with self.captureOnCommitCallbacks(execute=True):
                self.client.post(base + "edit/", {"op": "add_gate", "workload": "app=web", "name": "hold"})
        for run in Run.objects.filter(scenario=scenario):
            tasks.execute_run(run.pk)
        with mock.patch("webapp.front.views_edit.DRAFT_CHANGES_LISTED", 1):
            page = self.client.get(base).content.decode()
        self.assertIn("<strong>2</strong> newly pending", page)
        self.assertEqual(page.count('<td data-label="Draft">pending</td>'), 1)
        self.assertIn("The first 1 of 2 changed pods;", page)
        self.assertIn("compare in detail</a> lists them all.", page)
        page = self.client.get(base).content.decode()  # (200 listed: both, and no note)
        self.assertEqual(page.count('<td data-label="Draft">pending</td>'), 2)
        self.assertNotIn("changed pods;", page)

    def test_the_runs_panel_polls_until_both_runs_finish(self):
        self.client.post(self.base + "edit/", {"op": "cordon", "node": "node-a"})
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            with self.captureOnCommitCallbacks(execute=True):
                self.client.post(self.base + "run/")
        r = self.client.get(self.base + "runs/", headers={"HX-Request": "true"})
        self.assertNotContains(r, "<html")
        self.assertContains(r, 'id="draft-runs"')
        self.assertContains(r, 'hx-trigger="load, every 250ms"')  # (runs just queued: asked for at once, then often)
        Run.objects.update(created_at=timezone.now() - timedelta(seconds=11))
        r = self.client.get(self.base + "runs/", headers={"HX-Request": "true"})
        self.assertContains(r, 'hx-trigger="load, every 1s"')  # (runs that have gone on a while: once a second)
        for run in Run.objects.all():
            tasks.execute_run(run.pk)
        r = self.client.get(self.base + "runs/", headers={"HX-Request": "true"})
        self.assertNotContains(r, "hx-trigger")
        self.assertContains(r, "newly pending")

    def panel_poll_with_runs_queued(self):
        """The runs panel's poll as the editor's page names it, after an edit and "Run draft" queued the draft's
        run and the base revision's (no worker takes them)."""
        self.client.post(self.base + "edit/", {"op": "cordon", "node": "node-a"})
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            with self.captureOnCommitCallbacks(execute=True):
                self.client.post(self.base + "run/")
        return html.unescape(re.search(r'hx-get="([^"]+/draft/runs/\?seen=[^"]+)"',
                                       self.client.get(self.base).content.decode())[1])

    @override_settings(RUN_POLL_WAIT_MS=50)
    def test_the_runs_panels_poll_gets_no_content_until_what_it_shows_changes(self):
        poll = self.panel_poll_with_runs_queued()
        hx = {"HX-Request": "true"}
        self.assertEqual((self.client.get(poll, headers=hx).status_code, self.client.get(poll, headers=hx).content),
                         (204, b""))  # (both runs queued, as the page showed them)
        draft_run = Run.objects.filter(label="draft").latest("id")
        tasks.execute_run(draft_run.pk)
        r = self.client.get(poll, headers=hx)
        self.assertContains(r, f'<p class="counts" data-run="{draft_run.pk}">')  # (the draft's run finished)
        again = html.unescape(re.search(r'hx-get="([^"]+)"', r.content.decode())[1])
        self.assertEqual(self.client.get(again, headers=hx).status_code, 204)
        Run.objects.update(created_at=timezone.now() - timedelta(seconds=11))
        self.assertContains(self.client.get(again, headers=hx), 'hx-trigger="load, every 1s"')  # (its pace changed)

    @override_settings(RUN_POLL_WAIT_MS=60_000)
    def test_the_runs_panels_poll_is_answered_once_the_draft_runs_counts_are_stored(self):
        """A poll that finds nothing new waits for the run to move on and is answered then, with the counts; not
        with no content, leaving them to the poll after it."""
        poll = self.panel_poll_with_runs_queued()
        hx = {"HX-Request": "true"}
        draft_run = Run.objects.filter(label="draft").latest("id")
        waits = []

        def the_worker_runs_it(seconds):  # (the run finishes while the poll waits: the third time it looks)
            waits.append(seconds)
            if len(waits) == 3:
                tasks.execute_run(draft_run.pk)

        with mock.patch("webapp.scenarios.runs.time.sleep", side_effect=the_worker_runs_it):
            r = self.client.get(poll, headers=hx)
        self.assertContains(r, f'<p class="counts" data-run="{draft_run.pk}">')
        self.assertEqual(len(waits), 3)  # (answered at the first look after the counts were stored)

    def test_the_runs_panel_reads_neither_the_drafts_text_nor_what_is_kept_about_it(self):
        """The panel is asked for every 250 ms while a run is unfinished: it shows the runs, not the editor's
        verdict, outline or history (a 5,000-node draft's outline is read from the database each time), nor the
        base revision's summary."""
        self.client.get(self.base)
        with CaptureQueriesContext(connection) as queries:
            r = self.client.get(self.base + "runs/", headers={"HX-Request": "true"})
        self.assertContains(r, 'id="draft-runs"')
        read = [q["sql"] for q in queries.captured_queries
                if '"scenarios_draft"."manifests"' in q["sql"] or "scenarios_textfact" in q["sql"]
                or '"scenarios_revision"."summary"' in q["sql"]]  # (the base revision's load summary: a MB of JSON)
        self.assertEqual(read, [])

    def test_it_saves_the_draft_as_a_new_revision(self):
        self.client.post(self.base + "edit/", {"op": "cordon", "node": "node-a"})
        r = self.client.post(self.base + "save/", {"message": "cordon a"})
        self.assertRedirects(r, f"/scenarios/{self.scenario.pk}/")
        head = self.scenario.revisions.get(number=2)
        self.assertIn("unschedulable: true", head.manifests)
        self.assertEqual(head.message, "cordon a")
        self.assertFalse(Draft.objects.exists())

    def test_a_stale_save_is_a_conflict_keeping_the_draft(self):
        self.client.post(self.base + "edit/", {"op": "cordon", "node": "node-a"})
        from webapp.scenarios import services
        services.save_revision(self.scenario, manifests=TWO_PODS, author=self.owner)
        r = self.client.post(self.base + "save/")
        self.assertContains(r, "Someone saved revision r2", status_code=409)
        self.assertTrue(Draft.objects.exists())
        self.client.post(self.base + "rebase/")
        r = self.client.post(self.base + "save/")
        self.assertEqual(self.scenario.revisions.count(), 3)

    def test_it_discards(self):
        self.client.get(self.base)
        self.assertRedirects(self.client.post(self.base + "discard/"), f"/scenarios/{self.scenario.pk}/")
        self.assertFalse(Draft.objects.exists())

    def test_viewers_and_outsiders_cannot_draft(self):
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.get(self.base).status_code, 403)
        self.client.force_login(self.outsider)
        self.assertEqual(self.client.get(self.base).status_code, 404)
        self.assertFalse(Draft.objects.exists())


class DraftQuickEditsTestCase(BaseTestCase):
    """The quick-edit forms: one per kind of change, each going through webapp/scenarios/manifests/edits.py."""

    def setUp(self):
        services.save_revision(self.scenario, manifests=SPREAD_AND_CLASS, author=self.owner)
        self.client.force_login(self.editor)
        self.base = f"/scenarios/{self.scenario.pk}/draft/"

    def edit(self, **fields):
        return self.client.post(self.base + "edit/", fields, HTTP_HX_REQUEST="true")

    def test_a_constraint_form_sent_whole_keeps_only_the_fields_the_person_changed(self):
        # the form sends every field of constraint 0 (maxSkew 1, zone, DoNotSchedule, no minDomains)
        whole = {"op": "set_spread", "workload": "app=web", "index": "0", "maxSkew": "1",
                 "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
                 "minDomains": "unset"}
        for changed, message in (
                ({"maxSkew": "3"}, "Applied: maxSkew 3 on app=web."),
                ({"whenUnsatisfiable": "ScheduleAnyway"}, "Applied: whenUnsatisfiable ScheduleAnyway on app=web."),
                ({"minDomains": "2"}, "Applied: minDomains 2 on app=web."),
        ):
            with self.subTest(changed=changed):
                Draft.objects.all().delete()
                r = self.edit(**{**whole, **changed})
                self.assertContains(r, message)
                self.assertEqual(Draft.objects.get().edits[-1],
                                 {"op": "set_spread", "workload": "app=web", "index": "0", **changed})

    def test_an_edit_that_changes_nothing_says_so_and_adds_no_entry_to_the_edit_list(self):
        whole = {"op": "set_spread", "workload": "app=web", "index": "0", "maxSkew": "1",
                 "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
                 "minDomains": "unset"}
        self.edit(op="cordon", node="node-a")
        self.edit(op="set_priority", target="Pod/default/web-1", priorityClassName="high")
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            with self.captureOnCommitCallbacks(execute=True):
                for fields, message in (
                        (whole, "No change: no field of spread constraint 0 of app=web differs from the draft&#x27;s."),
                        ({"op": "cordon", "node": "node-a"}, "No change: node-a is cordoned already."),
                        ({"op": "set_priority", "target": "Pod/default/web-1", "priorityClassName": "high"},
                         "No change: Pod/default/web-1 has that priority already."),
                        ({"op": "remove_gate", "target": "Pod/default/web-1"},  # (an op without a sentence of its own)
                         "No change: “Gate every gate removed from Pod/default/web-1” leaves the draft as it is, so "
                         "the edit list stays as it was."),
                ):
                    with self.subTest(fields=fields):
                        runs = Run.objects.count()
                        r = self.edit(**fields)
                        self.assertContains(r, f'<p class="msg info" id="edit-ok">{message}</p>', html=True)
                        self.assertNotContains(r, "Applied:")
                        self.assertEqual([e["op"] for e in Draft.objects.get().edits], ["cordon", "set_priority"])
                        self.assertContains(r, '<span id="edit-count" hx-swap-oob="true">2 edits</span>', html=True)
                        self.assertEqual(Run.objects.count(), runs)

    def test_typed_text_sent_with_an_edit_that_changes_nothing_is_stored_and_run(self):
        typed = SPREAD_AND_CLASS.replace("name: web-1", "name: web-typed")
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            with self.captureOnCommitCallbacks(execute=True):
                r = self.edit(op="uncordon", node="node-a", manifests=typed, config="")
        self.assertContains(r, "No change: node-a is not cordoned.")
        self.assertEqual((Draft.objects.get().manifests, [e["op"] for e in Draft.objects.get().edits]),
                         (typed, ["text"]))
        self.assertEqual(Run.objects.filter(label="draft").count(), 1)

    def test_it_offers_a_form_for_every_kind_of_edit(self):
        r = self.client.get(self.base)
        for text in ('value="set_spread"', 'aria-label="Remove constraint 0 of app=web"', 'value="add_spread"',
                     'value="set_priority"', '<option value="high">high (1000)</option>', 'value="add_gate"',
                     'value="remove_gate"', 'value="cordon"', 'value="add_taint"', 'value="add_node"',
                     'value="remove_node"', 'value="remove_zone"', '<option value="Pod/default/web-1">'):
            self.assertContains(r, text, msg_prefix=text)

    def test_a_quick_edits_response_asks_for_the_runs_it_queued_four_times_a_second(self):
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            with self.captureOnCommitCallbacks(execute=True):
                r = self.edit(op="cordon", node="node-a")
        self.assertContains(r, "Applied: Cordoned node-a.")
        self.assertEqual(Run.objects.filter(label="draft").count(), 1)
        self.assertRegex(r.content.decode(), r'<section id="draft-runs"[^>]* hx-swap-oob="true"\s+'
                                             r'hx-get="[^"]+/draft/runs/\?seen=[^"]+"\s+hx-trigger="load, every 250ms"')

    def test_it_removes_a_spread_constraint(self):
        r = self.edit(op="remove_spread", workload="app=web", index="0")
        self.assertContains(r, "Applied: Removed spread constraint 0 of app=web.")
        self.assertContains(r, '<span id="edit-count" hx-swap-oob="true">1 edit</span>', html=True)
        self.assertNotIn("topologySpreadConstraints", Draft.objects.get().manifests)
        self.assertNotContains(r, "Remove constraint 0 of app=web")

    def test_it_sets_a_pods_priority_class(self):
        r = self.edit(op="set_priority", target="Pod/default/web-1", priorityClassName="high", priority="")
        self.assertContains(r, "Applied: Priority of Pod/default/web-1 set to high.")
        self.assertIn("priorityClassName: high", Draft.objects.get().manifests)
        self.assertContains(r, "Pod/default/web-1 (high)")  # the target list shows what is set now

    def test_it_sets_a_plain_priority_number(self):
        self.edit(op="set_priority", target="Pod/default/web-1", priorityClassName="", priority="-20")
        self.assertIn("priority: -20", Draft.objects.get().manifests)

    def test_a_bad_priority_names_the_pod_and_field_and_changes_nothing(self):
        r = self.edit(op="set_priority", target="Pod/default/web-1", priorityClassName="ghost")
        self.assertContains(r, "Edit not applied — Pod/default/web-1, field <code>spec.priorityClassName</code>")
        self.assertContains(r, "no PriorityClass named &#x27;ghost&#x27;")
        self.assertEqual(Draft.objects.get().manifests, SPREAD_AND_CLASS)
        r = self.edit(op="set_priority", target="Pod/default/web-1", priority="99999999999")
        self.assertContains(r, "field <code>priority</code>: priority must be ≤ 2147483647")
        self.assertEqual(Draft.objects.get().manifests, SPREAD_AND_CLASS)

    def test_it_adds_and_removes_a_gate_of_one_pod(self):
        self.edit(op="add_gate", target="Pod/default/web-1", name="example.com/wait")
        self.assertIn("example.com/wait", Draft.objects.get().manifests)
        r = self.edit(op="remove_gate", target="Pod/default/web-1", name="example.com/other")
        self.assertContains(r, "Pod/default/web-1 has no scheduling gate example.com/other")
        self.edit(op="remove_gate", target="Pod/default/web-1", name="example.com/wait")
        self.assertNotIn("schedulingGates", Draft.objects.get().manifests)

    def test_it_adds_a_spread_constraint_with_its_fields(self):
        self.edit(op="add_spread", workload="app=web", maxSkew="2", whenUnsatisfiable="ScheduleAnyway",
                  topologyKey="kubernetes.io/hostname", minDomains="")
        text = Draft.objects.get().manifests
        self.assertIn("topologyKey: kubernetes.io/hostname", text)
        self.assertIn("whenUnsatisfiable: ScheduleAnyway", text)

    def test_a_quick_edit_keeps_what_was_typed_in_the_editor(self):
        # htmx sends the editor's unsaved text along; it is stored before the edit applies to it.
        typed = SPREAD_AND_CLASS.replace("name: web-1", "name: web-typed").replace("\n", "\r\n")
        r = self.edit(op="cordon", node="node-a", manifests=typed, config="")
        self.assertContains(r, "Applied: Cordoned node-a.")
        text = Draft.objects.get().manifests
        self.assertIn("web-typed", text)
        self.assertIn("unschedulable: true", text)
        self.assertEqual([e["op"] for e in Draft.objects.get().edits], ["text", "cordon"])

    def test_unchanged_editor_text_is_not_stored_again(self):
        self.edit(op="cordon", node="node-a", manifests=SPREAD_AND_CLASS, config="")
        self.assertEqual([e["op"] for e in Draft.objects.get().edits], ["cordon"])
