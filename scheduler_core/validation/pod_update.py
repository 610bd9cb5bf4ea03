"""The apiserver's Pod update validation, for the scheduling-directive use case.

Mirrors ``ValidatePodUpdate`` in ``pkg/apis/core/validation/validation.go``
(kubernetes v1.34), step by step and in its order:

1. metadata update rules (``ValidateObjectMetaUpdate``) and the new Pod's metadata and
   directive fields (``validatePodMetadataAndSpec``, see ``pod_spec.py``);
2. containers may not be added or removed (this stops validation), images required;
3. ``activeDeadlineSeconds`` may only be set or lowered;
4. tolerations may only be added; scheduling gates may only be removed;
5. everything else is compared after "munging" the mutable fields back to their old
   values. While the old Pod is gated (has scheduling gates), ``nodeSelector`` may gain
   entries and required node affinity may become tighter (KEP-3838); any other difference
   is one ``FieldValueForbidden`` error at ``spec`` with upstream's generic message.

Not modelled: resourceVersion, finalizers, owner references, annotation-specific rules,
and validation of spec fields that are not scheduling directives. The Go ``cmp.Diff``
text after the generic message is replaced by our own field-by-field diff. A renamed or
moved Pod is reported with ``ValidateObjectMetaUpdate``'s "field is immutable" error; a real
apiserver refuses such a request even earlier, with a BadRequest that the name (namespace)
in the body does not match the URL.
"""
from __future__ import annotations

import copy
from typing import Any

from scheduler_core.validation import apimachinery as am
from scheduler_core.validation import decode, field, pod_spec, semantic
from scheduler_core.validation import scheduling_directives as sd
from scheduler_core.validation.field import FieldError

# kubernetes v1.34 pkg/apis/core/validation/validation.go, updatablePodSpecFields
UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
# kubernetes v1.34 pkg/apis/core/validation/validation.go, ValidatePodUpdate
ERR_POD_UPDATE_FORBIDDEN = "pod updates may not change fields other than " + ",".join(UPDATABLE_POD_SPEC_FIELDS)
ERR_ADD_REMOVE_CONTAINERS = "pod updates may not add or remove containers"
ERR_DEADLINE_RAISED = "must be less than or equal to previous value"
ERR_DEADLINE_UNSET = "must not update from a positive integer to nil value"
MAX_INT32 = pod_spec.MAX_INT32
DEFAULT_NAMESPACE = "default"


def validate_pod_update(old: dict, new: dict) -> dict:
    """Would the apiserver accept replacing Pod ``old`` with ``new``?

    Returns ``{"allowed": bool, "errors": [{"field", "type", "detail"}, ...]}`` with
    upstream's field paths, error types and wording. Any input is accepted: values of the
    wrong type are reported as errors, never raised.
    """
    errors = pod_update_errors(old, new)
    return {"allowed": not errors, "errors": [e.to_dict() for e in errors]}


def pod_update_errors(old: Any, new: Any) -> list[FieldError]:
    """The same verdict as a list of ``FieldError`` values (duplicates removed)."""
    type_errors = decode.check_pod(new) + decode.check_pod(old, "old pod")
    if type_errors:
        return type_errors
    return field.dedupe(_validate(_Pod(old), _Pod(new)))


class _Pod:
    """A decoded manifest: metadata (namespace defaulted) and the defaulted spec."""

    def __init__(self, manifest: dict) -> None:
        self.meta = dict(manifest.get("metadata") or {})
        self.meta["namespace"] = self.meta.get("namespace") or DEFAULT_NAMESPACE
        self.spec = semantic.with_defaults(manifest.get("spec") or {})

    def list(self, name: str) -> list:
        """A spec list with null items read as empty objects."""
        return [item or {} for item in self.spec.get(name) or []]


def _before_update(new: dict, old: dict) -> None:
    """Copy the system fields a client cannot change from the old metadata, as
    ``rest.BeforeUpdate`` does before validation (kubernetes v1.34
    ``staging/src/k8s.io/apiserver/pkg/registry/rest/update.go``)."""
    new["generation"] = old.get("generation")
    if not new.get("uid"):
        new["uid"] = old.get("uid")
    if old.get("creationTimestamp"):
        new["creationTimestamp"] = old["creationTimestamp"]
    if old.get("deletionTimestamp"):
        new["deletionTimestamp"] = old["deletionTimestamp"]
    if old.get("deletionGracePeriodSeconds") is not None and new.get("deletionGracePeriodSeconds") is None:
        new["deletionGracePeriodSeconds"] = old["deletionGracePeriodSeconds"]


def _validate(old: _Pod, new: _Pod) -> list[FieldError]:
    _before_update(new.meta, old.meta)
    errs = am.validate_object_meta_update(new.meta, old.meta, "metadata")
    errs += am.validate_object_meta(new.meta, am.is_dns1123_subdomain, "metadata")
    allow_invalid = pod_spec.has_invalid_required_label_value(old.spec)
    errs += pod_spec.validate_pod_spec(new.spec, allow_invalid)
    for kind in ("containers", "initContainers"):
        container_errs, stop = _validate_container_updates(new.list(kind), old.list(kind), f"spec.{kind}")
        errs += container_errs
        if stop:
            return errs
    deadline_errs, stop = _validate_active_deadline_update(new.spec, old.spec)
    errs += deadline_errs
    if stop:
        return errs
    errs += sd.validate_only_added_tolerations(new.list("tolerations"), old.list("tolerations"), "spec.tolerations")
    errs += sd.validate_only_deleted_scheduling_gates(
        new.list("schedulingGates"), old.list("schedulingGates"), "spec.schedulingGates")
    if semantic.semantic_equal(new.spec, old.spec):
        return errs
    return errs + _validate_munged_spec(new.spec, old.spec)


def _validate_container_updates(new: list, old: list, path: str) -> tuple[list[FieldError], bool]:
    """``ValidateContainerUpdates``: same count (else stop), each image set and trimmed."""
    if len(new) != len(old):
        return [field.forbidden(path, ERR_ADD_REMOVE_CONTAINERS)], True
    errs: list[FieldError] = []
    for i, container in enumerate(new):
        image, image_path = container.get("image") or "", field.child(field.index(path, i), "image")
        if not image:
            errs.append(field.required(image_path, ""))
        if image != image.strip():
            errs.append(field.invalid(image_path, image, "must not have leading or trailing whitespace"))
    return errs, False


def _validate_active_deadline_update(new: dict, old: dict) -> tuple[list[FieldError], bool]:
    """Only from unset to a value, or to a lower value; the flag says "stop here"."""
    path = "spec.activeDeadlineSeconds"
    new_value, old_value = new.get("activeDeadlineSeconds"), old.get("activeDeadlineSeconds")
    if new_value is None:
        return ([field.invalid(path, None, ERR_DEADLINE_UNSET)] if old_value is not None else []), False
    if new_value < 0 or new_value > MAX_INT32:
        return [field.invalid(path, new_value, am.inclusive_range_error(0, MAX_INT32))], True
    if old_value is not None and old_value < new_value:
        return [field.invalid(path, new_value, ERR_DEADLINE_RAISED)], True
    return [], False


def _validate_munged_spec(new: dict, old: dict) -> list[FieldError]:
    """Put the mutable fields back to their old values, apply the gated-Pod rules, and
    forbid any difference that is left."""
    munged = _munge_updatable_fields(new, old)
    errs: list[FieldError] = []
    if old.get("schedulingGates"):
        errs += _munge_node_selector(munged, old)
        errs += _munge_node_affinity(munged, old)
    if not semantic.semantic_equal(munged, old):
        diff = "\n".join(semantic.diff_lines(old, munged))
        errs.append(field.forbidden("spec", f"{ERR_POD_UPDATE_FORBIDDEN}\n{diff}"))
    return errs


def _munge_updatable_fields(new: dict, old: dict) -> dict:
    munged = copy.deepcopy(new)
    for kind in ("containers", "initContainers"):
        for container, old_container in zip(munged.get(kind) or [], old.get(kind) or []):
            if container is not None:
                _set_or_drop(container, "image", (old_container or {}).get("image"))
    for name in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        _set_or_drop(munged, name, old.get(name))
    old_grace = old.get("terminationGracePeriodSeconds")
    if old_grace is not None and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    return munged


def _munge_node_selector(munged: dict, old: dict) -> list[FieldError]:
    """Gated Pods: nodeSelector may only gain entries."""
    if semantic.semantic_equal(munged.get("nodeSelector"), old.get("nodeSelector")):
        return []
    errs = sd.validate_node_selector_mutation("spec.nodeSelector", munged.get("nodeSelector"), old.get("nodeSelector"))
    _set_or_drop(munged, "nodeSelector", old.get("nodeSelector"))
    return errs


def _munge_node_affinity(munged: dict, old: dict) -> list[FieldError]:
    """Gated Pods: node affinity may become tighter; the rest of ``affinity`` must stay."""
    old_affinity, munged_affinity = old.get("affinity"), munged.get("affinity")
    old_na = (old_affinity or {}).get("nodeAffinity")
    munged_na = (munged_affinity or {}).get("nodeAffinity")
    if semantic.semantic_equal(old_na, munged_na):
        return []
    errs = sd.validate_node_affinity_mutation("spec.affinity.nodeAffinity", munged_na, old_na)
    if munged_affinity is None:
        munged["affinity"] = {"nodeAffinity": old_na}
    elif old_affinity is None and not _has_pod_affinity(munged_affinity):
        munged.pop("affinity")
    else:
        munged["affinity"] = {**munged_affinity, "nodeAffinity": old_na}
    return errs


def _has_pod_affinity(affinity: dict) -> bool:
    return affinity.get("podAffinity") is not None or affinity.get("podAntiAffinity") is not None


def _set_or_drop(obj: dict, name: str, value: Any) -> None:
    if value is None:
        obj.pop(name, None)
    else:
        obj[name] = copy.deepcopy(value)
