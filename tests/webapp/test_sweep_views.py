"""A two-axis sweep reads as a grid coloured by pending pods, a one-axis sweep as a chart; every cell opens its
run, and every number is the engine's count for that cell."""

import re

from webapp.scenarios import services, sweeps, tasks

from .base import BaseTestCase
from .test_compare import MIN_DOMAINS, RS


class SweepViewTests(BaseTestCase):
    def setUp(self):
        self.client.force_login(self.owner)
        self.scenario = services.create_scenario(team=self.team, name="md", manifests=MIN_DOMAINS, author=self.owner)

    def swept(self, spec):
        sweep = sweeps.start(self.scenario, self.scenario.head(), spec, self.owner)
        for cell in sweep.runs.all():
            tasks.execute_run(cell.pk)
        return sweep, self.client.get(f"/sweeps/{sweep.pk}/").content.decode()

    def test_a_two_axis_sweep_is_a_grid_of_pending_pods_linked_to_each_run(self):
        sweep, page = self.swept({"type": "skew", "workload": RS, "maxSkew": [1, 2, 4], "minDomains": ["none", "5"]})
        grid = page[page.index('id="sweep-grid"'):page.index("</table>", page.index('id="sweep-grid"'))]
        self.assertEqual(re.findall(r'<th scope="col">([^<]+)</th>', grid)[1:], ["unset", "5"])
        cells = {(int(s), d): int(n) for s, d, n in re.findall(
            r'aria-label="maxSkew=(\d) minDomains=(\S+): (\d+) pending"', grid)}
        want = {(c.variant["maxSkew"], "-" if c.variant["minDomains"] is None else str(c.variant["minDomains"])):
                c.summary["pending"] for c in sweep.runs.all()}
        self.assertEqual(cells, want)
        self.assertIn("background: #c6f6d5", grid)  # a cell leaving no pod pending is green
        self.assertEqual(len(re.findall(r'<a href="/runs/\d+/"', grid)), 6)

    def test_a_one_axis_sweep_is_a_chart_of_pending_pods(self):
        sweep, page = self.swept({"type": "zones"})
        chart = page[page.index('<figure class="sweep-chart">'):page.index("</figure>")]
        shown = dict(re.findall(r'<text[^>]*text-anchor="end"[^>]*>([^<]+)</text>\s*<rect[^>]*></rect>\s*'
                                r'<text[^>]*>(\d+) pending</text>', chart))
        self.assertEqual(shown, {f"without {c.variant['removed_zone']}": str(c.summary["pending"])
                                 for c in sweep.runs.all()})
        self.assertNotIn('id="sweep-grid"', page)
