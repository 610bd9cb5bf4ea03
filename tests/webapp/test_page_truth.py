"""Page truth: every count and skew the topology, compare, sweep and draft-vs-saved pages (and their API twins)
show equals a recount, written here, from the run's final placement (which node holds which pod at the end);
every score table's weighted cells add up to its total; and no internal link of a run's pages, logged in or
through a share link, answers 4xx/5xx. Over the five shipped examples and 20 generated clusters (bound pods,
two constraints per pod, required node affinity, and on the larger ones preemption of bound pods)."""

import html
import re
from collections import deque
from html.parser import HTMLParser
from urllib.parse import urlsplit

import yaml
from django.test import override_settings

from tests.bench.generate import generate, to_yaml
from webapp.scenarios import drafts, services, sweeps, tasks
from webapp.scenarios.manifests import edits
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR
from webapp.scenarios.models import Run, ShareLink

from .base import BaseTestCase

ZONE = "topology.kubernetes.io/zone"
# (nodes, pending) of the generated clusters; from 26 nodes on, a tainted highmem node holds a batch pod that
# the cache pods preempt
SIZES = [(6, 14), (8, 18), (10, 22), (12, 26), (14, 30), (16, 24), (18, 28), (20, 30), (22, 26), (24, 30),
         (26, 30), (27, 34), (28, 36), (29, 30), (30, 40), (26, 24), (28, 28), (30, 30), (27, 26), (29, 38)]
# Every cluster (the examples and the generated ones) is swept (each zone removed in turn) and crawled link by
# link; the first generated ones also keep every pod's explanation (score tables of scheduled pods), the others
# their pending pods' explanations, as runs do by default.
EXPLAINED = 5
SCORED_PER_RUN = 3  # score tables checked per run (every distinct spread constraint set is checked on topology)
STEPS_PER_RUN = 4  # cycles whose topology is checked per run: the first, the last, and those that preempted


# --- the recount: Kubernetes objects read here, counted here --------------------------------------------------


def objects_of(text):
    out = []
    for doc in yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        if isinstance(doc, dict):
            out += doc.get("items") or [] if doc.get("kind") == "List" else [doc]
    return out


def key_of(obj):
    m = obj.get("metadata") or {}
    return f"{m.get('namespace') or 'default'}/{m.get('name')}"


def matches(selector, labels):
    """A LabelSelector (matchLabels and matchExpressions) against labels; an empty one selects nothing, as
    PodTopologySpread counts in v1.34."""
    if not selector or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return False
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    return all(expression(e, labels) for e in selector.get("matchExpressions") or [])


def expression(e, labels):
    op, key, values = e["operator"], e["key"], e.get("values") or []
    if op == "In":
        return labels.get(key) in values
    if op == "NotIn":
        return labels.get(key) not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    raise AssertionError(f"operator {op} not recounted here")


def node_fits(pod, labels):
    """The pod's nodeSelector and required node affinity (nodeAffinityPolicy Honor, the default)."""
    spec = pod.get("spec") or {}
    if any(labels.get(k) != v for k, v in (spec.get("nodeSelector") or {}).items()):
        return False
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if not required:
        return True
    return any(all(expression(e, labels) for e in term.get("matchExpressions") or [])
               for term in required["nodeSelectorTerms"])


def selector_text(selector):
    return ",".join(f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items()))


WORKLOADS = ("ReplicaSet", "StatefulSet", "Deployment", "ReplicationController", "DaemonSet")


def made_by_workloads(objects, result, written):
    """Pods the text does not hold but a workload of it made (missing replicas, a StatefulSet's pods): an object
    from the workload's pod template. The result only says which workload owns which pod."""
    templates = {f"{o['kind']}/{key_of(o)}": (o.get("spec") or {}).get("template") or {}
                 for o in objects if o.get("kind") in WORKLOADS}
    out = {}
    for pod, info in (result.get("podInfo") or {}).items():
        namespace, _, name = pod.partition("/")
        kind, _, owner = (info.get("owner") or "").partition("/")
        template = templates.get(f"{kind}/{namespace}/{owner}")
        if pod in written or template is None:
            continue
        meta = template.get("metadata") or {}
        out[pod] = {"kind": "Pod", "metadata": {"name": name, "namespace": namespace,
                                                "labels": dict(meta.get("labels") or {})},
                    "spec": template.get("spec") or {}}
    return out


class Cluster:
    """A run's text and final placement: every pod's object, where each pod is at the end."""

    def __init__(self, text, result):
        objects = objects_of(text)
        self.pods = {key_of(o): o for o in objects if o.get("kind") == "Pod"}
        self.pods.update(made_by_workloads(objects, result, self.pods))
        self.services = [o for o in objects if o.get("kind") == "Service"]
        self.replica_sets = {key_of(o): o for o in objects if o.get("kind") == "ReplicaSet"}
        config = next((o for o in objects if o.get("kind") == "KubeSchedulerConfiguration"), None)
        self.defaults = default_constraints(config)
        self.node_labels = {n["name"]: n.get("labels") or {} for n in result["nodes"]}
        self.where = {p: n["name"] for n in result["nodes"] for p in n["pods"]}
        self.pending_at_start = [row["pod"] for row in result["pods"]]
        self.bound_before = [k for k, o in self.pods.items() if (o.get("spec") or {}).get("nodeName")]
        self.labels = {k: ((o.get("metadata") or {}).get("labels") or {}) for k, o in self.pods.items()}
        self.namespace = {k: k.split("/")[0] for k in self.pods}
        self.deleting = {k for k, o in self.pods.items() if (o.get("metadata") or {}).get("deletionTimestamp")}

    def pods_per_domain(self, key):
        out = {}
        for pod, node in self.where.items():
            domain = self.node_labels[node].get(key, "(none)")
            out[domain] = out.get(domain, 0) + 1
        for node, labels in self.node_labels.items():
            out.setdefault(labels.get(key, "(none)"), 0)
        return out

    def constraints(self, pod_key):
        """[(constraint, selector)] of a pod: its own, else the cluster defaults with the selector its Services
        and ReplicaSet give (kube's DefaultSelector)."""
        obj = self.pods[pod_key]
        own = (obj.get("spec") or {}).get("topologySpreadConstraints") or []
        if own:
            return [(c, c.get("labelSelector") or {}) for c in own]
        labels, ns = self.labels[pod_key], self.namespace[pod_key]
        merged = {}
        for s in self.services:
            sel = (s.get("spec") or {}).get("selector") or {}
            if key_of(s).split("/")[0] == ns and sel and all(labels.get(k) == v for k, v in sel.items()):
                merged.update(sel)
        for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
            rs = self.replica_sets.get(f"{ns}/{ref['name']}") if ref.get("kind") == "ReplicaSet" else None
            if rs is not None:
                merged.update(((rs.get("spec") or {}).get("selector") or {}).get("matchLabels") or {})
        return [(c, {"matchLabels": merged}) for c in self.defaults] if merged else []

    def recount(self, pod_key):
        """{(topologyKey, whenUnsatisfiable, maxSkew, selector text): (domains, global minimum, skew)} of the
        pod's constraints on the final placement: matching pods of its namespace on the nodes that have every
        key of the constraints of that kind and that its node affinity admits."""
        obj, ns = self.pods[pod_key], self.namespace[pod_key]
        found = self.constraints(pod_key)
        out = {}
        for when in ("DoNotSchedule", "ScheduleAnyway"):
            group = [(c, s) for c, s in found if c.get("whenUnsatisfiable") == when]
            keys = {c["topologyKey"] for c, _ in group}
            nodes = [n for n, labels in self.node_labels.items()
                     if keys <= set(labels) and node_fits(obj, labels)]
            for c, selector in group:
                domains = {self.node_labels[n][c["topologyKey"]]: 0 for n in nodes}
                for pod, node in self.where.items():
                    if node in nodes and self.namespace.get(pod) == ns and pod not in self.deleting \
                            and matches(selector, self.labels.get(pod, {})):
                        domains[self.node_labels[node][c["topologyKey"]]] += 1
                minimum = min(domains.values()) if len(domains) >= (c.get("minDomains") or 1) else 0
                skew = max(domains.values()) - minimum if domains else 0
                out[(c["topologyKey"], when, c["maxSkew"], selector_text(selector))] = (domains, minimum, skew)
        return out

    def max_skews(self):
        """{"key (selector)": the largest skew of any pod pending at the start carrying that constraint}."""
        out = {}
        for pod in self.pending_at_start:
            if pod not in self.pods:
                continue
            for (key, _, _, selector), (_, _, skew) in self.recount(pod).items():
                name = f"{key} ({selector or 'all pods'})"
                out[name] = max(out.get(name, 0), skew)
        return out

    def state(self, pod):
        """(node at the end or None, preempted): a pod running before the run and on no node was preempted."""
        node = self.where.get(pod)
        return node, node is None and pod in self.bound_before


# kube-scheduler's built-in defaults (defaultingType System): zones maxSkew 5, hostnames maxSkew 3, ScheduleAnyway
SYSTEM_DEFAULTS = [{"maxSkew": 3, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"},
                   {"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"}]


def default_constraints(config):
    for profile in (config or {}).get("profiles") or []:
        for pc in profile.get("pluginConfig") or []:
            args = pc.get("args") or {}
            if pc.get("name") == "PodTopologySpread" and args.get("defaultingType") == "List":
                return args.get("defaultConstraints") or []
    return SYSTEM_DEFAULTS


def recount_diff(a, b, evicted_b):
    """What compare and draft-vs-saved should say from A's and B's final placements."""
    pods = set(a.pods) | set(a.pending_at_start) | set(b.pods) | set(b.pending_at_start)
    out = {"moved": 0, "became_pending": 0, "got_scheduled": 0, "displaced": 0, "unchanged": 0}
    for pod in pods:
        in_a = pod in a.pods or pod in a.pending_at_start
        in_b = pod in b.pods or pod in b.pending_at_start
        na, nb = a.where.get(pod), b.where.get(pod)
        if not in_a or not in_b:
            out["got_scheduled"] += bool(not in_a and nb)
        elif na == nb:
            out["unchanged"] += 1
        elif na and not nb:
            out["displaced" if pod in evicted_b else "became_pending"] += 1
        elif nb and not na:
            out["got_scheduled"] += 1
        else:
            out["moved"] += 1
    return out


def evicted(result):
    return {e["pod"] for e in result["events"] if e["reason"] == "Preempted"} - \
        {p for n in result["nodes"] for p in n["pods"]}


# --- reading pages ------------------------------------------------------------------------------------------


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "hx-get") and value and value.startswith(("/", "?")):
                self.links.append(value)


def links_of(page):
    parser = Links()
    parser.feed(page)
    return parser.links


DOMAIN_CARD = re.compile(r'<h3>(.*?) <span class="muted">\((\d+) pods? in all\)</span></h3>\s*'
                         r'(?:<p class="domain-matching"><strong>(\d+)</strong> matching <code>.*?</code> · '
                         r'skew (-?\d+)</p>)?')
FINAL_CARD = re.compile(r'<div class="card spread-card">\s*<p><strong>[^<]*</strong> \(<code>([^<]*)</code>\) · '
                        r'maxSkew (\d+).*? · (DoNotSchedule|ScheduleAnyway) · selector <code>([^<]*)</code></p>\s*'
                        r'<p class="spread-final-skew">Global minimum <strong>(\d+)</strong>.*?skew <strong[^>]*>'
                        r'(-?\d+)</strong>.*?<tbody>(.*?)</tbody>', re.S)
FINAL_ROW = re.compile(r'<th scope="row">([^<]*)</th>\s*<td data-label="Matching pods">.*?</span></span> (\d+)</td>'
                       r'\s*<td data-label="Skew">(-?\d+)</td>', re.S)
WEIGHTED_ROW = re.compile(r'<tr><th scope="row">[^<]*</th>((?:<td class="weighted-score"[^>]*>.*?</td>)*)'
                          r'<td><strong class="score-total">(-?\d+)</strong></td></tr>', re.S)


STEP_CARD = re.compile(r'<h3>([^<]*) <span class="muted">\((\d+) pods? in all\)</span></h3>')
CLUSTERS = {}  # run pk -> its Cluster, read once per test session


def replayed_per_domain(result, step, key):
    """{domain: pods on its nodes right after cycle `step`}, nodes with the key only: the final placement with
    the pods bound after `step` taken off and the pods preempted after `step` put back."""
    node_of = {p: n["name"] for n in result["nodes"] for p in n["pods"]}
    for e in sorted(result["events"], key=lambda e: -e["seq"]):  # undone from the last one back
        if e["cycle"] <= step:
            break
        if e["reason"] == "Scheduled":
            del node_of[e["pod"]]
        elif e["reason"] == "Preempted":
            node_of[e["pod"]] = e["node"]
    labels = {n["name"]: n["labels"] for n in result["nodes"]}
    out = {labels[n][key]: 0 for n in labels if key in labels[n]}
    for node in node_of.values():
        if key in labels[node]:
            out[labels[node][key]] += 1
    return out


def number(page, label):
    return int(re.search(rf"<strong>(\d+)</strong> {label}", page).group(1))


class PageTruthTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        texts = [(p.stem, p.read_text()) for p in sorted(EXAMPLES_DIR.glob("*.yaml"))]
        texts += [(f"generated-{n}x{p}-{i}", to_yaml(generate(f"{n}x{p}", seed=i).objects))
                  for i, (n, p) in enumerate(SIZES)]
        cls.cases = []
        for i, (name, text) in enumerate(texts):
            scenario = services.create_scenario(team=cls.team, name=name, manifests=text, author=cls.owner)
            run = Run.objects.create(scenario=scenario, revision=scenario.head(), created_by=cls.owner)
            with override_settings(RUN_DETAIL=True if i < 5 + EXPLAINED else "failed"):
                tasks.execute_run(run.pk)
            cls.cases.append((name, scenario, Run.objects.get(pk=run.pk), True))
        # each scenario's draft (one zone removed) and its run: draft vs saved, and compare's run B
        cls.drafts = {}
        for name, scenario, run, _ in cls.cases:
            zones = sorted({n["labels"].get(ZONE) for n in run.result["nodes"]} - {None})
            if len(zones) < 2:
                continue
            draft = drafts.get_or_start(scenario, cls.owner)
            drafts.set_text(draft, edits.apply_edit(scenario.head().manifests,
                                                    {"op": "remove_zone", "zone": zones[0], "key": ZONE}))
            mine = drafts.run(draft, cls.owner)
            tasks.execute_run(mine.pk)
            cls.drafts[name] = Run.objects.get(pk=mine.pk)

    def setUp(self):
        self.client.force_login(self.owner)
        self.apic = self.api(self.owner)

    def cluster(self, run):
        found = CLUSTERS.get(run.pk)
        if found is None:
            found = CLUSTERS[run.pk] = Cluster(run.scenario_text()[0], run.result)
        return found

    # --- topology ---------------------------------------------------------------------------------------------

    def test_it_shows_on_the_topology_the_counts_and_skews_of_a_recount(self):
        checked = 0
        for name, scenario, run, _ in self.cases:
            cluster = self.cluster(run)
            shown = set()
            for pod in cluster.pending_at_start:
                if pod not in cluster.pods or not cluster.constraints(pod):
                    continue
                recount = cluster.recount(pod)
                if tuple(sorted(recount)) in shown:
                    continue  # one pod per distinct set of constraints
                shown.add(tuple(sorted(recount)))
                for key in sorted({k[0] for k in recount}):
                    with self.subTest(cluster=name, pod=pod, key=key):
                        self.check_topology(run, cluster, pod, key, recount)
                        checked += 1
        self.assertGreater(checked, 80)

    def check_topology(self, run, cluster, pod, key, recount):
        url = f"/runs/{run.pk}/topology/?key={key}&pod={pod}"
        page = html.unescape(self.client.get(url).content.decode())
        per_domain = cluster.pods_per_domain(key)
        mine = [v for k, v in recount.items() if k[0] == key]
        cards = DOMAIN_CARD.findall(page)
        self.assertEqual({d: int(n) for d, n, _, _ in cards}, per_domain)
        domains, _, _ = mine[0]  # the cards show the first constraint on this key
        for d, _, matching, skew in cards:
            if matching:
                self.assertEqual(int(matching), domains[d])
                self.assertEqual(int(skew), domains[d] - mine[0][1])
        finals = {(k, w, int(s), sel): (int(m), int(sk), {d: (int(c), int(x)) for d, c, x in FINAL_ROW.findall(body)})
                  for k, s, w, sel, m, sk, body in FINAL_CARD.findall(page)}
        want = {(k, w, s, sel): (m, sk, {d: (c, c - m) for d, c in ds.items()})
                for (k, w, s, sel), (ds, m, sk) in recount.items()}
        self.assertEqual(finals, want)
        api = self.apic.get(f"/api/runs/{run.pk}/topology/", {"key": key, "pod": pod}).json()
        self.assertEqual({d["name"]: d["count"] for d in api["domains"]}, per_domain)
        got = {(f["key"], f["whenUnsatisfiable"], f["maxSkew"], f["selector"]):
               (f["globalMinimum"], f["skew"], {d["name"]: (d["count"], d["skew"]) for d in f["domains"]})
               for f in api["spread"]["final"]}
        self.assertEqual(got, want)

    def test_it_shows_on_the_topology_of_a_step_the_counts_of_a_replay(self):
        """At cycle N a domain's total is the pods on its nodes then: replayed here from the run's final placement
        and its Scheduled and Preempted events (a pod bound at cycle > N was not there yet; one preempted then was)."""
        checked = 0
        for name, scenario, run, _ in self.cases:
            result = run.result
            numbers = sorted({c["cycle"] for c in result["cycles"]})
            if not numbers:
                continue
            preempting = sorted({e["cycle"] for e in result["events"] if e["reason"] == "Preempted"})
            steps = sorted({numbers[0], numbers[len(numbers) // 2], numbers[-1], *preempting[:1]})[:STEPS_PER_RUN]
            keys = sorted({k for n in result["nodes"] for k in n["labels"]}
                          & {ZONE, "kubernetes.io/hostname"})
            for step in steps:
                for key in keys:
                    with self.subTest(cluster=name, step=step, key=key):
                        want = replayed_per_domain(result, step, key)
                        page = html.unescape(self.client.get(
                            f"/runs/{run.pk}/topology/", {"key": key, "step": step}).content.decode())
                        shown = {d: int(n) for d, n in STEP_CARD.findall(page)}
                        self.assertEqual(shown, want)
                        api = self.apic.get(f"/api/runs/{run.pk}/topology/", {"key": key, "step": step}).json()
                        self.assertEqual({d["name"]: d["count"] for d in api["domains"] if d["count"] is not None},
                                         want)
                        checked += 1
        self.assertGreater(checked, 100)

    # --- compare, draft vs saved ---------------------------------------------------------------------------------

    def test_it_compares_runs_with_the_counts_of_a_recount(self):
        for name, scenario, a, _ in self.cases:
            b = self.drafts.get(name)
            if b is None:
                continue
            with self.subTest(cluster=name):
                ca, cb = self.cluster(a), self.cluster(b)
                want = recount_diff(ca, cb, evicted(b.result))
                page = html.unescape(self.client.get(
                    f"/scenarios/{scenario.pk}/compare/", {"a": a.pk, "b": b.pk, "key": ZONE}).content.decode())
                shown = {k: number(page, label) for k, label in (
                    ("moved", "moved"), ("became_pending", "became pending"), ("got_scheduled", "got scheduled"),
                    ("displaced", r"displaced \(preempted\)"), ("unchanged", "unchanged"))}
                self.assertEqual(shown, want)
                rows = re.findall(r'<tr><th scope="row">([^<]*)</th><td data-label="A">([^<]*)</td>'
                                  r'<td data-label="B">([^<]*)</td></tr>', page)
                da, db = ca.pods_per_domain(ZONE), cb.pods_per_domain(ZONE)
                self.assertEqual({d: (x, y) for d, x, y in rows},
                                 {d: (str(da[d]) if d in da else "—", str(db[d]) if d in db else "—")
                                  for d in set(da) | set(db)})
                api = self.compare_api(a, b)
                self.assertEqual({k: (api[k] if k == "unchanged" else len(api[k])) for k in want}, want)
                self.assertEqual({d["domain"]: (d["a"], d["b"]) for d in api["domains"]},
                                 {d: (da.get(d), db.get(d)) for d in set(da) | set(db)})

    def compare_api(self, a, b):
        url = f"/api/runs/{a.pk}/compare/{b.pk}/"
        r = self.apic.get(url, {"key": ZONE})
        if r.status_code == 405:  # compare may be a POST
            r = self.apic.post(f"{url}?key={ZONE}")
        self.assertEqual(r.status_code, 200, r.content)
        return r.json()

    def test_it_shows_draft_against_saved_with_the_counts_of_a_recount(self):
        for name, scenario, saved, _ in self.cases:
            mine = self.drafts.get(name)
            if mine is None:
                continue
            with self.subTest(cluster=name):
                cs, cm = self.cluster(saved), self.cluster(mine)
                want = recount_diff(cs, cm, evicted(mine.result))
                page = html.unescape(self.client.get(f"/scenarios/{scenario.pk}/draft/").content.decode())
                summary = page[page.index('id="draft-diff-summary"'):]
                shown = {k: number(summary, label) for k, label in (
                    ("got_scheduled", "newly scheduled"), ("became_pending", "newly pending"),
                    ("displaced", "displaced"), ("moved", "moved"))}
                shown["unchanged"] = int(re.search(r"(\d+) unchanged", summary).group(1))
                self.assertEqual(shown, want)
                counts = re.findall(r'<span class="big ok-text">(\d+)</span> scheduled ·\s*'
                                    r'<span class="big[^"]*">(\d+)</span> pending', page)
                want_counts = [(sum(1 for p in c.pending_at_start if p in c.where),
                                sum(1 for p in c.pending_at_start if p not in c.where)) for c in (cs, cm)]
                self.assertEqual([(int(x), int(y)) for x, y in counts], want_counts)

    # --- sweeps --------------------------------------------------------------------------------------------------

    def test_it_shows_each_sweep_cells_max_skew_as_a_recount(self):
        for name, scenario, run, swept in self.cases:
            if not swept or name not in self.drafts:
                continue
            sweep = sweeps.start(scenario, scenario.head(), {"type": "zones", "key": ZONE}, self.owner)
            for cell in sweep.runs.all():
                tasks.execute_run(cell.pk)
            page = html.unescape(self.client.get(f"/sweeps/{sweep.pk}/").content.decode())
            page = page[page.index('id="sweep-cells"'):]  # the table of cells (the chart above links them too)
            api = {c["run"]: c for c in self.apic.get(f"/api/sweeps/{sweep.pk}/").json()["cells"]}
            for cell in sweep.runs.all():
                with self.subTest(cluster=name, cell=cell.label):
                    want = self.cluster(cell).max_skews()
                    self.assertEqual(api[cell.pk]["skew"], want)
                    row = re.search(rf'<a href="/runs/{cell.pk}/">.*?</tr>', page, re.S).group(0)
                    shown = dict(re.findall(r'<td data-label="Max skew: ([^"]*)">(\d+)</td>', row))
                    self.assertEqual({k: int(v) for k, v in shown.items()}, want)

    # --- score tables --------------------------------------------------------------------------------------------

    def test_it_shows_score_tables_whose_weighted_cells_add_up_to_the_total(self):
        tables = 0
        for name, scenario, run, _ in self.cases:
            scored = [(p, e) for p, e in run.result["explanations"].items() if e["scores"]["nodes"]]
            tied = [x for x in scored if x[1]["scores"]["tie"]]
            for pod, explained in (tied[:1] + [x for x in scored if not x[1]["scores"]["tie"]][:1] + scored)[
                    :SCORED_PER_RUN]:
                ns, _, pod_name = pod.partition("/")
                page = self.client.get(f"/runs/{run.pk}/pods/{ns}/{pod_name}/").content.decode()
                rows = WEIGHTED_ROW.findall(page)
                with self.subTest(cluster=name, pod=pod):
                    self.assertEqual(len(rows), len(explained["scores"]["nodes"]))
                    for cells, total in rows:
                        self.assertEqual(sum(int(v) for v in re.findall(r'data-weighted="(-?\d+)"', cells)),
                                         int(total))
                    tie = explained["scores"]["tie"]
                    self.assertEqual(tie is not None, "tied at the top total" in page)
                    api = self.apic.get(f"/api/runs/{run.pk}/pods/{ns}/{pod_name}/").json()
                    for row in api["scores"]:
                        self.assertEqual(sum(c["weighted"] for c in row["cells"]), row["total"])
                tables += 1
        self.assertGreater(tables, 25)

    # --- links ---------------------------------------------------------------------------------------------------

    def test_no_internal_link_of_a_runs_pages_answers_an_error(self):
        for name, scenario, run, _ in self.cases:
            _, token = ShareLink.create(scenario, self.owner)
            for start in (f"/runs/{run.pk}/", f"/s/{token}/runs/{run.pk}/"):
                with self.subTest(cluster=name, start=start[:12]):
                    client = self.client if start.startswith("/runs/") else self.client_class()
                    broken, visited = self.crawl(client, start, by_path=name.startswith("generated"))
                    self.assertEqual(broken, [])
                    self.assertGreater(visited, 5)

    def crawl(self, client, start, by_path=False):
        """Every page under `start` (the run's pods, nodes, steps), each link on them checked once; `by_path`:
        one address per path (a generated run's timeline steps and topology variants are one view each)."""
        prefix = start.rstrip("/").rsplit("/", 1)[0] + "/" + start.rstrip("/").rsplit("/", 1)[1] + "/"
        seen, broken, queue = {start}, [], deque([start])
        while queue:
            url = queue.popleft()
            r = client.get(url)
            if r.status_code >= 400:
                broken.append((url, r.status_code))
                continue
            if not url.startswith(prefix) or "text/html" not in r.get("Content-Type", ""):
                continue
            for link in links_of(r.content.decode()):
                link = urlsplit(url).path + link if link.startswith("?") else html.unescape(link)
                seen_as = urlsplit(link).path if by_path else link
                if link.startswith(("/static/", "/logout")) or seen_as in seen:
                    continue
                seen.add(seen_as)
                queue.append(link)
        return broken, len(seen)
