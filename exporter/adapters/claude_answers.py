"""What the person said to Claude Code through a tool call rather than at its prompt: the
answers they gave to an ``AskUserQuestion`` call (an option picked, or words they typed),
and what they told the model to do instead when they rejected a call (a plan of
``ExitPlanMode``, an edit) at its permission prompt. The tool's result gives them to the model
("User has answered your questions: …", "… To tell you how to proceed, the user said: …"),
so a note showed them only inside the folded callout of the assistant's call: no turn of
the person's, no time, not counted. The transcript builder (claude_transcript.py) keeps the
result as it is and adds the person's words after it as their own message, at the time of
the result's line.

A plan approved (``ExitPlanMode``: "User has approved your plan") is a click, not words:
it stays the call's output.
"""

from __future__ import annotations

from typing import Any

from ..model import Part, TextPart, ToolCallPart, ToolResultPart

ASK_TOOL = "AskUserQuestion"
_ANSWERED = "User has answered your questions: "
_ANSWERED_END = '". You can now continue'
# What follows a rejection when the person typed what to do instead (Claude Code's
# REJECT_MESSAGE_WITH_REASON_PREFIX).
_REJECTED = "The user doesn't want to proceed with this tool use."
_SAID = "To tell you how to proceed, the user said:"
# Claude Code's own words for "Chat about this" on a question (no words of the person's:
# what they say comes as their next prompt).
_CLARIFY = "The user wants to clarify these questions."


class PersonsAnswers:
    """The questions of the ``AskUserQuestion`` calls not answered yet (by call id), so that
    an answer given only as the result's text can be told apart from its question."""

    __slots__ = ("questions",)

    def __init__(self) -> None:
        self.questions: dict[str, list[str]] = {}

    def asked(self, parts: list[Part]) -> None:
        """Note the questions of the ``AskUserQuestion`` calls among a reply's parts."""
        for part in parts:
            if isinstance(part, ToolCallPart) and part.name == ASK_TOOL and part.call_id:
                self.questions[part.call_id] = _questions(part.input)

    def said(self, parts: list[Part], rich: Any) -> list[Part]:
        """The person's words in these tool results (``rich``: the line's
        ``toolUseResult``), one part per answer or feedback, in order; none if there are
        none."""
        words: list[Part] = []
        for part in parts:
            if not isinstance(part, ToolResultPart):
                continue
            questions = self.questions.pop(part.call_id, None) if part.call_id else None
            if part.not_run == "rejected":
                words += _feedback(part.output)
            elif questions is not None and not part.is_error and not part.not_run:
                words += _answers(part.output, questions, rich)
        return words


def _questions(tool_input: Any) -> list[str]:
    asked = tool_input.get("questions") if isinstance(tool_input, dict) else None
    asked = asked if isinstance(asked, list) else []
    return [
        q["question"] for q in asked if isinstance(q, dict) and isinstance(q.get("question"), str)
    ]


def _feedback(output: str) -> list[Part]:
    """What the person typed when they rejected a call, if they typed anything."""
    if not output.startswith(_REJECTED) or _SAID not in output:
        return []
    said = output.split(_SAID, 1)[1].strip()
    return [TextPart(said)] if said and not said.startswith(_CLARIFY) else []


def _answers(output: str, questions: list[str], rich: Any) -> list[Part]:
    """Each answer, in the questions' order: from ``toolUseResult.answers`` (question ->
    answer), with any notes the person added to it (``annotations``); else read from the
    result's text, whose questions the call named."""
    given = rich.get("answers") if isinstance(rich, dict) else None
    if not isinstance(given, dict):
        return [TextPart(a) for a in _answers_in_text(output, questions) if a.strip()]
    notes = rich.get("annotations")
    notes = notes if isinstance(notes, dict) else {}
    order = [q for q in questions if q in given] + [q for q in given if q not in questions]
    words: list[Part] = []
    for question in order:
        answer = given[question]
        if isinstance(answer, list):  # (a choice of several, should one come as a list)
            answer = ", ".join(a for a in answer if isinstance(a, str))
        if isinstance(answer, str) and answer.strip():
            words.append(TextPart(answer))
        note = notes.get(question)
        note = note.get("notes") if isinstance(note, dict) else None
        if isinstance(note, str) and note.strip():
            words.append(TextPart(note))
    return words


def _answers_in_text(output: str, questions: list[str]) -> list[str]:
    """The answers in ``User has answered your questions: "q1"="a1", "q2"="a2". You can
    now continue …``: each runs from its question's ``"="`` to the next question's pair
    (or the closing sentence). Nothing when a question is not found where it should be."""
    if not output.startswith(_ANSWERED) or not questions:
        return []
    body = output[len(_ANSWERED) :]
    spans: list[tuple[int, int]] = []  # (where a pair starts, where its answer starts)
    at = 0
    for question in questions:
        pair = f'"{question}"="'
        found = body.find(pair, at)
        if found < 0:
            return []
        spans.append((found, found + len(pair)))
        at = found + len(pair)
    end = body.rfind(_ANSWERED_END)
    end = end if end >= at else len(body.rstrip().removesuffix('".').removesuffix('"'))
    answers = []
    for i, (_, start) in enumerate(spans):
        stop = spans[i + 1][0] - len('", ') if i + 1 < len(spans) else end
        answers.append(body[start:stop])
    return answers
