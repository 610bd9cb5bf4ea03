"""A read-only summary of a scenario's input for pages: its nodes and bound pods.

It only reads what the user wrote; every scheduling answer comes from the engine.
"""

import json

import yaml

from . import documents, limits

ZONE_LABEL = "topology.kubernetes.io/zone"


def objects(text):
    """The objects of the text, List items flattened (shared with other readers: not to be changed)."""
    try:
        docs = [d for d in documents.read(text, stored=True) if isinstance(d, dict)]
    except (yaml.YAMLError, limits.TooLarge):
        return []
    out = []
    for document in docs:
        kind = document.get("kind")
        if kind == "List":
            out.extend(item for item in document.get("items") or [] if isinstance(item, dict))
        elif isinstance(kind, str) and kind.endswith("List") and isinstance(document.get("items"), list):
            # a typed list (NodeList...): its items carry no kind, which kubectl (and the engine) take from it
            item_kind = kind[: -len("List")]
            out.extend(item if "kind" in item else dict(item, kind=item_kind)
                       for item in document["items"] if isinstance(item, dict))
        else:
            out.append(document)
    return out


def nodes(text, limit=None):
    """[{name, zone, cpu, memory, pods, unschedulable, taints, bound}] in file order, the first `limit`
    (all when None); the caller's own."""
    return rows_of(summarize(text), limit)


def rows_of(found, limit=None):
    """Copies of the first `limit` node rows of a summary (all when None)."""
    rows = found["nodes"] if limit is None else found["nodes"][:limit]
    return [dict(row, taints=list(row["taints"]), bound=list(row["bound"])) for row in rows]


def summarize(text):
    """{"nodes": node rows, "counts": {kind: number}} of a text (shared: not to be changed)."""
    return documents.memo("summary", text, lambda: {"nodes": _nodes(text), "counts": _counts(text)})


def of_revision(revision):
    """A revision's summary: the one stored when it was saved; for a revision saved before summaries
    were kept, worked out now and stored (shared: not to be changed)."""
    if revision.summary is None:
        revision.summary = summarize(revision.manifests)
        type(revision).objects.filter(pk=revision.pk, summary__isnull=True).update(summary=revision.summary)
    return revision.summary


def load_summary(revision):
    """The engine's summary of loading a revision (objects read and ignored per kind, pods added,
    warnings): the one stored when it was saved; for a revision saved before, worked out now and
    stored. None when the engine no longer accepts the text."""
    from . import engine

    found = of_revision(revision).get("load")
    if found is None:
        try:
            found = engine.load_summary(revision.manifests, revision.config)
        except engine.ScenarioInvalid:
            return None
        remember(revision, "load", found)
    return found


def remember(revision, name, value):
    """Keep `value` in the revision's summary under `name` (when it has a JSON form: PostgreSQL's has no NaN)."""
    found = dict(of_revision(revision), **{name: value})
    try:
        json.dumps(found, allow_nan=False)
    except (TypeError, ValueError):
        return
    type(revision).objects.filter(pk=revision.pk).update(summary=found)
    revision.summary = found


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
