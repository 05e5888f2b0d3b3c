"""The hint ladder rule and the [hints] table (sandbox/grader/hints.py): pure, no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sandbox.grader.hints import (
    Attempt,
    case_index,
    check_cases,
    check_is_public,
    code_hash,
    failing_names,
    hinted_checks_failed,
    next_rung_due,
    unknown_checks,
)
from sandbox.grader.manifest import PackageError, parse_hints

TESTS_PY = '''
raise SystemExit("never run")
CASES = [
    Case("example_embed", "embed", make, public=True, note="n"),
    Case("hidden_pad", "embed", make, tags=("padding",)),
    Case(f"shape_{n}", "pad_batch", make, tags=("padding", "shapes")),
    Case(name="secret_last", fn="last_token_logits", make=make),
]
'''
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
COOL = timedelta(minutes=2)


@pytest.fixture
def cases(tmp_path: Path):
    path = tmp_path / "tests.py"
    path.write_text(TESTS_PY)
    return case_index(path)


def attempt(code: str, minute: float, *failed: str) -> Attempt:
    return Attempt(code_hash(code), T0 + timedelta(minutes=minute), frozenset(failed))


def due(cases, attempts, shown=(), *, check="fn:embed", ladder=3, after=2, now_min=10.0) -> bool:
    return next_rung_due(
        check, cases, attempts, list(shown), ladder, after=after, cooldown=COOL,
        now=T0 + timedelta(minutes=now_min),
    )


def test_the_case_index_reads_names_fns_tags_and_f_string_names(cases) -> None:
    assert [c.fn for c in cases] == ["embed", "embed", "pad_batch", "last_token_logits"]
    assert [c.public for c in cases] == [True, False, False, False]
    assert cases[2].matches("shape_7") and not cases[2].matches("shape_")
    assert [c.pattern for c in check_cases("tag:padding", cases)] == [cases[1].pattern, cases[2].pattern]
    assert check_cases("secret_last", cases) == [cases[3]]
    assert check_is_public("example_embed", cases) and not check_is_public("fn:embed", cases)


def test_parse_hints_defaults_switch_and_errors() -> None:
    spec = parse_hints({"hints": {"ladders": [{"check": "fn:embed", "ladder": ["a", "b"]}]}})
    assert (spec.enabled, spec.after, spec.cooldown_s) == (True, 2, 120.0)
    assert spec.ladders[0].hints == ("a", "b")
    assert parse_hints({"hints": {"enabled": False}}).enabled is False
    assert parse_hints({}).ladders == ()
    for bad in (
        {"after": 0},
        {"cooldown_s": -1},
        {"ladders": [{"check": "fn:embed", "ladder": []}]},
        {"ladders": [{"ladder": ["x"]}]},
        {"ladders": [{"check": "a", "ladder": ["x"]}, {"check": "a", "ladder": ["y"]}]},
    ):
        with pytest.raises(PackageError):
            parse_hints({"hints": bad})


def test_unknown_checks_are_reported(cases) -> None:
    spec = parse_hints({"hints": {"ladders": [
        {"check": "fn:embed", "ladder": ["x"]}, {"check": "tag:nothing", "ladder": ["y"]},
        {"check": "no_such_case", "ladder": ["z"]},
    ]}})
    assert unknown_checks(spec, cases) == ["tag:nothing", "no_such_case"]


def test_the_first_hint_needs_n_distinct_failures(cases) -> None:
    assert not due(cases, [])
    assert not due(cases, [attempt("a", 0, "hidden_pad")])
    assert due(cases, [attempt("a", 0, "hidden_pad"), attempt("b", 1, "example_embed")])
    # after = 3: two are not enough
    assert not due(cases, [attempt("a", 0, "hidden_pad"), attempt("b", 1, "hidden_pad")], after=3)


def test_the_same_code_twice_counts_once(cases) -> None:
    same = [attempt("x = 1\n", 0, "hidden_pad"), attempt("x = 1   \r\n", 1, "hidden_pad")]
    assert code_hash("x = 1\n") == code_hash("x = 1   \r\n\n")
    assert not due(cases, same)
    assert due(cases, [*same, attempt("x = 2\n", 2, "hidden_pad")])


STARTER = "def embed(ids, table):\n    raise NotImplementedError\n"


@pytest.mark.parametrize("variant", [
    "# my attempt\n" + STARTER,
    STARTER.replace("table):", "table):  # TODO"),
    STARTER.replace("\n    raise", "\n\n    # not yet\n    raise"),
    STARTER.replace("    raise", "\traise"),
    STARTER.replace("(ids, table)", "( ids ,table )"),
    STARTER.replace("\n", "\r\n") + "\n\n# end\n",
], ids=["comment line", "trailing comment", "blank and comment lines", "tab indent",
        "spaces in a line", "line endings and a last comment"])
def test_a_resubmit_that_changes_only_comments_or_layout_counts_once(cases, variant) -> None:
    assert code_hash(variant) == code_hash(STARTER)
    assert not due(cases, [attempt(STARTER, 0, "hidden_pad"), attempt(variant, 1, "hidden_pad")])


@pytest.mark.parametrize("change", [
    STARTER.replace("raise NotImplementedError", "return table[ids]"),
    STARTER.replace("raise NotImplementedError", "raise NotImplementedError()"),
    STARTER.replace("raise NotImplementedError", '"""a docstring"""\n    raise NotImplementedError'),
    STARTER + "    return 1\n",  # same tokens on other lines change the block: counted
    "def embed(ids, table):\n    if ids:\n        pass\n    raise NotImplementedError\n",
], ids=["body", "a call", "a docstring", "a new line in the block", "a new block"])
def test_a_change_to_the_program_climbs(cases, change) -> None:
    assert code_hash(change) != code_hash(STARTER)
    assert due(cases, [attempt(STARTER, 0, "hidden_pad"), attempt(change, 1, "hidden_pad")])


def test_code_that_does_not_tokenize_is_compared_as_text(cases) -> None:
    broken = "def embed(ids, table:\n    return (ids,\n"
    assert code_hash(broken) == code_hash(broken.replace("\n", "   \r\n"))
    assert code_hash(broken) != code_hash(broken + "# a comment\n")  # text: a comment counts
    assert code_hash(broken).startswith("text:") and code_hash(STARTER).startswith("tokens:")


def test_failures_of_other_checks_do_not_count(cases) -> None:
    other = [attempt("a", 0, "shape_3"), attempt("b", 1, "shape_4", "secret_last")]
    assert not due(cases, other)
    assert due(cases, other, check="tag:padding")  # shape_* carry the tag
    assert not due(cases, [attempt("a", 0, "secret_last"), attempt("b", 1, "secret_last")],
                   check="tag:padding")


def test_the_cool_down_holds_the_hint_back(cases) -> None:
    two = [attempt("a", 0, "hidden_pad"), attempt("b", 1, "hidden_pad")]
    assert not due(cases, two, now_min=1.5)  # 1.5 min since the first counted failure
    assert due(cases, two, now_min=2.0)


def test_the_next_rung_needs_fresh_codes_and_its_own_cool_down(cases) -> None:
    two = [attempt("a", 0, "hidden_pad"), attempt("b", 1, "hidden_pad")]
    shown = [T0 + timedelta(minutes=3)]
    assert not due(cases, two, shown)
    # the old codes resubmitted after the hint do not count again
    again = [*two, attempt("a", 4, "hidden_pad"), attempt("b", 5, "hidden_pad")]
    assert not due(cases, again, shown)
    fresh = [*two, attempt("c", 4, "hidden_pad"), attempt("d", 4.5, "hidden_pad")]
    assert not due(cases, fresh, shown, now_min=4.9)  # cool-down from the last hint (min 3)
    assert due(cases, fresh, shown, now_min=5.0)
    # the ladder ends
    assert not due(cases, fresh, [T0, T0 + timedelta(minutes=1), T0 + timedelta(minutes=2)])


def test_failing_names_skip_passed_and_skipped_tests(cases) -> None:
    tests = [
        {"name": "example_embed", "verdict": "AC"}, {"name": "hidden_pad", "verdict": "WA"},
        {"name": "shape_1", "verdict": "SK"}, {"name": "secret_last", "verdict": "RE"},
    ]
    assert failing_names(tests) == {"hidden_pad", "secret_last"}
    spec = parse_hints({"hints": {"ladders": [
        {"check": "fn:embed", "ladder": ["x"]}, {"check": "tag:shapes", "ladder": ["y"]},
    ]}})
    assert hinted_checks_failed(spec, cases, failing_names(tests)) == ["fn:embed"]
