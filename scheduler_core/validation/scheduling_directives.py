"""The update rules for scheduling directives (KEP-3838 and the rules it builds on).

Mirrors ``pkg/apis/core/validation/validation.go`` (kubernetes v1.34):
``validateOnlyAddedTolerations``, ``validateOnlyDeletedSchedulingGates``,
``validateNodeSelectorMutation``, ``validateNodeAffinityMutation`` and
``validateNodeSelectorTermHasOnlyAdditions``. Messages are copied from that file.
"""
from __future__ import annotations

from scheduler_core.validation import field
from scheduler_core.validation.field import FieldError
from scheduler_core.validation.pod_spec import REQUIRED, validate_tolerations

# kubernetes v1.34 pkg/apis/core/validation/validation.go
ERR_TOLERATION_MODIFIED = "existing toleration can not be modified except its tolerationSeconds"
ERR_NEW_SCHEDULING_GATE = "only deletion is allowed, but found new scheduling gate '{}'"
ERR_NODE_SELECTOR_MUTATION = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
ERR_TERMS_ADDED_OR_DELETED = "no additions/deletions to non-empty NodeSelectorTerms list are allowed"
ERR_TERM_MUTATION = "only additions are allowed (no mutations or deletions)"


def validate_only_added_tolerations(new: list, old: list, path: str) -> list[FieldError]:
    """Every old toleration must still be there (its tolerationSeconds may change);
    then the new list is validated. Stops at the first missing one, as upstream does."""
    for old_t in old:
        if not any(_toleration_key(old_t) == _toleration_key(new_t) for new_t in new):
            return [field.forbidden(path, ERR_TOLERATION_MODIFIED)]
    return validate_tolerations(new, path)


def _toleration_key(t: dict | None) -> tuple:
    t = t or {}
    return tuple(t.get(k) or "" for k in ("key", "operator", "value", "effect"))


def validate_only_deleted_scheduling_gates(new: list, old: list, path: str) -> list[FieldError]:
    """A gate whose name the old Pod does not have is Forbidden at ``...[i].name``.

    Upstream walks a Go map, so its order is random; we report in list order.
    """
    if not new:
        return []
    added = {_gate_name(g): i for i, g in enumerate(new)}
    for gate in old:
        added.pop(_gate_name(gate), None)
    return [
        field.forbidden(field.child(field.index(path, i), "name"), ERR_NEW_SCHEDULING_GATE.format(name))
        for name, i in sorted(added.items(), key=lambda item: item[1])
    ]


def _gate_name(gate: dict | None) -> str:
    return (gate or {}).get("name") or ""


def validate_node_selector_mutation(path: str, new: dict | None, old: dict | None) -> list[FieldError]:
    """Existing nodeSelector entries must keep their values; one error at most."""
    new = new or {}
    for k, v in (old or {}).items():
        if k not in new or (new[k] or "") != (v or ""):
            return [field.invalid(path, new, ERR_NODE_SELECTOR_MUTATION)]
    return []


def validate_node_affinity_mutation(path: str, new_na: dict | None, old_na: dict | None) -> list[FieldError]:
    """Required node affinity may only become tighter; preferred terms are not checked.

    If the old Pod had no required node affinity anything may be set. Otherwise the
    number of terms stays the same and each term keeps its requirements as a prefix.
    """
    if old_na is None or old_na.get(REQUIRED) is None:
        return []
    old_terms = old_na[REQUIRED].get("nodeSelectorTerms") or []
    new_terms = ((new_na or {}).get(REQUIRED) or {}).get("nodeSelectorTerms") or []
    terms_path = field.child(path, REQUIRED, "nodeSelectorTerms")
    if old_terms and len(old_terms) != len(new_terms):
        return [field.invalid(terms_path, new_terms, ERR_TERMS_ADDED_OR_DELETED)]
    return [
        field.invalid(field.index(terms_path, i), new_terms[i], ERR_TERM_MUTATION)
        for i in range(len(old_terms))
        if not node_selector_term_has_only_additions(new_terms[i] or {}, old_terms[i] or {})
    ]


def node_selector_term_has_only_additions(new_term: dict, old_term: dict) -> bool:
    """``validateNodeSelectorTermHasOnlyAdditions``: the old matchExpressions and
    matchFields are an unchanged prefix of the new ones. An empty old term stays empty."""
    old_e, old_f = _requirements(old_term, "matchExpressions"), _requirements(old_term, "matchFields")
    new_e, new_f = _requirements(new_term, "matchExpressions"), _requirements(new_term, "matchFields")
    if not old_e and not old_f and (new_e or new_f):
        return False
    return new_e[: len(old_e)] == old_e and new_f[: len(old_f)] == old_f


def _requirements(term: dict, name: str) -> list[tuple]:
    """Requirements as comparable tuples (an absent and an empty values list are equal)."""
    reqs = [r or {} for r in term.get(name) or []]
    return [(r.get("key") or "", r.get("operator") or "", tuple(v or "" for v in r.get("values") or [])) for r in reqs]
