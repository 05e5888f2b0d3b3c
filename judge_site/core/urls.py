"""Core URLs: /healthz, plus a placeholder front page.

The catalog app owns "/" under the name "problem_list" (LOGIN_REDIRECT_URL). Until it defines
that name, core serves a placeholder at "/" under both "home" and "problem_list", so that login
redirects work; once the catalog defines it, the placeholder steps aside (core is included
before the catalog in judge_site/urls.py, so a second "" route here would shadow it).
"""

from __future__ import annotations

from django.urls import URLPattern, path

from judge_site.catalog import urls as catalog_urls
from judge_site.core import api_docs, views

urlpatterns: list[URLPattern] = [
    path("healthz", views.healthz, name="healthz"),
    path("api/v1/openapi.json", api_docs.openapi_json, name="api_openapi"),
    path("api/v1/docs/", api_docs.api_reference, name="api_docs"),
]

_catalog_names = {getattr(p, "name", None) for p in catalog_urls.urlpatterns}
if "problem_list" not in _catalog_names:
    urlpatterns += [
        path("", views.home, name="home"),
        path("", views.home, name="problem_list"),
    ]
