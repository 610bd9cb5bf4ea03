"""CPU and memory read as people read them, and a node page that lists each pod's requests and priority."""

import re

from webapp.scenarios import services, tasks
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Run

from .base import BaseTestCase


class HumanUnitsTests(BaseTestCase):
    def setUp(self):
        self.client.force_login(self.owner)
        self.preemption = services.create_scenario(team=self.team, name="Preemption", author=self.owner,
                                                   manifests=(EXAMPLES_DIR / "preemption.yaml").read_text())

    def test_the_scenarios_node_table_shows_cores_and_gib_and_says_which_pod_count_is_capacity(self):
        page = self.client.get(f"/scenarios/{self.preemption.pk}/").content.decode()
        self.assertIn('<th scope="col">Pod capacity</th>', page)
        row = re.search(r'<th scope="row">node-a</th>(.*?)</tr>', page, re.S).group(1)
        self.assertIn('<td data-label="CPU">2 cores</td>', row)
        self.assertIn('<td data-label="Memory">7 GiB</td>', row)  # 7293396Ki
        self.assertNotIn("Ki<", page)

    def test_a_node_page_lists_each_pods_priority_and_requests(self):
        run = Run.objects.create(scenario=self.preemption, revision=self.preemption.head(), created_by=self.owner)
        tasks.execute_run(run.pk)
        page = self.client.get(f"/runs/{run.pk}/nodes/node-b/").content.decode()
        rows = re.findall(r'<tr><th scope="row"><a class="chip"[^>]*>([^<]*)</a></th>\s*<td data-label="Workload">[^<]*</td>'
                          r'<td data-label="Priority">([^<]*)</td>\s*<td data-label="CPU request">([^<]*)</td>'
                          r'<td data-label="Memory request">([^<]*)</td>', page)
        self.assertTrue(rows, page[:2000])
        for name, priority, cpu, memory in rows:
            self.assertEqual(priority, "1000", name)  # the report pods' PriorityClass "standard"
            self.assertRegex(cpu, r"^(\d+ millicores|[\d.]+ cores?)$")
            self.assertRegex(memory, r"^[\d.]+ (MiB|GiB)$")
