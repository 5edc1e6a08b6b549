"""The app a Claude Code session ran in, from the ``entrypoint`` its lines carry
(FORMATS.md §1: ``cli``, ``claude-vscode``, ``sdk-ts``, …), in the words a person reads:
the note's ``client`` property and its info line, "Claude Code (VS Code)"."""

from __future__ import annotations

from typing import Any

# Claude Code's own names for where it was started. The product's name is in the note's
# source already ("Claude Code (VS Code)"), so the words name only the app around it.
_ENTRYPOINTS = {
    "cli": "CLI", "sdk-cli": "claude -p", "claude-vscode": "VS Code",
    "claude-desktop": "Claude Desktop", "sdk-ts": "Agent SDK (TypeScript)",
    "sdk-py": "Agent SDK (Python)", "mcp": "MCP server",
}  # fmt: skip
_LONGEST_NAME = 80


def entrypoint(rec: dict[str, Any]) -> str | None:
    """A line's ``entrypoint`` when it is a name (else None: absent, empty, no string)."""
    value = rec.get("entrypoint")
    return value if type(value) is str and value.strip() else None


def client(name: str | None) -> str | None:
    """The client an ``entrypoint`` names, in words; a name ccexport does not know is
    given as written (its spaces made one, cut to a line's length); None for none."""
    if name is None:
        return None
    known = _ENTRYPOINTS.get(name.strip().lower())
    return known or " ".join(name.split())[:_LONGEST_NAME] or None


def client_facts(name: str | None) -> dict[str, str]:
    """The session's ``extra`` for its entrypoint: ``{"client": …}``, or nothing."""
    found = client(name)
    return {"client": found} if found else {}
