from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "judge_site.submissions"
    label = "submissions"
