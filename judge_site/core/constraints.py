"""Constraints that the apps' models declare alike."""

from __future__ import annotations

from django.db import models


def one_per(name: str, *fields: str) -> list[models.BaseConstraint]:
    """``Meta.constraints`` of a table that holds at most one row per value of ``fields``
    (a unique constraint called ``name``)."""
    return [models.UniqueConstraint(fields=list(fields), name=name)]
