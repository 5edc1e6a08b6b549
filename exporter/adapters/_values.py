"""Words for a JSON value of the wrong type, as a damaged record's report names it."""

from __future__ import annotations

from typing import Any


def json_kind(value: Any) -> str:
    """What ``value`` is, as JSON names it ("a list", "a number", …)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
