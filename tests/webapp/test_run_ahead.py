"""A quick edit of a large draft queues its run before the new text is written.

The worker starts from the scenario of the text before the edit and the documents the edit changed; the request
writes, checks and stores the text meanwhile. What a user sees must not change: the run simulates the edited text
(the same result as a run queued from that text), a refused edit leaves no run behind, an edit back to the text
the draft's last run simulated queues none, and a run whose request never wrote its text fails saying so.
"""

import json
import tempfile
import time
from pathlib import Path
from unittest import mock

import pytest
from django.conf import settings
from django.test import override_settings

from tests.bench.generate import generate, to_yaml
from webapp.scenarios import drafts, engine, runs, services, tasks, texts
from webapp.scenarios.manifests import edits
from webapp.scenarios.models import Draft, Membership, Run, Team

from .base import BaseTestCase, make_user

CLUSTER = to_yaml(generate("30x90", seed=1).objects)  # bound and pending pods, two spread constraints per app
WITH_REPLICA_SET = to_yaml(generate("30x90", seed=1).objects + [{
    "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "extra", "namespace": "default", "uid": "u"},
    "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "extra"}}, "template": {
        "metadata": {"labels": {"app": "extra"}},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}]}}}}])


@override_settings(EDIT_RUN_AHEAD_MIN_BYTES=0)
class RunAheadTests(BaseTestCase):
    def setUp(self):
        self.client.force_login(self.editor)
        self.scenario = services.create_scenario(team=self.team, name="Generated", manifests=CLUSTER,
                                                 author=self.owner)
        self.base = f"/scenarios/{self.scenario.pk}/draft/"
        self.made_ahead = []

    def edit(self, **fields):
        """Post a quick edit as the editor does; the runs it queues are executed in this process afterwards."""
        def scenario_ahead(token, **kwargs):
            found = real(token, **kwargs)
            self.made_ahead.append(found is not None)
            return found

        real = engine.scenario_ahead
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async") as sent, \
                mock.patch.object(engine, "scenario_ahead", scenario_ahead):
            with self.captureOnCommitCallbacks(execute=True):
                response = self.client.post(self.base + "edit/", fields, headers={"HX-Request": "true"})
            queued = [call.args[0][0] for call in sent.call_args_list]
            for run_id in queued:
                tasks.execute_run(run_id)
        return response, queued

    def draft_runs(self):
        return list(Run.objects.filter(scenario=self.scenario, source=Run.Source.DRAFT).order_by("id"))

    def result_of_text(self, manifests):
        run = services.queue_run(self.scenario, self.scenario.head(), user=self.editor, source=Run.Source.DRAFT,
                                 manifests=manifests, label="draft")
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            tasks.execute_run(run.pk)
        run.refresh_from_db()
        return run

    def test_the_run_made_ahead_simulates_the_edited_text(self):
        response, _ = self.edit(op="set_spread", workload="app=frontend", index="0", maxSkew="1")
        self.assertEqual(response.status_code, 200)
        self.assertEqual(self.made_ahead, [True])
        draft = Draft.objects.get(scenario=self.scenario, author=self.editor)
        self.assertIn("maxSkew: 1", draft.manifests)
        run, = self.draft_runs()
        self.assertEqual((run.status, run.manifests, run.config), (Run.Status.SUCCEEDED, draft.manifests, ""))
        panel = self.client.get(self.base + "runs/", headers={"HX-Request": "true"}).content.decode()
        self.assertIn(f'<p class="counts" data-run="{run.pk}">', panel)
        self.assertIn("Saved r1", panel)
        self.assertNotIn("Not run yet", panel)  # (the base revision ran too, to compare with)
        self.assertEqual(run.result, self.result_of_text(draft.manifests).result)
        self.assertNotEqual(run.summary, self.result_of_text(CLUSTER).summary)  # (the edit changed placements)

    def test_the_edit_s_run_takes_over_the_cycles_before_the_edited_pods_from_the_run_before(self):
        """The worker ran the draft's text just before: the edit's run does the cycles before the first edited pod's
        again from that run (scheduler_core.RunMemory), and its result is the one a run of the edited text gives."""
        cluster = to_yaml(generate("dense-60x400", seed=0).objects)  # "batch" is queued after 330 other cycles
        self.scenario = services.create_scenario(team=self.team, name="Dense", manifests=cluster, author=self.owner)
        self.base = f"/scenarios/{self.scenario.pk}/draft/"
        self.result_of_text(cluster)
        with self.assertLogs("webapp.scenarios.engine", "INFO") as logs:
            response, _ = self.edit(op="set_spread", workload="app=batch", index="0", maxSkew="2")
        self.assertEqual(response.status_code, 200)
        self.assertTrue(any("cycles taken over from the run before" in line for line in logs.output), logs.output)
        run = self.draft_runs()[-1]
        draft = Draft.objects.get(scenario=self.scenario, author=self.editor)
        engine._RUN_MEMORY.forget()  # (the text's run from the start)
        self.assertEqual(run.result, self.result_of_text(draft.manifests).result)

    def made_by(self, **fields):
        """(how the worker made the edit's scenario, as its log says; the draft's run; the run of the draft's text)."""
        with self.assertLogs("webapp.scenarios.engine", "INFO") as logs:
            response, _ = self.edit(**fields)
        self.assertEqual(response.status_code, 200)
        made = ["spread" if "spread constraint fields set" in line else "documents" for line in logs.output
                if "fields set in the scenario" in line or "documents the edit changed put into" in line]
        draft = Draft.objects.get(scenario=self.scenario, author=self.editor)
        return response, made, self.draft_runs()[-1], self.result_of_text(draft.manifests)

    def test_a_spread_constraint_s_fields_are_set_in_the_loaded_scenario_as_its_text_says(self):
        pod = next(f'{o["metadata"]["namespace"]}/{o["metadata"]["name"]}' for o in generate("30x90", seed=1).objects
                   if o["kind"] == "Pod" and o["metadata"]["labels"].get("app") == "frontend")
        # (one after the other, each on the draft the one before left)
        for fields in ({"maxSkew": "2"}, {"minDomains": "4"}, {"minDomains": "unset"},
                       {"index": "1", "topologyKey": "topology.kubernetes.io/region"},
                       {"whenUnsatisfiable": "ScheduleAnyway"}, {"workload": f"Pod/{pod}", "maxSkew": "3"}):
            with self.subTest(**fields):
                response, made, run, of_text = self.made_by(**{"op": "set_spread", "workload": "app=frontend", "index": "0",
                                                     **fields})
                self.assertIn("Applied:", response.content.decode())
                self.assertEqual(made, ["spread"])  # (no document read)
                self.assertEqual((run.status, run.manifests), (Run.Status.SUCCEEDED, of_text.manifests))
                self.assertEqual(run.result, of_text.result)

    def test_a_constraint_form_sent_whole_runs_ahead_as_the_edit_the_person_made(self):
        whole = {"op": "set_spread", "workload": "app=frontend", "index": "0", "whenUnsatisfiable": "DoNotSchedule",
                 "topologyKey": "topology.kubernetes.io/zone", "minDomains": "unset"}
        pods = [f'{o["metadata"]["namespace"]}/{o["metadata"]["name"]}' for o in generate("30x90", seed=1).objects
                if o["kind"] == "Pod" and o["metadata"]["labels"].get("app") == "frontend"]
        for step, fields, way in (
                ("the form as the editor sends it", {**whole, "maxSkew": "2"}, "spread"),
                ("one pod's constraint made to differ", {"op": "set_spread", "workload": f"Pod/{pods[1]}", "index": "0",
                                                         "whenUnsatisfiable": "ScheduleAnyway"}, "spread"),
                ("the pods disagree on a field the form sends unchanged", {**whole, "maxSkew": "3"}, "documents")):
            with self.subTest(step):
                response, made, run, of_text = self.made_by(**fields)
                self.assertIn("Applied:", response.content.decode())
                self.assertEqual(made, [way])
                self.assertEqual((run.status, run.manifests), (Run.Status.SUCCEEDED, of_text.manifests))
                self.assertEqual(run.result, of_text.result)
        draft = Draft.objects.get(scenario=self.scenario, author=self.editor)
        self.assertEqual([e.get("maxSkew") for e in draft.edits], ["2", None, "3"])
        self.assertEqual(draft.edits[0], {"op": "set_spread", "workload": "app=frontend", "index": "0", "maxSkew": "2"})

    def test_a_constraint_form_sent_with_no_field_changed_leaves_no_run_and_no_edit(self):
        response, _ = self.edit(op="set_spread", workload="app=frontend", index="0", maxSkew="5",
                                whenUnsatisfiable="DoNotSchedule", topologyKey="topology.kubernetes.io/zone",
                                minDomains="unset")
        self.assertIn("No change: no field of spread constraint 0 of app=frontend differs", response.content.decode())
        self.assertEqual(self.draft_runs(), [])  # (the run queued ahead of the text is gone)
        self.assertEqual(Draft.objects.get(scenario=self.scenario, author=self.editor).edits, [])

    def test_a_run_queued_for_a_text_the_draft_no_longer_has_is_dropped(self):
        """The run is queued from the draft's row before the edit reads the text; a change of the text in between (the
        same person's other tab) means the fields were set in the scenario of a text the edit does not edit."""
        edit = {"op": "set_spread", "workload": "app=frontend", "index": "0", "maxSkew": "2"}
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async") as sent:
            with self.captureOnCommitCallbacks(execute=True):
                self.client.post(self.base + "edit/", {"op": "set_spread", "workload": "app=frontend", "index": "0",
                                                       "maxSkew": "3"}, headers={"HX-Request": "true"})
                draft = drafts.find(self.scenario, self.editor)  # (as the view has it: its text read when asked for)
                queued = drafts.queue_fields_ahead(draft, edit, self.editor)
                other = Draft.objects.get(pk=draft.pk)
                drafts.set_text(other, CLUSTER.replace("maxSkew: 5", "maxSkew: 4"))  # (the other tab)
                drafts.apply_running_ahead(draft, edit, self.editor, queued=queued)
            for run_id in [call.args[0][0] for call in sent.call_args_list]:
                tasks.execute_run(run_id)
        self.assertFalse(Run.objects.filter(pk=queued[0].pk).exists())
        draft.refresh_from_db()
        run = self.draft_runs()[-1]
        self.assertEqual((run.status, run.manifests), (Run.Status.SUCCEEDED, draft.manifests))
        self.assertIn("maxSkew: 4", draft.manifests)
        self.assertEqual(run.result, self.result_of_text(draft.manifests).result)

    def test_a_constraint_added_at_the_next_index_is_put_in_from_the_documents_the_edit_changed(self):
        _, made, run, of_text = self.made_by(op="set_spread", workload="app=frontend", index="2",
                                          topologyKey="kubernetes.io/hostname")
        self.assertEqual(made, ["documents"])
        self.assertIn("kubernetes.io/hostname", of_text.manifests)
        self.assertEqual((run.status, run.result), (Run.Status.SUCCEEDED, of_text.result))

    def test_a_worker_waits_for_no_documents_once_the_edit_has_failed(self):
        token = "f" * 32
        self.assertTrue(engine.hand_over_edit(token, texts.key_of(CLUSTER), "", ("app=frontend", 7, {"max_skew": 2})))
        started = time.monotonic()
        self.assertIsNone(engine.scenario_ahead(token, wanted=lambda: False, set_fields=edits.scenario_with_fields))
        self.assertLess(time.monotonic() - started, engine.AHEAD_DOCUMENTS_WAIT)

    def test_an_edit_of_more_than_directives_is_simulated_from_its_text(self):
        self.scenario = services.create_scenario(team=self.team, name="With a ReplicaSet", manifests=WITH_REPLICA_SET,
                                                 author=self.owner)
        self.base = f"/scenarios/{self.scenario.pk}/draft/"
        response, queued = self.edit(op="set_replicas", workload="ReplicaSet/default/extra", replicas="3")
        self.assertEqual((response.status_code, len(queued), self.made_ahead), (200, 2, [False]))  # (and the saved)
        draft = Draft.objects.get(scenario=self.scenario, author=self.editor)
        run, = self.draft_runs()
        self.assertEqual((run.status, run.manifests), (Run.Status.SUCCEEDED, draft.manifests))
        self.assertEqual(run.result, self.result_of_text(draft.manifests).result)
        self.assertEqual(sum(p["pod"].startswith("default/extra-") for p in run.result["pods"]), 3)

    def test_a_large_text_whose_scenario_the_worker_lacks_is_simulated_from_the_new_text(self):
        with tempfile.TemporaryDirectory() as cache, override_settings(ENGINE_CACHE_DIR=cache), \
                mock.patch.object(engine, "LOADED_MAX_BYTES", 1000):  # (every text is large; none loaded yet)
            response, _ = self.edit(op="set_spread", workload="app=frontend", index="0", maxSkew="1")
        self.assertEqual((response.status_code, self.made_ahead), (200, [False]))
        draft = Draft.objects.get(scenario=self.scenario, author=self.editor)
        run, = self.draft_runs()
        self.assertEqual((run.status, run.manifests), (Run.Status.SUCCEEDED, draft.manifests))
        self.assertEqual(run.result, self.result_of_text(draft.manifests).result)

    def node_name(self):
        return next(o["metadata"]["name"] for o in generate("30x90", seed=1).objects if o["kind"] == "Node")

    def test_a_refused_edit_leaves_no_run_and_the_draft_as_it_was(self):
        self.edit(op="cordon", node=self.node_name())
        before = Draft.objects.get(scenario=self.scenario, author=self.editor)
        runs_before = self.draft_runs()
        # the second constraint is ScheduleAnyway: the edit is made, and the engine refuses its text
        response, queued = self.edit(op="set_spread", workload="app=frontend", index="1", minDomains="2")
        self.assertContains(response, "minDomains")
        self.assertEqual(len(queued), 1)  # (it was queued ahead, then deleted)
        self.assertEqual(self.draft_runs(), runs_before)
        after = Draft.objects.get(scenario=self.scenario, author=self.editor)
        self.assertEqual((after.manifests, after.edits), (before.manifests, before.edits))

    def test_an_edit_back_to_the_last_run_text_queues_no_run(self):
        self.edit(op="set_spread", workload="app=frontend", index="0", maxSkew="2")
        self.edit(op="set_spread", workload="app=frontend", index="0", maxSkew="3")
        two = self.draft_runs()
        self.assertEqual(len(two), 2)
        Run.objects.filter(pk=two[1].pk).delete()  # the draft's latest run is of the maxSkew 2 text again
        _, queued = self.edit(op="set_spread", workload="app=frontend", index="0", maxSkew="2")
        self.assertEqual(len(queued), 1)
        self.assertEqual(self.draft_runs(), two[:1])

    def test_the_documents_handed_to_the_worker_are_not_kept(self):
        with tempfile.TemporaryDirectory() as cache, override_settings(ENGINE_CACHE_DIR=cache):
            self.edit(op="set_spread", workload="app=frontend", index="0", maxSkew="1")  # (read by its run)
            self.edit(op="set_spread", workload="app=frontend", index="1", minDomains="2")  # (refused)
            self.assertEqual(self.made_ahead, [True])
            self.assertEqual(sorted(Path(cache).glob(f"*.{engine.AHEAD_SUFFIX}")), [])

    def test_the_api_does_not_show_what_was_handed_to_the_worker(self):
        self.edit(op="set_spread", workload="app=frontend", index="0", maxSkew="1")
        run, = self.draft_runs()
        self.assertIn("ahead", run.params)
        self.client.force_login(self.editor)
        body = self.client.get(f"/api/runs/{run.pk}/").json()
        self.assertEqual(body["params"], {"seed": 0, "options": {}})


@override_settings(EDIT_RUN_AHEAD_MIN_BYTES=0)
class RunAheadOfALostTextTests(BaseTestCase):
    """A run queued ahead whose request stopped before writing the text, or deleted it."""

    def queued_ahead(self):
        scenario = services.create_scenario(team=self.team, name="Generated", manifests=CLUSTER, author=self.owner)
        token = "t" * 32
        self.assertTrue(engine.hand_over(token, engine.texts.key_of(CLUSTER), "", []))
        return runs.create_run(scenario, scenario.head(), user=self.editor, source=Run.Source.DRAFT, label="draft",
                               ahead=token)

    def test_a_run_whose_text_never_comes_fails_saying_why(self):
        run = self.queued_ahead()
        with mock.patch.object(tasks, "AHEAD_TEXT_WAIT", 0.2):
            tasks.execute_run(run.pk)
        run.refresh_from_db()
        self.assertEqual((run.status, run.error, run.result), (Run.Status.FAILED, tasks.AHEAD_TEXT_LOST, None))

    def test_a_worker_that_could_not_set_the_fields_stops_waiting_for_documents_once_the_text_is_written(self):
        scenario = services.create_scenario(team=self.team, name="Generated", manifests=CLUSTER, author=self.owner)
        token = "e" * 32
        self.assertTrue(engine.hand_over_edit(token, texts.key_of(CLUSTER), "", ("app=frontend", 7, {"max_skew": 2})))
        run = runs.create_run(scenario, scenario.head(), user=self.editor, source=Run.Source.DRAFT, label="draft",
                              ahead=token)
        self.assertTrue(tasks._awaits_its_text(run))
        Run.objects.filter(pk=run.pk).update(manifests=CLUSTER)  # (the request wrote it: no documents came)
        started = time.monotonic()
        with mock.patch.object(engine, "AHEAD_DOCUMENTS_WAIT", 30):
            tasks.execute_run(run.pk)
        self.assertLess(time.monotonic() - started, 30)
        run.refresh_from_db()
        self.assertEqual((run.status, run.manifests), (Run.Status.SUCCEEDED, CLUSTER))

    def test_a_run_deleted_by_its_request_is_not_stored(self):
        run = self.queued_ahead()

        def deleted(found):
            Run.objects.filter(pk=run.pk).delete()
            return found

        real = tasks._await_text
        with mock.patch.object(tasks, "_await_text", lambda r, wait=None: real(deleted(r), wait)):
            tasks.execute_run(run.pk)
        self.assertFalse(Run.objects.filter(pk=run.pk).exists())


@pytest.mark.django_db(transaction=True)
def test_the_worker_simulates_the_edit_while_its_request_writes_the_text(celery_worker_proc, client):
    """On the real worker: the edit's request is held after the run is queued until the worker has simulated it;
    the worker then waits for the text, and keeps the result of the edited text."""
    from webapp.scenarios.manifests import summary as manifests_summary

    team = Team.objects.create(name="edits")
    user = make_user("editor")
    Membership.objects.create(team=team, user=user, role="editor")
    scenario = services.create_scenario(team=team, name="Generated", manifests=CLUSTER, author=user)
    client.force_login(user)
    seen = {}
    check = manifests_summary.check

    def held_check(text, config, scenario=None):  # (the request, after the run was queued, before the text)
        deadline = time.monotonic() + 60
        ahead = Run.objects.filter(source=Run.Source.DRAFT).first()
        while time.monotonic() < deadline:
            ahead.refresh_from_db()
            if (ahead.progress or {}).get("step") == "storing":
                break
            time.sleep(0.05)
        seen.setdefault("while the text was written", (ahead.status, (ahead.progress or {}).get("step"),
                                                       texts.stored_key(Run.objects.get(pk=ahead.pk), "manifests")))
        return check(text, config, scenario=scenario)

    with override_settings(EDIT_RUN_AHEAD_MIN_BYTES=0), \
            mock.patch.object(manifests_summary, "check", held_check):
        response = client.post(f"/scenarios/{scenario.pk}/draft/edit/", {
            "op": "set_spread", "workload": "app=frontend", "index": "0", "maxSkew": "1"},
            headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert seen["while the text was written"] == (Run.Status.RUNNING, "storing", "")
    run = Run.objects.get(source=Run.Source.DRAFT)
    deadline = time.monotonic() + 60
    while not run.is_finished and time.monotonic() < deadline:
        time.sleep(0.1)
        run.refresh_from_db()
    draft = Draft.objects.get(scenario=scenario, author=user)
    assert (run.status, run.manifests) == (Run.Status.SUCCEEDED, draft.manifests)
    expected = json.loads(json.dumps(engine.simulate(draft.manifests, seed=0, detail=settings.RUN_DETAIL)))
    assert run.result["pods"] == expected["pods"]
    assert run.result == expected | {k: v for k, v in run.result.items() if k not in expected}
    # (the saved revision's run the edit queued to compare with: the worker is done with it before the test's
    # database is emptied, which its writes would otherwise deadlock with)
    while Run.objects.exclude(status__in=Run.FINISHED).exists() \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Run.objects.exclude(status__in=Run.FINISHED).exists()
