"""The JSON shapes of the API (OpenAPI 3.1 schema objects, i.e. JSON Schema 2020-12), used by
judge_site/core/openapi.py. Enumerations come from judge_site/core/choices.py (what the models
store), so a new mode or verdict shows here by itself."""

from __future__ import annotations

from typing import Any

from judge_site.core.choices import ExamKind, InvitationStatus, Mode, Role, Status, VerdictChoice

Schema = dict[str, Any]

INT: Schema = {"type": "integer"}
STR: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
TIME: Schema = {"type": "string", "format": "date-time"}
SHARE: Schema = {**BOOL, "description": "let the course's instructors see your e-mail",
                 "x-error": "share_email: true or false"}


def obj(required: dict[str, Schema], optional: dict[str, Schema] | None = None,
        description: str = "", closed: bool = True) -> Schema:
    """An object with these keys (``closed``: no others)."""
    schema: Schema = {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
    }
    if closed:
        schema["additionalProperties"] = False
    if description:
        schema["description"] = description
    return schema


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


ROSTER_ROW = obj(
    {"line": INT, "value": STR, "status": {"enum": ["invited", "already_invited", "invalid"]}},
    {"error": nullable(STR)},
)

SCHEMAS: dict[str, Schema] = {
    "Error": obj(
        {"error": {**STR, "description": "'<field>: <what is wrong and what to do>'"}},
        {"rows": {"type": "array", "items": ROSTER_ROW}},
        "Every error: 400 bad input (naming the field), 401 no, bad or revoked token, 403 not "
        "allowed, 404 not found or not yours, 405 wrong method, 429 too many calls "
        "(Retry-After says when to come back).",
    ),
    "Problem": obj({"number": INT, "slug": STR, "title": STR, "difficulty": STR}),
    "SubmissionCreate": obj(
        {
            "problem": {"type": ["integer", "string"],
                        "description": "the problem's number or slug",
                        "x-error": "problem: missing (a number or a slug)"},
            "code": {**STR, "description": "the solution's source (Python)",
                     "x-error": "code: missing or not a string"},
        },
        {
            "mode": {"enum": Mode.values, "default": "submit",
                     "description": "run: the sample tests; submit: all tests and the "
                                    "benchmark; scratch: the code plus `script`, printing",
                     "x-error": "mode: 'run', 'submit' or 'scratch'"},
            "script": {"type": ["string", "null"],
                       "description": "scratch mode only: lines run after the code",
                       "x-error": "script: not a string (the lines a scratch run adds after "
                                  "your code)"},
        },
        closed=False,
    ),
    "SubmissionCreated": obj({"id": INT, "status": {"enum": Status.values}}),
    "Submission": obj(
        {
            "id": INT, "problem": INT, "problem_slug": STR, "mode": {"enum": Mode.values},
            "status": {"enum": Status.values},
            "verdict": nullable({"enum": VerdictChoice.values}),
            "tests": {"type": "array", "items": {"type": "object"}},
            "benchmark": nullable({"type": "object"}),
            "environment": {"type": "object"},
            "message": STR,
            "problem_version": STR,
            "queue_position": nullable(INT),
            "created_at": TIME,
        },
        {
            "script": STR, "output": STR, "output_truncated": BOOL,
            "output_limit_chars": INT,
        },
        "A submission; the scratch keys only for mode scratch.",
    ),
    "CourseCreate": obj({"title": {**STR, "x-error": "title: missing (a non-empty string)"}},
                        closed=False),
    "CourseCreated": obj({"id": INT, "join_code": STR}),
    "CourseJoin": obj({"join_code": {**STR, "x-error": "join_code: missing (a string)"}},
                      {"share_email": SHARE}, closed=False),
    "Membership": obj({"course": INT, "role": {"enum": Role.values}}),
    "AssignmentCreate": obj(
        {"title": {**STR, "x-error": "title: missing (a non-empty string)"},
         "problems": {"type": "array", "items": {"type": ["integer", "string"]},
                      "x-error": "problems: a non-empty list of problem numbers"}},
        {"opens_at": nullable(STR), "due_at": nullable(STR), "late_until": nullable(STR),
         "late_credit": nullable({"type": "number"})},
        closed=False,
    ),
    "Created": obj({"id": INT}),
    "Roster": obj({"roster": {**STR, "description": "CSV: a username or address a line",
                              "x-error": "roster: missing (the CSV as a string)"}},
                  closed=False),
    "RosterReport": obj({
        "invited": INT, "already_invited": INT,
        "rows": {"type": "array", "items": ROSTER_ROW},
    }),
    "Invitations": obj({"invitations": {"type": "array", "items": obj(
        {"id": INT, "course": INT, "title": STR, "invited_at": TIME})}}),
    "InvitationAccept": obj({}, {"share_email": SHARE}, closed=False),
    "InvitationDeclined": obj({"id": INT, "status": {"enum": InvitationStatus.values}}),
    "ExamCreate": obj(
        {"title": {**STR, "x-error": "title: missing (a non-empty string)"}},
        {"kind": {"enum": ExamKind.values, "x-error": "kind: 'exam' or 'contest'"},
         "opens_at": STR, "closes_at": STR, "duration_min": nullable(INT),
         "freeze_min": nullable(INT),
         "problems": {"type": "array", "items": {"type": ["integer", "string"]},
                      "x-error": "problems: a non-empty list of problem numbers"},
         "assignment": nullable(INT)},
        "The problems, or an assignment of the course whose problems it takes.",
        closed=False,
    ),
    "ExamStarted": obj({"exam": INT, "started_at": TIME, "ends_at": TIME}),
    "Scoreboard": obj({
        "exam": INT, "kind": {"enum": ExamKind.values}, "frozen": BOOL,
        "freeze_at": nullable(TIME), "problems": {"type": "array", "items": INT},
        "rows": {"type": "array", "items": obj({
            "rank": INT, "username": STR, "solved": INT, "penalty": INT,
            "problems": {"type": "array", "items": obj({
                "solved": BOOL, "rejected": INT, "minutes": nullable(INT), "pending": INT})},
        })},
    }),
    "Unfrozen": obj({"exam": INT, "unfrozen": BOOL}),
    "OpenApi": {"type": "object", "required": ["openapi", "paths"]},
}
