"""Spec defaults, semantic equality and a readable spec diff.

The apiserver compares Pod specs after decoding and defaulting them, with
``apiequality.Semantic.DeepEqual`` (``staging/src/k8s.io/apimachinery/pkg/api/equality``):
a nil and an empty list or map are equal, and resource quantities compare by value
(``"1"`` equals ``"1000m"``). Manifests given to the what-if tool are often written by
hand, so we apply the few v1 defaults that a stored Pod always carries
(``pkg/apis/core/v1/defaults.go``, kubernetes v1.34) to both sides before comparing.

Approximations, documented rather than hidden: an empty object (``affinity: {}``) equals an
absent one, and ``""``/``false`` equal an absent field (Go's zero values), except for the
optional booleans listed in ``_POINTER_BOOLS``.
"""
from __future__ import annotations

import copy
import json
import re
from fractions import Fraction
from typing import Any

# SetDefaults_PodSpec / SetDefaults_Container, kubernetes v1.34 pkg/apis/core/v1/defaults.go
_POD_SPEC_DEFAULTS = {
    "dnsPolicy": "ClusterFirst",
    "restartPolicy": "Always",
    "terminationGracePeriodSeconds": 30,
    "schedulerName": "default-scheduler",
    "enableServiceLinks": True,
}
_CONTAINER_DEFAULTS = {
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
}
_POINTER_BOOLS = {
    "automountServiceAccountToken", "shareProcessNamespace", "setHostnameAsFQDN", "hostUsers",
    "enableServiceLinks", "runAsNonRoot", "privileged", "readOnlyRootFilesystem",
    "allowPrivilegeEscalation",
}
_QUANTITY_MAPS = {"requests", "limits", "overhead"}
_MISSING = object()


def with_defaults(spec: dict) -> dict:
    """A copy of ``spec`` with the v1 defaults filled where a field is absent."""
    out = copy.deepcopy(spec)
    for name, value in _POD_SPEC_DEFAULTS.items():
        if out.get(name) is None:
            out[name] = value
    for kind in ("containers", "initContainers"):
        for container in out.get(kind) or []:
            if isinstance(container, dict):
                _default_container(container)
    return out


def _default_container(container: dict) -> None:
    for name, value in _CONTAINER_DEFAULTS.items():
        if container.get(name) is None:
            container[name] = value
    if container.get("imagePullPolicy") is None and isinstance(container.get("image"), str):
        container["imagePullPolicy"] = _pull_policy(container["image"])
    for port in container.get("ports") or []:
        if isinstance(port, dict) and port.get("protocol") is None:
            port["protocol"] = "TCP"


def _pull_policy(image: str) -> str:
    """``Always`` when the image's tag is ``latest`` (also when no tag and no digest is
    given), else ``IfNotPresent``; an empty image has no tag."""
    name, _, digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = last.split(":", 1)[1] if ":" in last else ("" if digest or not name else "latest")
    return "Always" if tag == "latest" else "IfNotPresent"


def normalize(value: Any, name: str = "", in_quantities: bool = False) -> Any:
    """The comparable form of ``value``: empty and zero values dropped, quantities as
    exact fractions."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            n = normalize(v, k, in_quantities or k in _QUANTITY_MAPS)
            if n is not _MISSING:
                out[k] = n
        return out or _MISSING
    if isinstance(value, list):
        items = [normalize(v, name) for v in value]
        return [None if v is _MISSING else v for v in items] or _MISSING
    if value is None or value == "" or (value is False and name not in _POINTER_BOOLS):
        return _MISSING
    if in_quantities:
        return parse_quantity(value)
    return value


def semantic_equal(a: Any, b: Any, name: str = "", in_quantities: bool = False) -> bool:
    """``apiequality.Semantic.DeepEqual`` on manifests, as approximated above; ``name``
    and ``in_quantities`` give the context of a value taken out of its parent."""
    return _typed(normalize(a, name, in_quantities)) == _typed(normalize(b, name, in_quantities))


def _typed(value: Any) -> Any:
    """Keep ``True`` apart from ``1`` (Python would call them equal)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


_QUANTITY_RE = re.compile(r"^([+-]?[0-9.]+)(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$")
_SUFFIX = {
    "": 1, "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000),
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}


def parse_quantity(value: Any) -> Any:
    """A resource quantity as an exact ``Fraction`` (``"500m"`` -> 1/2); other values
    are returned unchanged."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Fraction(value)
    match = _QUANTITY_RE.match(value) if isinstance(value, str) else None
    if not match:
        return value
    try:
        number = Fraction(match.group(1))
    except ValueError:
        return value
    if match.group(2):
        return number * Fraction(10) ** int(match.group(2)[1:])
    return number * _SUFFIX[match.group(3) or ""]


def diff_lines(old: Any, new: Any, path: str = "spec", name: str = "", q: bool = False) -> list[str]:
    """Changed fields of a spec, one ``- path: old`` / ``+ path: new`` pair each.

    Stands in for the ``cmp.Diff`` text Go appends to the generic "pod updates may not
    change fields" message, which cannot be reproduced outside Go.
    """
    if semantic_equal(old, new, name, q):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        lines: list[str] = []
        for k in list(old) + [k for k in new if k not in old]:
            sub_q = q or k in _QUANTITY_MAPS
            lines.extend(diff_lines(old.get(k), new.get(k), _sub_path(path, k), k, sub_q))
        return lines
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        pairs = enumerate(zip(old, new))
        return [line for i, (o, n) in pairs for line in diff_lines(o, n, f"{path}[{i}]", name, q)]
    return [f"{sign} {path}: {_json(v)}" for sign, v in (("-", old), ("+", new)) if v is not None]


def _sub_path(path: str, k: Any) -> str:
    k = str(k)
    return f"{path}.{k}" if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k) else f"{path}[{k}]"


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=str)
