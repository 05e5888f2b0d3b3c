from django.urls import path

from judge_site.catalog import views

urlpatterns = [
    path("", views.problem_list, name="problem_list"),
    path("problems/<int:number>/", views.problem_detail, name="problem_detail"),
    path("problems/<int:number>/draft", views.problem_draft, name="problem_draft"),
]
