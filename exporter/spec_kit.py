"""spec-kit's commands (``/speckit.plan …``; ``/prompts:speckit.plan …`` in Codex) send a
prompt that opens with a ``## User Input`` heading over a fence holding what the person
typed (``$ARGUMENTS``, often nothing), then the command's own template: a hundred lines of
instructions for the model. A source that records only what was sent (Codex, when its
prompt files are not at hand) shows it as the person's message. Split, the person's words
are their prompt and the template is the prompt the command sent, folded under it, as a
custom slash command's filled-in file is."""

from __future__ import annotations

import re

from .model import CommandOutputPart, Part, TextPart

# Only at the prompt's very start (blank lines before it allowed), a heading of any level
# reading "User Input", the next line a fence (CommonMark's: up to three spaces in, three
# or more of one character, no backtick in a backtick fence's info string). A prompt that
# mentions "User Input" later, or opens with another heading, is the person's.
_LABEL = re.compile(
    r"\A\s*#{1,6}[^\S\n]+User Input[^\S\n]*\n(?:[^\S\n]*\n)*"
    r" {0,3}(?P<fence>`{3,}(?=[^`\n]*$)|~{3,})[^\n]*(?:\n|\Z)",
    re.I | re.M,
)
# Any fence line: its run of fence characters and what follows (an info string, or nothing).
_FENCE_LINE = re.compile(r" {0,3}(`{3,}|~{3,})[^\S\n]*(.*?)[^\S\n]*")
# Every spec-kit template since the fenced input opens with this line. spec-kit puts what
# was typed in verbatim, so a typed line that is only ``` also closes the fence as
# CommonMark reads it; the closing fence this line follows is the one spec-kit wrote.
_TEMPLATE_START = re.compile(r"\n*You \*\*MUST\*\* consider the user input\b", re.I)


def typed_and_sent(text: str) -> list[Part] | None:
    """The parts of a spec-kit prompt: what the person typed (when anything) and the
    command's template as the prompt sent; None for any other prompt, or one whose
    input fence is never closed or whose template is missing (then there is nothing but
    the label to take out)."""
    labelled = _LABEL.match(text)
    if labelled is None:
        return None
    fence = labelled.group("fence")
    closers = _closing_fences(text, labelled.end(), fence)
    if not closers:
        return None
    typed_end, template_start = _the_closing_fence(text, closers)
    template = text[template_start:].strip("\n").rstrip()
    if not template:
        return None
    typed = text[labelled.end() : typed_end].strip("\n").rstrip()
    parts: list[Part] = [TextPart(typed)] if typed.strip() else []
    return [*parts, CommandOutputPart(template, sent=True)]


def _lines(text: str, start: int):
    """Each line from ``start``: its start, its end (without the line break) and the
    start of the next line."""
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield start, end, end + 1
        start = end + 1


def _closes(line: str, fence: str) -> bool:
    """CommonMark's closing fence: the opening's character, at least as many of it, and
    nothing else on the line."""
    found = _FENCE_LINE.fullmatch(line)
    return (
        found is not None
        and not found.group(2)
        and found.group(1)[0] == fence[0]
        and len(found.group(1)) >= len(fence)
    )


def _closing_fences(text: str, start: int, fence: str) -> list[tuple[int, int, bool]]:
    """Every line that could close the input fence: where it starts, where the line after
    it starts, and whether it stands outside the fenced blocks the typed text opened itself
    (a fence with an info string, such as ```` ```python ````, opens one)."""
    closers = []
    inner: str | None = None
    for line_start, line_end, after in _lines(text, start):
        line = text[line_start:line_end]
        if inner is not None:
            if _closes(line, fence):
                closers.append((line_start, after, False))
            if _closes(line, inner):
                inner = None
            continue
        if _closes(line, fence):
            closers.append((line_start, after, True))
        elif (opened := _FENCE_LINE.fullmatch(line)) and opened.group(2):
            if not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
                inner = opened.group(1)
    return closers


def _the_closing_fence(text: str, closers: list[tuple[int, int, bool]]) -> tuple[int, int]:
    """Where the typed text ends and the template starts. The last closing fence that
    spec-kit's template line follows; else the first outside the typed text's own blocks;
    else the first (a block the person left open): the typed text is never lost, only
    shown in the template when the split cannot be told."""
    for line_start, after, _ in reversed(closers):
        if _TEMPLATE_START.match(text, after):
            return line_start, after
    outside = [c for c in closers if c[2]] or closers
    line_start, after, _ = outside[0]
    return line_start, after
