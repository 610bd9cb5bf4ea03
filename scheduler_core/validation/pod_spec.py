"""Validation of the new Pod's scheduling directives, as ``ValidatePodSpec`` does them.

Mirrors the parts of ``pkg/apis/core/validation/validation.go`` (kubernetes v1.34) that
check the fields a scheduling-directive update touches: ``ValidatePodSpec`` (container
images, ``nodeSelector``, ``affinity.nodeAffinity``, ``schedulingGates``, ``nodeName``,
``activeDeadlineSeconds``, ``tolerations``), ``ValidateNodeSelector``,
``ValidateNodeSelectorTerm``, ``ValidateNodeSelectorRequirement``,
``ValidateNodeFieldSelectorRequirement``, ``ValidatePreferredSchedulingTerms``,
``validateSchedulingGates``, ``ValidateTolerations`` and ``validateTaintEffect``, in the
order upstream reports them. Messages are copied from that file.
"""
from __future__ import annotations

from scheduler_core.validation import apimachinery as am
from scheduler_core.validation import field
from scheduler_core.validation.field import FieldError

MAX_INT32 = 2**31 - 1
NODE_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
TOLERATION_OPS = ("Equal", "Exists")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def validate_pod_spec(spec: dict, allow_invalid_label_value: bool, path: str = "spec") -> list[FieldError]:
    """The new spec's directive fields, in ``ValidatePodSpec`` order, followed by the
    image whitespace check of ``validateContainersOnlyForPod``."""
    errs = _validate_container_images(spec, path)
    errs += am.validate_labels(spec.get("nodeSelector"), field.child(path, "nodeSelector"))
    na = (spec.get("affinity") or {}).get("nodeAffinity")
    if na is not None:
        na_path = field.child(path, "affinity", "nodeAffinity")
        errs += validate_node_affinity(na, allow_invalid_label_value, na_path)
    errs += validate_scheduling_gates(spec.get("schedulingGates") or [], field.child(path, "schedulingGates"))
    errs += _validate_node_name(spec.get("nodeName") or "", field.child(path, "nodeName"))
    errs += _validate_active_deadline(spec.get("activeDeadlineSeconds"), field.child(path, "activeDeadlineSeconds"))
    errs += validate_tolerations(spec.get("tolerations") or [], field.child(path, "tolerations"))
    for kind in ("containers", "initContainers"):
        errs += _validate_image_whitespace(spec.get(kind) or [], field.child(path, kind))
    return errs


def _validate_container_images(spec: dict, path: str) -> list[FieldError]:
    """``validateContainers``/``validateInitContainers``: at least one container, and
    each has an image."""
    errs: list[FieldError] = []
    if not spec.get("containers"):
        errs.append(field.required(field.child(path, "containers"), ""))
    for kind in ("containers", "initContainers"):
        for i, container in enumerate(spec.get(kind) or []):
            if not (container or {}).get("image"):
                errs.append(field.required(field.child(field.index(field.child(path, kind), i), "image"), ""))
    return errs


def _validate_image_whitespace(containers: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, container in enumerate(containers):
        image = (container or {}).get("image") or ""
        if image != image.strip():
            msg = "must not have leading or trailing whitespace"
            errs.append(field.invalid(field.child(field.index(path, i), "image"), image, msg))
    return errs


def _validate_node_name(node_name: str, path: str) -> list[FieldError]:
    """``ValidateNodeName`` (a DNS subdomain) when set."""
    return [field.invalid(path, node_name, m) for m in am.is_dns1123_subdomain(node_name)] if node_name else []


def _validate_active_deadline(value: int | None, path: str) -> list[FieldError]:
    if value is None or 1 <= value <= MAX_INT32:
        return []
    return [field.invalid(path, value, am.inclusive_range_error(1, MAX_INT32))]


def validate_node_affinity(na: dict, allow_invalid_label_value: bool, path: str) -> list[FieldError]:
    """``validateNodeAffinity``: required terms, then preferred terms."""
    errs: list[FieldError] = []
    if na.get(REQUIRED) is not None:
        errs += validate_node_selector(na[REQUIRED], allow_invalid_label_value, field.child(path, REQUIRED))
    if na.get(PREFERRED):
        errs += validate_preferred_scheduling_terms(na[PREFERRED], field.child(path, PREFERRED))
    return errs


def validate_node_selector(selector: dict, allow_invalid_label_value: bool, path: str) -> list[FieldError]:
    """``ValidateNodeSelector``: at least one term, each term valid."""
    terms_path = field.child(path, "nodeSelectorTerms")
    terms = selector.get("nodeSelectorTerms") or []
    if not terms:
        return [field.required(terms_path, "must have at least one node selector term")]
    errs: list[FieldError] = []
    for i, term in enumerate(terms):
        errs += validate_node_selector_term(term or {}, allow_invalid_label_value, field.index(terms_path, i))
    return errs


def validate_node_selector_term(term: dict, allow_invalid_label_value: bool, path: str) -> list[FieldError]:
    """``ValidateNodeSelectorTerm``: matchExpressions, then matchFields."""
    errs: list[FieldError] = []
    for j, req in enumerate(term.get("matchExpressions") or []):
        req_path = field.index(field.child(path, "matchExpressions"), j)
        errs += validate_node_selector_requirement(req or {}, allow_invalid_label_value, req_path)
    for j, req in enumerate(term.get("matchFields") or []):
        errs += validate_node_field_selector_requirement(req or {}, field.index(field.child(path, "matchFields"), j))
    return errs


def validate_node_selector_requirement(req: dict, allow_invalid_label_value: bool, path: str) -> list[FieldError]:
    """``ValidateNodeSelectorRequirement``: operator/values agreement, key, values."""
    op, values = req.get("operator") or "", [v or "" for v in req.get("values") or []]
    values_path = field.child(path, "values")
    errs: list[FieldError] = []
    if op in ("In", "NotIn") and not values:
        errs.append(field.required(values_path, "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist") and values:
        msg = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
        errs.append(field.forbidden(values_path, msg))
    elif op in ("Gt", "Lt") and len(values) != 1:
        errs.append(field.required(values_path, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    elif op not in NODE_SELECTOR_OPS:
        errs.append(field.invalid(field.child(path, "operator"), op, "not a valid selector operator"))
    errs += am.validate_label_name(req.get("key") or "", field.child(path, "key"))
    if not allow_invalid_label_value:
        for i, value in enumerate(values):
            errs += [field.invalid(field.index(values_path, i), value, m) for m in am.is_valid_label_value(value)]
    return errs


def validate_node_field_selector_requirement(req: dict, path: str) -> list[FieldError]:
    """``ValidateNodeFieldSelectorRequirement``: only ``metadata.name`` In/NotIn one value."""
    op, key = req.get("operator") or "", req.get("key") or ""
    values = [v or "" for v in req.get("values") or []]
    errs: list[FieldError] = []
    if op in ("In", "NotIn"):
        if len(values) != 1:
            msg = "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            errs.append(field.required(field.child(path, "values"), msg))
    else:
        errs.append(field.invalid(field.child(path, "operator"), op, "not a valid selector operator"))
    if key != "metadata.name":
        return errs + [field.invalid(field.child(path, "key"), key, "not a valid field selector key")]
    for i, value in enumerate(values):
        value_path = field.index(field.child(path, "values"), i)
        errs += [field.invalid(value_path, value, m) for m in am.is_dns1123_subdomain(value)]
    return errs


def validate_preferred_scheduling_terms(terms: list, path: str) -> list[FieldError]:
    """``ValidatePreferredSchedulingTerms``: weight 1-100; label values are not checked."""
    errs: list[FieldError] = []
    for i, term in enumerate(terms):
        term, term_path = term or {}, field.index(path, i)
        weight = term.get("weight") or 0
        if weight <= 0 or weight > 100:
            errs.append(field.invalid(field.child(term_path, "weight"), weight, "must be in the range 1-100"))
        # upstream always allows invalid label values in preferred terms
        errs += validate_node_selector_term(term.get("preference") or {}, True, field.child(term_path, "preference"))
    return errs


def validate_scheduling_gates(gates: list, path: str) -> list[FieldError]:
    """``validateSchedulingGates``: qualified names, no duplicates."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, gate in enumerate(gates):
        name = (gate or {}).get("name") or ""
        errs += [field.invalid(field.index(path, i), name, m) for m in am.is_qualified_name(name)]
        if name in seen:
            errs.append(field.duplicate(field.index(path, i), name))
        seen.add(name)
    return errs


def validate_tolerations(tolerations: list, path: str) -> list[FieldError]:
    """``ValidateTolerations``: key, operator/value, tolerationSeconds/effect, effect."""
    errs: list[FieldError] = []
    for i, toleration in enumerate(tolerations):
        errs += _validate_toleration(toleration or {}, field.index(path, i))
    return errs


def _validate_toleration(t: dict, path: str) -> list[FieldError]:
    key, op, value, effect = (t.get(k) or "" for k in ("key", "operator", "value", "effect"))
    op_path, effect_path = field.child(path, "operator"), field.child(path, "effect")
    errs = am.validate_label_name(key, field.child(path, "key")) if key else []
    if not key and op != "Exists":
        msg = 'operator must be Exists when `key` is empty, which means "match all values and all keys"'
        errs.append(field.invalid(op_path, op, msg))
    if t.get("tolerationSeconds") is not None and effect != "NoExecute":
        errs.append(field.invalid(effect_path, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
    if op in ("Equal", ""):
        msgs = am.is_valid_label_value(value)
        errs += [field.invalid(op_path, value, ";".join(msgs))] if msgs else []
    elif op == "Exists":
        if value:
            errs.append(field.invalid(op_path, value, "value must be empty when `operator` is 'Exists'"))
    else:
        errs.append(field.not_supported(op_path, op, TOLERATION_OPS))
    if effect and effect not in TAINT_EFFECTS:
        errs.append(field.not_supported(effect_path, effect, TAINT_EFFECTS))
    return errs


def has_invalid_required_label_value(spec: dict) -> bool:
    """Whether the old spec's required node affinity already has an invalid label value;
    then the update may keep it (``AllowInvalidLabelValueInRequiredNodeAffinity`` in
    ``pkg/api/pod/util.go``)."""
    na = (spec.get("affinity") or {}).get("nodeAffinity") or {}
    terms = (na.get(REQUIRED) or {}).get("nodeSelectorTerms") or []
    reqs = [r or {} for t in terms for r in (t or {}).get("matchExpressions") or []]
    return any(am.is_valid_label_value(v or "") for r in reqs for v in r.get("values") or [])
