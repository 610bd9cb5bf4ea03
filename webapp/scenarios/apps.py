from django.apps import AppConfig


class ScenariosConfig(AppConfig):
    name = "webapp.scenarios"
    label = "scenarios"
