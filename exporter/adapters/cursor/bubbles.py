"""Cursor's state.vscdb messages ("bubbles") as model messages (FORMATS.md §3.4).

A bubble is one message: ``type`` 1 is the person (with what they attached:
``context.py``), 2 the assistant. The assistant's bubble
may hold thinking, its text, a tool call (``toolFormerData``) with its result, and token
counts. The same shape serves all three database generations (the legacy chat panel's
bubbles are translated to it first).

Cursor writes a tool's bubble when the call starts, its ``status`` ``loading``, and sets it
to ``completed``, ``error`` or ``cancelled`` once the call is done. The chat's last calls
(the bubbles after its last text, thinking or prompt: calls made together each have their
own, and one that returned sits between two still running) that are still ``loading``,
with no result, never returned before the chat ended or was read: the note says so under
each. A call answered with nothing is ``completed``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from ...model import (
    Message,
    ModelUsage,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
    add_usage,
    usage_per_model,
)
from .._jsonl import json_or_text, json_text, parse_timestamp
from .._times import Times
from .._unanswered import UNANSWERED
from .._values import json_kind, quoted, some_text, tool_name
from .context import context_parts
from .tool_results import result_text

_BACKTICK_RUNS = re.compile(r"`+")
_LANGUAGE = re.compile(r"[\w+#.-]+")  # (languageId: python, cpp, csharp, objective-c …)


def bubble_messages(
    bubbles: list[dict[str, Any]],
    default_model: Any,
    times: Times | None = None,
    chat: str = "",
    user_dir: Path | None = None,
) -> tuple[list[Message], list[str], Usage, ModelUsage]:
    """The messages of a chat's bubbles, its models and its tokens (in all, and per model);
    ``times`` counts the times that cannot be read (each found as ``chat``'s bubble);
    ``user_dir``, the ``User`` folder read, holds the images pasted into its prompts."""
    messages: list[Message] = []
    models: list[str] = []
    usage = Usage()
    per_model: dict[str | None, Usage] = {}  # a chat can change models: each priced at its rate
    times = times or Times()
    waiting: list[int] = []  # the messages of the last calls still loading, without a result
    for number, bubble in enumerate(bubbles, start=1):
        kind = bubble.get("type")
        source_id = bubble.get("bubbleId") if isinstance(bubble.get("bubbleId"), str) else None
        timing = bubble.get("timingInfo")
        created = bubble.get("createdAt")
        stamp = bubble.get("timestamp")  # what some older bubbles carry instead
        sent = timing.get("clientRpcSendTime") if isinstance(timing, dict) else None
        when = (
            parse_timestamp(created)
            or times.unread(created, f"{chat}, bubble {source_id or number}")
            or parse_timestamp(stamp)
            or times.unread(stamp, f"{chat}, bubble {source_id or number}")
            or parse_timestamp(sent)
            or times.unread(sent, f"{chat}, bubble {source_id or number}")
        )
        where = f"{chat}, bubble {source_id or number}"
        said = bubble.get("text") or bubble.get("rawText")
        if said is not None and not isinstance(said, str):  # (a damaged bubble: said)
            times.wrong_type(f"its text is {json_kind(said)}, not text: left out", where)
        for key in ("richText", "initText"):  # where a prompt's text is when ``text`` is empty
            held = bubble.get(key)
            if held is not None and not isinstance(held, str | dict):
                times.wrong_type(f"its {key} is {json_kind(held)}, not text: left out", where)
        if isinstance(kind, bool) or kind not in (1, "1", "user", 2, "2"):  # (True == 1)
            shown = quoted(kind)
            kind = None
            why = f"its type is {shown}, not one known here: read as the assistant's"
            times.wrong_type(why, where)
        if kind in (1, "1", "user"):
            text = _user_text(bubble)
            if text:  # a bubble without text is a draft never sent, whatever it holds
                parts = (TextPart(text), *context_parts(bubble, user_dir))
                messages.append(Message("user", parts, source_id, when))
                waiting.clear()  # the chat went on: those calls were not its last
            continue
        parts: list[Part] = []
        parts += [ThinkingPart(said) for said in _thinking(bubble)]
        text = bubble.get("text") or bubble.get("rawText")
        tool = bubble.get("toolFormerData")
        if isinstance(text, str) and text.strip():
            parts.append(TextPart(text))
        elif bubble.get("codeBlocks") and not (isinstance(tool, dict) and _is_call(tool)):
            # A tool's bubble keeps the edited file whole in codeBlocks (for Cursor's diff
            # view): the call shows the change; only a reply without text is its code.
            parts += _code_blocks(bubble["codeBlocks"])
        result = None
        loading = False
        if isinstance(tool, dict) and _is_call(tool):
            call, result = _tool(tool, source_id)
            loading = result is None and tool.get("status") == "loading"
            if why := tool_name(tool.get("name"))[1]:  # shown as "tool"
                times.wrong_type(why, where)
            elif not some_text(tool.get("name")):
                times.wrong_type("a tool call has no name: shown as 'tool'", where)
            parts.append(call)
        if not parts:
            continue  # a streaming intermediate with nothing in it
        if any(isinstance(p, TextPart | ThinkingPart) for p in parts):
            waiting.clear()  # the model went on: what it waited for came, or never will
        if loading:
            waiting.append(len(messages))  # (the call is its message's last part)
        model = _model_name(bubble) or (
            default_model if default_model not in (None, "default") else None
        )
        if model and model not in models:
            models.append(model)
        messages.append(Message("assistant", tuple(parts), source_id, when, model))
        if result is not None:
            messages.append(Message("tool", (result,), source_id, when))
        tokens = bubble.get("tokenCount")
        if isinstance(tokens, dict):
            used = Usage(_int(tokens.get("inputTokens")), _int(tokens.get("outputTokens")))
            usage = usage + used
            add_usage(per_model, model, used)
    for index in waiting:
        said = messages[index]
        messages[index] = replace(said, parts=(*said.parts, UNANSWERED))
    return messages, models, usage, usage_per_model(per_model, each_with_input=True)


def _thinking(bubble: dict[str, Any]) -> list[str]:
    """A bubble's thinking: ``thinking.text``, and the texts of ``allThinkingBlocks``
    (``{text}`` or text) it does not hold already (the same text is said once)."""
    thinking = bubble.get("thinking")
    blocks = bubble.get("allThinkingBlocks")
    found = [thinking.get("text") if isinstance(thinking, dict) else None]
    if isinstance(blocks, list):
        found += [b.get("text") if isinstance(b, dict) else b for b in blocks]
    said: dict[str, str] = {}  # stripped -> as written, in order
    for text in found:
        if isinstance(text, str) and text.strip():
            said.setdefault(text.strip(), text)
    return list(said.values())


def _user_text(bubble: dict[str, Any]) -> str:
    for key in ("text", "rawText"):
        if isinstance(bubble.get(key), str) and bubble[key].strip():
            return bubble[key]
    for key in ("richText", "initText"):
        text = lexical_text(bubble.get(key))
        if text.strip():
            return text
    delegate = bubble.get("delegate")
    if isinstance(delegate, dict) and isinstance(delegate.get("a"), str):
        return delegate["a"]
    return ""


def lexical_text(value: Any) -> str:
    """Plain text of a Lexical editor state (a JSON string): paragraphs on their own lines."""
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return ""
    if not isinstance(value, dict):
        return ""
    paragraphs: list[str] = []

    def walk(node: Any, out: list[str]) -> None:
        if not isinstance(node, dict):
            return
        if isinstance(node.get("text"), str):
            out.append(node["text"])
        elif node.get("type") == "linebreak":
            out.append("\n")
        for child in node.get("children") or []:
            walk(child, out)

    for block in (value.get("root") or {}).get("children") or []:
        pieces: list[str] = []
        walk(block, pieces)
        paragraphs.append("".join(pieces))
    return "\n".join(paragraphs).strip("\n")


def _is_call(tool: dict[str, Any]) -> bool:
    """Does a ``toolFormerData`` hold a call: a name, or (its name damaged) what it was
    called with or gave back?"""
    return bool(tool.get("name") or tool.get("rawArgs") or tool.get("result"))


def _tool(
    tool: dict[str, Any], bubble_id: str | None
) -> tuple[ToolCallPart, ToolResultPart | None]:
    call_id = tool.get("toolCallId") if isinstance(tool.get("toolCallId"), str) else bubble_id
    call_id = call_id.split("\n", 1)[0] if call_id else None
    args = json_or_text(tool.get("rawArgs")) or json_or_text(tool.get("params"))
    call = ToolCallPart(tool_name(tool.get("name"))[0], args, call_id)
    status = tool.get("status")
    raw = tool.get("result")
    error = tool.get("error")
    if raw is None and status not in ("error", "cancelled") and not error:
        return call, None
    output = result_text(json_or_text(raw))
    if isinstance(error, str | dict) and not output:
        output = error if isinstance(error, str) else json_text(error)  # (never a repr)
    if status not in ("error", "cancelled") and raw is None:
        status = "error"  # (a damaged status beside an error: it failed)
    if status == "cancelled":  # stopped before it ran or finished: not an error
        return call, ToolResultPart(output, call_id, not_run="cancelled")
    return call, ToolResultPart(output, call_id, status == "error")


def _code_blocks(blocks: Any) -> list[Part]:
    """The code of a reply that has no text (2024 composers): each block as the reply's
    own fenced code, the way the reply showed it."""
    parts: list[Part] = []
    for block in blocks if isinstance(blocks, list) else []:
        content = block.get("content") if isinstance(block, dict) else None
        if isinstance(content, str) and content.strip():
            lang = block.get("languageId") if isinstance(block.get("languageId"), str) else ""
            parts.append(TextPart(_fenced(content.rstrip(), lang)))
    return parts


def _fenced(code: str, lang: str) -> str:
    """The block as the reply's Markdown had it: a fence longer than any run of backticks
    in the code, so the code cannot end it. The note builder makes a reply's text safe,
    this text with it; a language that would not read as one is left out."""
    ticks = "`" * max([3, *(len(run) + 1 for run in _BACKTICK_RUNS.findall(code))])
    info = lang if _LANGUAGE.fullmatch(lang) else ""
    return f"{ticks}{info}\n{code}\n{ticks}"


def _model_name(bubble: dict[str, Any]) -> str | None:
    info = bubble.get("modelInfo")
    name = info.get("modelName") if isinstance(info, dict) else None
    return name if isinstance(name, str) and name and name != "default" else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
