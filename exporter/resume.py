"""The command that reopens a session in the tool that wrote it, where the tool has one.

Each command is the tool's own documented way to continue a saved session by its id:

- Claude Code: ``claude --resume <id>`` (run it in the session's folder: Claude Code keeps
  sessions per project folder);
- Codex CLI: ``codex resume <id>``;
- Gemini CLI: ``gemini --resume <uuid>`` (geminicli.com, "Session Management": resume by
  the full session UUID; sessions are per project folder too);
- OpenCode: ``opencode --session <id>`` (``-s``, "session id to continue");
- GitHub Copilot CLI: ``copilot --resume <id>``.

Subagents are reopened through their parent, so they get none. Sources without such a
command (the IDE chats: Cursor, Copilot Chat, Trae, the Cline family; Aider, which keeps
no session ids) get none either.
"""

from __future__ import annotations

import re
import shlex

from .model import Session

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
COMMANDS = {
    "claude-code": ("claude --resume {id}", None),
    "codex": ("codex resume {id}", _UUID),
    "gemini": ("gemini --resume {id}", _UUID),
    "opencode": ("opencode --session {id}", re.compile(r"ses_\w+")),
    "copilot-cli": ("copilot --resume {id}", _UUID),
}


def resume_command(session: Session) -> str | None:
    """``claude --resume 5e0c…``, or None where the tool cannot reopen this session."""
    found = COMMANDS.get(session.source)
    if found is None or session.parent_id:
        return None
    template, shape = found
    if shape is not None and not shape.fullmatch(session.session_id):
        return None  # not an id the tool takes (a Gemini prompt log, a derived id)
    return template.format(id=shlex.quote(session.session_id))
