"""The suite's one plugin: the shared fixtures, the skip-or-fail rules, and how the whole suite
is split between pytest-xdist's workers.

The fixtures every folder uses come from the modules named in ``pytest_plugins`` (the cast and
the fake engine of judge_cast.py, the SMTP server of mail_server.py): no folder imports them
again. Environment defaults for the suite (DEBUG, DATABASE_URL, REDIS_URL, JUDGE_BACKEND) are set
in judge_site/settings_test.py, because pytest-django reads settings before any conftest runs.

The whole suite (scripts/test without arguments) runs on two xdist workers: each worker is a
run of its own (its own test database, from pytest-django's worker suffix, and its own pool
owner, below), and a work unit (``work_unit``) goes whole to one worker.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from typing import Any, NoReturn

import pytest

pytest_plugins = ["judge_cast", "mail_server"]

IN_CI = os.environ.get("CI", "").lower() == "true"


def docker_available() -> str | None:
    """None when a Docker engine answers, else why not (one line)."""
    if shutil.which("docker") is None:
        return "the docker client is not installed"
    try:
        proc = subprocess.run(
            ["docker", "info", "--format", "{{.ServerVersion}}"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except subprocess.TimeoutExpired:
        return "docker info timed out"
    if proc.returncode != 0:
        return f"no Docker engine: {proc.stderr.strip().splitlines()[-1:]}"
    return None


def skip_or_fail(why: str) -> NoReturn:
    """Skip the test for ``why`` (something this machine lacks), but FAIL it in CI (CI=true),
    whose machine .ci/run prepares with everything: a CI run that skipped would prove nothing."""
    if IN_CI:
        pytest.fail(f"CI=true but {why}")
    pytest.skip(why)


def require_docker() -> None:
    """Skip when no Docker engine answers, but FAIL in CI (CI=true), where one must exist."""
    why = docker_available()
    if why is not None:
        skip_or_fail(f"Docker is unusable: {why}")


def require_image(image: str) -> None:
    """Skip when the engine or ``image`` is missing, but FAIL in CI, where scripts/build_images
    built every image."""
    require_docker()
    proc = subprocess.run(["docker", "image", "inspect", image], capture_output=True, timeout=60)
    if proc.returncode != 0:
        skip_or_fail(f"image {image} is not built: run scripts/build_images")


def require_triton() -> None:
    """Skip when triton is not installed, but FAIL in CI, whose venv is made from the lock (which
    has it). Does not import it: kernels.triton_* choose Triton's interpreter (no GPU) before
    their own import, and a Triton imported earlier without it cannot run their kernels on CPU."""
    import importlib.util

    if importlib.util.find_spec("triton") is None:
        skip_or_fail("triton is not installed here (requirements/lock.txt has it)")


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    """Cached pages are keyed by counters that start again in every test's fresh tables."""
    from django.conf import settings

    if settings.configured:
        from django.core.cache import cache

        cache.clear()


@pytest.fixture(autouse=True, scope="session")
def _api_schema_checked() -> None:
    """Every /api/v1 answer through the test client matches the OpenAPI document
    (tests/api_schema.py)."""
    import api_schema

    api_schema.install()


@pytest.fixture(scope="session")
def docker_engine() -> None:
    """Use in tests that need a Docker engine: skips without one, fails when CI=true."""
    require_docker()


# The work units of the whole suite on xdist's workers (scripts/test), each given whole to one
# worker. The compose stack is started once and stopped after its last user
# (tests/platform/conftest.py): the modules of the tests that use it are one unit. The toy's
# tagged judgings are made once per worker: their two modules are one unit. Any other module is
# a unit of its own (its module-scoped fixtures, the judgings its tests share).
# tests/platform/test_platform_ci.py checks these lists against the tests' fixtures.
STACK_MODULES = (
    "tests/platform/test_platform_compose.py",
    "tests/platform/test_platform_faults.py",
    "tests/platform/test_platform_hosts.py",
    "tests/platform/test_platform_client_address.py",
)
TOY_WRONG_MODULES = ("tests/sandbox/test_grader.py", "tests/sandbox/test_compare_view.py")
# The units that go first, the longest first (stop 45): each worker takes the next unit when it
# is done with its own, so a long unit taken last would leave the other worker idle.
FIRST_UNITS = ("stack", "tests/catalog/test_catalog_check.py")


def work_unit(nodeid: str) -> str:
    """The work unit of a test, from its node id (all that xdist's scheduler sees)."""
    module = nodeid.split("::", 1)[0]
    if module in STACK_MODULES:
        return "stack"
    if module in TOY_WRONG_MODULES:
        return "toy-wrong"
    return module


def _flush_by_delete() -> None:
    """Empty the tables after a transactional test with DELETE, not Django's TRUNCATE: the
    tables of a test hold a few rows, and a TRUNCATE of the 55 tables takes 1.4-1.8 s on a busy
    2-core machine against 0.07 s for their DELETEs (stop 45), after each of the suite's ~180
    transactional tests. The same rows go: the statements run in one transaction and every
    foreign key is deferred to its commit (Django makes them DEFERRABLE INITIALLY DEFERRED).
    TRUNCATE stays where Django asks more of it (a sequence reset, a cascade)."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(
        self: DatabaseOperations, style: Any, tables: Sequence[str], *,
        reset_sequences: bool = False, allow_cascade: bool = False,
    ) -> list[str]:
        if reset_sequences or allow_cascade:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return [f"{style.SQL_KEYWORD('DELETE FROM')} {self.quote_name(t)};" for t in tables]

    DatabaseOperations.sql_flush = sql_flush  # type: ignore[method-assign]


def pytest_configure(config: pytest.Config) -> None:
    _flush_by_delete()
    worker = getattr(config, "workerinput", {}).get("workerid")  # an xdist worker's name
    if worker:
        # Each worker is a run of its own (settings_test.py gave the controller's pid to both):
        # a worker's Celery workers remove the warm sandboxes of their owner when they stop.
        os.environ["JUDGE_POOL_OWNER"] = f"tests-{os.getpid()}-{worker}"
        config.pluginmanager.register(_UnitsInOrder(), "tensor-judge-units-in-order")


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist's scope scheduling with work_unit as the scope (xdist 3.8's own xdist_group marks
    do nothing under pytest 9, whose node ids are no longer a string it can rewrite)."""
    from xdist.scheduler import LoadScopeScheduling

    class UnitScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return UnitScheduling(config, log)


class _UnitsInOrder:
    """On an xdist worker: FIRST_UNITS first, every unit's tests in their order (the scheduler
    queues the units in the order of their first test, with --no-loadscope-reorder). Last of
    the collection hooks: after pytest-django's order (transactional tests after the others)
    and the stack's own (tests/platform/conftest.py)."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        rank = {unit: n for n, unit in enumerate(FIRST_UNITS)}
        items.sort(key=lambda item: rank.get(work_unit(item.nodeid), len(rank)))


_SESSION_STARTED = __import__("time").time()
_TABLES = ("faults.txt",)  # tables that slow suites write under test-artifacts/


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Show the tables this run's slow suites wrote (the fault suite's recovery table), so CI's
    output carries them even when the tests passed and their own output was captured."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "test-artifacts"
    for name in _TABLES:
        path = folder / name
        if path.is_file() and path.stat().st_mtime >= _SESSION_STARTED:
            terminalreporter.section(name)
            for line in path.read_text().splitlines():
                terminalreporter.write_line(line)
