from django.contrib import admin
from django.urls import include, path

from judge_site.catalog import worker_views
from judge_site.staff import views as staff_views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("staff/", include("judge_site.staff.urls")),
    path("metrics", staff_views.metrics, name="metrics"),
    # Worker hosts fetch problem versions by content hash (the workers' token only).
    path("internal/packages/<str:version>.zip", worker_views.package_zip,
         name="worker_package"),
    path("", include("judge_site.core.urls")),
    path("accounts/", include("judge_site.accounts.urls")),
    path("", include("judge_site.catalog.urls")),
    path("", include("judge_site.submissions.urls")),
    path("", include("judge_site.courses.urls")),
]
