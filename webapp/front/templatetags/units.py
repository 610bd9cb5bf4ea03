"""CPU and memory as people read them: "1.5 cores", "250 millicores", "14.4 GiB" (quantities as the manifests
wrote them, "15136776Ki" or "1500m", are read by the engine's own parser)."""

from django import template

from webapp.scenarios import engine

register = template.Library()


def cores(millicores):
    if millicores is None:
        return "—"
    if millicores < 1000:
        return f"{millicores:g} millicores"
    value = f"{millicores / 1000:.2f}".rstrip("0").rstrip(".")
    return f"{value} core{'s' if value != '1' else ''}"


def memory(size):
    if size is None:
        return "—"
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{size:g} bytes"


@register.filter
def cpu_text(value):
    """A cpu quantity as written ("2", "1500m") -> "2 cores", "1.5 cores"; unreadable ones as written."""
    amount = engine.quantity(value)
    return str(value) if amount is None else cores(float(amount * 1000))


@register.filter
def memory_text(value):
    """A memory quantity as written ("15136776Ki", "4Gi") -> "14.4 GiB", "4 GiB"."""
    amount = engine.quantity(value)
    return str(value) if amount is None else memory(float(amount))
