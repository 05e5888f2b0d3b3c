"""Every /api/v1 answer the suite receives through Django's test client is checked against the
API's OpenAPI document (judge_site/core/openapi.py): its path, method and status must have an
entry, and a JSON body must match that entry's schema. An unknown path may answer only 404 and
a method the path lacks only 405 (either may be 400 for a refused query string), in the error
shape. Installed for the whole suite by
tests/conftest.py; validators are compiled once per entry.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from jsonschema import Draft202012Validator

SKIPPED = ("/api/v1/docs/",)  # the HTML reference page, rendered from the document


@functools.cache
def _routes() -> list[tuple[re.Pattern[str], str]]:
    from judge_site.core.openapi import document

    routes = []
    for template in document()["paths"]:
        pattern = re.sub(r"\\\{[a-z_]+\\\}", "[0-9]+", re.escape(template))
        routes.append((re.compile(pattern + r"\Z"), template))
    return routes


@functools.cache
def _validator(schema_json: str) -> Draft202012Validator:
    from judge_site.core.openapi import document

    schema = json.loads(schema_json)
    root = {"components": document()["components"], "allOf": [schema]}
    return Draft202012Validator(root)


def _error_schema() -> dict[str, Any]:
    return {"$ref": "#/components/schemas/Error"}


def problems(path: str, method: str, status: int, content_type: str, body: bytes) -> list[str]:
    """What is wrong with this answer, per the document ([] when nothing)."""
    from judge_site.core.openapi import document

    where = f"{method} {path} -> {status}"
    template = next((t for pattern, t in _routes() if pattern.match(path)), None)
    if template is None:
        if status not in (400, 404):  # 400: a query string refused before any route
            return [f"{where}: the path has no entry in judge_site/core/openapi.py"]
        schema = _error_schema()
    else:
        item = document()["paths"][template]
        operation = item.get(method.lower() if method != "HEAD" else "get")
        if operation is None:
            if status not in (400, 405):
                return [f"{where}: {method} has no entry under {template} in the document"]
            schema = _error_schema()
        else:
            answer = operation["responses"].get(str(status))
            if answer is None:
                return [f"{where}: status {status} is not documented for {method} {template}"]
            content = answer.get("content", {})
            kind = content_type.split(";")[0].strip()
            if kind not in content:
                return [f"{where}: {kind or 'no content type'} is not among {sorted(content)}"]
            if kind != "application/json":
                return []
            schema = content[kind]["schema"]
    if method == "HEAD" and not body:
        return []
    try:
        data = json.loads(body)
    except ValueError:
        return [f"{where}: the body is not JSON"]
    validator = _validator(json.dumps(schema, sort_keys=True))
    return [f"{where}: {e.json_path}: {e.message}" for e in validator.iter_errors(data)][:5]


def install() -> None:
    """Wrap the test client so that every /api/v1 answer is checked."""
    from django.test import client

    if getattr(client.Client.request, "_api_schema_checked", False):
        return
    original = client.Client.request

    def request(self: Any, **environ: Any) -> Any:
        response = original(self, **environ)
        path = str(response.request.get("PATH_INFO", ""))
        if path.startswith("/api/v1/") and path not in SKIPPED and not response.streaming:
            found = problems(path, str(response.request.get("REQUEST_METHOD", "GET")),
                             response.status_code, response.get("Content-Type", ""),
                             response.content)
            assert not found, "API answer outside its OpenAPI schema:\n" + "\n".join(found)
        return response

    request._api_schema_checked = True  # type: ignore[attr-defined]
    client.Client.request = request  # type: ignore[method-assign]
