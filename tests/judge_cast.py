"""The fixed cast and a fake engine, fixtures of every test (tests/conftest.py loads this module
as a plugin).

alice and bob are students, charlie is staff holding every staff capability (an instructor
in both role groups, judge_site/core/roles.py); bare_staff is a staff member (username charlie)
holding none. mailed_alice, mailed_bob and superuser (username root) are the accounts tests'
users: each has an e-mail address (<name>@example.org) and ACCOUNT_PASSWORD, which Django's
password validators accept, where make_user's users have no address.

The fake engine implements the engine's signature
(``judge_source(package, source, mode, on_progress=None) -> JudgeResult``) and decides from the
source text: it contains "WRONG" -> WA on the second test, "CRASH" -> the engine itself raises,
anything else -> AC with a benchmark on Submit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser, Permission

from judge_site.accounts.models import ApiToken
from judge_site.catalog.models import Problem
from judge_site.core.roles import CAPABILITIES
from judge_site.submissions import services
from sandbox.grader.contracts import BenchmarkResult, JudgeResult, TestResult, Verdict, WrongKind

STATEMENT = """# Tied embeddings

Compute $y = W x$ where

$$\\|x\\|_2 = 1$$

```python
def embed(ids, weight, pad_id): ...
```
"""


def make_user(name: str, *, staff: bool = False) -> AbstractUser:
    return get_user_model().objects.create_user(
        username=name, password=f"{name}-pass-123", is_staff=staff
    )


def make_problem(number: int = 48, *, published: bool = True, **extra: Any) -> Problem:
    fields: dict[str, Any] = {
        "slug": f"problem-{number}",
        "title": f"Problem number {number}",
        "difficulty": "medium",
        "chapter": "Embedding and output layers",
        "tags": ["embedding", "padding"],
        "statement_md": STATEMENT,
        "starter_code": "def embed(ids, weight, pad_id):\n    return weight[ids]\n",
        "manifest": {"limits": {"time_s": 5, "memory_mib": 1024}},
        "public_examples": [{"name": "small", "note": "three ids"}],
        "package_dir": "/nonexistent",
        "version": "v-test-1",
        "published": published,
    }
    fields.update(extra)
    return Problem.objects.create(number=number, **fields)


class FakeEngine:
    """Records calls; produces results from the source text as described above."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.seeds: list[int | None] = []  # the secret seed each call was given

    def __call__(
        self, package: Any, source: str, mode: str, on_progress: Callable[[Any], None] | None,
        secret_seed: int | None = None,
    ) -> JudgeResult:
        self.calls.append((source, str(mode)))
        self.seeds.append(secret_seed)
        if "CRASH" in source:
            raise RuntimeError("docker went away")
        names = ["public_small", "public_pad"] + (["hidden_1"] if str(mode) == "submit" else [])
        tests = []
        for i, name in enumerate(names):
            if "WRONG" in source and i == 1:
                test = TestResult(
                    name=name,
                    public=True,
                    verdict=Verdict.WA,
                    message="values differ at 3 of 12 elements",
                    wrong_kind=WrongKind.VALUE,
                    time_ms=4.0,
                    details={
                        "index": [1, 2],
                        "expected": 0.0,
                        "got": 0.5,
                        "abs_error": 0.5,
                        "rel_error": None,
                        "mismatched": 3,
                        "total": 12,
                    },
                )
            else:
                test = TestResult(name, name.startswith("public"), Verdict.AC, "", None, 3.0)
            tests.append(test)
            if on_progress:
                on_progress(test)
        verdict = Verdict.WA if "WRONG" in source else Verdict.AC
        bench = None
        if verdict == Verdict.AC and str(mode) == "submit":
            bench = BenchmarkResult(speedup=2.5, submission_ms=1.0, baseline_ms=2.5, repetitions=50)
        seed = secret_seed if secret_seed is not None else 1000 + len(self.calls)  # as drawn
        return JudgeResult(verdict, tests, bench, {"backend": "fake"}, "", "v-test-1", seed)


@pytest.fixture
def alice(db: Any) -> AbstractUser:
    return make_user("alice")


@pytest.fixture
def bob(db: Any) -> AbstractUser:
    return make_user("bob")


@pytest.fixture
def charlie(db: Any) -> AbstractUser:
    user = make_user("charlie", staff=True)
    grant(user, *CAPABILITIES)
    return user


@pytest.fixture
def bare_staff(db: Any) -> AbstractUser:
    return make_user("charlie", staff=True)


ACCOUNT_PASSWORD = "correct-horse-battery-41"


def make_account(name: str) -> AbstractUser:
    return get_user_model().objects.create_user(name, f"{name}@example.org", ACCOUNT_PASSWORD)


@pytest.fixture
def mailed_alice(db: Any) -> AbstractUser:
    return make_account("alice")


@pytest.fixture
def mailed_bob(db: Any) -> AbstractUser:
    return make_account("bob")


@pytest.fixture
def superuser(db: Any) -> AbstractUser:
    return get_user_model().objects.create_superuser("root", "root@example.org", ACCOUNT_PASSWORD)


def grant(user: AbstractUser, *perms: str) -> None:
    """Give ``user`` these permissions ("app.codename") and forget its cached ones."""
    for dotted in perms:
        app_label, codename = dotted.split(".", 1)
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    for cache in ("_perm_cache", "_user_perm_cache", "_group_perm_cache"):
        user.__dict__.pop(cache, None)


@pytest.fixture
def problem(db: Any) -> Problem:
    return make_problem()


@pytest.fixture
def fake_engine(monkeypatch: pytest.MonkeyPatch) -> FakeEngine:
    engine = FakeEngine()
    monkeypatch.setattr(services, "_judge_source", engine)
    monkeypatch.setattr(services, "_load_package", lambda path: object())
    return engine


@pytest.fixture
def enqueued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str, float]]:
    """Replaces the Celery enqueue with a list of (submission id, queue, countdown)."""
    calls: list[tuple[int, str, float]] = []
    monkeypatch.setattr(
        services, "_enqueue", lambda sid, queue, countdown=0: calls.append((sid, queue, countdown))
    )
    return calls


@pytest.fixture
def inline_judging(monkeypatch: pytest.MonkeyPatch, fake_engine: FakeEngine) -> Iterator[None]:
    """Enqueueing judges at once in-process (what an eager Celery would do)."""
    monkeypatch.setattr(
        services, "_enqueue", lambda sid, queue, countdown=0: services.submission_judge(sid)
    )
    yield


def token_for(user: AbstractUser) -> str:
    return ApiToken.objects.create(user=user, key=ApiToken.generate_key()).key
