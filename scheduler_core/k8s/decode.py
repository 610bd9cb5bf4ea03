"""Typed reads of manifest values, raising ScenarioError with a JSON path.

The apiserver decodes a manifest into Go structs before anything else; a value of the
wrong JSON type fails there. ``Decoder`` plays that part for ``scenario.py``: each
reader checks one value's type and names the field (``spec.containers[0].name``) and
the object (``Pod default/p``) when it is wrong. ``None`` (YAML ``null``) reads as unset.
"""
from __future__ import annotations

from datetime import datetime, timezone
from fractions import Fraction
from marshal import dumps as _marshal_dumps
from typing import Any, Callable, Mapping

from ..errors import ScenarioError
from ..validation import field as vfield
from . import quantity


_MISSING = object()
# The int64 fields the engine reads (k8s.io/api); every other integer field is an int32.
INT64_FIELDS = frozenset({"tolerationSeconds", "sizeBytes", "podInitialBackoffSeconds",
                          "podMaxBackoffSeconds"})


class Decoder:
    """Reads fields of one object (``label`` like ``Pod default/p``) of one file."""

    def __init__(self, file: str, label: str, memo: dict | None = None) -> None:
        self.file = file
        self.label = label
        self.memo = memo  # shared by the Decoders of one load: see ``interned``

    def interned(self, kind: str, raw: Any, decode: Callable[[], Any]) -> Any:
        """decode(), or the value an earlier object's identical ``raw`` decoded to.

        The pods of one workload repeat the same tolerations, affinity, spread
        constraints and containers; decoding them once makes loading faster and lets
        the engine recognise a template by identity. ``raw`` is the manifest value; its
        key is its marshal serialization (format 2, which never shares references, so
        equal values give equal bytes; about twice as fast as repr), or its repr for
        values marshal does not take (PyYAML's timestamps). An error is raised by the
        first decode, so reuse is safe."""
        if self.memo is None:
            return decode()
        try:
            key = (kind, _marshal_dumps(raw, 2))
        except ValueError:
            key = (kind, repr(raw))
        value = self.memo.get(key, _MISSING)
        if value is _MISSING:
            value = self.memo[key] = decode()
        return value

    def fail(self, path: str, detail: str) -> ScenarioError:
        """A ScenarioError for this object at ``path``."""
        return ScenarioError(self.file, self.label, path, detail)

    def fail_field(self, err: vfield.FieldError) -> ScenarioError:
        """A ScenarioError from an apiserver-style field error (upstream wording)."""
        return ScenarioError(self.file, self.label, err.field, err.error_body())

    # --- scalars ------------------------------------------------------------------
    def obj(self, v: Any, path: str) -> Mapping[str, Any]:
        """A JSON object (dict); null reads as empty."""
        if v is None:
            return {}
        if not isinstance(v, dict):
            raise self.fail(path, f"must be an object, not {_kind(v)}")
        return v

    def list(self, v: Any, path: str) -> list:
        """A JSON array; null reads as empty."""
        if v is None:
            return []
        if not isinstance(v, list):
            raise self.fail(path, f"must be a list, not {_kind(v)}")
        return v

    def str(self, v: Any, path: str, default: str = "") -> str:
        """A string; null reads as ``default``."""
        if v is None:
            return default
        if not isinstance(v, str):
            raise self.fail(path, f"must be a string, not {_kind(v)}")
        return v

    def int(self, v: Any, path: str, default: int | None = None) -> int | None:
        """An integer (a float with no fraction is accepted, as JSON numbers are) that fits
        its Go field: int32, or int64 for the few int64 fields (``INT64_FIELDS``); the
        apiserver's decoder refuses a number its field cannot hold."""
        if v is None:
            return default
        if isinstance(v, bool) or not isinstance(v, int):
            if not (isinstance(v, float) and v.is_integer()):
                raise self.fail(path, f"must be an integer, not {_kind(v)}")
        bits = 64 if path.rsplit(".", 1)[-1] in INT64_FIELDS else 32
        low, high = -2 ** (bits - 1), 2 ** (bits - 1) - 1
        if not low <= v <= high:
            raise self.fail(path, f"Invalid value: {v}: must be a {bits}-bit integer "
                            f"(from {low} to {high})")
        return int(v)

    def bool(self, v: Any, path: str, default: bool = False) -> bool:
        """A boolean; null reads as ``default``."""
        if v is None:
            return default
        if not isinstance(v, bool):
            raise self.fail(path, f"must be a boolean, not {_kind(v)}")
        return v

    def str_map(self, v: Any, path: str) -> dict[str, str]:
        """A map of string to string (labels, selectors)."""
        m = self.obj(v, path)
        for k, val in m.items():
            if not isinstance(k, str):
                raise self.fail(path, f"keys must be strings, not {_kind(k)}")
            if not isinstance(val, str):
                raise self.fail(f"{path}.{k}", f"must be a string, not {_kind(val)}")
        return dict(m)

    def str_list(self, v: Any, path: str) -> tuple[str, ...]:
        """A list of strings."""
        items = self.list(v, path)
        return tuple(self.str(x, f"{path}[{i}]") for i, x in enumerate(items))

    def enum(self, v: Any, path: str, allowed: tuple[str, ...], default: str | None = None
             ) -> str | None:
        """A string from ``allowed``; upstream NotSupported wording otherwise."""
        if v is None:
            return default
        s = self.str(v, path)
        if s not in allowed:
            raise self.fail_field(vfield.not_supported(path, s, allowed))
        return s

    def time(self, v: Any, path: str) -> float:
        """An RFC3339 timestamp as seconds since the epoch (0 when unset)."""
        if v is None:
            return 0.0
        if isinstance(v, datetime):  # YAML may resolve unquoted timestamps itself
            dt = v
        else:
            s = self.str(v, path)
            try:
                dt = datetime.fromisoformat(s.replace("Z", "+00:00").replace("z", "+00:00"))
            except ValueError:
                raise self.fail(path, f"{s!r} is not an RFC3339 timestamp") from None
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        return dt.timestamp()

    def quantity(self, v: Any, path: str) -> Fraction:
        """A resource quantity, exact (upstream ParseQuantity wording on error)."""
        try:
            q = quantity.parse_quantity(v)
        except quantity.QuantityError as e:
            raise self.fail_field(vfield.invalid(path, v, str(e))) from None
        return q

    def resource_list(self, v: Any, path: str) -> dict[str, int]:
        """A ResourceList in engine units; negative amounts are rejected as upstream
        ValidateNonnegativeQuantity does."""
        out: dict[str, int] = {}
        for name, raw in self.obj(v, path).items():
            name = self.str(name, path)
            q = self.quantity(raw, f"{path}.{name}")
            if q < 0:
                raise self.fail_field(vfield.invalid(
                    f"{path}.{name}", str(raw), "must be greater than or equal to 0"))
            units = quantity.to_units(name, q)
            if units > quantity.MAX_UNITS:
                raise self.fail_field(vfield.invalid(
                    f"{path}.{name}", str(raw), "must be less than or equal to "
                    f"{quantity.MAX_UNITS}{'m' if name == 'cpu' else ''}"))
            out[name] = units
        return out

    def items(self, v: Any, path: str, read: Callable[[Any, str], Any]) -> tuple:
        """Each element of a list read with ``read(value, path[i])``."""
        return tuple(read(x, f"{path}[{i}]") for i, x in enumerate(self.list(v, path)))


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__
