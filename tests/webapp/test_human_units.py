"""The nodes table shows cpu and memory in units a person reads (cores, millicores, GiB, MiB),
never the raw quantity, and says which pod column is the node's capacity and which the bound pods."""

import re

from webapp.scenarios import services

from .base import BaseTestCase

NODES = """\
- apiVersion: v1
  kind: Node
  metadata:
    name: {name}
    labels: {{topology.kubernetes.io/zone: z1}}
  status:
    allocatable: {{cpu: "{cpu}", memory: "{memory}", pods: "58"}}
"""

# (node, allocatable cpu, allocatable memory, cpu cell, memory cell)
CASES = [
    ("big", "4", "15136776Ki", "4 cores", "14.4 GiB"),
    ("half", "500m", "512Mi", "500 millicores", "512 MiB"),
    ("one", "1", "8Gi", "1 core", "8 GiB"),
    ("odd", "1500m", "1000M", "1.5 cores", "953.7 MiB"),
]


class NodeTableUnitsTests(BaseTestCase):
    def test_cpu_and_memory_in_human_units_and_pod_columns_named(self):
        text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(NODES.format(name=n, cpu=c, memory=m) for n, c, m, _, _ in CASES)
        scenario = services.create_scenario(team=self.team, name="units", manifests=text, author=self.owner)
        self.client.force_login(self.viewer)
        page = self.client.get(f"/scenarios/{scenario.pk}/").content.decode()
        for name, _, raw_memory, cpu, memory in CASES:
            with self.subTest(node=name):
                row = re.search(rf'<th scope="row">{name}</th>(.*?)</tr>', page, re.S).group(1)
                self.assertIn(f'<td data-label="CPU">{cpu}</td>', row)
                self.assertIn(f'<td data-label="Memory">{memory}</td>', row)
                self.assertNotIn(raw_memory, row)
                self.assertIn('<td data-label="Pod capacity">58</td>', row)
        self.assertIn('<th scope="col">Pod capacity</th>', page)
        self.assertIn('<th scope="col">Bound pods</th>', page)
