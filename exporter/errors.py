"""Errors and problems. Library code raises or reports these; only the CLI prints."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal


class ExporterError(Exception):
    """An error meant to be shown to the user as one line."""


class ConfigError(ExporterError):
    """Bad usage or configuration (exit code 2)."""


class VaultLockedError(ExporterError):
    """Another run holds the vault lock. ``busy`` says who and where, without the advice to
    try again later (``watch`` tries again itself)."""

    def __init__(self, busy: str) -> None:
        super().__init__(f"{busy}, try again later")
        self.busy = busy


class SourceError(ExporterError):
    """A source file (or one line of it) could not be read."""

    def __init__(self, path: Path | str, message: str, line: int | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {message}")

    def problem(self, source: str) -> Problem:
        """This error, reported: the session or database it concerns is not exported."""
        return Problem(self.path, self.message, self.line, severity="error", source=source)


class SourceChanged(SourceError):
    """A long session's file, read again for its messages, ends before the line its first
    reading reached: it was cut short or replaced in between."""

    def __init__(self, path: Path | str, reached: int, expected: int, why: str = "") -> None:
        why = why or f"it now ends at line {reached}, not {expected}"
        super().__init__(path, f"changed while it was read ({why})")


def how_many(count: int, unit: str) -> str:
    """For a problem reported at the first of ``count`` lines (or messages, events) alike:
    " (3 lines, the first here)", and nothing for one, whose line says it all."""
    return "" if count == 1 else f" ({count} {unit}s, the first here)"


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with the input, reported without stopping the run.

    ``warning``: part of a session was skipped (a malformed line); the note was written.
    ``error``: a whole session, note or template could not be handled.
    ``left_out``: the line ``line`` could not be read at all (damaged, cut off), and its
    note says so (``Session.unread_lines``); not a line read in part, nor one of a kind
    not known here.
    """

    path: str
    message: str
    line: int | None = None
    severity: Literal["warning", "error"] = "warning"
    source: str | None = None
    left_out: bool = False

    def __post_init__(self) -> None:
        # A file name that is not UTF-8 reaches Python holding surrogates, which no output
        # (terminal, JSON, log) can encode: its bad bytes are shown as \xNN instead.
        for name in ("path", "message"):
            text = getattr(self, name)
            if not text.isascii():
                object.__setattr__(self, name, shown_text(text))
        # A damaged value quoted in the message may hold control characters: a newline
        # would break the report's line, an escape sequence restyle the terminal.
        object.__setattr__(self, "message", visible(self.message))

    def __str__(self) -> str:
        path = visible(self.path)  # (kept as it is on the problem: it names the file)
        where = f"{path}:{self.line}" if self.line else path
        return f"{where}: {self.message}"

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "severity": self.severity,
            "source": self.source,
        }


_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """``text`` with its control characters (a tab aside) written as ``\\xNN``."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def shown_text(text: str) -> str:
    """``text`` with any undecodable bytes of a file name (surrogates) as ``\\xNN``."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that stands for no byte
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def clipped(value: object, limit: int = 80) -> str:
    """``value`` as text for a problem's message, at most about ``limit`` characters. Cut
    after a separator, never inside a word: a token cut short is no longer one that redaction
    knows, and would be printed in part."""
    text = str(value)
    if len(text) <= limit:
        return text
    return _WORD_TAIL.sub("", text[:limit]) + "…"


_WORD_TAIL = re.compile(r"[^\s\"'`,;:()\[\]{}<>=|]*\Z")


def os_reason(exc: BaseException) -> str:
    """Why a file could not be used, for a message that names the file already: an OS
    error's reason alone (``Permission denied``, not ``[Errno 13] Permission denied:
    '/the/path'`` again), anything else as it reads."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


def unit_unread(exc: Exception) -> str:
    """A unit that could not be read: an OS error's reason (the message names the file),
    else what went wrong, as it reads."""
    if isinstance(exc, OSError):
        return f"could not be read: {os_reason(exc)}; its sessions are read again next run"
    return f"could not be read: {exc}"


def disk_full(exc: BaseException) -> bool:
    """Is ``exc`` a full disk (or a quota reached)?"""
    import errno

    return isinstance(exc, OSError) and exc.errno in (
        errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)
    )  # fmt: skip


def disk_full_message(written: int, left: int) -> str:
    """One line for the notes a full disk kept from being written (review29 F7: a line
    for each of them filled a nightly log)."""
    notes = "1 note was" if written == 1 else f"{written} notes were"
    return (
        f"the disk is full: {notes} written before it filled, {left} not; free some space "
        "and run again (the next run writes the rest)"
    )


def os_error_message(exc: OSError) -> tuple[str, int]:
    """One line a person can act on for an OS error that stopped a run, and its exit code:
    2 when the vault cannot be used at all (fix the setup), 1 when the run failed midway."""
    import errno

    where = f"{exc.filename}: " if exc.filename else ""
    number = exc.errno
    if number in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return f"{where}the disk is full; free some space and run again", 1
    if number == errno.EROFS:
        return f"{where}the file system is read-only; choose a writable --vault", 2
    if number in (errno.EACCES, errno.EPERM):
        return (
            f"{where}permission denied (read-only or immutable?); make it writable for this "
            "user or choose another --vault",
            2,
        )
    if number == errno.ENOTDIR:
        return (
            f"{where}a file stands where a folder is needed; move it or choose another --vault",
            2,
        )
    return f"{where}{exc.strerror or exc}", 1
