from django.urls import path

from judge_site.submissions import api, diff_views, views

urlpatterns = [
    path("problems/<int:number>/submit", views.problem_submit, name="problem_submit"),
    path(
        "problems/<int:number>/leaderboard/",
        views.leaderboard_problem,
        name="leaderboard_problem",
    ),
    path("leaderboard/", views.leaderboard_overall, name="leaderboard"),
    path("submissions/", views.submission_list, name="submission_list"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission_detail"),
    path("submissions/diff/", diff_views.submission_diff, name="submission_diff"),
    path(
        "submissions/<int:pk>/diff/",
        diff_views.submission_diff_previous,
        name="submission_diff_previous",
    ),
    path("api/v1/problems", api.problems, name="api_problems"),
    path("api/v1/submissions", api.submissions, name="api_submissions"),
    path("api/v1/submissions/<int:submission_id>", api.submission_detail, name="api_submission"),
]
