from django.urls import path

from judge_site.similarity import views

app_name = "similarity"

_BASE = "courses/<int:course_id>/assignments/<int:assignment_id>/similarity"

urlpatterns = [
    path(_BASE, views.assignment_similarity, name="assignment"),
    path(f"{_BASE}/run", views.run_start, name="run"),
    path(f"{_BASE}/runs/<int:run_id>/progress", views.run_progress, name="progress"),
    path(f"{_BASE}/pairs/<int:pair_id>", views.pair_detail, name="pair"),
]
