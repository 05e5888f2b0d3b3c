"""One compose stack for the platform tests that need one (test_platform_compose.py, then the
fault suite, test_platform_faults.py): `scripts/up` builds and starts it once, instead of once
per module (each start builds the images and waits for every service to be healthy).

The upgrade test runs last on it (pytest_collection_modifyitems): it switches the stack to
the images of a copied checkout, and any later `scripts/up` of this checkout (the second
host's join line) would recreate every container to switch back.

It is stopped right after the last test that uses it, not at the end of the session: the
suites that come after (tests/sandbox, tests/staff) time code and must not share the CPUs
with an idle stack's workers, warm sandboxes and beat. Its teardown checks (`scripts/up
--down` keeps the data, no warm sandbox left) then show as that test's teardown error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

pytest.register_assert_rewrite("compose_stack")

from compose_stack import Stack, scripts_up_stack  # noqa: E402  (after the rewrite hook)

# Tests moved after every other test of the stack (see the module doc).
LAST_ON_THE_STACK = ("test_an_upgrade_that_brings_a_migration_keeps_every_submission",)

_running = contextlib.ExitStack()  # the stack's exit, while it runs
_last_user: list[str] = []  # the node id of the last test (in run order) that uses `stack`


def _stop() -> None:
    _running.close()


@pytest.fixture(scope="session")
def stack(docker_engine: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The stack of `scripts/up` (compose_stack.scripts_up_stack), shared; see the module doc."""
    try:
        yield _running.enter_context(scripts_up_stack(tmp_path_factory))
    finally:
        _stop()  # when the run ends before its last user (-x, a keyboard interrupt): a no-op else


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """LAST_ON_THE_STACK after the other users of the stack, the rest in their order."""
    last = [i for i in items if getattr(i, "originalname", "") in LAST_ON_THE_STACK]
    if not last:
        return
    rest = [i for i in items if i not in last]
    users = [n for n, i in enumerate(rest) if "stack" in getattr(i, "fixturenames", ())]
    at = max(users, default=len(rest) - 1)
    items[:] = rest[: at + 1] + last + rest[at + 1 :]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    result = yield
    if not _last_user:
        users = [i.nodeid for i in item.session.items if "stack" in getattr(i, "fixturenames", ())]
        _last_user.append(users[-1] if users else "")
    if item.nodeid == _last_user[0]:
        _stop()
    return result
