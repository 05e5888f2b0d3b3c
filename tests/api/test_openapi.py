"""The OpenAPI document (issue 41): served, complete (every /api/v1 route of the URLconf has
an entry), its reference page rendered on the server, and the suite's schema check
(tests/api_schema.py) refusing what the document does not say."""

from __future__ import annotations

import re

import api_schema
import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from jsonschema import Draft202012Validator

from judge_site.core.openapi import document

pytestmark = pytest.mark.django_db


def _api_routes(patterns: list, prefix: str = "") -> set[str]:
    found = set()
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            found |= _api_routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern) and route.startswith("api/v1/"):
            found.add("/" + re.sub(r"<int:([a-z_]+)>", r"{\1}", route))
    return found


def test_every_api_route_has_an_entry_and_every_schema_is_valid():
    paths = set(document()["paths"])
    assert _api_routes(get_resolver().url_patterns) - {"/api/v1/docs/"} == paths
    for name, schema in document()["components"]["schemas"].items():
        Draft202012Validator.check_schema(schema), name


def test_the_document_is_served_to_anyone(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    body = response.json()
    assert body["openapi"].startswith("3.") and "/api/v1/submissions" in body["paths"]
    assert body["components"]["securitySchemes"]["token"]["scheme"] == "bearer"
    mode = body["components"]["schemas"]["SubmissionCreate"]["properties"]["mode"]["enum"]
    assert set(mode) == {"run", "submit", "scratch"}


def test_the_reference_page_lists_every_operation_without_scripts(client):
    page = client.get("/api/v1/docs/").content.decode()
    for path, item in document()["paths"].items():
        for method in ("get", "post"):
            if method in item:
                assert f"{method.upper()} {path}" in page
    assert "<script" not in page and "https://" not in page and "http://" not in page
    assert "SubmissionCreate" in page and "Retry-After" in page


def test_the_schema_check_refuses_what_the_document_does_not_say():
    check = api_schema.problems
    json_ = "application/json"
    assert check("/api/v1/problems", "GET", 200, json_, b"[]") == []
    assert check("/api/v1/problems", "GET", 200, json_, b'[{"number": "48"}]')
    assert check("/api/v1/problems", "GET", 418, json_, b"{}")  # no entry for the status
    assert check("/api/v1/nothing", "GET", 200, json_, b"{}")  # no entry for the path
    assert check("/api/v1/nothing", "GET", 404, json_, b'{"error": "no such"}') == []
    assert check("/api/v1/submissions", "PUT", 405, json_, b'{"error": "use POST"}') == []
    assert check("/api/v1/submissions/3", "GET", 404, json_, b'{"message": "x"}')
