"""Core URLs: /healthz and the API's schema and reference. The front page ("/", named
"problem_list", LOGIN_REDIRECT_URL) is the catalog's."""

from __future__ import annotations

from django.urls import URLPattern, path

from judge_site.core import api_docs, views

urlpatterns: list[URLPattern] = [
    path("healthz", views.healthz, name="healthz"),
    path("api/v1/openapi.json", api_docs.openapi_json, name="api_openapi"),
    path("api/v1/docs/", api_docs.api_reference, name="api_docs"),
]
