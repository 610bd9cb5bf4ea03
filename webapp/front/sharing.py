"""Read-only share links (/s/<token>/...): one view function serves members and link holders.

A view decorated with @shareable is reached by members at its own URL (login
required, roles checked by the view) and by anyone holding a share link at the
same URL under /s/<token>/ (GET and HEAD only; the view receives `token`).
Templates build links with {% run_url %}, which stays under the share prefix.
"""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.views.decorators.http import require_safe

from webapp.scenarios.models import ShareLink

# Member URL name -> the URL name of the same view under /s/<token>/.
SHARED_NAMES = {
    "scenario-detail": "shared-scenario",
    "run-detail": "shared-run",
    "run-topology": "shared-run-topology",
    "run-nodes": "shared-run-nodes",
    "run-node": "shared-run-node",
    "run-pod": "shared-run-pod",
    "run-pod-path": "shared-run-pod-path",
    "run-timeline": "shared-run-timeline",
}


def shared_scenario_or_404(token):
    """The scenario of a live share link; 404 for an unknown or revoked token (or a deleted scenario)."""
    link = ShareLink.find(token)
    if link is None:
        raise Http404
    return link.scenario


def share_context(token):
    """What templates need to hide write controls and keep links under /s/<token>/."""
    return {"shared": token is not None, "token": token}


def shareable(view):
    """Members reach `view` after logging in; share-link holders through /s/<token>/, read-only."""
    for_members = login_required(view)
    for_links = require_safe(view)

    @wraps(view)
    def dispatch(request, *args, token=None, **kwargs):
        if token is None:
            return for_members(request, *args, **kwargs)
        return for_links(request, *args, token=token, **kwargs)

    return dispatch
