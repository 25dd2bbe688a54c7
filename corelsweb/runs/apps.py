from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "corelsweb.runs"
