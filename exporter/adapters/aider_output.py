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

Kind = Literal["output", "edit", "failed", "api"]


@dataclass(slots=True)
class Segment:
    """``edit``: an ``Applied edit to <path>`` line (or ``Creating empty file <path>``)
    and the lines after it up to the next part (``Commit …``); ``failed``: Aider's report
    of an edit block it could not apply, ``path`` the first file it names (none when it
    names none); ``api``: a failed request, up to and with its ``Retrying in …`` line;
    ``output``: anything else, as it was."""

    what: Kind
    lines: list[str] = field(default_factory=list)
    path: str | None = None

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


def _named(part: Segment) -> Segment:
    if part.what == "failed":
        named = next(filter(None, map(_UNMATCHED.match, part.lines)), None)
        part.path = named.group(1) if named else None
    return part
