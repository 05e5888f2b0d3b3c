from django.apps import AppConfig
from django.db.models.signals import post_save


class StaffConfig(AppConfig):
    name = "judge_site.staff"
    verbose_name = "Staff: versions, rejudges, audit"

    def ready(self) -> None:
        from django.contrib.admin.models import LogEntry

        from judge_site.core import gates
        from judge_site.staff.services.packages import version_folders
        from judge_site.staff.signals import mirror_admin_log

        post_save.connect(mirror_admin_log, sender=LogEntry, dispatch_uid="staff-audit-admin")
        gates.register_version_folders(version_folders)  # the package server's uploads
