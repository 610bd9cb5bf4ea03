"""An analysis as independent parts, so that a caller can run the parts in parallel (the web
app runs each on a worker) and combine their outcomes into the same answer a sequential call
gives. Everything going in and out is JSON (dicts, lists, strings, numbers).

``plan(kind, scenario, spec, seed)`` -> (parts, answer): the parts to run, or, when the answer
needs no part (nothing is pending), the answer at once. ``run_part(kind, scenario, spec, part,
seed)`` -> one part's outcome. ``combine(kind, scenario, spec, outcomes)`` -> the answer, with
a ``sentence`` a person can act on.

Kinds and their spec:

- ``capacity``: ``extraZones`` (zones the cluster lacks, for new domains), ``templates``
  (written node templates, instead of the cluster's own shapes), ``priceLabel``,
  ``maxPerTemplate``. Parts: each template alone, and the mixes.
- ``replicas``: ``pod`` (namespace/name), ``limit``. One part (a binary search of runs).
- ``zones``: every zone drained in turn, one part per zone.
- ``drain``: ``nodes``, each drained in turn, one part per node.
- ``tuning``: ``candidates`` (``tuning.candidate`` dicts; the three scoring strategies when
  absent), one part per candidate.
"""
from __future__ import annotations

from collections.abc import Mapping

from ..errors import ScenarioError
from ..k8s import quantity
from ..k8s.types import Taint
from . import capacity, drain, tuning
from .common import ZONE, pending, run

KINDS = ("capacity", "replicas", "zones", "drain", "tuning")
MAX_TEMPLATES = 24
MAX_CANDIDATES = 12


def _bad(scenario, field: str, message: str) -> ScenarioError:
    return ScenarioError(scenario.source, "", field, message)


def templates(scenario, spec: Mapping) -> list[capacity.NodeTemplate]:
    """The node templates a capacity search adds from: written ones, else the cluster's shapes
    (repeated in ``extraZones``)."""
    written = spec.get("templates")
    if written:
        out = [_template(scenario, t, f"templates[{i}]") for i, t in enumerate(written)]
    else:
        out = capacity.templates_from_nodes(scenario.nodes, list(spec.get("extraZones") or ()))
    if not out:
        raise _bad(scenario, "templates", "no node template to add: the cluster has no node")
    if len(out) > MAX_TEMPLATES:
        raise _bad(scenario, "templates", f"{len(out)} templates, more than {MAX_TEMPLATES}")
    return out


def _template(scenario, t, path: str) -> capacity.NodeTemplate:
    if not isinstance(t, Mapping) or not isinstance(t.get("name"), str) or not t["name"]:
        raise _bad(scenario, f"{path}.name", "a template needs a name")
    labels = dict(t.get("labels") or {})
    if t.get("zone"):
        labels[ZONE] = str(t["zone"])
    allocatable = {}
    for r, v in (t.get("allocatable") or {}).items():
        try:
            allocatable[r] = quantity.to_units(r, quantity.parse_quantity(str(v)))
        except quantity.QuantityError:
            raise _bad(scenario, f"{path}.allocatable.{r}", f"{v!r} is not a quantity") from None
    if not allocatable.get("cpu") or not allocatable.get("memory"):
        raise _bad(scenario, f"{path}.allocatable", "a template needs cpu and memory")
    allocatable.setdefault("pods", 110)
    taints = tuple(Taint(x["key"], x.get("value", ""), x.get("effect", "NoSchedule"))
                   for x in t.get("taints") or ())
    return capacity.NodeTemplate(t["name"], labels, taints, allocatable)


def _limit(scenario, spec: Mapping, key: str, default: int, top: int) -> int:
    v = spec.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= top:
        raise _bad(scenario, key, f"must be a whole number from 1 to {top}, got {v!r}")
    return v


def plan(kind: str, scenario, spec: Mapping, seed: int = 0) -> tuple[list[dict], dict | None]:
    if kind == "capacity":
        ts = templates(scenario, spec)
        _limit(scenario, spec, "maxPerTemplate", capacity.MAX_PER_TEMPLATE, 256)
        if not pending(run(scenario, seed)):
            return [], capacity.nothing_pending(ts)
        return [{"single": i, "label": f"{t.name}" + (f" in {t.zone}" if t.zone else "")}
                for i, t in enumerate(ts)] + [{"mix": True, "label": "mixes of all templates"}], None
    if kind == "replicas":
        key = spec.get("pod") or ""
        if scenario.pod(key if "/" in key else f"default/{key}") is None:
            raise _bad(scenario, "pod", f"no pod {key or '(none given)'} in the scenario")
        _limit(scenario, spec, "limit", 1000, 10000)
        return [{"pod": key, "label": f"copies of {key}"}], None
    if kind == "zones":
        found = drain.zones(scenario)
        if not found:
            raise _bad(scenario, "zones", f"no node has the label {ZONE}")
        return [{"zone": z, "label": z} for z in found], None
    if kind == "drain":
        names = list(spec.get("nodes") or ())
        known = {n.name for n in scenario.nodes}
        if not names:
            raise _bad(scenario, "nodes", "name the nodes to drain")
        for n in names:
            if n not in known:
                raise _bad(scenario, "nodes", f"no node {n} in the scenario")
        return [{"node": n, "label": n} for n in dict.fromkeys(names)], None
    if kind == "tuning":
        cands = spec.get("candidates") or tuning.default_candidates()
        if len(cands) > MAX_CANDIDATES:
            raise _bad(scenario, "candidates", f"{len(cands)} candidates, more than {MAX_CANDIDATES}")
        out = []
        for i, c in enumerate(cands):
            c = _candidate(scenario, c, f"candidates[{i}]")
            out.append({"candidate": c, "label": c["name"]})
        return out, None
    raise _bad(scenario, "kind", f"unknown analysis {kind!r}: one of {', '.join(KINDS)}")


def _candidate(scenario, c, path: str) -> dict:
    if not isinstance(c, Mapping):
        raise _bad(scenario, path, "a candidate is an object")
    strategy = c.get("strategy", "LeastAllocated")
    if strategy not in tuning.STRATEGIES:
        raise _bad(scenario, f"{path}.strategy", f"{strategy!r}: one of {', '.join(tuning.STRATEGIES)}")
    weights = c.get("weights") or {}
    if not all(isinstance(w, int) and not isinstance(w, bool) and 0 < w <= 100 for w in weights.values()):
        raise _bad(scenario, f"{path}.weights", "weights are whole numbers from 1 to 100")
    return tuning.candidate(strategy, weights, tuple(c.get("disabled") or ()), c.get("name") or "")


def run_part(kind: str, scenario, spec: Mapping, part: Mapping, seed: int = 0) -> dict:
    if kind == "capacity":
        ts = templates(scenario, spec)
        top = spec.get("maxPerTemplate", capacity.MAX_PER_TEMPLATE)
        out = (capacity.mix(scenario, ts, seed, spec.get("priceLabel") or capacity.PRICE_LABEL, top)
               if part.get("mix") else capacity.single(scenario, ts, part["single"], seed, top))
        # JSON: the counts as [template index, count] pairs
        return {"counts": None if out["counts"] is None else sorted(out["counts"].items()), "runs": out["runs"]}
    if kind == "replicas":
        return capacity.max_replicas(scenario, part["pod"], seed, spec.get("limit", 1000))
    if kind == "zones":
        return drain.without_run(drain.drain(scenario, drain.zone_nodes(scenario, part["zone"]), seed,
                                             part["zone"]))
    if kind == "drain":
        return drain.without_run(drain.drain(scenario, [part["node"]], seed))
    if kind == "tuning":
        return tuning.measure(scenario, part["candidate"], seed)
    raise _bad(scenario, "kind", f"unknown analysis {kind!r}")


def combine(kind: str, scenario, spec: Mapping, outcomes: list[dict]) -> dict:
    if kind == "capacity":
        ts = templates(scenario, spec)
        parts = [{"counts": None if o["counts"] is None else {int(i): c for i, c in o["counts"]},
                  "runs": o["runs"]} for o in outcomes]
        answer = capacity.choose(parts, ts, spec.get("priceLabel") or capacity.PRICE_LABEL,
                                 spec.get("maxPerTemplate", capacity.MAX_PER_TEMPLATE))
        return {**answer, "templates": [{"name": t.name, "zone": t.zone, "hourlyPrice": t.price()}
                                        for t in ts]}
    if kind == "replicas":
        return outcomes[0]
    if kind in ("zones", "drain"):
        return drain.combine(outcomes, "rows")
    if kind == "tuning":
        return tuning.pick(outcomes)
    raise _bad(scenario, "kind", f"unknown analysis {kind!r}")


def verifying_objects(kind: str, scenario, spec: Mapping, answer: Mapping) -> list[dict] | None:
    """The objects to add to the scenario for the run that checks the answer (capacity: the
    nodes to add), or None when the answer needs no such run."""
    if kind == "capacity" and answer.get("found") and answer.get("additions"):
        return capacity.node_manifests(answer, templates(scenario, spec))
    return None
