from django import template
from django.urls import reverse

from ..sharing import SHARED_NAMES

register = template.Library()


@register.simple_tag(takes_context=True)
def view_url(context, name, *args):
    """{% url name *args %}, or on a shared page the same view under /s/<token>/.

    There the token goes first; it replaces the scenario's pk, which a share link implies.
    """
    if not context.get("shared"):
        return reverse(name, args=args)
    if name == "scenario-detail":
        args = args[1:]
    return reverse(SHARED_NAMES[name], args=[context["token"], *args])
