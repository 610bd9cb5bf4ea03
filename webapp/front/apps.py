from django.apps import AppConfig


class FrontConfig(AppConfig):
    name = "webapp.front"

    def ready(self):
        from . import run_page  # noqa: F401  (connects its receiver of run_computed)
