"""A note's title and name from its session: the title the person gave it, else its first
real prompt, shortened; a file name of it that fits every file system and keeps the id."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import replace
from itertools import islice

from .clean import strip_control
from .model import CommandPart, Message, Session, TextPart
from .turns import clean_parts
from .vaultpaths import MAX_NAME_BYTES, safe_component

TITLE_LENGTH = 80


def session_title(session: Session) -> str:
    """The session's own title, else its first real prompt (or the message ``title_from``
    names), cleaned and shortened (no control character: a title is the note's name, its
    properties and its links' label)."""
    own = " ".join(strip_control(session.title).split()) if session.title else ""
    if own:
        return own
    command = None
    messages: Iterable[Message] = session.messages
    if session.title_from is not None:
        messages = islice(messages, session.title_from, session.title_from + 1)
    for message in messages:
        if message.role != "user":
            continue
        for part in clean_parts(message, session.source):
            if isinstance(part, TextPart):
                return shorten(strip_control(part.text))
            if isinstance(part, CommandPart) and " " in part.command.strip():
                return shorten(strip_control(part.command))  # with arguments: a request
            if isinstance(part, CommandPart) and command is None:
                command = part.command
    return shorten(strip_control(command)) if command else "Untitled session"


def titled_stub(session: Session) -> Session | None:
    """``session`` without its messages, holding the title its note takes from them: what
    placing its note needs. None when that title does not stand alone ("" from a bare
    fence: the note is then placed from its text)."""
    title = session_title(session)
    stub = replace(session, messages=(), title=title)
    return stub if session_title(stub) == title else None


# A prompt that starts with Markdown structure: its words, not its markup. A line's own
# leading white space only ([^\S\n]), never the lines above: "\s*" after "^" made every
# line start scan all the blank lines below it, quadratic in a prompt of blank lines.
_FENCE_LINE = re.compile(r"(?m)^[^\S\n]*(?:`{3,}|~{3,})[\w-]*[^\S\n]*$")
_LINE_MARKUP = re.compile(r"(?m)^[^\S\n]*(?:#{1,6}|>|[-*+])\s+")


def shorten(text: str) -> str:
    text = _LINE_MARKUP.sub("", _FENCE_LINE.sub(" ", text))
    line = " ".join(text.split())
    return cut_keeping_path(line, TITLE_LENGTH)


def shortened(text: str | None) -> str | None:
    return shorten(text) or None if text else None


# A "?" that ends a word ("offline?", "what?!", "(really?)"): no file system of the three
# takes it, and made "-" as one inside a word is ("a?b" stays "a-b"), it read as a typo
# ("…offline- 9f8e7d6c"). Left out instead, with any that follow it.
_WORD_ENDING_QUESTION = re.compile(r"(?<=\S)\?+(?!\w)")


def file_title(title: str) -> str:
    """``title`` as a new note's file name gives it: a question mark that ends a word is
    left out. (Only new notes are named so: a note keeps the path it has.)"""
    return _WORD_ENDING_QUESTION.sub("", title) if "?" in title else title


def path_component(text: str) -> str:
    """A path component from session text: separators never split it."""
    return text.lstrip("/").replace("/", "-").replace("\\", "-")


def fitted_name(head: str, tail: str) -> str:
    """``head + tail + ".md"`` as one file name, cut in ``head`` when too long for one: a
    title of multibyte text (60 characters, up to 240 bytes) lost the id at its end, and a
    subagent's or later part's note, named after the first, then took its name and a (2)."""
    name = f"{head}{tail}.md"
    if safe_component(path_component(name)).endswith(f"{tail}.md"):
        return name
    budget = MAX_NAME_BYTES - len(f"…{tail}.md".encode())
    cut = safe_component(path_component(head)).encode()[:budget].decode("utf-8", "ignore")
    return f"{cut.rstrip(' ,.;:…')}…{tail}.md"


def cut_keeping_path(text: str, length: int) -> str:
    """``text`` cut to ``length`` characters as ``cut_at_word`` cuts it, but a cut inside a
    path keeps the path's last segments (``can you update …/components/agent-sidebar.tsx to
    use it``), which name what the session was about, where its first ones
    (``@apps/examples/…``) rarely do; the words after the path follow while they fit."""
    if len(text) <= length:
        return text
    head, space, _ = text[:length].rpartition(" ")
    word = text[len(head) + len(space) :].split(" ", 1)[0]
    if len(head) >= length // 2 or "://" in word:
        return cut_at_word(text, length)  # (a whole word left out, or a web address)
    after = text[len(head) + len(space) + len(word) :]
    path = word.rstrip("/\\…")
    marked = "…" if after or path != word.rstrip("/\\") else ""  # (cut short before)
    for sep in _PATH_SEPARATOR.finditer(path):
        tail = path[sep.start() :]
        kept = f"{head}{space}…{tail}"
        if tail == sep.group() or len(kept) + len(marked) > length:
            continue
        if not after:
            return kept + marked
        return cut_at_word(kept + after, length) if len(kept + after) > length else kept + after
    return cut_at_word(text, length)


_PATH_SEPARATOR = re.compile(r"[/\\]+")


def cut_at_word(text: str, length: int) -> str:
    """``text`` cut to ``length`` characters and marked so, after its last whole word; in
    a word when that would keep less than half of it (a long path as the second word left
    "can you update…"), but never in a web address (the heading would link to the part
    kept, "…" and all) nor inside a character drawn as one (an emoji of several code
    points, a letter and its accents)."""
    cut = text[:length]
    words = cut.rsplit(" ", 1)[0]
    in_word = words == cut or (len(words) < length // 2 and "://" not in cut[len(words) :])
    if in_word:  # (one word longer than the cut: no choice but to cut in it)
        while cut and _joined(cut[-1], text[len(cut)] if len(cut) < len(text) else ""):
            cut = cut[:-1]
        words = cut
    return words.rstrip(" ,.;:") + "…"


def _joined(last: str, following: str) -> bool:
    """Would a cut between ``last`` and ``following`` split one drawn character? A joiner
    on either side, or a mark, variation selector or skin tone after."""
    if last == "\u200d" or following == "\u200d":
        return True
    if not following:
        return False
    code = ord(following)
    return (
        unicodedata.combining(following) > 0
        or 0xFE00 <= code <= 0xFE0F  # variation selectors
        or 0x1F3FB <= code <= 0x1F3FF  # skin tones
        or 0xE0020 <= code <= 0xE007F  # tag characters (flags of regions)
    )


def short_id(session_id: str) -> str:
    """Eight characters of the id. Time-ordered ids share their first ones (Codex's UUIDv7,
    OpenCode's ``ses_<time><random>``), so they give their last eight; other ids (Claude
    Code agents) their first."""
    tail = session_id.rsplit("/", 1)[-1].removeprefix("agent-")
    alnum = re.sub(r"[^0-9A-Za-z]", "", tail)
    if len(alnum) == 32 and re.fullmatch(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7", tail[:15]):
        return alnum[-8:]
    prefixed = re.fullmatch(r"[a-z]{2,5}_([0-9A-Za-z]{20,})", tail)
    if prefixed:
        return prefixed.group(1)[-8:]
    return alnum[:8] or "session"


def tag_slug(text: str) -> str:
    """An Obsidian tag segment: letters, digits, - and _ only, not all digits."""
    # (A run of separators is one hyphen: "PAI - TPOS" is project/pai-tpos.)
    slug = re.sub(r"(?:[^\w-]|-)+", "-", text, flags=re.UNICODE).strip("-_").lower()
    if not slug:
        return "unknown"
    return slug if not slug.isdigit() else f"p{slug}"
