"""How often a fragment that shows an unfinished run asks for itself again.

A run someone has just started (a quick edit's, a press of "Run") usually finishes within seconds: asked for
every second, its result reached the page up to a second after it was stored, half a second on average, a
large part of an edit loop that takes two to four seconds in all. So a fragment asks every
``RUN_POLL_FAST_MS`` while its youngest unfinished run is younger than ``RUN_POLL_FAST_SECONDS``, then every
second, as a long run needs no more.
"""

from django import template
from django.conf import settings
from django.utils import timezone

register = template.Library()

SLOW = "1s"


@register.simple_tag
def poll_every(*runs):
    """htmx's interval ("250ms", "1s") for a fragment showing these runs (None ones are left out): fast while
    the youngest unfinished one is young, else once a second."""
    now = timezone.now()
    young = [r for r in runs if r is not None and not r.is_finished and r.created_at is not None
             and (now - r.created_at).total_seconds() < settings.RUN_POLL_FAST_SECONDS]
    return f"{settings.RUN_POLL_FAST_MS}ms" if young and settings.RUN_POLL_FAST_MS < 1000 else SLOW
