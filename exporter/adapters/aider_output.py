"""What Aider printed after a reply, cut into what each part of it is: an edit it applied,
an edit block it could not apply, a request to the model that failed, or other output
(``Committing … before applying edits``, lint output). Kept apart from aider_log.py, which
makes messages of them; this module reads text only."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

APPLIED = re.compile(r"^Applied edit to (\S.*?)\s*$")
# A file Aider made, empty, for a reply's edit block to go in (after the reply; as Aider
# starts, the files named on its command line: that output is no reply's).
_CREATED = re.compile(r"^Creating empty file (\S.*?)\s*$")
# Aider's report of an edit block it could not apply, and the file a block was for.
_FAILED_EDIT = re.compile(
    r"^(?:The LLM did not conform to the edit format\."
    r"|# \d+ SEARCH/REPLACE blocks? failed to match!)"
)
_UNMATCHED = re.compile(r"^## SearchReplaceNoExactMatch: .*? in (\S.*?)\s*$")
# Aider's report of a request to the model that failed (litellm's errors, as Aider prints
# them in its versions 0.4x–0.5x), or that the reply was cut at the model's token limit;
# when Aider tries again, it says so last.
_API_ERROR = re.compile(
    r"^(?:Unexpected error: |Error during API call|BadRequestError: "
    r"|litellm\.[\w.]*(?:Error|Exception)\b|Model \S+ has hit a token limit!)"
)
_RETRY = re.compile(r"^Retrying in [\d.]+ seconds?\.\.\.\s*$")
# An edit block Aider did not apply, each line naming its file: the person said no to its
# question (create the file? edit one not in the chat?), the file matches .gitignore, the
# run was a --dry-run, the file could not be made. Aider prints the first three before it
# applies the reply's other edits, or in place of them: no other file's edit's lines.
_SKIPPED = re.compile(
    r"^(?:Skipping edits to (?P<rejected>\S.*?)(?P<ignored> that matches gitignore spec\.)?"
    r"|Did not apply edit to (?P<dry>\S.*?) \(--dry-run\)"
    r"|Unable to create (?P<unmade>\S.*?), skipping edits\.)\s*$"
)
# Aider's word that it left a file out of the chat, as .aiderignore (or .gitignore) names
# it: a new Coder's, for a file named on its command line or carried over from the one
# before (``/code …``, ``/ask …`` switch back after the reply). A notice of its own about
# that file, never a line of an edit's output ("Skipping edits to X …" is another line).
_LEFT_OUT = re.compile(r"^Skipping (?!edits to )\S.*? that matches (?:aider|git)ignore spec\.\s*$")
# Aider's question before "Skipping edits to X": its own line (0.6x on, with X alone on the
# line before it), or X in it (older), then the answer typed.
_QUESTION = re.compile(
    r"^(?:Create new file\?|Allow edits to file that has not been added to the chat\?"
    r"|Allow creation of new file .*\?|Allow edits to .* which was not previously added)"
)

Kind = Literal["output", "edit", "failed", "api", "skipped"]
NotRun = Literal["rejected", "denied"]


@dataclass(slots=True)
class Segment:
    """``edit``: an ``Applied edit to <path>`` line (or ``Creating empty file <path>``)
    and the lines after it up to the next part (``Commit …``); ``failed``: Aider's report
    of an edit block it could not apply, ``path`` the first file it names (none when it
    names none; or its one line ``Unable to create <path>, skipping edits.``); ``api``: a
    failed request, up to and with its ``Retrying in …`` line; ``skipped``: an edit block
    Aider did not apply, and why (``not_run``): ``Skipping edits to <path>`` after the
    person said no (``rejected``; with Aider's question, when it is the lines before), or
    as it matches .gitignore, or ``Did not apply edit to <path> (--dry-run)`` (``denied``:
    Aider was not let write it); ``output``: anything else, as it was (Aider's word that it
    left a file out of the chat, ``Skipping <path> that matches aiderignore spec.``, one of
    its own)."""

    what: Kind
    lines: list[str] = field(default_factory=list)
    path: str | None = None
    not_run: NotRun | None = None

    @property
    def retried(self) -> bool:
        """An ``api`` part that ends with Aider's "Retrying in …": the request went on."""
        return any(_RETRY.match(line) for line in self.lines)

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip("\n")


def segments(text: str) -> Iterator[Segment]:
    """``text``'s parts, in order (an ``output`` part may be empty)."""
    part = Segment("output")
    for line in text.split("\n"):
        skipped = _SKIPPED.match(line)
        if skipped:  # one line of its own (and the question it answers): nothing after it
            named = next(filter(None, skipped.group("rejected", "dry", "unmade")))
            asked = _question(part.lines, named) if skipped.group("rejected") else 0
            yield _named(Segment(part.what, part.lines[: len(part.lines) - asked], part.path))
            lines = [*part.lines[len(part.lines) - asked :], line]
            if skipped.group("unmade"):
                yield Segment("failed", lines, named)
            else:
                rejected = skipped.group("rejected") and not skipped.group("ignored")
                yield Segment("skipped", lines, named, "rejected" if rejected else "denied")
            part = Segment("output")
            continue
        if _LEFT_OUT.match(line):  # its own part: what follows is the next one
            yield _named(part)
            yield Segment("output", [line])
            part = Segment("output")
            continue
        applied = APPLIED.match(line) or _CREATED.match(line)
        starts: Kind | None = (
            "edit" if applied
            else "failed" if part.what != "failed" and _FAILED_EDIT.match(line)
            else "api" if part.what != "api" and _API_ERROR.match(line)
            else None
        )  # fmt: skip
        if starts:
            yield _named(part)
            part = Segment(starts, path=applied.group(1) if applied else None)
        elif part.what == "output" and _RETRY.match(line):
            # Aider tried a failed request again: the lines before, back to a blank line,
            # are its report of the failure, whatever it said (``badness``, a test build's)
            cut = max((k + 1 for k, x in enumerate(part.lines) if not x.strip()), default=0)
            yield Segment("output", part.lines[:cut])
            part = Segment("api", part.lines[cut:])
        part.lines.append(line)
        if part.what == "api" and _RETRY.match(line):  # the error ends: what follows is not it
            yield part
            part = Segment("output")
    yield _named(part)


def _question(lines: list[str], path: str) -> int:
    """How many of the last lines are Aider's question whether to edit ``path`` (the file
    named on the line before it, as Aider 0.6x on asks): 0 when they are not."""
    if not lines or not _QUESTION.match(lines[-1]):
        return 0
    return 2 if len(lines) > 1 and lines[-2].strip() == path else 1


def _named(part: Segment) -> Segment:
    if part.what == "failed":
        named = next(filter(None, map(_UNMATCHED.match, part.lines)), None)
        part.path = named.group(1) if named else None
    return part
