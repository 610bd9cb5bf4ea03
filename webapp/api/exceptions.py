import logging

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from webapp.middleware import note_dropped_connection
from webapp.scenarios.engine import ScenarioInvalid
from webapp.scenarios.services import StaleRevision
from webapp.scenarios.tasks import QueueUnavailable

log = logging.getLogger(__name__)


def exception_handler(exc, context):
    """DRF's handler, plus our two user errors; anything else is a logged, generic 500."""
    if isinstance(exc, ScenarioInvalid):
        return Response({exc.input: [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, StaleRevision):
        return Response(
            {
                "detail": f"This save was based on an older revision; revision {exc.current} is the current one. "
                "Reload it, reapply your change and save again.",
                "current_revision": exc.current,
            },
            status=status.HTTP_409_CONFLICT,
            headers={"ETag": f'"{exc.current}"'},
        )
    if isinstance(exc, QueueUnavailable):
        return Response({"detail": str(exc)}, status=status.HTTP_503_SERVICE_UNAVAILABLE,
                        headers={"Retry-After": "30"})
    response = drf_exception_handler(exc, context)
    if response is None:
        request = context.get("request")
        if request is not None:  # a read whose connection dropped is answered again (see the middleware)
            note_dropped_connection(request._request, exc)
        view = context.get("view")
        log.error("unexpected error in %s", type(view).__name__, exc_info=exc)
        return Response(
            {"detail": "Internal server error. It has been logged."},
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )
    return response
