from django.urls import path

from judge_site.staff import views

app_name = "staff"

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("upload/", views.upload, name="upload"),
    path("versions/<int:pk>/", views.version_detail, name="version"),
    path("versions/<int:pk>/status.json", views.version_status, name="version_status"),
    path("versions/<int:pk>/use/", views.version_use, name="version_use"),
    path("problems/<int:number>/", views.problem_detail, name="problem"),
    path("problems/<int:number>/publish/", views.problem_publish, name="problem_publish"),
    path("problems/<int:number>/rejudge/", views.problem_rejudge, name="problem_rejudge"),
    path("rejudges/<int:pk>/", views.rejudge_detail, name="rejudge"),
    path("rejudges/<int:pk>/status.json", views.rejudge_status, name="rejudge_status"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission"),
    path("submissions/<int:pk>/rejudge/", views.submission_rejudge, name="submission_rejudge"),
]
