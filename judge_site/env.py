"""Typed readers for configuration from the environment (one place, used by settings.py)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from django.core.exceptions import ImproperlyConfigured

T = TypeVar("T")

# The repository's root: the default place of problems/, media/, staticfiles/ and the SQLite file.
BASE_DIR = Path(__file__).resolve().parent.parent


class ConfigError(ImproperlyConfigured):
    """A configuration variable is missing or malformed; the message names it.

    It is an ImproperlyConfigured so that manage.py, the gunicorn start-up hook and the
    compose entrypoint print it as one line instead of a stack trace.
    """


def envstr(name: str, default: str = "") -> str:
    """The variable's value; unset or empty (NAME= in an env file) both mean the default."""
    return os.environ.get(name) or default


def redact_url(url: str) -> str:
    """The URL with its password replaced by ***, for error messages and logs."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


def envbool(name: str, default: str = "False") -> bool:
    raw = os.environ.get(name, default).strip().lower()
    if raw in {"1", "true", "yes", "on"}:
        return True
    if raw in {"0", "false", "no", "off", ""}:
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean: use true or false")


def _parsed(name: str, default: str, parse: Callable[[str], T], kind: str) -> T:
    """The variable's value read by ``parse``; a ConfigError naming it when it is not ``kind``."""
    raw = os.environ.get(name, default)
    try:
        return parse(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not {kind}") from None


def envint(name: str, default: str) -> int:
    return _parsed(name, default, int, "an integer")


def envfloat(name: str, default: str) -> float:
    return _parsed(name, default, float, "a number")


def envlist(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def envchoice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """The variable's value, lower-cased, which must be one of ``choices``."""
    raw = (os.environ.get(name) or default).strip().lower()
    if raw not in choices:
        raise ConfigError(f"{name}={raw!r} is not one of: {', '.join(choices)}")
    return raw


def debug_mode() -> bool:
    """DEBUG: development defaults (the local backend, no TLS); off unless set."""
    return envbool("DEBUG", "False")


def envtable(table: dict[str, tuple[Callable[[str, str], object], str]]) -> dict[str, object]:
    """A table of settings read at once: each NAME by its reader, from its default."""
    return {name: read(name, default) for name, (read, default) in table.items()}
