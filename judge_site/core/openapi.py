"""The API's OpenAPI 3.1 document, written as data: every path, method, request body, response
and error, and the token scheme. Served at ``GET /api/v1/openapi.json`` and rendered as the
reference page ``/api/v1/docs/`` (judge_site/core/api_docs.py); the test suite validates every
API response against it (tests/api_schema.py).

A path or a method missing here fails the tests that call it: add the entry with the view.
"""

from __future__ import annotations

import functools
from typing import Any

from judge_site.core.openapi_schemas import SCHEMAS, ref

Operation = dict[str, Any]

ERRORS = {
    400: "Bad input: the message names the field",
    401: "No token, or a bad or revoked one",
    403: "Not allowed (not an instructor, outside an exam's window, a cookie without CSRF)",
    404: "No such thing, or not the caller's",
    429: "Too many calls: come back after Retry-After seconds",
    500: "The site failed to answer (a bug, logged): try again later",
}
READ_ERRORS = (400, 401, 404)  # 400: a query string the site refuses (a NUL)
WRITE_ERRORS = (400, 401, 403, 404, 429)
ID = {"type": "integer", "minimum": 1}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def op(summary: str, ok: dict[int, tuple[str, str]], *, body: str | None = None,
       errors: tuple[int, ...] = WRITE_ERRORS, public: bool = False, tag: str = "",
       description: str = "") -> Operation:
    """One operation: ``ok`` maps a status to (schema name, description)."""
    responses: dict[str, Any] = {
        str(status): _json(ref(name), text) for status, (name, text) in ok.items()
    }
    for status in (*errors, 500):
        responses[str(status)] = _json(ref("Error"), ERRORS[status])
    operation: Operation = {"summary": summary, "tags": [tag], "responses": responses}
    if description:
        operation["description"] = description
    if body:
        operation["requestBody"] = {
            "required": True, "content": {"application/json": {"schema": ref(body)}},
        }
    if public:
        operation["security"] = [{}, {"token": []}]
    return operation


def _params(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "in": "path", "required": True, "schema": ID} for n in names]


COURSE = "/api/v1/courses/{course_id}"
EXAM = COURSE + "/exams/{exam_id}"
INVITATION = "/api/v1/courses/invitations/{invitation_id}"
_MEMBER = {201: ("Membership", "Joined"), 200: ("Membership", "A member already")}

PATHS: dict[str, dict[str, Any]] = {
    "/api/v1/problems": {"get": op(
        "The problems the caller may see", {200: ("ProblemList", "The problems, by number")},
        errors=(400, 401), public=True, tag="submissions",
        description="Anonymous callers see the published problems.")},
    "/api/v1/submissions": {"post": op(
        "Run or submit a solution", {201: ("SubmissionCreated", "Queued for judging")},
        body="SubmissionCreate", tag="submissions",
        description="Rate-limited per user (runs and submissions a minute) and by judgings in "
                    "flight; a student inside an exam is held to their window (403).")},
    "/api/v1/submissions/{submission_id}": {
        "parameters": _params("submission_id"),
        "get": op("A submission and its result", {200: ("Submission", "The submission")},
                  errors=READ_ERRORS, tag="submissions",
                  description="Poll until status is done (queue_position says how far)."),
    },
    "/api/v1/courses": {"post": op(
        "Create a course", {201: ("CourseCreated", "The course and its join code")},
        body="CourseCreate", tag="courses",
        description="Holders of courses.create_course only.")},
    COURSE + "/join": {"parameters": _params("course_id"), "post": op(
        "Join a course with its code", _MEMBER, body="CourseJoin", tag="courses")},
    COURSE + "/assignments": {"parameters": _params("course_id"), "post": op(
        "Add an assignment (instructors)", {201: ("Created", "The assignment")},
        body="AssignmentCreate", tag="courses")},
    COURSE + "/roster": {"parameters": _params("course_id"), "post": op(
        "Invite a roster (instructors)", {200: ("RosterReport", "Who was invited")},
        body="Roster", tag="courses",
        description="A 400 lists the rows that are not a username or an address (`rows`); "
                    "then nobody is invited.")},
    COURSE + "/grades.csv": {"parameters": _params("course_id"), "get": {
        "summary": "The grades as CSV (instructors)", "tags": ["courses"],
        "responses": {
            "200": {"description": "The CSV", "content": {"text/csv": {"schema": {
                "type": "string"}}}},
            **{str(s): _json(ref("Error"), ERRORS[s]) for s in (400, 401, 403, 404, 500)},
        },
    }},
    "/api/v1/courses/invitations": {"get": op(
        "The caller's pending invitations", {200: ("Invitations", "Pending invitations")},
        errors=(400, 401), tag="courses")},
    INVITATION + "/accept": {"parameters": _params("invitation_id"), "post": op(
        "Accept an invitation", _MEMBER, body="InvitationAccept", tag="courses")},
    INVITATION + "/decline": {"parameters": _params("invitation_id"), "post": op(
        "Decline an invitation", {200: ("InvitationDeclined", "Declined")}, tag="courses")},
    COURSE + "/exams": {"parameters": _params("course_id"), "post": op(
        "Create an exam or a contest (instructors)", {201: ("Created", "The exam")},
        body="ExamCreate", tag="exams")},
    EXAM + "/start": {"parameters": _params("course_id", "exam_id"), "post": op(
        "Start one's exam window",
        {201: ("ExamStarted", "Started now"), 200: ("ExamStarted", "Started before")},
        tag="exams", description="403 before the exam opens or after it closes.")},
    EXAM + "/scoreboard": {"parameters": _params("course_id", "exam_id"), "get": op(
        "The scoreboard", {200: ("Scoreboard", "Frozen for students while frozen")},
        errors=READ_ERRORS, tag="exams")},
    EXAM + "/unfreeze": {"parameters": _params("course_id", "exam_id"), "post": op(
        "Unfreeze the scoreboard (instructors)", {200: ("Unfrozen", "Unfrozen")},
        tag="exams")},
    "/api/v1/openapi.json": {"get": op(
        "This document", {200: ("OpenApi", "The OpenAPI document")}, errors=(400,),
        public=True, tag="reference")},
}

TAGS = [
    {"name": "submissions", "description": "Problems, runs and submissions"},
    {"name": "courses", "description": "Courses, assignments, rosters and invitations"},
    {"name": "exams", "description": "Timed exams and contests of a course"},
    {"name": "reference", "description": "This document"},
]


@functools.cache
def document() -> dict[str, Any]:
    """The whole document (built once; callers must not change it)."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Tensor Judge API",
            "version": "1",
            "description": (
                "JSON over HTTPS. Authenticate with `Authorization: Token <key>` (or `Bearer "
                "<key>`): make a token on /accounts/token/ or with `manage.py create_api_token "
                "USER`. Every error is `{\"error\": \"<field>: <what to do>\"}` with its "
                "status; an unknown path answers 404 and a wrong method 405, in that shape."
            ),
        },
        "servers": [{"url": "/"}],
        "tags": TAGS,
        "security": [{"token": []}],
        "paths": PATHS,
        "components": {
            "securitySchemes": {"token": {
                "type": "http", "scheme": "bearer",
                "description": "The account's API token; `Token <key>` is accepted too.",
            }},
            "schemas": {**SCHEMAS, "ProblemList": {"type": "array", "items": ref("Problem")}},
        },
    }
