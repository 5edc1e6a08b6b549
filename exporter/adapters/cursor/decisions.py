"""The person's decision on each edit a Cursor composer suggested: accepted or rejected.

Cursor keeps it apart from the messages (FORMATS.md §3.4-§3.6):

- ``codeBlockData`` of the composer: per file URI, its suggested code blocks with their
  ``status``: ``accepted``, ``rejected``, or ``completed`` (proposed and shown, no decision
  recorded), ``outdated``, ``cancelled``. The 2024 composers keep a list per file, one
  entry per ``version`` (a bubble's ``codeBlocks`` entry names the file and the version);
  the global database's keep an object per ``codeblockId`` (which the bubble's entry names).
- ``userResponsesToSuggestedCodeBlocks`` (2024): ``{userResponseType, filePath}`` per file
  the person answered, 1 accepted, 2 rejected. Cursor wrote ``rejected`` into
  ``codeBlockData`` only some of the time (the corpus's ``56a72d9b``: every file's answer
  2, every block still ``completed``): the answer decides the file's last block when its
  own status says nothing.
- ``toolFormerData.userDecision`` of an agent's edit call: ``accepted`` or ``rejected``.

A rejected call is shown as not run (``not_run="rejected"``: Cursor took the edit back, so
it changed nothing and ``files:`` leaves its file out); an accepted one, and the suggested
code blocks of a reply (not calls), by a ``decision`` notice (the person's, not a
harness's notification) at the end of the bubble's reply. A status that is no decision is
left unsaid.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from ...model import Message, NoticePart, ToolCallPart, ToolResultPart

_DECIDED = ("accepted", "rejected")
_ANSWERS = {1: "accepted", 2: "rejected"}


class Decisions:
    """What a composer's ``codeBlockData`` and answers say of its code blocks."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.by_id: dict[str, str] = {}  # codeblockId -> status
        self.by_version: dict[tuple[str, int], str] = {}  # (file, version) -> status
        last: dict[str, tuple[int, str]] = {}  # file -> (its last version, status)
        held = data.get("codeBlockData")
        for entries in held.values() if isinstance(held, dict) else ():
            listed = list(entries.values()) if isinstance(entries, dict) else entries
            for entry in listed if isinstance(listed, list) else []:
                if not isinstance(entry, dict) or not isinstance(entry.get("status"), str):
                    continue
                if isinstance(entry.get("codeblockId"), str):
                    self.by_id[entry["codeblockId"]] = entry["status"]
                file, version = _file(entry.get("uri")), entry.get("version")
                if file and isinstance(version, int) and not isinstance(version, bool):
                    self.by_version[(file, version)] = entry["status"]
                    if file not in last or last[file][0] < version:
                        last[file] = (version, entry["status"])
        # The answer per file decides its last block where that block's status does not.
        answers = data.get("userResponsesToSuggestedCodeBlocks")
        for answer in answers if isinstance(answers, list) else ():
            said = answer.get("userResponseType") if isinstance(answer, dict) else None
            path = answer.get("filePath") if isinstance(answer, dict) else None
            if said not in _ANSWERS or not isinstance(path, str) or not path.strip():
                continue
            tail = "/" + path.strip().replace("\\", "/").lstrip("/")
            for file, (version, status) in last.items():
                if ("/" + file).endswith(tail) and status not in _DECIDED:
                    self.by_version[(file, version)] = _ANSWERS[said]

    def __bool__(self) -> bool:
        return bool(self.by_id or self.by_version)

    def of_block(self, block: Any) -> str | None:
        """``accepted``, ``rejected`` or None for one of a bubble's ``codeBlocks``."""
        if not isinstance(block, dict):
            return None
        ident, version = block.get("codeblockId"), block.get("version")
        status = self.by_id.get(ident) if isinstance(ident, str) else None
        if status is None and isinstance(version, int):  # (a damaged value: not a key)
            status = self.by_version.get((_file(block.get("uri")) or "", version))
        return status if status in _DECIDED else None


def with_decisions(
    messages: list[Message], bubbles: list[dict[str, Any]], data: dict[str, Any], folder: str | None
) -> list[Message]:
    """``messages`` (of ``bubbles``, by their bubble ids) with the person's decisions said:
    a rejected edit call's result not run, a notice at the end of a bubble whose edits
    were decided."""
    decisions = Decisions(data)
    said: dict[str, tuple[NoticePart | None, bool]] = {}  # bubble id -> (notice, rejected call)
    for bubble in bubbles:
        ident = bubble.get("bubbleId")
        if not isinstance(ident, str):
            continue
        tool = bubble.get("toolFormerData")
        blocks = bubble.get("codeBlocks") if isinstance(bubble.get("codeBlocks"), list) else []
        files = [_shown(_file(b.get("uri")) if isinstance(b, dict) else None, folder)
                 for b in blocks]  # fmt: skip
        decision = tool.get("userDecision") if isinstance(tool, dict) else None
        if decision in _DECIDED:  # an agent's edit call
            named = next((f for f in files if f), None)
            accepted = f"The user accepted the edit of {named}." if named else None
            notice = NoticePart("decision", accepted or "The user accepted the edit.")
            said[ident] = (notice if decision == "accepted" else None, decision == "rejected")
            continue
        found: dict[str, list[str]] = {"accepted": [], "rejected": []}
        for block, file in zip(blocks, files, strict=True):
            status = decisions.of_block(block) if decisions else None
            if status and file and file not in found[status]:
                found[status].append(file)
        words = [_sentence(status, found[status]) for status in _DECIDED if found[status]]
        if words:
            said[ident] = (NoticePart("decision", " ".join(words)), False)
    if not said:
        return messages
    return list(_said(messages, said))


def _said(
    messages: list[Message], said: dict[str, tuple[NoticePart | None, bool]]
) -> Iterator[Message]:
    """The messages with each bubble's decision in place: at the end of its last message."""
    last = {m.source_id: i for i, m in enumerate(messages) if m.source_id in said}
    for index, message in enumerate(messages):
        notice, rejected = said.get(message.source_id, (None, False))  # type: ignore[arg-type]
        if rejected and message.role == "tool":
            message = replace(message, parts=tuple(
                replace(p, is_error=False, not_run="rejected")
                if isinstance(p, ToolResultPart) else p for p in message.parts))  # fmt: skip
        if last.get(message.source_id) != index:
            yield message
            continue
        if rejected and message.role == "assistant":  # a call with no result: none ran
            calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
            if calls:
                yield message
                result = ToolResultPart("", calls[-1].call_id, not_run="rejected")
                message = Message("tool", (result,), message.source_id, message.timestamp)
        # (the bubble's last message: the decision is said where its edits are, in its turn)
        yield replace(message, parts=(*message.parts, notice)) if notice else message


def _sentence(status: str, files: list[str]) -> str:
    edits = "edit" if len(files) == 1 else "edits"
    return f"The user {status} the suggested {edits} of {', '.join(files)}."


def _file(uri: Any) -> str | None:
    """A code block's file, as its URI names it (the path, ``/`` between folders)."""
    if not isinstance(uri, dict):
        return None
    for key in ("fsPath", "_fsPath", "path"):
        if isinstance(uri.get(key), str) and uri[key].strip():
            return uri[key].strip().replace("\\", "/")
    return None


def _shown(file: str | None, folder: str | None) -> str | None:
    """``file`` relative to the session's folder when it is inside it."""
    if not file or not folder:
        return file
    for flavour in (PurePosixPath, PureWindowsPath):
        full, base = flavour(file), flavour(folder.replace("\\", "/"))
        if full.is_absolute() and base.is_absolute() and full.is_relative_to(base):
            if full != base:
                return full.relative_to(base).as_posix()
    return file
