"""The API's OpenAPI document as JSON (``/api/v1/openapi.json``) and its reference page
(``/api/v1/docs/``), rendered on the server from the same document: no script, no CDN."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from judge_site.core.openapi import document

METHODS = ("get", "post", "put", "patch", "delete")


@require_GET
def openapi_json(request: HttpRequest) -> JsonResponse:
    return JsonResponse(document(), json_dumps_params={"indent": 1})


def type_text(schema: dict[str, Any]) -> str:
    """A schema in a few words: ``integer``, ``string | null``, ``array of Problem``."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " | ".join(type_text(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " | ".join(f'"{v}"' for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {type_text(schema.get('items', {}))}"
    if isinstance(kind, list):
        return " | ".join(kind)
    return str(kind)


def _fields(schema: dict[str, Any]) -> list[dict[str, str]]:
    required = set(schema.get("required", []))
    return [
        {"name": name, "type": type_text(prop), "required": "yes" if name in required else "",
         "about": prop.get("description", "")}
        for name, prop in schema.get("properties", {}).items()
    ]


def _operations(doc: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for path, item in doc["paths"].items():
        params = [p["name"] for p in item.get("parameters", [])]
        for method in METHODS:
            if method not in item:
                continue
            operation = item[method]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            responses = []
            for status, answer in operation["responses"].items():
                content: dict[str, dict[str, Any]] = answer.get("content", {})
                kind, media = next(iter(content.items()), ("", {}))
                responses.append({"status": status, "about": answer["description"],
                                  "type": type_text(media.get("schema", {})) if media else "",
                                  "media": kind})
            rows.append({
                "id": f"{method}-{path}".replace("/", "-").replace("{", "").replace("}", ""),
                "method": method.upper(), "path": path, "params": params,
                "summary": operation.get("summary", ""),
                "about": operation.get("description", ""),
                "tag": (operation.get("tags") or [""])[0],
                "public": {} in operation.get("security", [{"token": []}]),
                "body": type_text(body["schema"]) if body else "",
                "responses": responses,
            })
    return rows


@require_GET
def api_reference(request: HttpRequest) -> HttpResponse:
    doc = document()
    schemas = [
        {"name": name, "about": schema.get("description", ""), "type": type_text(schema),
         "fields": _fields(schema)}
        for name, schema in doc["components"]["schemas"].items()
    ]
    return render(request, "core/api_docs.html", {
        "info": doc["info"], "operations": _operations(doc), "schemas": schemas,
        "tags": doc["tags"],
    })
