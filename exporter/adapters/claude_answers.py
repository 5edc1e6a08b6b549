"""What the person said or decided to Claude Code through a tool call rather than at its
prompt: the answers they gave to an ``AskUserQuestion`` call (an option picked, or words they
typed), what they told the model to do instead when they rejected a call (a plan of
``ExitPlanMode``, an edit) at its permission prompt, their decision on a plan (approved,
approved with their edits, rejected), and an edit they changed before accepting it
(``toolUseResult.userModified``). The tool's result gives these to the model ("User has
answered your questions: …", "… To tell you how to proceed, the user said: …", "User has
approved your plan …"), so a note showed them only inside the folded callout of the
assistant's call: no turn of the person's, no time, not counted. The transcript builder
(claude_transcript.py) keeps the result and adds after it, at the time of the result's
line, the person's words as their own message (a decision said in words before them), or,
with no words, the decision as a notice. A decision is a ``decision`` notice (the person's,
titled as theirs), not a ``notification`` (the harness's).

A shell command stopped before it finished (Bash's ``toolUseResult.interrupted``) did not
fail: its result is marked cancelled, its output kept.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..model import NoticePart, Part, TextPart, ToolCallPart, ToolResultPart

ASK_TOOL = "AskUserQuestion"
PLAN_TOOL = "ExitPlanMode"
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
    an answer given only as the result's text can be told apart from its question; and the
    ``ExitPlanMode`` calls not answered yet, whose result is the person's decision."""

    __slots__ = ("questions", "plans")

    def __init__(self) -> None:
        self.questions: dict[str, list[str]] = {}
        self.plans: set[str] = set()

    def asked(self, parts: list[Part]) -> None:
        """Note the questions of the ``AskUserQuestion`` calls among a reply's parts, and
        its ``ExitPlanMode`` calls."""
        for part in parts:
            if isinstance(part, ToolCallPart) and part.call_id:
                if part.name == ASK_TOOL:
                    self.questions[part.call_id] = _questions(part.input)
                elif part.name == PLAN_TOOL:
                    self.plans.add(part.call_id)

    def said(self, parts: list[Part], rich: Any) -> list[Part]:
        """What the person said or decided in these tool results (``rich``: the line's
        ``toolUseResult``), in order: a notice per decision (on a plan, or an edit they
        changed), a text part per answer or feedback; none if there is nothing."""
        said: list[Part] = []
        for part in parts:
            if not isinstance(part, ToolResultPart):
                continue
            questions = self.questions.pop(part.call_id, None) if part.call_id else None
            if part.call_id and part.call_id in self.plans:
                self.plans.discard(part.call_id)
                said += _plan_decision(part, rich)
            if part.not_run == "rejected":
                said += _feedback(part.output)
            elif questions is not None and not part.is_error and not part.not_run:
                said += _answers(part.output, questions, rich)
        if _one_result(parts) and _changed_by_person(parts, rich):
            said.append(NoticePart("decision", _changed_words(rich)))
        return said


def as_done(parts: list[Part], rich: Any) -> list[Part]:
    """A line's tool results as what was done: a shell command the person stopped
    (``interrupted``) is cancelled, not failed; an edit the person changed before accepting
    it (``userModified``) has what was written after Claude Code's words, as the
    ``toolUseResult`` holds it. (The rich copy is of the line's one result: a line of
    several is left as it is.)"""
    if not isinstance(rich, dict) or not _one_result(parts):
        return parts
    at, result = next((i, p) for i, p in enumerate(parts) if isinstance(p, ToolResultPart))
    if rich.get("interrupted") is True and "stdout" in rich and not result.not_run:
        parts = [*parts]
        parts[at] = replace(result, is_error=False, not_run="cancelled")
    elif _changed_by_person(parts, rich) and (written := _written(rich)):
        parts = [*parts]
        output = f"{result.output.rstrip()}\n\n{WRITTEN}\n{written}".lstrip()
        parts[at] = replace(result, output=output)
    return parts


# What the note says of a plan's result (Claude Code's ExitPlanModeTool: approved, with the
# person's edits, with no plan, the isAgent wording; rejected comes as a not-run result).
_APPROVED = "User has approved your plan."
_EDITED = "## Approved Plan (edited by user):"
_APPROVED_NO_PLAN = "User has approved exiting plan mode."
_APPROVED_AGENT = "User has approved the plan."
WRITTEN = "What was written (the user changed the proposed edit before accepting it):"


def _plan_decision(result: ToolResultPart, rich: Any) -> list[Part]:
    output = result.output.lstrip()
    if result.not_run == "rejected":
        said = "The user rejected the plan."
    elif result.is_error or result.not_run:
        return []
    elif output.startswith(_APPROVED):
        edited = _EDITED in output or isinstance(rich, dict) and rich.get("planWasEdited") is True
        said = (
            "The user approved the plan, with their own edits (the plan as approved is the "
            "call's output)."
            if edited
            else "The user approved the plan."
        )
    elif output.startswith(_APPROVED_NO_PLAN):
        said = "The user approved leaving plan mode."
    elif output.startswith(_APPROVED_AGENT):
        said = "The user approved the plan."
    else:
        return []
    return [NoticePart("decision", said)]


def _one_result(parts: list[Part]) -> bool:
    return sum(isinstance(p, ToolResultPart) for p in parts) == 1


def _changed_by_person(parts: list[Part], rich: Any) -> bool:
    if not isinstance(rich, dict) or rich.get("userModified") is not True:
        return False
    result = next(p for p in parts if isinstance(p, ToolResultPart))
    return not result.is_error and not result.not_run


def _changed_words(rich: dict[str, Any]) -> str:
    path = rich.get("filePath")
    of = f" of {path}" if isinstance(path, str) and path.strip() else ""
    where = " (what was written is at the end of the call's output)" if _written(rich) else ""
    return (
        f"The user changed the proposed edit{of} before accepting it: the call shows what "
        f"the model proposed{where}."
    )


def _written(rich: dict[str, Any]) -> str:
    """What an edit wrote, as the ``toolUseResult`` holds it: its patch (``structuredPatch``,
    unified diff hunks), else the new text (Edit's ``newString``, Write's ``content``)."""
    hunks = rich.get("structuredPatch")
    shown: list[str] = []
    for hunk in hunks if isinstance(hunks, list) else []:
        lines = hunk.get("lines") if isinstance(hunk, dict) else None
        if not isinstance(lines, list):
            continue
        at = [hunk.get(k) for k in ("oldStart", "oldLines", "newStart", "newLines")]
        if all(isinstance(n, int) for n in at):
            shown.append(f"@@ -{at[0]},{at[1]} +{at[2]},{at[3]} @@")
        shown += [line for line in lines if isinstance(line, str)]
    if shown:
        return "\n".join(shown)
    for key in ("newString", "content"):
        if isinstance(rich.get(key), str) and rich[key].strip():
            return rich[key]
    return ""


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
