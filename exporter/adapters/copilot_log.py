"""VS Code's chat session object (replayed from its ``.jsonl`` log by ``copilot_replay``,
or a flat ``.json``) turned into messages (FORMATS.md §5.3–§5.5)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..errors import clipped
from ..model import (
    Message,
    NoticePart,
    Part,
    TextPart,
    ThinkingPart,
)
from ._jsonl import parse_timestamp
from ._times import Times
from ._unanswered import AWAITING_APPROVAL, UNANSWERED
from ._values import json_kind, tool_name
from .copilot_context import (
    damaged_variables,
    edit_calls,
    edit_path,
    elicitation_parts,
    is_edit,
    model_calls,
    question_parts,
    variable_parts,
)
from .copilot_rendered import prompt_text
from .copilot_tools import (
    HIDDEN,
    TOOL_KINDS,
    call_args,
    edits_after,
    hook_denial,
    hook_said,
    invocation_call,
    is_internal,
    makes_edits,
    model_invocations,
    odd_result_error,
    paired_invocations,
    shown_text,
    uri_path,
    with_arguments,
)
from .copilot_verdicts import PENDING_EDITS, edit_decisions, vote
from .copilot_waits import ASKED, RESULT, RESULT_WAITING, last_round, waits
from .copilot_waits import asked as asked_before
from .copilot_waits import running as still_running

SOURCE = "copilot"
# Response parts that are progress, confirmations or bookkeeping, not conversation.
_UI_KINDS = {
    "progressMessage", "progressTaskSerialized", "confirmation",
    "command", "extensions", "pullRequest", "treeData", "hook",
    "mcpServersStarting", "disabledClaudeHooks", "prepareToolInvocation", "undoStop",
    "codeblockUri", "notebookEditGroup", "workspaceEdit", "multiDiffData",
    "clearToPreviousToolInvocation", "markdownVuln",
}  # fmt: skip
# An edit's code block: VS Code writes an empty fenced block around a codeblockUri part and
# shows the file edited in it. The edit (its own call) goes where that block was, and the
# block is left out. A file edited with no such block: its edit goes where it was made.
_PILL = "\x00edit\x00"
_EDIT_PILL = re.compile(
    r"(?m)^[ \t]*(`{3,}|~{3,})[^\n]*\n((?:\s*" + re.escape(_PILL) + r")+)\s*\1[ \t]*$\n?"
)
_CANCELLED, _FAILED = 2, 3  # modelState values (Complete 1; the running ones: copilot_waits)
_EditKey = tuple[int | None, str]  # an edit call's: (the invocation that made it, the file)


def session_messages(
    data: dict[str, Any],
    unknown: set[str] | None = None,
    times: Times | None = None,
    skipped: list[tuple[int, str]] | None = None,
    odd: list[tuple[int, str]] | None = None,
) -> tuple[list[Message], list[str]]:
    """The requests of a session object, in order, as messages; plus the models used.
    ``unknown`` collects the response part kinds not known here (left out, to report),
    ``times`` the times that cannot be read, ``skipped`` (number, why) of each request of
    a shape no one expected (it costs that request, not the session), ``odd`` (number,
    why) of each value of a request that was damaged (it costs that value)."""
    messages: list[Message] = []
    models: list[str] = []
    times = times or Times()
    requests = [
        (number, request)
        for number, request in enumerate(data.get("requests") or [], start=1)
        if isinstance(request, dict)
        and not request.get("isHidden")
        and not request.get("shouldBeRemovedOnSend")
    ]
    for number, request in requests:
        last = number == requests[-1][0]
        try:
            notes: list[str] = []
            state = still_running(request) if last else None
            made, model = _request_messages(
                number, request, len(messages), unknown, times, notes, state
            )
        except Exception as exc:  # noqa: BLE001  (a value of a type no one expected)
            if skipped is not None:
                skipped.append((number, clipped(f"{type(exc).__name__}: {exc}", 200)))
            continue
        if odd is not None:
            odd += [(number, why) for why in notes]
        messages += made
        if model and model not in models:
            models.append(model)
    if data.get("hasPendingEdits") is True and messages:  # (as of the chat's last save)
        last = max((m.timestamp for m in messages if m.timestamp), default=None)
        messages.append(Message("system", (PENDING_EDITS,), "hasPendingEdits", last))
    return messages, models


def odd_invocations(request: dict[str, Any]) -> list[str]:
    """Why a value of a request's tool invocations was not read: a name (``toolId``) that is
    not text, an error (``resultError``) that is neither text nor true/false."""
    response = request.get("response")
    found = []
    for part in response if isinstance(response, list) else []:
        if isinstance(part, dict) and part.get("kind") in TOOL_KINDS:
            _name, why = tool_name(part.get("toolId"))
            found += [w for w in (why, odd_result_error(part)) if w]
    return found


def _request_messages(
    number: int,
    request: dict[str, Any],
    before: int,
    unknown: set[str] | None,
    times: Times,
    notes: list[str] | None = None,
    running: str | None = None,
) -> tuple[list[Message], str | None]:
    """One request's messages (``before``: how many the session has before it) and model;
    ``notes`` gets why a damaged value of it was read otherwise or left out. ``running``:
    the session's last request, its response not finished (``copilot_waits.running``: how)."""
    notes = [] if notes is None else notes
    messages: list[Message] = []
    stamp = request.get("timestamp")
    when = parse_timestamp(stamp) or times.unread(stamp, f"request {number}")
    rid = request.get("requestId") if isinstance(request.get("requestId"), str) else None
    said = len(notes)
    text = prompt_text(request.get("message"), notes)
    sent: list[Part] = [TextPart(text)] if text.strip() else []
    if sent or len(notes) > said:  # (a valid empty prompt's attachments make no turn; a
        sent += variable_parts(request)  # damaged prompt's are kept, the damage was said)
    notes += damaged_variables(request)
    messages += edit_decisions(request, rid, when)  # (done before this prompt was sent)
    if sent:
        messages.append(Message("user", tuple(sent), rid, when))
    model = request.get("modelId") if isinstance(request.get("modelId"), str) else None
    parts, results = _response(
        request.get("response"),
        model_calls(request),
        unknown,
        rid or f"request {before + len(messages)}",
        notes,
        running,
    )
    parts += _outcome(request) + vote(request)
    answered = _answered_at(request, when, times, f"request {number}")
    if parts:
        response_id = request.get("responseId")
        response_id = response_id if isinstance(response_id, str) and response_id else rid
        messages.append(Message("assistant", tuple(parts), response_id, answered, model))
    if results:
        messages.append(Message("tool", tuple(results), rid, answered))
    return messages, model


def _response(
    response: Any,
    calls: list[tuple[Any, str | None]],
    unknown: set[str] | None = None,
    request_id: str = "request",
    notes: list[str] | None = None,
    running: str | None = None,
) -> tuple[list[Part], list[Part]]:
    response = response if isinstance(response, list) else []
    notes = [] if notes is None else notes
    last = last_round(response) if running else []
    waited_on = last[-1] if last else None
    marks = waits(response, running, last)  # (what calls of a waiting response wait on)
    paired = paired_invocations(response, calls)
    streamed = edits_after(response)
    made_at = model_invocations(response)
    # A call a preToolUse hook denied: the hook's own part says the same denial (Copilot
    # Chat shows the hook's stopReason, then VS Code hides the call it denies). Position ->
    # the reason, which the call says; the hook part beside it does not say it again.
    denials = {
        at: reason for at in made_at if (reason := hook_denial(response[at], paired.get(at)))
    }
    parts: list[Part] = []
    results: list[Part] = []
    text: list[str] = []
    edits: list[tuple[int | None, dict[str, Any]]] = []  # (its owner, the group)
    # A hidden invocation whose call's edits are shown (by the groups after it): the owner
    # of those edits, which carry its name, id and result. Position -> the invocation.
    owners: dict[int, dict[str, Any]] = {}
    owner: int | None = None  # the owner of the edit groups read now
    pills: list[_EditKey | None] = []  # the edit call of each edit's place, in order
    placed: dict[_EditKey, int] = {}  # edit call -> where in ``parts`` it goes
    pilled: set[_EditKey] = set()  # the edit calls that have their place

    def place(path: str | None) -> None:
        """Mark the place of a file's edit in the text (its first one; a later one of the
        same file by the same call, merged into that call, only has its code block left
        out)."""
        text.append(_PILL)
        key = (owner, path) if path else None
        pills.append(key if key and key not in pilled else None)
        if key:
            pilled.add(key)

    def _says_denial(at: int, hook: dict[str, Any]) -> bool:
        """Does the hook part at ``at`` stop a call for the reason the model's call beside it
        (the one before or after it) was denied for, which that call shows?"""
        stop = " ".join(shown_text(hook.get("stopReason")).split())
        before = [i for i in made_at if i < at][-1:]
        after = [i for i in made_at if i > at][:1]
        for near in before + after:
            if near in denials and " ".join(denials[near].split()) in stop:
                del denials[near]  # (each denial is said beside one hook part)
                return True
        return False

    def flush() -> None:
        joined = _EDIT_PILL.sub(lambda m: "\n" + m[2].strip() + "\n", "".join(text))
        pieces = joined.split(_PILL)  # (paragraphs apart where a code block was)
        for number, piece in enumerate(pieces):
            if number:
                path = pills.pop(0)
                if path:
                    placed[path] = len(parts)
                piece = piece.lstrip("\n")  # the lines around the code block, not text
            if number < len(pieces) - 1:
                piece = piece.rstrip("\n")
            if piece.strip():
                parts.append(TextPart(piece))
        text.clear()

    # An edit call VS Code showed (an older build): its edits follow it before any words;
    # an edit group after the model's next words is another edit, not this call's.
    shown_owner = False
    for index, part in enumerate(response):
        if isinstance(part, str):  # (an older build's text: read as markdown is)
            part = {"kind": "markdownContent", "value": part}
        if not isinstance(part, dict):
            notes.append(f"response part {index + 1} is {json_kind(part)}, not an object: left out")
            continue
        kind = part.get("kind")
        if kind is None or kind == "markdownContent":
            value = part.get("value") if "value" in part else part.get("content")
            if isinstance(value, dict):
                value = value.get("value")
            if isinstance(value, str):
                text.append(value)
                if shown_owner and _words(value):
                    owner, shown_owner = None, False
            elif unknown is not None and kind is None:  # (no kind, and no text to show)
                unknown.add("a part with no kind and no text")
        elif kind == "inlineReference":
            text.append(f"`{_reference_name(part)}`")
        elif kind == "thinking":
            flush()
            value = part.get("value")
            thought = "".join(value) if isinstance(value, list) else value
            if isinstance(thought, str) and thought.strip():
                parts.append(ThinkingPart(thought))
        elif kind in TOOL_KINDS:
            hidden = part.get("presentation") in HIDDEN
            if is_internal(part) and hidden:
                continue  # (inside the model's call before it, which is shown)
            text_edits, any_edits = streamed.get(index, (False, False))
            if not is_internal(part):  # (a shown edit call, of an older build: one call too)
                edits_shown = hidden or makes_edits(part, paired.get(index))
                owner = index if text_edits and edits_shown else None
                shown_owner = owner == index and not hidden
            if owner == index:
                owners[index] = part  # its edits show it: its call goes where they are
                continue
            flush()
            made = paired.get(index)
            # A hidden edit call that streamed no edit edited nothing: Copilot Chat's edit
            # tools stream each file they changed, and return the error for one they could
            # not (the model read it: the call failed).
            failed = hidden and not any_edits and bool(made and made[1] and is_edit(made[0]))
            mark = marks.get(index)
            call, returned = invocation_call(part, made, failed, ran=mark == RESULT)
            parts.append(call)
            results += returned
            if mark == RESULT:  # (it ran: what it recorded is shown, and that it waited)
                parts.append(RESULT_WAITING)
            elif not returned and (
                mark or index == waited_on or running and part.get("isComplete") is False
            ):
                waiting = mark == ASKED or running != "asking" and asked_before(part)
                parts.append(AWAITING_APPROVAL if waiting else UNANSWERED)
        elif kind == "textEditGroup":
            edits.append((owner, part))
            path = edit_path(part)
            if not path:
                uri = part.get("uri")
                why = f"its uri is {json_kind(uri)}" if "uri" in part else "it has no uri"
                notes.append(f"response part {index + 1}: an edit of no file ({why}): left out")
            if path and (owner, path) not in pilled:
                place(path)  # no code block shown for it: the edit is where it was made
        elif kind in ("questionCarousel", "elicitationSerialized"):
            flush()
            ask = question_parts if kind == "questionCarousel" else elicitation_parts
            call, result = ask(part, f"{request_id}:{index}")  # the part's place: its id
            parts.append(call)
            if result:
                results.append(result)
        elif kind == "codeblockUri" and part.get("isEdit"):
            place(edit_path(part))  # where VS Code shows the edited file, in a code block
        elif kind == "hook" and (said := hook_said(part, _says_denial(index, part))):
            flush()
            parts.append(NoticePart("notification", said))
        elif kind == "warning":  # (not an error: shown as Gemini's and Copilot CLI's are)
            flush()
            parts.append(NoticePart("notification", shown_text(part.get("content"))))
        elif unknown is not None and not (isinstance(kind, str) and kind in _UI_KINDS):
            unknown.add(str(kind)[:80])  # a newer kind: reported, in case it held conversation
        # everything else (progress, confirmations, UI bookkeeping) is not conversation
    flush()
    asked = {at: call_args(owners[at], paired.get(at)) for at in owners}  # (their arguments)
    calls = list(edit_calls(edits, asked).items())
    named: set[int] = set()
    for order, ((at, _path), call) in enumerate(calls):
        if at is None:
            continue  # (no invocation made it: ``edit``)
        invocation, returned = invocation_call(owners[at], paired.get(at))
        if at in named:  # (another file of the same call: its result is under the first)
            calls[order] = (calls[order][0], replace(call, name=invocation.name))
            continue
        named.add(at)
        held = asked.get(at) if asked.get(at) is not None else invocation.input
        call = replace(
            call,
            name=invocation.name,
            call_id=invocation.call_id,
            input=with_arguments(call.input, held),
        )
        calls[order] = (calls[order][0], call)
        results += returned
    # Each edit where it was first shown or made; inserted from the last place back, so the
    # places found before stay right (two at one place keep their order).
    at = [(placed.get(key, len(parts)), order) for order, (key, _) in enumerate(calls)]
    for where, order in sorted(at, reverse=True):
        parts.insert(where, calls[order][1])
    return parts, results


_FENCE_LINES = re.compile(r"(?m)^[^\S\n]*(?:`{3,}|~{3,})[\w+-]*[^\S\n]*$")


def _words(text: str) -> bool:
    """Does a response's text say something, beyond the fence of a code block VS Code
    shows an edit in?"""
    return bool(_FENCE_LINES.sub("", text).strip())


def _outcome(request: dict[str, Any]) -> list[Part]:
    state = request.get("modelState")
    value = state.get("value") if isinstance(state, dict) else None
    result = request.get("result") if isinstance(request.get("result"), dict) else {}
    error = result.get("errorDetails") if isinstance(result.get("errorDetails"), dict) else None
    if value == _CANCELLED or request.get("isCanceled") is True:
        return [NoticePart("interrupted", "cancelled")]
    if value == _FAILED or error:
        return [
            NoticePart("error", shown_text((error or {}).get("message")) or "the request failed")
        ]
    return []


def _answered_at(
    request: dict[str, Any], sent: Any, times: Times | None = None, where: str | None = None
) -> Any:
    state = request.get("modelState")
    stamp = state.get("completedAt") if isinstance(state, dict) else None
    done = parse_timestamp(stamp) or (times.unread(stamp, where) if times else None)
    if done:
        return done
    result = request.get("result") if isinstance(request.get("result"), dict) else {}
    timings = result.get("timings") if isinstance(result.get("timings"), dict) else {}
    elapsed = timings.get("totalElapsed")
    if sent and isinstance(elapsed, int | float):
        from datetime import timedelta

        return sent + timedelta(milliseconds=elapsed)
    return sent


def last_activity(data: dict[str, Any]) -> Any:
    times = [
        _answered_at(r, parse_timestamp(r.get("timestamp")))
        for r in data.get("requests") or []
        if isinstance(r, dict)
    ]
    times = [t for t in times if t]
    return max(times) if times else parse_timestamp(data.get("lastMessageDate"))


def _reference_name(part: dict[str, Any]) -> str:
    if isinstance(part.get("name"), str) and part["name"]:
        return part["name"]
    ref = part.get("inlineReference")
    if isinstance(ref, dict) and "uri" in ref and isinstance(ref["uri"], dict):
        ref = ref["uri"]
    if isinstance(ref, dict) and isinstance(ref.get("name"), str):
        return ref["name"]
    path = uri_path(ref)
    return path.rsplit("/", 1)[-1] if path else "reference"
