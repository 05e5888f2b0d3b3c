from django.apps import AppConfig


class CoursesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "judge_site.courses"
    label = "courses"
    verbose_name = "Courses: classes, assignments, grades"
