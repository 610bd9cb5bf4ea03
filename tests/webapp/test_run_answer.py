"""The run page leads with the answer: pending pods grouped by reason with the root cause first, and a
preemption's nominated node, victims and priorities, each linked."""

import html
import re

from webapp.scenarios import services, tasks
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Run

from .base import BaseTestCase


class RunAnswerTests(BaseTestCase):
    def run_example(self, name):
        scenario = services.create_scenario(team=self.team, name=name, author=self.owner,
                                            manifests=(EXAMPLES_DIR / f"{name}.yaml").read_text())
        run = Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=self.owner)
        tasks.execute_run(run.pk)
        self.client.force_login(self.owner)
        return run, html.unescape(self.client.get(f"/runs/{run.pk}/").content.decode())

    @staticmethod
    def why(page):
        """The page's "why these pods are not scheduled" section."""
        return page[page.index('id="pending-why"'):page.index('<h2>Pods</h2>')]

    def test_pending_pods_are_one_group_with_the_min_domains_root_cause_first(self):
        run, page = self.run_example("min-domains")
        why = self.why(page)
        groups = re.findall(r'<div class="card pending-group">', why)
        self.assertEqual(len(groups), 1)
        self.assertIn('<span class="big">4</span> pods unschedulable', why)
        root = re.search(r'<li class="root-cause"><strong>Root cause:</strong> (.*?)</li>', why).group(1)
        self.assertEqual(root, "topology.kubernetes.io/zone: 3 of 5 domains: global minimum treated as 0 "
                               "(fewer eligible domains than minDomains).")
        self.assertEqual(len(re.findall(rf'href="/runs/{run.pk}/pod/default/api-', why)), 4)
        self.assertLess(page.index('id="pending-why"'), page.index('id="pod-table"'))  # the answer comes first
        self.assertNotIn("<h2>FailedScheduling</h2>", page)

    def test_causes_without_a_root_are_listed_without_calling_one_the_root(self):
        # zonal-volumes: the pod's volume pins it to a zone the spread rejects; each rejected zone is a cause,
        # and none of them is the root (only a minDomains that forces the global minimum to 0 is called that)
        why = self.why(self.run_example("zonal-volumes")[1])
        causes = re.findall(r"<li>(zone eu-west-1\w already has 1 matching pod;.*?)</li>", why)
        self.assertEqual(len(causes), 2)
        self.assertNotIn("Root cause", why)

    def test_a_preemption_shows_the_nominated_node_the_linked_victim_and_priorities(self):
        run, page = self.run_example("preemption")
        row = re.search(r'<tr class="outcome-scheduled">(.*?)</tr>', page, re.S).group(1)
        self.assertIn("default/checkout-", row)
        self.assertIn('<td data-label="Priority">1000000</td>', row)
        self.assertIn(f'<td data-label="Node"><a href="/runs/{run.pk}/nodes/node-a/">node-a</a></td>', row)
        self.assertIn(f'<a href="/runs/{run.pk}/nodes/node-a/">node-a</a> <span class="muted">(nominated by '
                      f'preemption, then bound)</span>', row)
        evicted = page[page.index('id="evicted-list"'):]
        self.assertRegex(evicted, r'<li><a href="/runs/\d+/pod/default/batch-[^"]+">default/batch-[^<]+</a>\s*'
                                  r'\(priority 100\) preempted on <a href="/runs/\d+/nodes/node-a/">node-a</a>\s*'
                                  r'by <a href="/runs/\d+/pod/default/checkout-[^"]+">default/checkout-[^<]+</a> at cycle 1')

    def test_the_preemptors_pod_page_shows_its_priority_requests_and_its_linked_victim(self):
        run, page = self.run_example("preemption")
        pod = re.search(r'href="/runs/\d+/pod/(default/checkout-[^/"]+)/"', page).group(1)
        page = html.unescape(self.client.get(f"/runs/{run.pk}/pod/{pod}/", follow=True).content.decode())
        facts = page[page.index('<dl class="pod-facts">'):page.index("</dl>")]
        self.assertIn("<dt>Priority</dt><dd>1000000</dd>", facts)
        self.assertIn("<dt>Cpu request</dt><dd>1 core</dd>", facts)
        self.assertRegex(facts, r'<dt>Preempted</dt><dd><a href="/runs/\d+/pod/default/batch-[^"]+">default/batch-'
                                r'[^<]+</a> \(priority 100\) on node-a</dd>')


class SmallestFixTests(BaseTestCase):
    def test_the_smallest_fix_is_found_by_running_each_candidate_and_applied_in_one_click(self):
        from unittest import mock

        from webapp.scenarios.models import Draft, Sweep

        scenario = services.create_scenario(team=self.team, name="md", author=self.owner,
                                            manifests=(EXAMPLES_DIR / "min-domains.yaml").read_text())
        run = Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=self.owner)
        tasks.execute_run(run.pk)
        self.client.force_login(self.editor)
        page = self.client.get(f"/runs/{run.pk}/").content.decode()
        self.assertIn("Find the smallest fix", page)
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"), \
                self.captureOnCommitCallbacks(execute=True):
            r = self.client.post(f"/runs/{run.pk}/fixes/")
        self.assertRedirects(r, f"/runs/{run.pk}/#fixes", fetch_redirect_response=False)
        sweep = Sweep.objects.get(spec__type="fixes")
        labels = list(sweep.runs.order_by("id").values_list("label", flat=True))
        ref = "ReplicaSet/default/api-5b7d9c8f4"
        self.assertEqual(labels[:3], [f"maxSkew 3 on {ref}", f"minDomains 3 on {ref}", f"maxSkew 4 on {ref}"])
        self.assertContains(self.client.get(f"/runs/{run.pk}/fixes/"), "Checking")
        for cell in sweep.runs.all():
            tasks.execute_run(cell.pk)
        panel = html.unescape(self.client.get(f"/runs/{run.pk}/fixes/").content.decode())
        # maxSkew 3 still leaves a pod pending (3 zones of at most 0 + 3); minDomains 3 schedules all ten
        self.assertIn(f"Smallest change that schedules every pod: minDomains 3 on {ref}", panel)
        rows = dict(re.findall(r'<th scope="row"><a href="/runs/\d+/">([^<]+)</a></th>\s*'
                               r'<td data-label="Pods left pending">(\d+)</td>', panel))
        self.assertEqual((rows[f"maxSkew 3 on {ref}"], rows[f"minDomains 3 on {ref}"]), ("1", "0"))
        with mock.patch("webapp.scenarios.tasks.execute_run.apply_async"):
            r = self.client.post(f"/scenarios/{scenario.pk}/draft/edit/",
                                 dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', panel)))
        self.assertRedirects(r, f"/scenarios/{scenario.pk}/draft/", fetch_redirect_response=False)
        self.assertIn("minDomains: 3", Draft.objects.get(scenario=scenario).manifests)
