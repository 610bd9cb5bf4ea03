"""A read-only summary of a scenario's input for pages: its nodes and bound pods.

It only reads what the user wrote; every scheduling answer comes from the engine.
"""

import hashlib
import re
from pathlib import Path

import yaml

from .. import engine, texts
from . import documents, edits, limits, pods

ZONE_LABEL = "topology.kubernetes.io/zone"


def objects(text):
    """The objects of a stored text, lists flattened (``documents.objects``; shared: not to be changed)."""
    try:
        return documents.objects(documents.read(text, stored=True))
    except (yaml.YAMLError, limits.TooLarge):
        return []


def nodes(text, limit=None):
    """[{name, zone, cpu, memory, pods, unschedulable, taints, bound}] in file order, the first `limit`
    (all when None); the caller's own."""
    return rows_of(summarize(text), limit)


def rows_of(found, limit=None):
    """Copies of the first `limit` node rows of a summary (all when None)."""
    rows = found["nodes"] if limit is None else found["nodes"][:limit]
    return [dict(row, taints=list(row["taints"]), bound=list(row["bound"])) for row in rows]


def summarize(text):
    """{"nodes": node rows, "counts": {kind: number}} of a text (shared: not to be changed). Kept in the
    database for a large text (texts.fact): a draft run's pages show the node table of the draft's text."""
    return documents.memo("summary", text, lambda: texts.fact(text, SUMMARY_FACT, _summarize))


def _summarize(text):
    return {"nodes": _nodes(text), "counts": _counts(text)}


# the summary's name among a text's stored facts: it changes with this module's code
SUMMARY_FACT = "node table and counts " + hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def of_text(manifests, config=""):
    """What a revision keeps of its text for pages, worked out once when it is saved: the node rows and counts
    per kind, the engine's summary of loading it ("load"), its gated pods ("gated") and what the sweep form
    offers ("sweep_outline"). Raises engine.ScenarioInvalid for a text the engine refuses."""
    # (with the cycle collector paused: the text's documents and the scenario are millions of containers at
    # 150,000 pods, which each full collection set off by the rows made here would walk again)
    with engine.without_cycle_collection():
        return _of_text(manifests, config)


def _of_text(manifests, config):
    scenario = engine.load(manifests, config)
    load = engine.summary_of(scenario)
    # (kept in the database for a large text: the draft editor shows it; from the scenario loaded here, which
    # for a large text is not kept in this process: loading it again read the disk cache, 2 s at 150,000 pods)
    check(manifests, config, keep=False, scenario=scenario)
    outline = edits.outline(manifests, keep=False)
    gated = pods.gated_rows(manifests, config, scenario)
    return dict(summarize(manifests), load=load, gated=gated, sweep_outline={
        "workloads": [{"ref": w["ref"], "constraints": bool(w["constraints"])} for w in outline["workloads"]],
        "zones": list(outline["zones"])})


def check(manifests, config="", keep=True, scenario=None):
    """{ok, message, warnings, object, field, input, line, and for a valid text nodes, pods, pending, gated}:
    the engine's verdict on a text, for the draft editor. Remembered per text in this process (`keep` False:
    not), and kept in the database for a large text (texts.fact), so opening a large draft does not load it
    into the engine again. ``scenario``: the text loaded already by the engine (a valid text)."""
    config_key = engine.text_key(config or "").hex()
    name = f"engine check {engine.fingerprint()} {config_key}"

    def work_out():
        return texts.fact(manifests, name, lambda text: _check(text, config, scenario))

    return dict(documents.memo(f"check:{config_key}", manifests, work_out) if keep else work_out())


def _check(manifests, config="", scenario=None):
    try:
        if scenario is None:
            scenario = engine.load(manifests, config, keep=False)  # typed, not saved
    except engine.ScenarioInvalid as e:
        line = None  # a message that names an object and field, not a line: the editor marks the field's line
        if e.input in ("", "manifests") and not re.search(r"\bline \d+", str(e)):
            line = documents.line_of(manifests, e.object, e.field)
        return {"ok": False, "message": str(e), "object": e.object, "field": e.field,
                "input": e.input, "warnings": [], "line": line}
    pods = list(scenario.pods)
    pending = sum(1 for p in pods if not p.node_name)
    gated = sum(1 for p in pods if p.scheduling_gates)
    return {
        "ok": True, "object": "", "field": "", "input": "",
        "message": f"valid: {len(scenario.nodes)} nodes, {len(pods)} pods ({pending} pending, {gated} gated)",
        "warnings": [str(w) for w in scenario.warnings],
        "nodes": len(scenario.nodes), "pods": len(pods), "pending": pending, "gated": gated,
    }


def _nodes(text):
    rows, by_name = [], {}
    for obj in objects(text):
        kind, meta = obj.get("kind"), obj.get("metadata") or {}
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        if kind == "Node":
            allocatable = status.get("allocatable") or {}
            row = {
                "name": _text(meta.get("name", "")),
                "zone": _text((meta.get("labels") or {}).get(ZONE_LABEL, "")),
                "cpu": _text(allocatable.get("cpu", "")),
                "memory": _text(allocatable.get("memory", "")),
                "pods": _text(allocatable.get("pods", "")),
                "unschedulable": bool(spec.get("unschedulable")),
                "taints": [f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}" for t in spec.get("taints") or []],
                "bound": [],
            }
            rows.append(row)
            by_name[row["name"]] = row
    for obj in objects(text):
        spec, meta = obj.get("spec") or {}, obj.get("metadata") or {}
        if obj.get("kind") == "Pod" and _text(spec.get("nodeName")) in by_name:
            by_name[_text(spec["nodeName"])]["bound"].append(f"{meta.get('namespace', 'default')}/{meta.get('name', '')}")
    return rows


def _text(value):
    """A value as the page prints it (stored as JSON text: a float such as .nan has no JSON form)."""
    return "" if value is None else str(value)


def counts(text):
    """{kind: number of objects} (the caller's own)."""
    return dict(summarize(text)["counts"])


def _counts(text):
    kinds = {}
    for obj in objects(text):
        kind = _text(obj.get("kind", "?"))
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds
