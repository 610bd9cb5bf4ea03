"""Type checks on the Pod manifests, done before any rule runs.

The apiserver decodes the request body into Go structs first; a value of the wrong JSON
type (a list where a map belongs, a number where a string belongs) fails that decoding and
no validation rule runs. We report each such value as a ``FieldValueInvalid`` error at its
field path instead, so junk input gives errors, never an exception. ``null`` is accepted
anywhere (Go decodes it as "unset"). Only the fields the update rules read are checked;
other fields are compared as they are.
"""
from __future__ import annotations

from typing import Any

from scheduler_core.validation import field
from scheduler_core.validation.field import FieldError

STR, INT, BOOL, STR_MAP, ANY_MAP = "string", "integer", "boolean", "string map", "object"


def _obj(**fields: Any) -> dict:
    return {"object": fields}


def _list(item: Any) -> dict:
    return {"list": item}


_REQUIREMENT = _obj(key=STR, operator=STR, values=_list(STR))
_TERM = _obj(matchExpressions=_list(_REQUIREMENT), matchFields=_list(_REQUIREMENT))
_NODE_AFFINITY = _obj(
    requiredDuringSchedulingIgnoredDuringExecution=_obj(nodeSelectorTerms=_list(_TERM)),
    preferredDuringSchedulingIgnoredDuringExecution=_list(_obj(weight=INT, preference=_TERM)),
)
_CONTAINER = _obj(name=STR, image=STR, imagePullPolicy=STR, resources=ANY_MAP, ports=_list(ANY_MAP))
_TOLERATION = _obj(key=STR, operator=STR, value=STR, effect=STR, tolerationSeconds=INT)

POD_SCHEMA = _obj(
    metadata=_obj(name=STR, namespace=STR, uid=STR, generation=INT, labels=STR_MAP, annotations=STR_MAP),
    spec=_obj(
        nodeName=STR,
        nodeSelector=STR_MAP,
        schedulingGates=_list(_obj(name=STR)),
        tolerations=_list(_TOLERATION),
        affinity=_obj(nodeAffinity=_NODE_AFFINITY, podAffinity=ANY_MAP, podAntiAffinity=ANY_MAP),
        containers=_list(_CONTAINER),
        initContainers=_list(_CONTAINER),
        activeDeadlineSeconds=INT,
        terminationGracePeriodSeconds=INT,
        restartPolicy=STR,
        dnsPolicy=STR,
        schedulerName=STR,
    ),
    status=ANY_MAP,
)

_MESSAGES = {
    STR: "must be a string",
    INT: "must be an integer",
    BOOL: "must be a boolean",
    STR_MAP: "must be a map of string keys to string values",
    ANY_MAP: "must be an object",
}


def check_pod(pod: Any, which: str = "") -> list[FieldError]:
    """Type errors in one Pod manifest; ``which`` ("old pod") prefixes each detail."""
    if not isinstance(pod, dict):
        return [field.invalid("", _preview(pod), _prefixed(which, "must be an object (a Pod manifest)"))]
    errs = _check(pod, POD_SCHEMA, "")
    return [field.invalid(e.field, e.bad_value, _prefixed(which, e.detail)) for e in errs]


def _prefixed(which: str, detail: str) -> str:
    return f"{which}: {detail}" if which else detail


def _check(value: Any, schema: Any, path: str) -> list[FieldError]:
    if value is None:
        return []
    if isinstance(schema, dict) and "object" in schema:
        return _check_object(value, schema["object"], path)
    if isinstance(schema, dict) and "list" in schema:
        return _check_list(value, schema["list"], path)
    if _scalar_ok(value, schema):
        return []
    return [field.invalid(path, _preview(value), _MESSAGES[schema])]


def _check_object(value: Any, fields: dict, path: str) -> list[FieldError]:
    if not isinstance(value, dict):
        return [field.invalid(path, _preview(value), _MESSAGES[ANY_MAP])]
    errs: list[FieldError] = []
    for name, sub in fields.items():
        errs.extend(_check(value.get(name), sub, field.child(path, name)))
    return errs


def _check_list(value: Any, item: Any, path: str) -> list[FieldError]:
    if not isinstance(value, list):
        return [field.invalid(path, _preview(value), "must be a list")]
    errs: list[FieldError] = []
    for i, element in enumerate(value):
        errs.extend(_check(element, item, field.index(path, i)))
    return errs


def _scalar_ok(value: Any, schema: str) -> bool:
    if schema == STR:
        return isinstance(value, str)
    if schema == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if schema == BOOL:
        return isinstance(value, bool)
    if schema == ANY_MAP:
        return isinstance(value, dict)
    return isinstance(value, dict) and all(
        isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in value.items()
    )


def _preview(value: Any) -> Any:
    """The bad value, kept only when it is a plain scalar (for the error body)."""
    return value if isinstance(value, (str, int, float, bool)) or value is None else repr(value)[:80]
