from django.apps import AppConfig


class HintsConfig(AppConfig):
    name = "judge_site.hints"
    label = "hints"
