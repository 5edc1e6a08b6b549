"""What of a Codex record is of the wrong type, said rather than dropped quietly (FORMATS.md
§2.3–§2.6): each check gives a list of short reasons, ``…: left out``, which the rollout's
builder reports with the record's line. No state, nothing read here."""

from __future__ import annotations

from typing import Any

from ._values import json_kind

TEXT_ITEMS = ("input_text", "output_text", "text")


def text_odd(value: Any, what: str, then: str = "left out") -> list[str]:
    """``what`` when ``value`` is there but is not text, and what came of it (``then``)."""
    if value is None or isinstance(value, str):
        return []
    return [f"{what} is {json_kind(value)}, not text: {then}"]


def content_odd(content: Any, what: str = "content") -> list[str]:
    """What of a message's content (or a list output) cannot be read: content that is not
    a list (nor text), an item that is not an object, whose type is not text, or a text
    item whose text is not text. (An item of a type not known is not said: a newer
    Codex's.)"""
    if content is None or isinstance(content, str):
        return []
    if not isinstance(content, list):
        return [f"its {what} is {json_kind(content)}, not a list: left out"]
    odd = []
    for n, c in enumerate(content, start=1):
        ctype = c.get("type") if isinstance(c, dict) else None
        if not isinstance(c, dict):
            odd.append(f"its {what}'s item {n} is {json_kind(c)}, not an object: left out")
        elif ctype is None:
            odd.append(f"its {what}'s item {n} has no type: left out")
        elif not isinstance(ctype, str):
            odd.append(f"its {what}'s item {n} has a type that is {json_kind(ctype)}: left out")
        elif ctype in TEXT_ITEMS:
            odd += text_odd(c.get("text"), f"its {what}'s item {n} ({ctype}) has a text that")
    return odd


def meta_odd(p: dict[str, Any]) -> list[str]:
    """A session_meta's git facts that are not what they should be."""
    git = p.get("git")
    if git is not None and not isinstance(git, dict):
        return [f"its git is {json_kind(git)}, not an object: left out"]
    odd: list[str] = []
    for key in ("branch", "commit_hash", "repository_url"):
        odd += text_odd((git or {}).get(key), f"its git {key}")
    return odd


def item_odd(ptype: str, p: dict[str, Any]) -> list[str]:
    """A response item's values of the wrong type that its reading passes over (a message's
    content is checked with its role)."""
    if ptype in ("local_shell_call", "web_search_call"):
        # (Codex writes a search's action only when it has one: none is no damage)
        action = p.get("action")
        if action is not None and not isinstance(action, dict):
            return [f"its action is {json_kind(action)}, not an object: left out"]
    elif ptype == "custom_tool_call":  # (the call is shown with the value it holds)
        return text_odd(p.get("input"), "its input", "shown as it is")
    elif ptype in ("function_call_output", "custom_tool_call_output"):
        return _output_odd(p.get("output"))
    elif ptype == "image_generation_call":
        return text_odd(p.get("revised_prompt"), "the image's prompt")
    elif ptype == "agent_message":
        odd = text_odd(p.get("author"), "its author") + text_odd(
            p.get("recipient"), "its recipient"
        )
        return odd + content_odd(p.get("content"))
    return []


def _output_odd(output: Any) -> list[str]:
    """A tool's output as ``codex_items`` reads it: text, a list of content items, or an
    object: the shell's ``{output, metadata}`` and older builds' ``{content, success}``
    (their ``output`` or ``content`` is the output; not text, it is shown as JSON), any
    other object read as one item. An output neither text nor a list is shown as JSON."""
    if isinstance(output, dict):
        if "output" in output or "content" in output:
            inner = output["output"] if "output" in output else output["content"]
            return text_odd(inner, "its output", "shown as JSON")
        output = [output]
    if isinstance(output, list):
        return content_odd(output, "output")
    return text_odd(output, "its output", "shown as JSON")
