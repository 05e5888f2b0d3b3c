from django.apps import AppConfig


class LtiConfig(AppConfig):
    name = "judge_site.lti"
    label = "lti"
    verbose_name = "LTI 1.3: LMS courses, launches and grade pushes"

    def ready(self) -> None:
        # A verdict written (judge_site/submissions/services.py) records the grade pushes it
        # changes, in the verdict's own transaction (judge_site/lti/grades.py).
        from judge_site.lti import grades
        from judge_site.submissions.signals import verdict_written

        verdict_written.connect(grades.on_verdict_written, dispatch_uid="lti-grade-push")
