"""Facts a source records of a whole session that a person filters by, carried by the
adapters in ``Session.extra`` under the names below and shown as properties of the note
(and some in its header). Each is there only when the source records it: no
``starred: false`` on every note of a source that stars nothing.

- ``client``: the app the session ran in, in words (Claude Code: "VS Code", "CLI"; Codex:
  "Codex Desktop", "Codex CLI", "Codex VS Code extension");
- ``starred``: true for a task the person starred (the Cline family's ``isFavorited``);
- ``share_url``: the public link of a shared session (OpenCode);
- ``archived``: true for a session the person archived (OpenCode's ``time_archived``);
- ``time_from_file``: true when the session's times are its file's, not recorded by the
  session itself (Cursor's agent transcripts), so not to be taken as exact;
- ``premium_requests``: the premium requests the session cost, what Copilot bills by
  (Copilot CLI's ``totalPremiumRequests``).
"""

from __future__ import annotations

from typing import Any

from .markdown import unlinked
from .model import Session

# The facts whose value is true or absent, and those with a value, as the note orders them.
_FLAGS = ("starred", "archived", "time_from_file")
_TEXTS = ("client", "share_url")
_NUMBERS = ("premium_requests",)
FACT_KEYS = ("client", "share_url", "starred", "archived", "time_from_file", "premium_requests")


def session_facts(session: Session) -> dict[str, Any]:
    """The facts of ``FACT_KEYS`` the session holds, in that order, each of its one type (a
    value of another type, which no adapter gives, is left out rather than written)."""
    extra = session.extra
    if not extra:
        return {}
    facts: dict[str, Any] = {}
    for key in FACT_KEYS:
        value = extra.get(key)
        if key in _FLAGS and value is True:
            facts[key] = True
        elif key in _TEXTS and isinstance(value, str) and value.strip():
            facts[key] = unlinked(" ".join(value.split()))
        elif key in _NUMBERS and _is_count(value):
            facts[key] = value
    return facts


def _is_count(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
