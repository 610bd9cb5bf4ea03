from django.http import HttpResponseBadRequest, JsonResponse

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
