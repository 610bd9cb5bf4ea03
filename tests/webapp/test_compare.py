"""Compare: the pure diff of two results, and the page."""
import json
from unittest import mock

from webapp.front import views_compare
from webapp.scenarios import compare, engine, services, tasks
from webapp.scenarios.manifests import edits
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Run

from .base import BaseTestCase

MIN_DOMAINS = (EXAMPLES_DIR / "min-domains.yaml").read_text()
RS = "ReplicaSet/default/api-5b7d9c8f4"


def result(pods, nodes):
    per_zone = {z: sum(1 for n in pods.values() if n and nodes[n] == z) for z in nodes.values()}
    return {"pods": [{"pod": p, "node": n} for p, n in pods.items()],
            "nodes": [{"name": n, "labels": {"zone": z}} for n, z in nodes.items()],
            "podsPerDomain": {"zone": {"domains": per_zone, "withoutLabel": 0}}}


def test_it_finds_moved_pending_and_scheduled_pods_and_domain_counts():
    nodes = {"n1": "a", "n2": "b"}
    a = result({"p1": "n1", "p2": "n1", "p3": None, "p4": "n2"}, nodes)
    b = result({"p1": "n2", "p2": None, "p3": "n1", "p4": "n2"}, nodes)
    diff = compare.compare(a, b, "zone")
    assert diff["moved"] == [{"pod": "p1", "from": "n1", "to": "n2"}]
    assert diff["became_pending"] == [{"pod": "p2", "from": "n1"}]
    assert diff["got_scheduled"] == [{"pod": "p3", "to": "n1"}]
    assert diff["unchanged"] == 1
    assert diff["domains"] == [{"domain": "a", "a": 2, "b": 1}, {"domain": "b", "a": 1, "b": 2}]
    assert (diff["a"]["pending"], diff["b"]["pending"]) == (1, 1)


def bound(pods, placed, evicted=()):
    """A result with pending-at-start ``pods`` {pod: node} and pods running before ``placed`` {pod: node at the
    end}, those in ``evicted`` preempted (no node at the end)."""
    return {"pods": [{"pod": p, "node": n} for p, n in pods.items()],
            "boundPods": [{"pod": p, "node": None if p in evicted else n, "evicted": p in evicted}
                          for p, n in placed.items()]}


CHANGES = [
    # (case, before, after, {list: [pods]}, unchanged)
    ("the same pods, one moved to a node only the second run has",
     bound({"p1": "n1", "p2": "n1"}, {"b1": "n2"}), bound({"p1": "n3", "p2": "n1"}, {"b1": "n2"}),
     {"moved": ["p1"]}, 2),
    ("the same pods, one moved off a node the second run does not have",
     bound({"p1": "n9", "p2": "n1"}, {}), bound({"p1": "n1", "p2": "n1"}, {}), {"moved": ["p1"]}, 1),
    ("the same pods, one left pending and one running before preempted",
     bound({"p1": "n1"}, {"b1": "n2", "b2": "n2"}), bound({"p1": None}, {"b1": "n2", "b2": "n2"}, evicted={"b2"}),
     {"became_pending": ["p1"], "displaced": ["b2"]}, 1),
    ("the same pods, one scheduled that was pending",
     bound({"p1": None, "p2": "n1"}, {}), bound({"p1": "n2", "p2": "n1"}, {}), {"got_scheduled": ["p1"]}, 1),
    ("pods added by the edit, one scheduled and one pending, and one gone",
     bound({"p1": "n1", "p2": "n1"}, {}), bound({"p1": "n1", "p3": "n2", "p4": None}, {}),
     {"got_scheduled": ["p3"], "only_b": ["p4"], "only_a": ["p2"]}, 1),
    ("pods added, and a moved pod among the same ones",
     bound({"p1": "n1", "p2": "n1"}, {"b1": "n1"}), bound({"p1": "n2", "p2": "n1", "p3": "n1"}, {"b1": "n1"}),
     {"moved": ["p1"], "got_scheduled": ["p3"]}, 2),
    ("names with a line break",
     bound({"a\nb": "n1", "c": "n1"}, {}), bound({"a\nb": "n2", "c": "n1"}, {}), {"moved": ["a\nb"]}, 1),
    ("no pods at all", bound({}, {}), bound({}, {}), {}, 0),
]
LISTS = ("moved", "became_pending", "got_scheduled", "only_a", "only_b", "displaced")


def test_the_comparison_sorts_every_changed_pod_into_one_list():
    for case, before, after, expected, unchanged in CHANGES:
        diff = compare.compare(before, after)
        assert {k: [p["pod"] for p in diff[k]] for k in LISTS if diff[k]} == expected, case
        assert diff["unchanged"] == unchanged, case


def test_the_facts_kept_as_json_compare_as_the_results_do():
    for case, before, after, _, _ in CHANGES:
        kept = [json.loads(json.dumps(compare.final_facts(r))) for r in (before, after)]
        assert compare.compare_facts(*kept) == compare.compare(before, after), case


def test_it_compares_the_min_domains_example_before_and_after_a_skew_change():
    before = engine.simulate(MIN_DOMAINS)
    after = engine.simulate(edits.apply_edit(MIN_DOMAINS, {"op": "set_max_skew", "workload": RS, "value": 4}))
    diff = compare.compare(before, after)
    assert (diff["a"]["pending"], diff["b"]["pending"]) == (4, 0)
    assert len(diff["got_scheduled"]) == 4 and diff["unchanged"] == 6
    assert sum(d["b"] for d in diff["domains"]) == 10
    # 2 pods in each of 3 zones, minDomains 5: kube-scheduler's global minimum is 0, so the skew is 2
    assert compare.max_skew(before) == {"topology.kubernetes.io/zone (app=api)": 2}


class ComparePageTestCase(BaseTestCase):
    def setUp(self):
        self.scenario = services.create_scenario(team=self.team, name="md", manifests=MIN_DOMAINS, author=self.owner)
        head = self.scenario.head()
        self.a = Run.objects.create(scenario=self.scenario, revision=head)
        self.b = Run.objects.create(scenario=self.scenario, revision=head, label="draft", manifests=edits.apply_edit(
            MIN_DOMAINS, {"op": "set_max_skew", "workload": RS, "value": 4}))
        for run in (self.a, self.b):
            tasks.execute_run(run.pk)

    def test_it_shows_both_runs_side_by_side(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/scenarios/{self.scenario.pk}/compare/?a={self.a.pk}&b={self.b.pk}")
        self.assertContains(r, "<strong>4</strong> got scheduled")
        self.assertContains(r, "<strong>6</strong> unchanged")
        self.assertContains(r, "eu-west-1a")
        self.assertContains(r, "got scheduled</td>", count=4)

    def test_a_large_comparison_lists_the_first_changed_pods_and_all_on_request(self):
        self.client.force_login(self.viewer)
        url = f"/scenarios/{self.scenario.pk}/compare/?a={self.a.pk}&b={self.b.pk}"
        with mock.patch.object(views_compare, "COMPARE_PAGE_ROWS", 3):
            page = self.client.get(url)
            self.assertContains(page, "<strong>4</strong> got scheduled")  # (the counts are of all)
            self.assertEqual(page.content.decode().count("got scheduled</td>"), 3)
            self.assertContains(page, "3 of 4 changed pods listed here")
            everything = self.client.get(url + "&all=1")
        self.assertEqual(everything.content.decode().count("got scheduled</td>"), 4)
        self.assertNotContains(everything, "changed pods listed")
        self.assertNotContains(self.client.get(url), "changed pods listed")

    def test_it_explains_an_unknown_run(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/scenarios/{self.scenario.pk}/compare/?a=999999&b={self.b.pk}")
        self.assertContains(r, "run 999999: no such run in this scenario")

    def test_a_revision_without_runs_is_run_by_an_editors_post_never_by_a_get(self):
        self.client.force_login(self.editor)
        services.save_revision(self.scenario, manifests=MIN_DOMAINS, author=self.owner)
        url = f"/scenarios/{self.scenario.pk}/compare/"
        # A GET (which any site can make a signed-in browser send) starts nothing: it offers a button.
        r = self.client.get(url, {"a": self.a.pk, "b": "r2"})
        self.assertContains(r, "r2 has never been run")
        self.assertContains(r, "Run r2 and compare")
        self.assertFalse(Run.objects.filter(revision__number=2).exists())
        from unittest import mock
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            r = self.client.post(url, {"a": self.a.pk, "b": "r2"}, follow=True)
        self.assertContains(r, "Waiting for both runs")
        self.assertEqual(Run.objects.filter(revision__number=2).count(), 1)
        # A viewer sees no button, and may not post.
        self.client.force_login(self.viewer)
        self.assertNotContains(self.client.get(url, {"a": self.a.pk, "b": "r1"}), "and compare</button>")
        self.assertEqual(self.client.post(url, {"a": self.a.pk, "b": "r2"}).status_code, 403)

    def test_outsiders_get_404(self):
        self.client.force_login(self.outsider)
        self.assertEqual(self.client.get(f"/scenarios/{self.scenario.pk}/compare/").status_code, 404)

    def test_it_polls_with_the_result_fragment_until_both_runs_finish(self):
        waiting = Run.objects.create(scenario=self.scenario, revision=self.scenario.head())
        self.client.force_login(self.viewer)
        url = f"/scenarios/{self.scenario.pk}/compare/?a={self.a.pk}&b={waiting.pk}"
        r = self.client.get(url, headers={"HX-Request": "true"})
        self.assertNotContains(r, "<html")
        self.assertContains(r, 'hx-trigger="every 1s"')
        self.assertContains(r, "Waiting for both runs to finish")
        tasks.execute_run(waiting.pk)
        r = self.client.get(url, headers={"HX-Request": "true"})
        self.assertNotContains(r, "hx-trigger")  # finished: the swapped-in fragment stops polling
        self.assertContains(r, "<strong>10</strong> unchanged")
