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
# reading "User Input", the next line a fence; its closing fence alone on its line. A
# prompt that mentions "User Input" later, or opens with another heading, is the person's.
INPUT_LABEL = re.compile(
    r"\A\s*#{1,6}[^\S\n]+User Input[^\S\n]*\n\s*(`{3,}|~{3,})[^\n]*\n"
    r"(.*?)^[^\S\n]*\1[^\S\n]*(?:\n|\Z)",
    re.I | re.M | re.S,
)


def typed_and_sent(text: str) -> list[Part] | None:
    """The parts of a spec-kit prompt: what the person typed (when anything) and the
    command's template as the prompt sent; None for any other prompt, or one whose
    template is missing (then there is nothing but the label to take out)."""
    labelled = INPUT_LABEL.match(text)
    if labelled is None:
        return None
    template = text[labelled.end() :].strip("\n").rstrip()
    if not template:
        return None
    typed = labelled.group(2).strip("\n").rstrip()
    parts: list[Part] = [TextPart(typed)] if typed.strip() else []
    return [*parts, CommandOutputPart(template, sent=True)]
