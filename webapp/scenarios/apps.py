from django.apps import AppConfig
from django.core.signals import request_finished


class ScenariosConfig(AppConfig):
    name = "webapp.scenarios"
    label = "scenarios"

    def ready(self):
        # The receivers of what a request leaves for after its response first, then the one that ends the
        # request's hold on that work (receivers are called in the order they were connected).
        from . import after_response, frozen  # noqa: F401
        from .manifests import documents  # noqa: F401

        request_finished.connect(after_response.end_of_request, dispatch_uid="after_response.end_of_request")
