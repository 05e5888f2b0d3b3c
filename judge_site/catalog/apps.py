from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "judge_site.catalog"
    label = "catalog"
