"""Attacks on the site itself, each through the route the attacker really has, each asserting
the safe outcome (issue 36's low findings):

- as a student: Submits that differ only by a comment or spacing, to climb the hint ladder
  without working;
- as an author: a package zip, a practice folder and a book whose member is damaged (a bad
  CRC-32, a broken deflate stream), to break the upload (it answered 500);
- as an author: a statement whose image or link looks like a path on the site but is read by
  a browser as another host (``/\\host``, ``\\\\host``, a tab, ``//host``);
- as staff without the permission: ``/metrics``.

No Docker: the judging is the fake engine's (tests/judge_cast.py), the rest is the web's own.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from judge_cast import grant, make_problem, make_user, token_for
from zip_damage import with_bad_crc, zip_of

from judge_site.catalog.models import Problem
from judge_site.core.roles import PUBLISH, READ_SUBMISSIONS, REJUDGE, UPLOAD
from judge_site.hints.models import HintShown
from judge_site.staff.models import ProblemVersion
from judge_site.submissions.models import Submission

ROOT = Path(__file__).resolve().parents[2]
PRACTICE = ROOT / "tests" / "fixtures" / "practice"

# ------------------------------------------------------------ as a student: the hint ladder

TESTS_PY = '''
raise SystemExit("never run")
CASES = [
    Case("public_small", "embed", make, public=True, note="n"),
    Case("public_pad", "embed", make, public=True, note="n"),
    Case("hidden_1", "embed", make),
]
'''
HINT = "Padding ids map to zero rows."
NO_WORK = "def embed(ids, weight, pad_id):\n    return WRONG\n"  # the fake engine: WA


def _submit(client: Any, token: str, code: str, on_commit: Any) -> int:
    """A Submit through the API, judged at once by the fake engine (its on_commit enqueue)."""
    with on_commit(execute=True):
        response = client.post("/api/v1/submissions", content_type="application/json",
                               data=json.dumps({"problem": 48, "code": code, "mode": "submit"}),
                               HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 201, response.content
    sub = Submission.objects.get(pk=response.json()["id"])
    assert (sub.status, sub.verdict) == ("done", "WA")
    return sub.pk


@pytest.mark.django_db
def test_as_a_student_comment_only_resubmits_do_not_climb_the_hint_ladder(
    client: Any, alice: Any, tmp_path: Path, inline_judging: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    (tmp_path / "tests.py").write_text(TESTS_PY)
    make_problem(48, package_dir=str(tmp_path), manifest={
        "limits": {"time_s": 5, "memory_mib": 1024},
        "hints": {"after": 2, "cooldown_s": 0,
                  "ladders": [{"check": "public_pad", "ladder": [HINT, "Second."]}]},
    })
    token = token_for(alice)
    client.force_login(alice)
    variants = [NO_WORK, "# attempt 2\n" + NO_WORK,
                NO_WORK.replace("):\n", "):   # think\n\n\n").replace("\n", "\r\n"),
                NO_WORK.replace("    return", "\treturn") + "\n# tried again\n"]
    for code in variants:
        sub = _submit(client, token, code, django_capture_on_commit_callbacks)
        assert HINT not in client.get(f"/submissions/{sub}/").content.decode()
    assert HINT not in client.get("/problems/48/").content.decode()
    assert not HintShown.objects.exists()  # four Submits, one attempt
    real = _submit(client, token, NO_WORK.replace("WRONG", "WRONG[ids]"),
                   django_capture_on_commit_callbacks)
    assert HINT in client.get(f"/submissions/{real}/").content.decode()  # a real change climbs


# ------------------------------------------------------------ as an author: damaged zips


def _broken_deflate(entries: dict[str, bytes], member: str) -> bytes:
    """A deflated zip whose ``member``'s compressed stream has bytes flipped in its middle."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    data = bytearray(buffer.getvalue())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(member)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for at in range(start + 2, start + min(info.compress_size, 12)):
        data[at] ^= 0x5A
    return bytes(data)


def _practice_entries(prefix: str, *slugs: str) -> dict[str, bytes]:
    return {f"{prefix}{slug}/{f.name}".lstrip("/"): f.read_bytes()
            for slug in slugs for f in sorted((PRACTICE / slug).iterdir())}


def _package_entries(tmp_path: Path) -> dict[str, bytes]:
    from tiny_package import package_zip

    with zipfile.ZipFile(io.BytesIO(package_zip(tmp_path))) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.mark.django_db
@pytest.mark.parametrize("damage", ["bad CRC", "broken deflate"])
@pytest.mark.parametrize("kind", ["package", "practice folder", "book"])
def test_as_an_author_a_damaged_zip_is_refused_on_every_upload_path(
    client: Any, charlie: Any, tmp_path: Path, settings: Any, kind: str, damage: str
) -> None:
    settings.JUDGE_PACKAGES_DIR = packages = tmp_path / "packages"
    if kind == "package":
        entries, fields = _package_entries(tmp_path / "src"), {}
    elif kind == "practice folder":
        entries, fields = _practice_entries("", "toy-dot-product"), {"kind": "practice"}
        entries = {name.split("/", 1)[1]: data for name, data in entries.items()}
    else:
        entries = _practice_entries("book/", "toy-dot-product", "toy-running-stats")
        fields = {"kind": "practice"}
    member = max(entries, key=lambda name: len(entries[name]))
    data = (with_bad_crc(zip_of(entries), member) if damage == "bad CRC"
            else _broken_deflate(entries, member))
    upload = io.BytesIO(data)
    upload.name = f"{kind.replace(' ', '-')}.zip"
    client.force_login(charlie)
    response = client.post("/staff/upload/", dict(fields, package=upload))
    assert response.status_code == 400, response.content.decode()[-1500:]
    assert "the zip is damaged" in response.content.decode()
    assert not ProblemVersion.objects.exists() and not Problem.objects.exists()
    assert not packages.exists() or [p for p in packages.rglob("*") if p.name != ".incoming"] == []


# ------------------------------------------------------ as an author: another host's image

DISGUISED = ["/\\evil.example/track.png", "\\\\evil.example/track.png", "/&#92;evil.example/t.png",
             "/&Tab;/evil.example/t.png", "//evil.example/track.png", " //evil.example/t.png"]


@pytest.mark.django_db
def test_as_an_author_an_image_or_link_to_another_host_disguised_as_a_path_is_dropped(
    client: Any, alice: Any
) -> None:
    statement = "# Hostile\n\n" + "\n\n".join(
        f'<img src="{url}" alt="x"> <a href="{url}">click</a>' for url in DISGUISED
    ) + "\n\n![kept](/static/judge/figure.png)\n"
    make_problem(48, statement_md=statement)
    client.force_login(alice)
    page = client.get("/problems/48/").content.decode()
    assert "evil.example" not in page
    assert 'src="/static/judge/figure.png"' in page and page.count("click") >= len(DISGUISED)


# ------------------------------------------------------------ as staff: /metrics


@pytest.mark.django_db
def test_as_staff_without_the_permission_metrics_is_refused(client: Any) -> None:
    dora = make_user("dora", staff=True)
    grant(dora, UPLOAD, PUBLISH, REJUDGE, READ_SUBMISSIONS)
    client.force_login(dora)
    refused = client.get("/metrics")
    assert refused.status_code == 403
    assert not re.search(r"^judge_", refused.content.decode(), re.M)
    client.logout()
    refused = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token_for(dora)}")
    assert refused.status_code == 403
