from django.apps import AppConfig


class HintsConfig(AppConfig):
    name = "judge_site.hints"
    label = "hints"

    def ready(self) -> None:
        from judge_site.core import page_parts
        from judge_site.hints import services

        page_parts.register_problem_page_part(services.problem_page_part)
