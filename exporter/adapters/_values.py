"""Words for a JSON value of the wrong type, as a damaged record's report names it; small
tests and trims of the values adapters read."""

from __future__ import annotations

from typing import Any

from ..errors import clipped


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


def quoted(value: Any, limit: int = 40) -> str:
    """A damaged record's value as its report names it: text in quotes, at most about
    ``limit`` characters of it (cut between words: a 3,000-character id made a warning of
    3 KB), anything else by its JSON kind."""
    return f'"{clipped(value, limit)}"' if isinstance(value, str) else json_kind(value)


def listed_objects(
    value: Any, plural: str, item: str, odd: list[str]
) -> list[tuple[int, dict[str, Any]]]:
    """The objects of a list a record holds (``value``), numbered from 1; said in ``odd``
    and left out: a value that is there but is no list (``plural``: "its toolCalls"), an
    item that is no object (``item``: "tool call {n}")."""
    if value is None:
        return []
    if not isinstance(value, list):
        odd.append(f"{plural} are {json_kind(value)}, not a list: left out")
        return []
    found = []
    for n, entry in enumerate(value, start=1):
        if isinstance(entry, dict):
            found.append((n, entry))
        else:
            odd.append(f"{item.format(n=n)} is {json_kind(entry)}, not an object: left out")
    return found


def some_text(value: Any) -> bool:
    """Is ``value`` text with something in it (a name that is not: absent, or damaged)?"""
    return isinstance(value, str) and bool(value)


def stripped_text(value: Any) -> str | None:
    """A text without the blanks around it; None for one of blanks only, or no text."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def trimmed(text: str) -> str:
    """``text`` without the blank lines before it and the white space after it: its first
    line keeps its indentation (code pasted first in a prompt, four spaces in, stays code;
    ``strip`` left it unindented above lines still indented). The note builder's cleaning
    trims the same way (``clean._trimmed``)."""
    text = text.rstrip()
    first = len(text) - len(text.lstrip())
    return text[text.rfind("\n", 0, first) + 1 :]


def tool_name(value: Any, fallback: str = "tool") -> tuple[str, str | None]:
    """A tool call's name as a record gives it (``fallback`` when there is none), and why
    it was not used when it is there but not text (a damaged record: that is reported, and
    the call shown by the fallback, never by a Python repr such as ``['Bash']``)."""
    if some_text(value):
        return value, None
    if value is None or isinstance(value, str):
        return fallback, None
    return fallback, f"a tool call's name is {json_kind(value)}, not text: shown as {fallback!r}"
