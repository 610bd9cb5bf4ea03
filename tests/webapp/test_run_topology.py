"""The run's topology page: domains, chips, pending tray, spread constraint explain; key switch via htmx."""

from webapp.scenarios import engine, services
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Run

from .base import BaseTestCase


def example_run(case, name):
    text = (EXAMPLES_DIR / f"{name}.yaml").read_text()
    scenario = services.create_scenario(team=case.team, name=name, manifests=text, author=case.owner)
    return Run.objects.create(scenario=scenario, revision=scenario.head(), status="succeeded",
                              result=engine.simulate(text))


class RunTopologyTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.the_run = example_run(cls, "min-domains")

    def test_it_shows_zones_as_columns_with_pods_and_the_pending_tray(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/topology/")
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, 'aria-label="zone eu-west-1a"')
        self.assertContains(r, "api-5b7d9c8f4-a1b2c")
        self.assertContains(r, "Pending (4)")
        self.assertContains(r, "ReplicaSet/api-5b7d9c8f4")
        self.assertContains(r, f'href="/runs/{self.the_run.pk}/pods/default/api-5b7d9c8f4-e1f2g/"')

    def test_it_explains_the_spread_constraint_and_the_min_domains_shortfall(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/topology/")
        self.assertContains(r, "3 of 5 domains: global minimum treated as 0")
        self.assertContains(r, "Global minimum <strong>0</strong>; allowed band 0–2")
        self.assertContains(r, "&gt; maxSkew 2", count=3)

    def test_it_switches_the_key_with_an_htmx_fragment(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/topology/?key=kubernetes.io/hostname",
                            headers={"HX-Request": "true"})
        self.assertNotContains(r, "<html")
        self.assertContains(r, 'id="topology-panel"')
        self.assertContains(r, 'aria-label="hostname node-b"')
        self.assertNotContains(r, 'aria-label="zone eu-west-1a"')

    def test_it_falls_back_to_the_first_key_for_an_unknown_one(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/topology/?key=nope")
        self.assertContains(r, 'aria-label="zone eu-west-1a"')

    def test_it_hides_runs_of_other_teams(self):
        self.client.force_login(self.outsider)
        self.assertEqual(self.client.get(f"/runs/{self.the_run.pk}/topology/").status_code, 404)

    def test_it_is_404_until_the_run_has_a_result(self):
        run = Run.objects.create(scenario=self.scenario, revision=self.scenario.head())
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.get(f"/runs/{run.pk}/topology/").status_code, 404)

    def test_it_links_the_result_page_to_the_dashboard(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/")
        self.assertContains(r, f'href="/runs/{self.the_run.pk}/topology/"')
        self.assertContains(r, f'href="/runs/{self.the_run.pk}/pod/default/api-5b7d9c8f4-e1f2g/"')


class DefaultSpreadingTopologyTestCase(BaseTestCase):
    """Pods without constraints of their own are spread by the cluster defaults (here the
    scenario's scheduler config: zone, maxSkew 1, DoNotSchedule); the topology shows those."""

    def test_it_shows_the_cluster_default_constraint_of_pods_that_have_none(self):
        from webapp.scenarios import tasks
        from webapp.scenarios.models import PodExplanation

        run = example_run(self, "default-spreading")
        self.assertNotIn("explanations", {k for k, v in run.result.items() if v})  # all scheduled
        self.client.force_login(self.viewer)
        url = f"/runs/{run.pk}/topology/"
        r = self.client.get(url)
        self.assertNotContains(r, "No pod in this run has a topology spread constraint")
        for pe in PodExplanation.objects.filter(run=run):  # what the worker does
            tasks.explain_pod.run(pe.pk)
        r = self.client.get(url)
        self.assertContains(r, "cluster default")
        self.assertContains(r, "app=cart,pod-template-hash=6d8b7f9c2")
        self.assertContains(r, 'aria-label="zone eu-west-1a"')

    def test_it_offers_and_selects_a_pod_explained_since_the_run(self):
        from webapp.scenarios import tasks
        from webapp.scenarios.models import PodExplanation

        run = example_run(self, "default-spreading")
        self.client.force_login(self.viewer)
        offered = self.client.get(f"/runs/{run.pk}/topology/").content.decode()
        pods = [c["pod"] for c in run.result["cycles"] if f'<option value="{c["pod"]}"' not in offered]
        self.assertTrue(pods)  # (a scheduled pod the page does not offer: its workload's latest stands for it)
        url = f"/runs/{run.pk}/topology/?pod={pods[0]}"
        self.client.get(url)
        for pe in PodExplanation.objects.filter(run=run):
            tasks.explain_pod.run(pe.pk)
        self.assertContains(self.client.get(url), f'<option value="{pods[0]}" selected>{pods[0]}</option>', html=False)

    def test_it_says_why_a_pods_last_cycle_evaluated_no_spread_constraint(self):
        # checkout (system default constraints, ScheduleAnyway only) was bound in a cycle where
        # node-a alone was feasible: kube-scheduler did not score, so nothing was counted
        from webapp.scenarios import tasks
        from webapp.scenarios.models import PodExplanation

        run = example_run(self, "preemption")
        self.client.force_login(self.viewer)
        url = f"/runs/{run.pk}/topology/?pod=default/checkout-3c5e7a9b2-x3y4z"
        self.client.get(url)
        for pe in PodExplanation.objects.filter(run=run):
            tasks.explain_pod.run(pe.pk)
        r = self.client.get(url)
        self.assertContains(r, "The last cycle of default/checkout-3c5e7a9b2-x3y4z (cycle 2) evaluated no spread "
                               "constraint: only one node was feasible, so kube-scheduler did not score")
        self.assertNotContains(r, "No pod in this run has a topology spread constraint")


class FinalSpreadTestCase(BaseTestCase):
    """The zone-spreading example: 3 web pods ran before the run (2 in eu-west-1a, 1 in eu-west-1b), 6 more are
    placed; kube-proxy-like pods of other workloads are on the nodes too."""

    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.the_run = example_run(cls, "zone-spreading")
        cls.mins = example_run(cls, "min-domains")

    def test_it_shows_each_domains_matching_pods_at_the_end_bound_pods_included(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/topology/")
        self.assertContains(r, 'id="spread-final"')
        for zone in ("eu-west-1a", "eu-west-1b", "eu-west-1c"):
            self.assertContains(r, f'<th scope="row">{zone}</th>\n          <td data-label="Matching pods">'
                                   '<span class="count-bar" aria-hidden="true"><span class="count-fill" '
                                   'style="width: 75%"></span></span> 3</td>', html=False)
        self.assertContains(r, '<p class="domain-matching"><strong>3</strong> matching <code>app=web</code> · skew 0',
                            count=3, html=False)

    def test_it_labels_the_cycles_counts_and_never_says_a_too_skewed_domain_can_take_the_pod(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.mins.pk}/topology/")
        self.assertContains(r, "As cycle 10 saw them")
        self.assertContains(r, "before placing default/api-5b7d9c8f4-e1f2g; the domains above show the end of the run")
        self.assertContains(r, "no: skew too high", count=3)
        self.assertNotContains(r, ">Eligible<")
        # minDomains 5 over 3 zones: the global minimum is 0 at the end too, so the skew is the largest count
        self.assertContains(r, 'Global minimum <strong>0</strong> (fewer domains than minDomains); '
                               'skew <strong class="ok-text">2</strong> ≤ maxSkew 2', html=False)


def _hostname_spread_cluster(nodes: int) -> str:
    """``nodes`` nodes, three web pods on n55 before the run, and one pending web pod spread by hostname."""
    items = [f"""- apiVersion: v1
  kind: Node
  metadata: {{name: n{i:02d}, labels: {{kubernetes.io/hostname: n{i:02d}, topology.kubernetes.io/zone: z1}}}}
  status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}""" for i in range(nodes)]
    items += [f"""- apiVersion: v1
  kind: Pod
  metadata: {{name: web-{i}, namespace: default, labels: {{app: web}}}}
  spec: {{nodeName: n55, containers: [{{name: web, image: nginx}}]}}""" for i in range(3)]
    items.append("""- apiVersion: v1
  kind: Pod
  metadata: {name: web-new, namespace: default, labels: {app: web}}
  spec:
    containers: [{name: web, image: nginx}]
    topologySpreadConstraints:
    - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule,
       labelSelector: {matchLabels: {app: web}}}""")
    return "apiVersion: v1\nkind: List\nitems:\n" + "\n".join(items) + "\n"


class FinalSpreadOfManyDomainsTestCase(BaseTestCase):
    """A hostname constraint has a domain per node: the run's end lists 50 of them, those over maxSkew first."""

    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        text = _hostname_spread_cluster(60)
        scenario = services.create_scenario(team=cls.team, name="hostnames", manifests=text, author=cls.owner)
        cls.the_run = Run.objects.create(scenario=scenario, revision=scenario.head(), status="succeeded",
                                         result=engine.simulate(text))

    def _final_rows(self, url):
        self.client.force_login(self.viewer)
        html = self.client.get(url).content.decode()
        final = html[html.index('id="spread-final"'):html.index("</section>", html.index('id="spread-final"'))]
        return final, final.count('<th scope="row">')

    def test_it_lists_fifty_domains_over_max_skew_first_and_says_how_many_there_are(self):
        final, rows = self._final_rows(f"/runs/{self.the_run.pk}/topology/?pod=default/web-new")
        self.assertEqual(rows, 50)
        self.assertIn("50 of 60 domains listed (those over maxSkew first, then by name)", final)
        # n55 (3 web pods; the global minimum is 0) is past the first 50 by name, and listed first
        self.assertEqual(final.index('<th scope="row">'), final.index('<th scope="row">n55</th>'))
        self.assertIn('<tr class="too-skewed">\n          <th scope="row">n55</th>', final)

    def test_it_lists_every_domain_when_asked_for_all(self):
        final, rows = self._final_rows(f"/runs/{self.the_run.pk}/topology/?pod=default/web-new&all=1")
        self.assertEqual(rows, 60)
        self.assertNotIn("domains listed", final)
