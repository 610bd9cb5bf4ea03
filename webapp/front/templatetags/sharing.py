from html import escape  # (what Django's escape does, without marking each string safe)
from urllib.parse import quote

from django import template
from django.urls import reverse
from django.utils.safestring import mark_safe

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


@register.simple_tag(takes_context=True)
def node_chips(context, run_pk, chips):
    """The list items of a topology node's pod chips (or "no pods"), each linking to its pod page: what
    ``{% for chip in chips %}<li><a class="chip" ...>`` renders, put together here (the topology of a production
    cluster draws 13,000 chips, half a second through the template engine)."""
    if not chips:
        return mark_safe('<li class="empty">no pods</li>')
    cache = context.render_context.setdefault("node_chips", {})  # (escaped colours, workloads, namespaces)
    address = _pattern(context, "run-pod", (run_pk,), 2)
    head, _, rest = address.partition("\x000\x00")
    middle, _, tail = rest.partition("\x001\x00")
    head, middle, tail = escape(head), escape(middle), escape(tail)
    out = []
    for chip in chips:
        namespace, name = chip["namespace"], chip["name"]
        if not namespace or not name or "/" in namespace or "/" in name:  # (view_url reverses these)
            href = escape(view_url(context, "run-pod", run_pk, namespace, name))
        else:
            ns = cache.get(("namespace", namespace))
            if ns is None:
                ns = cache[("namespace", namespace)] = escape(quote(namespace, safe=_SAFE))
            href = f"{head}{ns}{middle}{escape(quote(name, safe=_SAFE))}{tail}"
        style, title = cache.get(("colour", chip["colour"])), cache.get(("workload", chip["workload"]))
        if style is None:
            style = cache[("colour", chip["colour"])] = escape(chip["colour"])
        if title is None:
            title = cache[("workload", chip["workload"])] = escape(chip["workload"])
        out.append(f'<li><a class="chip" style="background: {style}" href="{href}" title="{title}">'
                   f'{escape(name)}</a></li>')
    return mark_safe("".join(out))
