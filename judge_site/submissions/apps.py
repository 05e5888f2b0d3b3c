from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "judge_site.submissions"
    label = "submissions"

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import post_delete, pre_delete

        from judge_site.core import page_parts
        from judge_site.submissions import problem_page, signals
        from judge_site.submissions.models import Submission

        pre_delete.connect(signals.user_deleting, sender=settings.AUTH_USER_MODEL,
                           dispatch_uid="stats_user_deleting")
        post_delete.connect(signals.submission_deleted, sender=Submission,
                            dispatch_uid="stats_submission_deleted")
        page_parts.register_problem_page_part(problem_page.problem_page_part)
        page_parts.register_progress(problem_page.PROGRESS)
