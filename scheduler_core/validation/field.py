"""Field errors as the apiserver reports them, and the field paths they name.

Mirrors ``staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go`` and
``path.go`` (kubernetes v1.34): an error has a type (the ``ErrorType`` string such as
``"FieldValueInvalid"``), the field path (``spec.tolerations[0].operator``), the bad value
and a detail sentence. The constructors below fill the same fields the Go ones do.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any, Iterable

# ErrorType strings, kubernetes v1.34 apimachinery/pkg/util/validation/field/errors.go
ERROR_TYPE_NOT_FOUND = "FieldValueNotFound"
ERROR_TYPE_REQUIRED = "FieldValueRequired"
ERROR_TYPE_DUPLICATE = "FieldValueDuplicate"
ERROR_TYPE_INVALID = "FieldValueInvalid"
ERROR_TYPE_NOT_SUPPORTED = "FieldValueNotSupported"
ERROR_TYPE_FORBIDDEN = "FieldValueForbidden"
ERROR_TYPE_TOO_LONG = "FieldValueTooLong"

# ErrorType.String(), same file: the words kubectl prints before the detail.
_TYPE_WORDS = {
    ERROR_TYPE_NOT_FOUND: "Not found",
    ERROR_TYPE_REQUIRED: "Required value",
    ERROR_TYPE_DUPLICATE: "Duplicate value",
    ERROR_TYPE_INVALID: "Invalid value",
    ERROR_TYPE_NOT_SUPPORTED: "Unsupported value",
    ERROR_TYPE_FORBIDDEN: "Forbidden",
    ERROR_TYPE_TOO_LONG: "Too long",
}
_VALUE_LESS_TYPES = {ERROR_TYPE_REQUIRED, ERROR_TYPE_FORBIDDEN, ERROR_TYPE_TOO_LONG}


@dataclasses.dataclass(frozen=True)
class FieldError:
    """One field-level validation error (Go ``field.Error``).

    ``bad_value`` takes part in equality but not in hashing, because it may be a list
    or a dict.
    """

    type: str
    field: str
    detail: str
    bad_value: Any = dataclasses.field(default=None, hash=False)

    def to_dict(self) -> dict:
        """The JSON shape of our output contract: field, type, detail."""
        return {"field": self.field, "type": self.type, "detail": self.detail}

    def error_body(self) -> str:
        """The message without the field, as ``field.Error.ErrorBody`` renders it.

        Strings are quoted as Go's ``%q`` does; lists and dicts are shown as JSON where
        Go would print its own struct syntax.
        """
        words = _TYPE_WORDS.get(self.type, self.type)
        body = words if self.type in _VALUE_LESS_TYPES else f"{words}: {_show(self.bad_value)}"
        return f"{body}: {self.detail}" if self.detail else body

    def error(self) -> str:
        """``field: body``, the line kubectl prints for each error."""
        return f"{self.field}: {self.error_body()}"


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, default=str)


def invalid(path: str, value: Any, detail: str) -> FieldError:
    """``field.Invalid``: a malformed value."""
    return FieldError(ERROR_TYPE_INVALID, path, detail, value)


def required(path: str, detail: str = "") -> FieldError:
    """``field.Required``: a value that must be given."""
    return FieldError(ERROR_TYPE_REQUIRED, path, detail, "")


def forbidden(path: str, detail: str) -> FieldError:
    """``field.Forbidden``: a well-formed value not permitted here."""
    return FieldError(ERROR_TYPE_FORBIDDEN, path, detail, "")


def duplicate(path: str, value: Any) -> FieldError:
    """``field.Duplicate``: a value that must be unique (no detail upstream)."""
    return FieldError(ERROR_TYPE_DUPLICATE, path, "", value)


def not_supported(path: str, value: Any, valid_values: Iterable[str]) -> FieldError:
    """``field.NotSupported``: detail is ``supported values: "a", "b"``."""
    quoted = ", ".join(json.dumps(v) for v in valid_values)
    detail = f"supported values: {quoted}" if quoted else ""
    return FieldError(ERROR_TYPE_NOT_SUPPORTED, path, detail, value)


def child(path: str, *names: str) -> str:
    """``Path.Child``: ``spec`` + ``nodeSelector`` -> ``spec.nodeSelector``."""
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index(path: str, i: int) -> str:
    """``Path.Index``: ``spec.tolerations`` + 0 -> ``spec.tolerations[0]``."""
    return f"{path}[{i}]"


def key(path: str, k: str) -> str:
    """``Path.Key``: ``metadata.annotations`` + k -> ``metadata.annotations[k]``."""
    return f"{path}[{k}]"


def dedupe(errors: Iterable[FieldError]) -> list[FieldError]:
    """Drop repeats, keeping the first, as ``ErrorList.ToAggregate`` does for the message
    the apiserver returns (its validators can report one problem twice)."""
    seen: set[tuple] = set()
    out = []
    for err in errors:
        mark = (err.type, err.field, err.detail, _show(err.bad_value))
        if mark not in seen:
            seen.add(mark)
            out.append(err)
    return out
