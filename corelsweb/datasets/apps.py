from django.apps import AppConfig


class DatasetsConfig(AppConfig):
    name = "corelsweb.datasets"
