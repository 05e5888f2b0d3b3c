from typing import Any

import pytest
from course_cast import quick_user  # noqa: E402

# The cast of tests/api (alice and bob students, charlie staff), made without hashing a
# password: these tests log in with force_login, and hashing is most of their time.


@pytest.fixture
def alice(db: Any) -> Any:
    return quick_user("alice")


@pytest.fixture
def bob(db: Any) -> Any:
    return quick_user("bob")


@pytest.fixture
def charlie(db: Any) -> Any:
    return quick_user("charlie", staff=True)
