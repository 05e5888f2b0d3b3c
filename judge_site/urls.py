from django.contrib import admin
from django.urls import include, path

from judge_site.staff import views as staff_views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("staff/", include("judge_site.staff.urls")),
    path("metrics", staff_views.metrics, name="metrics"),
    path("", include("judge_site.core.urls")),
    path("accounts/", include("judge_site.accounts.urls")),
    path("", include("judge_site.catalog.urls")),
    path("", include("judge_site.submissions.urls")),
    path("", include("judge_site.courses.urls")),
    path("", include("judge_site.similarity.urls")),
    path("", include("judge_site.lti.urls")),
]
