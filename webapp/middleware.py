import io

from django.http import HttpResponse, HttpResponseBadRequest, JsonResponse

NUL_MESSAGE = "Query parameters cannot contain NUL (\\x00) characters."


class RejectNulQueryMiddleware:
    """Answer 400 to query strings with NUL characters, which PostgreSQL text cannot hold.

    Form and serializer fields already refuse NUL in bodies; this covers ?q=, ?team= and the like.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if any("\x00" in key or any("\x00" in v for v in values) for key, values in request.GET.lists()):
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": NUL_MESSAGE}, status=400)
            return HttpResponseBadRequest(NUL_MESSAGE, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


class RequestSizeLimitMiddleware:
    """Answer 413 before reading a body larger than MAX_REQUEST_BYTES (by its Content-Length).

    Django's DATA_UPLOAD_MAX_MEMORY_SIZE only guards request.body and form parsing;
    DRF's parsers read the stream directly, so the limit is enforced here for both.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.conf import settings

        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.MAX_REQUEST_BYTES
        if limit is not None and length > limit:
            message = (f"The request body is {length / 1_000_000:.1f} MB; the limit is {limit / 1_000_000:.1f} MB "
                       "(MAX_REQUEST_BYTES). Scenario text itself may be at most "
                       f"{settings.MANIFEST_MAX_BYTES / 1_000_000:.1f} MB.")
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": message}, status=413)
            return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        return self.get_response(request)



class GzipRequestMiddleware:
    """Expand a request body sent with `Content-Encoding: gzip`, so forms, the API's parsers and
    uploads read it as if it had been sent plain. It is read a chunk at a time and refused past
    MAX_REQUEST_BYTES expanded (413), so a small body that unpacks to gigabytes is never held."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.conf import settings

        from webapp.scenarios import gzipped

        encoding = request.META.get("HTTP_CONTENT_ENCODING", "").strip().lower()
        if encoding in ("", "identity"):
            return self.get_response(request)
        if encoding not in ("gzip", "x-gzip"):
            return self.refuse(request, f"Content-Encoding {encoding!r} is not supported; send gzip or no encoding.", 415)
        try:
            body = gzipped.gunzip(iter(lambda: request.read(gzipped.CHUNK), b""), "The request body",
                                  settings.MAX_REQUEST_BYTES, "MAX_REQUEST_BYTES")
        except gzipped.GzipError as e:
            return self.refuse(request, str(e), 413 if e.too_large else 400)
        request._stream, request._read_started = io.BytesIO(body), False
        request.META["CONTENT_LENGTH"] = str(len(body))
        del request.META["HTTP_CONTENT_ENCODING"]
        return self.get_response(request)

    @staticmethod
    def refuse(request, message, status):
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": message}, status=status)
        return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")

CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self'",  # htmx and app.js are files; nothing inline, no eval (htmx allowEval is off)
    "style-src 'self' 'unsafe-inline'",  # style="width: …%" bars and htmx's indicator styles
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])


class SecurityHeadersMiddleware:
    """Content-Security-Policy, Permissions-Policy and X-Frame-Options on every response, those that
    middleware further down answers by itself (a 413) included (SecurityMiddleware sets the rest)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
        response.headers.setdefault("X-Frame-Options", "DENY")
        return response


class QueueUnavailableMiddleware:
    """A page whose write queued a run while the broker was down answers 503 with a readable reason."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        from django.template import loader

        from webapp.scenarios.tasks import QueueUnavailable

        if not isinstance(exception, QueueUnavailable):
            return None
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": str(exception)}, status=503, headers={"Retry-After": "30"})
        body = loader.render_to_string("503.html", {"message": str(exception)}, request=request)
        return HttpResponse(body, status=503, headers={"Retry-After": "30"})


class RetryReadAfterDroppedConnectionMiddleware:
    """A read (GET, HEAD) whose database connection was dropped while it ran is answered again on a new one.

    CONN_HEALTH_CHECKS replaces a connection that died between requests; one that dies during a request
    (a database restart, a failover, pg_terminate_backend) fails the query with OperationalError or
    InterfaceError. Reads change nothing, so running the view once more is safe; writes still fail, and
    their client sees the error.
    """

    SAFE = ("GET", "HEAD")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if getattr(request, "_database_dropped", False) and request.method in self.SAFE:
            from django.db import connections

            request._database_dropped = False
            connections.close_all()  # the next query opens a new connection
            response = self.get_response(request)
        return response

    def process_exception(self, request, exception):
        note_dropped_connection(request, exception)
        return None


def note_dropped_connection(request, exception):
    """Mark the request for one more try when `exception` came from a database connection that is gone
    (pages reach this through process_exception, the API through its exception handler)."""
    from django.db import InterfaceError, OperationalError, connections

    if isinstance(exception, (InterfaceError, OperationalError)) and not getattr(request, "_retried_read", False):
        if any(c.connection is not None and not c.is_usable() for c in connections.all()):
            request._database_dropped = request._retried_read = True
