"""cpu and memory quantities as a person reads them: "1.5 cores", "500 millicores", "14.4 GiB".

Only the wording changes; the amount is the manifest's own, parsed by the engine's quantity reader.
"""
from django import template

from scheduler_core.k8s.quantity import QuantityError, parse_quantity

register = template.Library()

_BINARY = (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))


def _number(value):
    text = f"{float(value):.1f}"
    return text[:-2] if text.endswith(".0") else text


def _parsed(value):
    if value is None or value == "":
        return None
    try:
        return parse_quantity(value)
    except (QuantityError, TypeError, ValueError):
        return None


@register.filter
def cpu_human(value):
    """A cpu quantity ("1500m", "4") in cores, or millicores under one core."""
    amount = _parsed(value)
    if amount is None:
        return value if value not in (None, "") else "—"
    if 0 < amount < 1:
        return f"{_number(amount * 1000)} millicores"
    word = "core" if amount == 1 else "cores"
    return f"{_number(amount)} {word}"


@register.filter
def memory_human(value):
    """A memory quantity ("15136776Ki", "1000M") in the largest binary unit it reaches."""
    amount = _parsed(value)
    if amount is None:
        return value if value not in (None, "") else "—"
    for unit, size in _BINARY:
        if amount >= size:
            return f"{_number(amount / size)} {unit}"
    return f"{_number(amount)} bytes"
