"""Codex's custom prompts (``$CODEX_HOME/prompts/<name>.md``): the person types ``/prompts:
<name> <arguments>`` and Codex sends the file's text with its placeholders (``$1``…``$9``,
``$ARGUMENTS``, ``$NAME``) filled in; its log holds only what was sent. A prompt that is a
prompt file's text filled in is shown as the command typed, the text it sent folded under
it (as a slash command's output), so the note is titled by the command, not by the file's
first heading. Only files whose fixed text is long enough that no one types it by chance are
matched (a short one like ``Review $1`` would take ``Review this`` for itself)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import re2

from ..model import CommandOutputPart, CommandPart, Message, TextPart
from .base import read_regular

_PLACEHOLDER = re.compile(r"\$(?:\$|[1-9]|ARGUMENTS\b|[A-Z][A-Z0-9_]*)")
_FRONT_MATTER = re.compile(r"\A---\r?\n.*?\r?\n---\r?\n", re.S)
MIN_FIXED = 40  # characters of a file's own text (not spaces, not placeholders) to match
MAX_FILE = 256 * 1024


@dataclass(frozen=True, slots=True)
class CustomPrompt:
    name: str
    pattern: Any  # re2: linear in the text, whatever it holds
    placeholders: tuple[str, ...]  # each use, in order: "1", "ARGUMENTS", "FILE", "1" …
    head: str  # the fixed text before the first placeholder, and after the last: a cheap
    tail: str  # test that turns nearly every prompt away before the pattern is tried


def read_prompts(folders: list[Path]) -> list[CustomPrompt]:
    """The prompt files of each folder (``*.md``, by name; the first folder's wins)."""
    found: dict[str, CustomPrompt] = {}
    for folder in folders:
        try:
            files = sorted(p for p in folder.glob("*.md") if p.is_file())
        except OSError:
            continue
        for path in files:
            if path.stem in found:
                continue
            try:
                if path.stat().st_size > MAX_FILE:
                    continue
                text = read_regular(path).decode("utf-8", "replace")
            except OSError:
                continue
            prompt = _compiled(path.stem, _FRONT_MATTER.sub("", text, count=1))
            if prompt is not None:
                found[path.stem] = prompt
    return list(found.values())


def _compiled(name: str, body: str) -> CustomPrompt | None:
    body = body.strip().replace("$$", "\0")  # (an escaped dollar: no placeholder)
    literals = _PLACEHOLDER.split(body)
    uses = tuple(m.group(0)[1:] for m in _PLACEHOLDER.finditer(body))
    if sum(len("".join(x.split())) for x in literals) < MIN_FIXED:
        return None
    literals = [x.replace("\0", "$") for x in literals]
    pieces = [re2.escape(literals[0])]
    for number, literal in enumerate(literals[1:]):
        pieces += [f"(?P<p{number}>.*?)", re2.escape(literal)]
    pattern = re2.compile("(?s)" + "".join(pieces))
    return CustomPrompt(name, pattern, uses, literals[0], literals[-1])


def typed_command(message: Message, prompts: list[CustomPrompt]) -> Message:
    """``message`` as the command typed and the text it sent, when its text is one of
    ``prompts`` filled in; else ``message`` itself."""
    if message.role != "user" or not prompts:
        return message
    texts = [p for p in message.parts if isinstance(p, TextPart)]
    if len(texts) != 1:
        return message
    sent = texts[0].text.strip()
    for prompt in prompts:
        values = _filled(prompt, sent)
        if values is None:
            continue
        typed = [CommandPart(f"/prompts:{prompt.name}{_arguments(values)}"),
                 CommandOutputPart(texts[0].text, sent=True)]  # fmt: skip
        parts = [new for part in message.parts for new in (typed if part is texts[0] else [part])]
        return replace(message, parts=tuple(parts))
    return message


def _filled(prompt: CustomPrompt, sent: str) -> dict[str, str] | None:
    """What each placeholder of ``prompt`` was filled in with to make ``sent``; none when
    ``sent`` is not that file filled in (a placeholder used twice, filled in two ways)."""
    if not (sent.startswith(prompt.head) and sent.endswith(prompt.tail)):
        return None
    found = prompt.pattern.fullmatch(sent)
    if found is None:
        return None
    values: dict[str, str] = {}
    for number, use in enumerate(prompt.placeholders):
        value = found.group(f"p{number}")
        if values.setdefault(use, value) != value:
            return None
    return values


def typed_step(prompts: list[CustomPrompt]) -> Any:
    """``typed_command`` as a step of a MessageStream (which passes each step a tally);
    picklable, as a session sent back from a worker is."""
    return partial(_typed_step, prompts)


def _typed_step(prompts: list[CustomPrompt], message: Message, tally: Any) -> Message:
    return typed_command(message, prompts)


def _arguments(values: dict[str, str]) -> str:
    """The arguments as typed, as far as the text sent tells them: ``$ARGUMENTS`` whole,
    else the numbered ones in order, else ``NAME=value`` pairs (quoted where they hold a
    space)."""
    if "ARGUMENTS" in values:
        return f" {values['ARGUMENTS'].strip()}" if values["ARGUMENTS"].strip() else ""
    numbered = [values[k] for k in sorted(v for v in values if v.isdigit())]
    named = [f"{k}={_quoted(v)}" for k, v in values.items() if not k.isdigit()]
    words = [_quoted(v) for v in numbered] + named
    return "".join(f" {w}" for w in words)


def _quoted(value: str) -> str:
    return f'"{value}"' if not value or any(c.isspace() for c in value) else value
