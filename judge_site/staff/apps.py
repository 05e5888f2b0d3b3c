from django.apps import AppConfig


class StaffConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "judge_site.staff"
    verbose_name = "Staff: versions, rejudges, audit"
