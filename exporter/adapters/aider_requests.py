"""What an Aider run asked: whether anyone talked in it (a run of commands alone makes no
note), and its title when the first thing typed only set the chat up (``/add app.py``).

Kept apart from aider_log.py, which reads a run's lines into messages.
"""

from __future__ import annotations

from ..model import CommandPart, Message, Part, TextPart

# Commands that ask the model or run something: a request, as a typed prompt is. The other
# commands (``/add``, ``/drop``, ``/model``, ``/web`` …) set the chat up for one.
_REQUESTS = ("/ask", "/code", "/architect", "/context", "/help", "/run", "/test", "/lint")


def run_title(messages: list[Message], linted: str | None) -> tuple[str | None, int | None]:
    """The note's own title and the message its title is made of (``Session.title_from``),
    where the first thing typed does not say what was asked: the first request (a prompt,
    or a command that asks the model or runs something) after commands that only set the
    chat up (``/add app.py``, ``/model opus``); and for a run in which nobody typed and
    Aider asked the model to fix what its linter found, that. ``(None, None)`` leaves the
    title to the note builder (the first prompt, or the first command)."""
    typed = [m for m in messages if m.role == "user" and any(_typed(p) for p in m.parts)]
    request = next((m for m in typed if any(asks(p) for p in m.parts)), None)
    if request is None:  # commands alone (``/lint``), or nothing typed
        return (_lint_title(linted) if linted else None), None
    if request is typed[0]:
        return None, None
    return None, next(i for i, m in enumerate(messages) if m is request)


def _lint_title(linted: str) -> str:
    """Aider's question before it sent the report ("Fix lint errors in <file>?"), the file
    as the report names it, as code (a path in a title is machine text)."""
    return f"Fix lint errors in {linted}" if "`" in linted else f"Fix lint errors in `{linted}`"


def _typed(part: Part) -> bool:
    return isinstance(part, (TextPart, CommandPart))


def asks(part: Part) -> bool:
    """A prompt, a shell command, or a command with a request in it (``/ask why?``)."""
    if isinstance(part, TextPart) or (isinstance(part, CommandPart) and part.shell):
        return True
    if not isinstance(part, CommandPart):
        return False
    name, _, rest = part.command.strip().partition(" ")
    return name in _REQUESTS and bool(rest.strip())


def conversation(messages: list[Message]) -> bool:
    """Did anyone talk: a prompt, a question put with a mode command (``/ask why?``), or a
    reply? A run of commands alone (``/undo``, ``/run
    pytest``) holds none, and makes no note."""
    return any(
        m.role == "assistant"
        or any(isinstance(p, TextPart) or (isinstance(p, CommandPart) and p.asks) for p in m.parts)
        for m in messages
        if m.role in ("user", "assistant")
    )
