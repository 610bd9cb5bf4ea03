"""Name, label and ObjectMeta checks from apimachinery, with their messages.

Mirrors (kubernetes v1.34):
- ``staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go``
  (``IsQualifiedName``, ``IsValidLabelValue``, ``IsDNS1123Label``, ``IsDNS1123Subdomain``,
  ``RegexError``, ``MaxLenError``, ``EmptyError``, ``InclusiveRangeError``);
- ``staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go``
  (``ValidateLabelName``, ``ValidateLabels``);
- ``staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go``
  (``ValidateObjectMetaUpdate``, ``ValidateObjectMeta``, ``ValidateAnnotations``).
Messages are copied character for character from those files.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from scheduler_core.validation import field
from scheduler_core.validation.field import FieldError

# kubernetes v1.34 apimachinery/pkg/util/validation/validation.go
QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_ERR_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
QUALIFIED_NAME_MAX_LENGTH = 63
LABEL_VALUE_FMT = "(" + QUALIFIED_NAME_FMT + ")?"
LABEL_VALUE_ERR_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
LABEL_VALUE_MAX_LENGTH = 63
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_ERR_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
    "or '-', and must start and end with an alphanumeric character"
)
DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_ERR_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
# kubernetes v1.34 apimachinery/pkg/api/validation/objectmeta.go
FIELD_IMMUTABLE_ERROR_MSG = "field is immutable"
# kubernetes v1.34 apimachinery/pkg/api/validation/generic.go (IsNegativeErrorMsg)
IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"

_QUALIFIED_NAME_RE = re.compile(f"^{QUALIFIED_NAME_FMT}$")
_LABEL_VALUE_RE = re.compile(f"^{LABEL_VALUE_FMT}$")
_DNS1123_LABEL_RE = re.compile(f"^{DNS1123_LABEL_FMT}$")
_DNS1123_SUBDOMAIN_RE = re.compile(f"^{DNS1123_SUBDOMAIN_FMT}$")


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``RegexError``: the message, examples and the regex used."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def max_len_error(length: int) -> str:
    """``MaxLenError``."""
    return f"must be no more than {length} characters"


def empty_error() -> str:
    """``EmptyError``."""
    return "must be non-empty"


def inclusive_range_error(lo: int, hi: int) -> str:
    """``InclusiveRangeError``."""
    return f"must be between {lo} and {hi}, inclusive"


def is_dns1123_label(value: str) -> list[str]:
    """``IsDNS1123Label``: the messages for a value that is not a DNS label."""
    errs = []
    if len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _DNS1123_LABEL_RE.match(value):
        if _DNS1123_SUBDOMAIN_RE.match(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(DNS1123_LABEL_ERR_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """``IsDNS1123Subdomain``: the messages for a value that is not a DNS subdomain."""
    errs = []
    if len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN_RE.match(value):
        errs.append(regex_error(DNS1123_SUBDOMAIN_ERR_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_qualified_name(value: str) -> list[str]:
    """``IsQualifiedName``: an optional DNS-subdomain prefix, ``/``, and a name part."""
    parts = value.split("/")
    errs: list[str] = []
    if len(parts) > 2:
        return ["a qualified name " + _qname_regex_error()
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part " + empty_error())
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    if not name:
        errs.append("name part " + empty_error())
    elif len(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    if not _QUALIFIED_NAME_RE.match(name):
        errs.append("name part " + _qname_regex_error())
    return errs


def _qname_regex_error() -> str:
    return regex_error(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")


def is_valid_label_value(value: str) -> list[str]:
    """``IsValidLabelValue``: empty, or a qualified-name-like string of at most 63 chars."""
    errs = []
    if len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE_RE.match(value):
        errs.append(regex_error(LABEL_VALUE_ERR_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def validate_label_name(name: str, path: str) -> list[FieldError]:
    """``ValidateLabelName``: one Invalid per broken rule, at ``path``."""
    return [field.invalid(path, name, msg) for msg in is_qualified_name(name)]


def validate_labels(labels: dict | None, path: str) -> list[FieldError]:
    """``ValidateLabels``: keys and values, all reported at ``path`` itself."""
    errs: list[FieldError] = []
    for k, v in (labels or {}).items():
        errs.extend(validate_label_name(k, path))
        errs.extend(field.invalid(path, v or "", msg) for msg in is_valid_label_value(v or ""))
    return errs


def validate_annotations(annotations: dict | None, path: str) -> list[FieldError]:
    """``ValidateAnnotations`` (key format only; the 256 KiB size limit is not checked)."""
    errs: list[FieldError] = []
    for k in annotations or {}:
        errs.extend(field.invalid(path, k, msg) for msg in is_qualified_name(k.lower()))
    return errs


def validate_immutable_field(new: Any, old: Any, path: str) -> list[FieldError]:
    """``ValidateImmutableField``: Invalid with the new value when it changed."""
    return [] if new == old else [field.invalid(path, new, FIELD_IMMUTABLE_ERROR_MSG)]


_IMMUTABLE_META = ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
                   "deletionGracePeriodSeconds")


def validate_object_meta_update(new: dict, old: dict, path: str) -> list[FieldError]:
    """``ValidateObjectMetaAccessorUpdate``, without the resourceVersion, finalizer,
    ownerReference and managedFields checks (a what-if manifest carries none of them)."""
    errs: list[FieldError] = []
    new_gen, old_gen = new.get("generation") or 0, old.get("generation") or 0
    if new_gen < old_gen:
        errs.append(field.invalid(field.child(path, "generation"), new_gen, "must not be decremented"))
    for name in _IMMUTABLE_META:
        errs.extend(validate_immutable_field(new.get(name), old.get(name), field.child(path, name)))
    errs.extend(validate_labels(new.get("labels"), field.child(path, "labels")))
    errs.extend(validate_annotations(new.get("annotations"), field.child(path, "annotations")))
    return errs


def validate_object_meta(meta: dict, name_fn: Callable[[str], list[str]], path: str) -> list[FieldError]:
    """``ValidateObjectMetaAccessor`` for a namespaced object (name, namespace,
    generation, labels, annotations)."""
    errs: list[FieldError] = []
    name, namespace = meta.get("name") or "", meta.get("namespace") or ""
    name_path, ns_path = field.child(path, "name"), field.child(path, "namespace")
    if not name:
        errs.append(field.required(name_path, "name or generateName is required"))
    errs.extend(field.invalid(name_path, name, msg) for msg in (name_fn(name) if name else []))
    if not namespace:
        errs.append(field.required(ns_path, ""))
    errs.extend(field.invalid(ns_path, namespace, m) for m in (is_dns1123_label(namespace) if namespace else []))
    generation = meta.get("generation") or 0
    if generation < 0:
        errs.append(field.invalid(field.child(path, "generation"), generation, IS_NEGATIVE_ERROR_MSG))
    errs.extend(validate_labels(meta.get("labels"), field.child(path, "labels")))
    errs.extend(validate_annotations(meta.get("annotations"), field.child(path, "annotations")))
    return errs
