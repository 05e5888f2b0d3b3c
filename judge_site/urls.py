from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("judge_site.core.urls")),
    path("accounts/", include("judge_site.accounts.urls")),
    path("", include("judge_site.catalog.urls")),
    path("", include("judge_site.submissions.urls")),
]
