"""Resource quantities: ``500m``, ``1Gi``, ``2``, ``1e3``, ``0.5``, ``100M``, ``1Ki``.

Mirrors apimachinery ``pkg/api/resource/quantity.go`` (v1.34) ParseQuantity with exact
decimal arithmetic, and the two conversions kube-scheduler uses: ``milli_value``
(Quantity.MilliValue, cpu) and ``value`` (Quantity.Value, everything else), both
rounded up to the next integer as upstream does.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

# quantity.go ErrFormatWrong / ErrSuffix wording.
ERR_FORMAT_WRONG = ("quantities must match the regular expression "
                    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
ERR_SUFFIX = "unable to parse quantity's suffix"

_NUMBER = re.compile(r"^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$")
_BINARY = {"Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50,
           "Ei": 2 ** 60}
_DECIMAL = {"n": Fraction(1, 10 ** 9), "u": Fraction(1, 10 ** 6), "m": Fraction(1, 1000),
            "": Fraction(1), "k": Fraction(10 ** 3), "M": Fraction(10 ** 6),
            "G": Fraction(10 ** 9), "T": Fraction(10 ** 12), "P": Fraction(10 ** 15),
            "E": Fraction(10 ** 18)}
_EXPONENT = re.compile(r"^[eE]([-+]?[0-9]+)$")


# The largest amount the engine holds, in its units (millicores for cpu, else base units):
# 2**53, exact as a float64, and a node's sum of up to 1,024 such amounts still fits the
# int64 columns (8 PiB of memory, 9 billion cores: no real node comes near).
MAX_UNITS = 2 ** 53


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity; the message is upstream's."""


def parse_quantity(s: object) -> Fraction:
    """resource.ParseQuantity: the exact value of a quantity string (or int/float)."""
    if isinstance(s, bool):
        raise QuantityError(ERR_FORMAT_WRONG)
    if isinstance(s, int):
        return Fraction(s)
    if isinstance(s, float):
        if not math.isfinite(s):
            raise QuantityError(ERR_FORMAT_WRONG)
        return Fraction(str(s)) if "e" not in repr(s) else Fraction(s)
    if not isinstance(s, str) or not s or s != s.strip():
        raise QuantityError(ERR_FORMAT_WRONG)
    m = _NUMBER.match(s)
    if not m or (not m.group(2) and not m.group(3)):
        raise QuantityError(ERR_FORMAT_WRONG)
    sign, whole, frac, suffix = m.group(1), m.group(2) or "0", m.group(3) or "", m.group(4)
    if len(whole) + len(frac) > 1000:  # (int() refuses over 4,300 digits; no real amount has 30)
        raise QuantityError(ERR_FORMAT_WRONG)
    value = Fraction(int(whole + frac), 10 ** len(frac))
    value *= _multiplier(suffix)
    return -value if sign == "-" else value


def _multiplier(suffix: str) -> Fraction:
    if suffix in _BINARY:
        return Fraction(_BINARY[suffix])
    if suffix in _DECIMAL:
        return _DECIMAL[suffix]
    m = _EXPONENT.match(suffix)
    if m:
        exp = int(m.group(1))
        if abs(exp) > 1000:
            raise QuantityError(ERR_SUFFIX)
        return Fraction(10) ** exp
    if re.fullmatch(r"[eEinumkKMGTP]*[-+]?[0-9]*", suffix):
        raise QuantityError(ERR_SUFFIX)
    raise QuantityError(ERR_FORMAT_WRONG)


def value(q: Fraction) -> int:
    """Quantity.Value: the integer value rounded up (away from zero for positives)."""
    return math.ceil(q)


def milli_value(q: Fraction) -> int:
    """Quantity.MilliValue: the value in thousandths, rounded up."""
    return math.ceil(q * 1000)


def to_units(resource: str, q: Fraction) -> int:
    """The engine's unit for a resource: millicores for cpu, base units otherwise."""
    return milli_value(q) if resource == "cpu" else value(q)
