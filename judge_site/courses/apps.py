from django.apps import AppConfig


class CoursesConfig(AppConfig):
    name = "judge_site.courses"
    label = "courses"
    verbose_name = "Courses: classes, assignments, grades"

    def ready(self) -> None:
        # Exams gate their problems for the apps below this one (judge_site/core/gates.py).
        from judge_site.core import gates
        from judge_site.courses import exams, selectors

        gates.register_problem_gate(exams.problem_gate)
        gates.register_package_pin(exams.package_pin)
        gates.register_unpublished_reader(exams.unpublished_reader)
        gates.register_submission_reader(selectors.instructor_may_read)
