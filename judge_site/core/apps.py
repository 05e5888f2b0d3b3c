from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "judge_site.core"
    label = "core"
