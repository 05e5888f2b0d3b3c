from django.urls import path

from judge_site.submissions import api

urlpatterns = [
    path("api/v1/problems", api.problems, name="api_problems"),
    path("api/v1/submissions", api.submissions, name="api_submissions"),
    path("api/v1/submissions/<int:submission_id>", api.submission_detail, name="api_submission"),
]
