"""The value tests OpenCode's converters share."""

from __future__ import annotations

from typing import Any


def text_of(value: Any) -> str | None:
    """A non-empty string as it is; anything else is none."""
    return value if isinstance(value, str) and value else None


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
