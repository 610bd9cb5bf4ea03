"""Capacity: the fewest nodes to add so a run leaves no pod pending, and how many more
replicas of a pod fit. Every candidate is judged by a real simulation of the scenario."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from ..errors import ScenarioError
from ..k8s.types import Node, Taint
from .common import HOSTNAME, INSTANCE_TYPE, ZONE, pending, run, with_nodes

PRICE_LABEL = "whatif.io/hourly-price"
MAX_PER_TEMPLATE = 64  # the largest addition tried for one template


@dataclass(frozen=True)
class NodeTemplate:
    """The shape of a node that could be added: labels (zone included), taints, allocatable."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    allocatable: Mapping[str, int] = field(default_factory=dict)

    @property
    def zone(self) -> str:
        return self.labels.get(ZONE, "")

    def price(self, price_label: str = PRICE_LABEL) -> float | None:
        v = self.labels.get(price_label)
        try:
            return None if v is None else float(v)
        except ValueError:
            return None

    def nodes(self, count: int, prefix: str) -> list[Node]:
        out = []
        for i in range(count):
            name = f"{prefix}-{i + 1}"
            out.append(Node(name=name, labels={**self.labels, HOSTNAME: name},
                            taints=self.taints, allocatable=dict(self.allocatable)))
        return out


def _shape_key(n: Node) -> tuple:
    return (n.labels.get(INSTANCE_TYPE, ""), n.labels.get(ZONE, ""),
            tuple(sorted((t.key, t.value, t.effect) for t in n.taints)),
            tuple(sorted(n.allocatable.items())))


def templates_from_nodes(nodes: Sequence[Node], extra_zones: Sequence[str] = ()
                         ) -> list[NodeTemplate]:
    """One template per node shape (instance type, zone, taints, allocatable), labelled as
    the first node of that shape minus its hostname; ``extra_zones`` adds each shape again in
    zones the cluster does not have yet (minDomains may need new domains)."""
    seen: dict[tuple, Node] = {}
    for n in sorted(nodes, key=lambda n: n.name):
        seen.setdefault(_shape_key(n), n)
    out = []
    for key, n in sorted(seen.items(), key=lambda kv: repr(kv[0])):
        labels = {k: v for k, v in n.labels.items() if k != HOSTNAME}
        name = labels.get(INSTANCE_TYPE) or n.name
        out.append(NodeTemplate(name, labels, n.taints, dict(n.allocatable)))
    zones = {t.zone for t in out}
    for z in extra_zones:
        if z in zones:
            continue
        for t in list(out):
            if t.zone and t.zone in zones:
                out.append(replace(t, labels={**t.labels, ZONE: z}))
        zones.add(z)
    # one template per (name, zone): drop duplicates made by extra zones
    uniq: dict[tuple, NodeTemplate] = {}
    for t in out:
        uniq.setdefault((t.name, t.zone, tuple(sorted(t.labels.items())), t.taints), t)
    return list(uniq.values())


def _prefix(t: NodeTemplate) -> str:
    return f"whatif-{t.name}-{t.zone or 'nozone'}".replace(".", "-").replace("/", "-")


def _add(scenario, counts: Mapping[int, int], templates: Sequence[NodeTemplate]):
    nodes = []
    for i, c in sorted(counts.items()):
        nodes += templates[i].nodes(c, _prefix(templates[i]))
    return with_nodes(scenario, nodes)


def _leaves_pending(scenario, counts, templates, seed, runs) -> bool:
    runs.append(dict(counts))
    return bool(pending(run(_add(scenario, counts, templates), seed)))


def _cost(counts: Mapping[int, int], templates, price_label) -> tuple:
    total = sum(counts.values())
    price = sum(c * (templates[i].price(price_label) or 0.0) for i, c in counts.items())
    return (total, price)


def search_capacity(scenario, templates: Sequence[NodeTemplate], seed: int = 0,
                    price_label: str = PRICE_LABEL, max_per_template: int = MAX_PER_TEMPLATE
                    ) -> dict:
    """The fewest added nodes (then the cheapest) that leave no pod pending.

    First each template alone (``single``), then mixes of all templates (``mix``); the cheaper
    wins (``choose``). The parts are independent, so a caller may run them in parallel (the
    web app runs each on a worker) and get the same answer. Deterministic for a seed."""
    if not templates:
        raise ScenarioError(scenario.source, "", "templates", "no node template to add")
    if not pending(run(scenario, seed)):
        return nothing_pending(templates, price_label)
    parts = [single(scenario, templates, i, seed, max_per_template) for i in range(len(templates))]
    parts.append(mix(scenario, templates, seed, price_label, max_per_template))
    return choose(parts, templates, price_label, max_per_template)


def nothing_pending(templates: Sequence[NodeTemplate], price_label: str = PRICE_LABEL) -> dict:
    return _answer({}, templates, price_label, [], "nothing is pending")


def single(scenario, templates: Sequence[NodeTemplate], i: int, seed: int = 0,
           max_per_template: int = MAX_PER_TEMPLATE) -> dict:
    """The smallest count of template ``i`` alone that schedules everything (binary search;
    adding nodes of one shape cannot make a pod that fitted stop fitting), or None."""
    runs: list[dict] = []
    if _leaves_pending(scenario, {i: max_per_template}, templates, seed, runs):
        return {"counts": None, "runs": len(runs)}
    lo, hi = 1, max_per_template
    while lo < hi:
        mid = (lo + hi) // 2
        if _leaves_pending(scenario, {i: mid}, templates, seed, runs):
            lo = mid + 1
        else:
            hi = mid
    return {"counts": {i: lo}, "runs": len(runs)}


def mix(scenario, templates: Sequence[NodeTemplate], seed: int = 0,
        price_label: str = PRICE_LABEL, max_per_template: int = MAX_PER_TEMPLATE) -> dict:
    """Mixes (spread constraints with minDomains need several zones): one node of each
    template in turn until nothing is pending, then each count lowered while the run still
    leaves nothing pending (the dearest templates first); None when no mix schedules all."""
    runs: list[dict] = []
    counts: dict[int, int] = {}
    for step in range(max_per_template * len(templates)):
        i = step % len(templates)
        counts[i] = counts.get(i, 0) + 1
        if not _leaves_pending(scenario, counts, templates, seed, runs):
            break
    else:
        return {"counts": None, "runs": len(runs)}
    for i in sorted(counts, key=lambda i: -(templates[i].price(price_label) or 0.0)):
        while counts.get(i, 0) > 0:
            trial = {k: v for k, v in {**counts, i: counts[i] - 1}.items() if v}
            if trial and not _leaves_pending(scenario, trial, templates, seed, runs):
                counts = trial
            else:
                break
    return {"counts": counts, "runs": len(runs)}


def choose(parts: Sequence[dict], templates: Sequence[NodeTemplate],
           price_label: str = PRICE_LABEL, max_per_template: int = MAX_PER_TEMPLATE) -> dict:
    """The answer from the parts (``single`` per template in order, then ``mix``): the
    fewest nodes, then the cheapest; on a tie the earlier part."""
    best = None
    for part in parts:
        counts = part["counts"]
        if counts is not None and (best is None or _cost(counts, templates, price_label)
                                   < _cost(best, templates, price_label)):
            best = counts
    runs = [None] * sum(p["runs"] for p in parts)
    if best is None:
        return _answer(None, templates, price_label, runs, "no addition of up to "
                       f"{max_per_template} nodes per template schedules every pending pod")
    return _answer(best, templates, price_label, runs, "")


def _answer(counts, templates, price_label, runs, note) -> dict:
    additions = [] if counts is None else [
        {"template": templates[i].name, "zone": templates[i].zone, "count": c,
         "labels": dict(templates[i].labels), "hourlyPrice": templates[i].price(price_label)}
        for i, c in sorted(counts.items()) if c]
    if counts is None:
        sentence = note
    elif not additions:
        sentence = "no node needs adding: " + note
    else:
        sentence = "add " + ", ".join(
            f"{a['count']} × {a['template']}" + (f" in {a['zone']}" if a["zone"] else "")
            for a in additions)
    return {"found": counts is not None, "additions": additions,
            "nodesAdded": sum(a["count"] for a in additions), "sentence": sentence,
            "candidateRuns": len(runs)}


def node_manifests(answer: dict, templates: Sequence[NodeTemplate]) -> list[dict]:
    """The answer's added nodes as Node objects (as ``kubectl get nodes -o yaml`` prints them),
    to append to the scenario's manifests for the verifying run."""
    index = {(t.name, t.zone): i for i, t in enumerate(templates)}
    out = []
    for a in answer["additions"]:
        t = templates[index[(a["template"], a["zone"])]]
        for n in t.nodes(a["count"], _prefix(t)):
            amounts = {r: (f"{v}m" if r == "cpu" else str(v)) for r, v in sorted(n.allocatable.items())}
            spec = {"taints": [{"key": x.key, **({"value": x.value} if x.value else {}), "effect": x.effect}
                               for x in n.taints]} if n.taints else {}
            out.append({"apiVersion": "v1", "kind": "Node",
                        "metadata": {"name": n.name, "labels": dict(sorted(n.labels.items()))},
                        "spec": spec, "status": {"allocatable": amounts, "capacity": amounts}})
    return out


def apply_additions(scenario, answer: dict, templates: Sequence[NodeTemplate]):
    """The scenario with the answer's nodes added (the verifying run simulates this)."""
    index = {(t.name, t.zone): i for i, t in enumerate(templates)}
    counts = {index[(a["template"], a["zone"])]: a["count"] for a in answer["additions"]}
    return _add(scenario, counts, templates)


def max_replicas(scenario, pod_key: str, seed: int = 0, limit: int = 1000) -> dict:
    """The largest N such that N more copies of pod ``pod_key`` (bound or pending) all
    schedule and nothing that scheduled before is left pending (binary search, real runs)."""
    proto = scenario.pod(pod_key if "/" in pod_key else f"default/{pod_key}")
    if proto is None:
        raise ScenarioError(scenario.source, "", "pod", f"no pod {pod_key} in the scenario")
    before = set(pending(run(scenario, seed)))
    runs = 0

    def fits(n: int) -> bool:
        nonlocal runs
        runs += 1
        copies = tuple(replace(proto, name=f"{proto.name}-whatif-{i + 1}", uid="", node_name="",
                               nominated_node_name="", file_index=10**6 + i) for i in range(n))
        return set(pending(run(replace(scenario, pods=tuple(scenario.pods) + copies), seed))) <= before

    lo, hi = 0, 1
    while hi <= limit and fits(hi):
        lo, hi = hi, hi * 2
    hi = min(hi, limit + 1)
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return {"pod": proto.key, "replicas": lo, "candidateRuns": runs,
            "sentence": f"{lo} more replica(s) of {proto.key} fit"}
