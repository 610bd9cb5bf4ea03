"""A read-only summary of a scenario's input for pages: its nodes and bound pods.

It only reads what the user wrote; every scheduling answer comes from the engine.
"""

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
        if document.get("kind") == "List":
            out.extend(item for item in document.get("items") or [] if isinstance(item, dict))
        else:
            out.append(document)
    return out


def nodes(text):
    """[{name, zone, cpu, memory, pods, unschedulable, taints, bound}] in file order (the caller's own)."""
    return [dict(row, taints=list(row["taints"]), bound=list(row["bound"]))
            for row in documents.memo("nodes", text, lambda: _nodes(text))]


def _nodes(text):
    rows, by_name = [], {}
    for obj in objects(text):
        kind, meta = obj.get("kind"), obj.get("metadata") or {}
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        if kind == "Node":
            allocatable = status.get("allocatable") or {}
            row = {
                "name": meta.get("name", ""),
                "zone": (meta.get("labels") or {}).get(ZONE_LABEL, ""),
                "cpu": allocatable.get("cpu", ""),
                "memory": allocatable.get("memory", ""),
                "pods": allocatable.get("pods", ""),
                "unschedulable": bool(spec.get("unschedulable")),
                "taints": [f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}" for t in spec.get("taints") or []],
                "bound": [],
            }
            rows.append(row)
            by_name[row["name"]] = row
    for obj in objects(text):
        spec, meta = obj.get("spec") or {}, obj.get("metadata") or {}
        if obj.get("kind") == "Pod" and spec.get("nodeName") in by_name:
            by_name[spec["nodeName"]]["bound"].append(f"{meta.get('namespace', 'default')}/{meta.get('name', '')}")
    return rows


def counts(text):
    """{kind: number of objects} (the caller's own)."""
    return dict(documents.memo("counts", text, lambda: _counts(text)))


def _counts(text):
    kinds = {}
    for obj in objects(text):
        kinds[obj.get("kind", "?")] = kinds.get(obj.get("kind", "?"), 0) + 1
    return kinds
