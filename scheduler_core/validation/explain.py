"""Term-by-term explanation of a required node affinity change.

The apiserver only says that a term (``...nodeSelectorTerms[i]``) is not "only additions"
(``validateNodeAffinityMutation``, kubernetes v1.34 pkg/apis/core/validation/validation.go).
To show a user *which* requirement was removed, changed or moved, this module compares the
old and new terms requirement by requirement. It explains; it does not decide: the verdict
is always ``validate_pod_update``'s.
"""
from __future__ import annotations

from typing import Any

from scheduler_core.validation import field
from scheduler_core.validation.pod_spec import REQUIRED

TERMS_PATH = "spec.affinity.nodeAffinity." + REQUIRED + ".nodeSelectorTerms"
_LISTS = ("matchExpressions", "matchFields")


def explain_node_affinity_update(old: Any, new: Any) -> dict:
    """What happened to the old Pod's required node affinity terms in the new Pod.

    Returns ``{"old_terms": n, "new_terms": m, "terms": [...]}`` with, for each old term
    ``i`` that the new Pod still has, ``{"field", "term", "changes"}``. Each change is
    ``{"kind", "list", "index", "old", "new"}`` where kind is ``removed`` (gone),
    ``changed`` (same key, other operator or values), ``moved`` (present at another
    position; upstream requires the old requirements as an unchanged prefix) or ``added``;
    ``index`` is the old position, except for ``added`` (the new position).
    """
    old_terms, new_terms = _terms(old), _terms(new)
    terms = []
    for i, (old_term, new_term) in enumerate(zip(old_terms, new_terms)):
        changes = [c for name in _LISTS for c in _list_changes(name, _reqs(old_term, name), _reqs(new_term, name))]
        terms.append({"field": field.index(TERMS_PATH, i), "term": i, "changes": changes})
    return {"old_terms": len(old_terms), "new_terms": len(new_terms), "terms": terms}


def _terms(pod: Any) -> list[dict]:
    spec = pod.get("spec") if isinstance(pod, dict) else None
    affinity = spec.get("affinity") if isinstance(spec, dict) else None
    na = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = na.get(REQUIRED) if isinstance(na, dict) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    return [t if isinstance(t, dict) else {} for t in terms] if isinstance(terms, list) else []


def _reqs(term: dict, name: str) -> list[dict]:
    reqs = term.get(name)
    return [_req(r) for r in reqs if isinstance(r, dict)] if isinstance(reqs, list) else []


def _req(r: dict) -> dict:
    values = r.get("values") if isinstance(r.get("values"), list) else []
    return {"key": r.get("key") or "", "operator": r.get("operator") or "", "values": list(values)}


def _list_changes(name: str, old: list[dict], new: list[dict]) -> list[dict]:
    changes, matched = [], set()
    for j, req in enumerate(old):
        kind, k = _classify(j, req, new, matched)
        if k is not None:
            matched.add(k)
        if kind != "unchanged":
            changes.append(_change(kind, name, j, req, new[k] if k is not None else None))
    changes += [_change("added", name, k, None, r) for k, r in enumerate(new) if k not in matched]
    return changes


def _classify(j: int, req: dict, new: list[dict], taken: set[int]) -> tuple[str, int | None]:
    """How requirement ``j`` of the old list shows up in the new list, and where."""
    if j < len(new) and new[j] == req:
        return "unchanged", j
    free = [k for k in range(len(new)) if k not in taken]
    same = [k for k in free if new[k] == req]
    if same:
        return "moved", same[0]
    same_key = [k for k in free if new[k]["key"] == req["key"]]
    return ("changed", same_key[0]) if same_key else ("removed", None)


def _change(kind: str, name: str, index: int, old: dict | None, new: dict | None) -> dict:
    return {"kind": kind, "list": name, "index": index, "old": old, "new": new}
