from urllib.parse import quote

from django import template
from django.urls import reverse

from ..sharing import SHARED_NAMES

register = template.Library()

# Views whose last arguments are <str:...> path parts: a page links to thousands of pods and nodes (the
# topology draws 13,000 chips), and reversing each link took 27 µs, a third of the page's template time. Their
# address is reversed once per page with stand-ins for those parts, which are then filled in, quoted as
# reverse quotes them. {name: how many leading arguments are the page's own (the run)}.
_PER_OBJECT = {"run-pod": 1, "run-node": 1}
_SAFE = "!$&'()*+,;=/~:@"  # (what reverse leaves unquoted: RFC 3986's sub-delimiters, "/~:@")


@register.simple_tag(takes_context=True)
def view_url(context, name, *args):
    """{% url name *args %}, or on a shared page the same view under /s/<token>/.

    There the token goes first; it replaces the scenario's pk, which a share link implies.
    """
    fixed = _PER_OBJECT.get(name)
    if fixed is not None and len(args) > fixed and all(isinstance(a, str) and a and "/" not in a
                                                       for a in args[fixed:]):
        address = _pattern(context, name, args[:fixed], len(args) - fixed)
        for i, arg in enumerate(args[fixed:]):
            address = address.replace(f"\x00{i}\x00", quote(arg, safe=_SAFE), 1)
        return address
    return _reverse(context, name, args)


def _reverse(context, name, args):
    if not context.get("shared"):
        return reverse(name, args=args)
    if name == "scenario-detail":
        args = args[1:]
    return reverse(SHARED_NAMES[name], args=[context["token"], *args])


def _pattern(context, name, fixed, free):
    """The view's address for these leading arguments, with a stand-in "<NUL>i<NUL>" for each free one
    (reversed once per page rendering)."""
    cache = context.render_context.setdefault("view_url patterns", {})
    key = (name, tuple(fixed), free, context.get("shared"), context.get("token"))
    if key not in cache:
        stand_ins = [f"zz{i}stand-in" for i in range(free)]
        address = _reverse(context, name, [*fixed, *stand_ins])
        for i, stand_in in enumerate(stand_ins):
            address = address.replace(stand_in, f"\x00{i}\x00", 1)
        cache[key] = address
    return cache[key]
