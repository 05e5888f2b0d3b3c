"""Importing practice folders (the handbook's exercise format): the JSON report, the package it
becomes, bad folders refused with a clear message and nothing changed, hidden tests that never
reach a page or an API answer, solution notes after an AC, and the staff upload of a zipped
folder. The folders are our own toy exercises (tests/fixtures/practice/); judging runs in the
local backend (JUDGE_BACKEND=local in the test settings)."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from judge_site.accounts.models import ApiToken
from judge_site.catalog.models import Problem
from judge_site.catalog.services import practice_import
from sandbox.grader.package import PackageError
from sandbox.practice import folder as practice_folder
from sandbox.practice import package as practice_package
from sandbox.practice.checker import check, check_close
from sandbox.runner import wire, wire_decode

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "practice"
TOY = FIXTURES / "toy-running-stats"
TORCH_TOY = FIXTURES / "toy-torch-scale"
# What only the hidden tests hold: their source, their inputs, the solution and its notes.
HIDDEN_MARKS = ("987654", "ref_normalize", "test_running_mean_keeps_state", "no_add",
                "Subtract the mean first", "self.sum += float(v)")


@pytest.fixture(autouse=True)
def _local_sandbox(settings: Any) -> None:
    """The check judges in the local backend, which the test settings' DEBUG=False refuses
    unless allowed (as the other in-process judging tests do)."""
    settings.JUDGE_ALLOW_LOCAL_BACKEND = True


def _copy(tmp_path: Path, name: str = "toy-running-stats") -> Path:
    folder = tmp_path / "in" / name
    shutil.copytree(TOY, folder)
    return folder


# ---------------------------------------------------------------- the format, without a database


def test_it_reads_the_front_matter_and_splits_the_notes() -> None:
    folder = practice_folder.read_folder(TOY)
    assert folder.title == "Running statistics"  # the inline comment is cut
    assert (folder.difficulty, folder.tags, folder.requires) == ("easy", ["numpy", "toy"], ["numpy"])
    assert folder.description_md.startswith("Write `normalize(x, eps=1e-6)`")
    assert "题解" not in folder.description_md and "Subtract" not in folder.description_md
    assert folder.notes_md.startswith("Subtract the mean first")
    assert folder.public_tests == ["test_example_normalize"]
    assert folder.hidden_tests[0] == "test_normalize_float32_shape"  # source order
    assert folder.functions == ["RunningMean", "apply", "clip_norm", "normalize", "total"]


def test_it_finds_what_a_proxy_cannot_do_per_test() -> None:
    found = {(u.test, u.action) for u in practice_folder.read_folder(TOY).unsupported}
    assert found == {("test_total_uses_add", "fallback"), ("test_apply_with_a_lambda", "fallback")}


def test_its_checker_compares_like_the_handbook() -> None:
    check_close(np.array([1.0 + 1e-6]), np.array([1.0]), rtol=0, atol=1e-6)
    # |a - e| <= atol + rtol * |e|: relative to the expected value only.
    check_close(np.array([2.0]), np.array([1.0]), rtol=1.0, atol=0)
    with pytest.raises(AssertionError, match="outside the tolerance"):
        check_close(np.array([1.0]), np.array([2.0]), rtol=0.4, atol=0)
    with pytest.raises(AssertionError, match="NaN"):
        check_close(np.array([np.nan]), np.array([1.0]))
    with pytest.raises(AssertionError):  # a NaN expected is no wildcard for a number
        check_close(np.array([1.0]), np.array([np.nan]))
    check_close(torch.tensor([1.5], dtype=torch.bfloat16), np.array([1.5]))
    with pytest.raises(AssertionError, match="wrong shape"):
        check(np.zeros((2, 3)), np.zeros((3, 2)))
    with pytest.raises(AssertionError, match="expected"):
        check((3, "a"), (3, "b"))


def test_the_wire_carries_numpy_only_where_asked() -> None:
    value = {"a": np.arange(6, dtype=np.float32).reshape(2, 3).T, "s": np.float64(1.5),
             "d": np.dtype("float16"), "t": torch.ones(2)}
    tree, blob = wire.encode(value)
    back = wire_decode.decode(tree, blob, numpy=True)
    assert back["a"].dtype == np.float32 and np.array_equal(back["a"], value["a"])
    assert back["a"].flags.writeable
    assert type(back["s"]) is np.float64 and back["s"] == 1.5 and back["d"] == np.float16
    plain = wire_decode.decode(tree, blob)  # the tensor problems' grader: as before numpy travelled
    assert isinstance(plain["a"], wire.Unsupported) and isinstance(plain["s"], wire.Unsupported)
    assert torch.equal(plain["t"], torch.ones(2))
    forged = json.loads(json.dumps(tree))
    forged["v"][0][1]["nbytes"] = 10**9
    with pytest.raises(wire.WireError):
        wire_decode.decode(forged, blob, numpy=True)


# ---------------------------------------------------------------- the import


@pytest.mark.django_db
def test_it_imports_a_folder_and_prints_the_json_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Problem.objects.create(number=41, slug="other", title="Other", difficulty="easy",
                           statement_md="x", starter_code="", package_dir="/nowhere", version="v")
    call_command("import_practice", str(TOY), "--json", "--dest", str(tmp_path / "packages"))
    report = json.loads(capsys.readouterr().out)
    assert report["number"] == 42  # the next free number
    assert report["slug"] == "toy-running-stats"
    assert report["public_tests"] == ["test_example_normalize"]
    assert "test_large_offset" in report["hidden_tests"]
    check = report["check"]
    assert (check["passed"], check["solution"], check["starter"]) == (True, "AC", "WA")
    assert check["messages"] == ["refused at run time: test_total_of_a_set (the test passes a set, "
                                 "which the channel does not carry)"]
    refused = [u for u in report["unsupported"] if u["action"] == "refused"]
    assert [u["test"] for u in refused] == ["test_total_of_a_set"]  # found by the check
    assert "set, which the channel does not carry" in refused[0]["reason"]
    assert problem_refused(42) == {"test_total_of_a_set"}
    problem = Problem.objects.get(number=42)
    assert problem.title == "Running statistics" and problem.difficulty == "easy"
    assert problem.statement_md.startswith("Write `normalize")
    assert "Subtract the mean" not in problem.statement_md
    assert problem.starter_code == (TOY / "starter.py").read_text()
    assert [e["name"] for e in problem.public_examples] == ["test_example_normalize"]
    assert problem.public_examples[0]["note"] == "a 2 x 4 example"
    assert problem.manifest["kind"] == "practice"
    assert Path(problem.package_dir).parent == tmp_path / "packages"
    # Importing it again keeps its number; a number that belongs to another problem is refused.
    again = practice_import(TOY, dest_dir=tmp_path / "packages")
    assert again["imported"] and again["number"] == 42
    with pytest.raises(PackageError, match="already belongs"):
        practice_import(TOY, number=41, dest_dir=tmp_path / "packages")


def problem_refused(number: int) -> set[str]:
    return set(practice_package.practice_of(Problem.objects.get(number=number).manifest).refused)


def _break_missing_file(folder: Path) -> None:
    (folder / "starter.py").unlink()


def _break_no_title(folder: Path) -> None:
    text = (folder / "problem.md").read_text()
    (folder / "problem.md").write_text(text.replace("title: Running statistics", "tags2: x"))


def _break_test_import(folder: Path) -> None:
    (folder / "test.py").write_text("import a_module_nobody_has\n" + (folder / "test.py").read_text())


def _break_solution(folder: Path) -> None:
    text = (folder / "solution.py").read_text()
    (folder / "solution.py").write_text(text.replace("return self.sum / self.count", "return 0.0"))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (_break_missing_file, "missing starter.py"),
        (_break_no_title, "no `title`"),
        (_break_test_import, "tests failed to load: No module named 'a_module_nobody_has'"),
        (_break_solution, "solution.py is not accepted by its own tests: test_running_mean"),
    ],
    ids=["missing file", "no title", "test.py fails to import", "solution fails its tests"],
)
def test_it_refuses_a_bad_folder_and_changes_nothing(
    breakage: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(tmp_path)
    breakage(folder)
    dest = tmp_path / "packages"
    with pytest.raises(CommandError, match="not imported"):
        call_command("import_practice", str(folder), "--json", "--dest", str(dest))
    out = capsys.readouterr().out
    assert message in out
    assert Problem.objects.count() == 0
    assert not dest.exists() or not [p for p in dest.iterdir()]


# ---------------------------------------------------------------- hidden stays hidden


def _judge_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    from judge_site.submissions import services

    monkeypatch.setattr(
        services, "_enqueue", lambda sid, queue, countdown=0: services.submission_judge(sid)
    )


@pytest.mark.django_db(transaction=True)
def test_hidden_tests_never_reach_a_page_or_the_api(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, django_user_model: Any
) -> None:
    report = practice_import(TOY, number=7, dest_dir=tmp_path / "packages")
    assert report["imported"]
    _judge_inline(monkeypatch)
    alice = django_user_model.objects.create_user("alice", password="pw-alice-123")
    token = ApiToken.objects.create(user=alice, key=ApiToken.generate_key()).key
    api = Client(HTTP_AUTHORIZATION=f"Token {token}")
    browser = Client()
    browser.force_login(alice)

    def seen() -> str:
        texts = [Client().get("/problems/7/").content.decode(), browser.get("/problems/7/").content.decode(),
                 browser.get("/").content.decode(), api.get("/api/v1/problems").content.decode()]
        return "\n".join(texts)

    before = seen()
    assert "test_example_normalize" in before and "katex" in before.lower()
    assert "solution-notes-locked" in before
    for mark in HIDDEN_MARKS:
        assert mark not in before, mark

    answers = []
    for code in ((TOY / "starter.py").read_text(), (TOY / "solution.py").read_text()):
        reply = api.post("/api/v1/submissions", json.dumps(
            {"problem": 7, "code": code, "mode": "submit"}), content_type="application/json")
        assert reply.status_code in (200, 201, 202), reply.content
        answer = api.get(f"/api/v1/submissions/{reply.json()['id']}")
        answers.append(answer.json())
        text = answer.content.decode() + browser.get(f"/submissions/{reply.json()['id']}/").content.decode()
        # Hidden test names are shown with their verdicts (as for every problem), and the
        # submission page shows the student's own code; nothing else of the above.
        for mark in ("987654", "ref_normalize", "no_add", "Subtract the mean first"):
            assert mark not in text, mark
    wrong, right = answers
    assert wrong["verdict"] == "WA" and right["verdict"] == "AC", (wrong, right)
    hidden = [t for t in wrong["tests"] if not t["public"]]
    assert hidden and all(t["message"] in ("wrong answer: value", "accepted") or
                          t["message"].startswith("runtime error") for t in hidden), hidden
    public = next(t for t in wrong["tests"] if t["public"])
    assert "outside the tolerance" in public["message"]  # public tests say everything
    names = [t["name"] for t in right["tests"]]
    assert "test_total_of_a_set" not in names  # refused: never judged
    assert {"test_total_uses_add", "test_apply_with_a_lambda"} <= set(names)  # callbacks
    page = browser.get("/problems/7/").content.decode()
    assert "Subtract the mean first" in page  # the notes, after an AC
    assert "Subtract the mean first" not in Client().get("/problems/7/").content.decode()


@pytest.mark.django_db
def test_a_torch_folder_judges_in_the_cpu_sandbox(tmp_path: Path) -> None:
    report = practice_import(TORCH_TOY, dest_dir=tmp_path / "packages")
    assert report["check"]["passed"] and report["check"]["starter"] == "WA", report


# ---------------------------------------------------------------- the staff upload


def _zip_folder(folder: Path, *, top: str | None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for file in sorted(folder.iterdir()):
            archive.write(file, f"{top}/{file.name}" if top else file.name)
    return buffer.getvalue()


@pytest.mark.django_db
def test_staff_upload_a_zipped_practice_folder(
    tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch, django_user_model: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from judge_site.staff.models import CheckStatus, ProblemVersion
    from judge_site.staff.services import packages

    settings.JUDGE_PACKAGES_DIR = tmp_path / "packages"
    checks: list[int] = []
    monkeypatch.setattr(packages, "_enqueue_check", checks.append)
    staff = django_user_model.objects.create_user("charlie", password="pw-charlie-1", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="upload_package"))
    client = Client()
    client.force_login(staff)
    page = client.get("/staff/upload/").content.decode()
    assert 'id="practice-upload"' in page
    upload = io.BytesIO(_zip_folder(TOY, top=None))
    upload.name = "toy-running-stats.zip"
    with django_capture_on_commit_callbacks(execute=True):
        reply = client.post("/staff/upload/", {"kind": "practice", "number": "9", "package": upload})
    assert reply.status_code == 302, reply.content.decode()[-2000:]
    version = ProblemVersion.objects.get()
    assert (version.problem_number, version.slug) == (9, "toy-running-stats")
    assert checks == [version.pk]
    assert (Path(version.package_dir) / "tests.py").read_text() == (TOY / "test.py").read_text()
    assert packages.version_check(version.pk).startswith("passed")
    assert ProblemVersion.objects.get().check_status == CheckStatus.PASSED
    # A folder without its test.py is refused with the reason, and nothing is kept.
    folder = _copy(tmp_path)
    (folder / "test.py").unlink()
    broken = io.BytesIO(_zip_folder(folder, top="toy-running-stats"))
    broken.name = "x.zip"
    reply = client.post("/staff/upload/", {"kind": "practice", "package": broken})
    assert "Refused: missing test.py" in reply.content.decode()
    assert ProblemVersion.objects.count() == 1


# ---------------------------------------------------------------- the production sandbox


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.django_db
def test_the_docker_sandbox_judges_an_imported_folder(tmp_path: Path) -> None:
    """Through the hardened container: numpy values over the wire, handles of the student's
    objects, callbacks on the container's channel (a total() that does not call the helper the
    test replaced fails that test)."""
    from tests.conftest import require_docker

    require_docker()
    from sandbox.grader.contracts import Mode
    from sandbox.grader.entry import judge as judge_practice
    from sandbox.grader.package import load_package
    from sandbox.host.backends.base import get_backend

    backend = get_backend("docker")
    report = practice_import(TOY, dest_dir=tmp_path / "packages", backend=backend)
    assert report["imported"] and report["check"]["starter"] == "WA", report
    package = load_package(report["package_dir"])
    sneaky = (TOY / "solution.py").read_text().replace(
        "def total(values):\n    out = 0\n    for v in values:\n        out = add(out, v)\n    return out",
        "def total(values):\n    return sum(values)",
    )
    assert sneaky != (TOY / "solution.py").read_text()
    result = judge_practice(package, sneaky, mode=Mode.SUBMIT, backend=backend)
    verdicts = {t.name: t.verdict for t in result.tests}
    assert verdicts["test_total_uses_add"] == "WA", result.to_json()
    assert verdicts["test_running_mean_keeps_state"] == "AC"
    assert verdicts["test_apply_with_a_lambda"] == "AC"


def test_a_replaced_helper_that_raises_fails_the_test_even_if_the_student_catches_it(
    tmp_path: Path,
) -> None:
    from sandbox.grader.contracts import Mode
    from sandbox.grader.entry import judge as judge_practice
    from sandbox.grader.package import load_package
    from sandbox.host.backends.local import LocalBackend

    folder = _copy(tmp_path)
    with (folder / "test.py").open("a") as tests:
        tests.write(
            "\n\ndef forbid(*args, **kwargs):\n"
            "    raise AssertionError('normalize() must not call add()')\n\n\n"
            "def test_normalize_does_not_call_add():\n"
            "    orig = solution.add\n"
            "    solution.add = forbid\n"
            "    try:\n"
            "        normalize(np.ones((1, 2)))\n"
            "    finally:\n"
            "        solution.add = orig\n"
        )
    package = load_package(practice_folder.write_package(practice_folder.read_folder(folder), tmp_path / "p", 5))
    solution = (TOY / "solution.py").read_text()
    sneaky = solution.replace(
        "    mu = x.mean(-1, keepdims=True)\n",
        "    try:\n        add(0, 0)\n    except BaseException:\n        pass\n"
        "    mu = x.mean(-1, keepdims=True)\n",
    )
    assert sneaky != solution
    for source, verdict in ((solution, "AC"), (sneaky, "WA")):
        result = judge_practice(package, source, mode=Mode.SUBMIT, backend=LocalBackend())
        verdicts = {t.name: t.verdict for t in result.tests}
        assert verdicts["test_normalize_does_not_call_add"] == verdict, result.to_json()
