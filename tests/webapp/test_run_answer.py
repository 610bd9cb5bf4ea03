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

    def test_pending_pods_are_one_group_with_the_min_domains_root_cause_first(self):
        run, page = self.run_example("min-domains")
        why = page[page.index('id="pending-why"'):page.index('<h2>Pods</h2>')]
        groups = re.findall(r'<div class="card pending-group">', why)
        self.assertEqual(len(groups), 1)
        self.assertIn('<span class="big">4</span> pods unschedulable', why)
        root = re.search(r'<li class="root-cause"><strong>Root cause:</strong> (.*?)</li>', why).group(1)
        self.assertEqual(root, "topology.kubernetes.io/zone: 3 of 5 domains: global minimum treated as 0 "
                               "(fewer eligible domains than minDomains).")
        self.assertEqual(len(re.findall(rf'href="/runs/{run.pk}/pod/default/api-', why)), 4)
        self.assertLess(page.index('id="pending-why"'), page.index('id="pod-table"'))  # the answer comes first
        self.assertNotIn("<h2>FailedScheduling</h2>", page)

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
