"""What a template's part of a note leaves open at its end: a code block or a comment that
would run on over ccexport's end marker and the person's own notes below it. ``doctor``
asks it of its sample note, an export of each note a person's template writes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .errors import Problem

if TYPE_CHECKING:
    from .notespec import NoteSettings


def still_open(text: str) -> str | None:
    """What ``text`` leaves open at its end: "a code block (```)", "an HTML comment
    (<!--)", "a comment (%%)", or None."""
    fence = ""
    comment_html = comment_obsidian = False
    for line in text.split("\n"):
        stripped = line.lstrip(" >")
        if fence:
            run = stripped[: len(stripped) - len(stripped.lstrip(fence[0]))]
            if len(run) >= len(fence) and not stripped[len(run) :].strip():
                fence = ""
            continue
        mark = stripped[:1]
        if mark in ("`", "~") and not (comment_html or comment_obsidian):
            run = stripped[: len(stripped) - len(stripped.lstrip(mark))]
            if len(run) >= 3 and not (mark == "`" and "`" in stripped[len(run) :]):
                fence = run
                continue
        comment_obsidian ^= line.count("%%") % 2 == 1
        if comment_html:
            comment_html = "-->" not in line
        elif "<!--" in line:
            comment_html = "-->" not in line[line.rindex("<!--") :]
    if fence:
        return f"a code block ({fence})"
    if comment_html:
        return "an HTML comment (<!--)"
    return "a comment (%%)" if comment_obsidian else None


def left_open(settings: NoteSettings, body: str, note: str) -> list[Problem]:
    """A warning when a person's template leaves a code block or comment open at the end of
    its part (``note``: the note it is in): ccexport's end marker and the person's notes
    below it would show as code, or not at all. The note is written as rendered: closing
    what a heuristic takes for open could itself open a block, where a warning costs no
    note anything. Asked of a person's template only (ours closes what it opens)."""
    from .render import shipped_template_in_effect
    from .session_body import SHIPPED_TEMPLATE_SHA256

    name, folder = settings.session_template, settings.templates
    if folder is None or shipped_template_in_effect(name, folder, SHIPPED_TEMPLATE_SHA256):
        return []
    opened = still_open(body)
    if opened is None:
        return []
    shown = "code" if "code" in opened else "nothing (hidden)"
    return [
        Problem(
            str(Path(folder) / name),
            f'leaves {opened} open at the end of {note}: the end marker, "## My notes" and '
            f"your notes below it show as {shown} in Obsidian (prose, literal, fence and "
            "callout each start a line of their own: not after a label or a list mark)",
        )
    ]
