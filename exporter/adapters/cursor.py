"""Cursor: chats in the ``state.vscdb`` databases of its user folder (FORMATS.md §3).

Where: ``~/.config/Cursor/User`` (Linux), ``~/Library/Application Support/Cursor/User``
(macOS), ``%APPDATA%\\Cursor\\User`` (Windows); all are tried under ``--home``.

Three generations, all read:

- the legacy AI-chat panel: workspace key ``workbench.panel.aichat.view.aichat.chatdata``;
- the 2024 composer kept in the workspace: ``composer.composerData`` with inline
  ``conversation`` lists;
- the current split storage in the global database's ``cursorDiskKV``: ``composerData:<id>``
  plus one ``bubbleId:<id>:<bubble>`` row per message, in ``fullConversationHeadersOnly``
  order.

One user folder is one discovery unit (the global database, every workspace database and
``workspace.json``): a composer's project can only be known by reading the workspaces. The
unit is re-read when any of those files changes; notes whose session did not change are
left alone byte for byte. Composers are read one at a time. A composer found in both the
global database and a workspace is exported once, from the global one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import orjson

from ..errors import Problem, SourceError
from ..model import (
    Message,
    Part,
    Session,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from ._jsonl import parse_timestamp
from .base import FileStamp, LoadResult, SessionRef, SourceContext
from .vscode import (
    Database,
    db_stamps,
    folder_of_workspace,
    project_of_path,
    user_dirs,
    workspace_dbs,
)

SOURCE = "cursor"
GLOBAL = "globalStorage/state.vscdb"
_CHAT_PANEL = "workbench.panel.aichat.view.aichat.chatdata"
_PANE_PREFIX = "workbench.panel.composerChatViewPane"
_VIEW_PREFIX = "workbench.panel.aichat.view."


class CursorAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Cursor"

    def roots(self, ctx: SourceContext) -> list[Path]:
        return ctx.configured(SOURCE, "User") or user_dirs(ctx, ["Cursor"])

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        for user_dir in self.roots(ctx):
            stamps: list[FileStamp] = []
            global_db = user_dir / GLOBAL
            if global_db.is_file():
                stamps += db_stamps(global_db)
            for workspace, db in workspace_dbs(user_dir):
                stamps += db_stamps(db)
                if (workspace / "workspace.json").is_file():
                    stamps.append(FileStamp.of(workspace / "workspace.json"))
            if stamps:
                extra = (f"user_dir={user_dir}",)
                yield SessionRef(SOURCE, str(user_dir), stamps[0], tuple(stamps[1:]), extra)

    def count_sessions(self, ref: SessionRef) -> int:
        """How many conversations the databases hold (for ``ccexport sources``)."""
        user_dir = Path(ref.fact("user_dir") or "")
        workspaces = _read_workspaces(user_dir, [])
        count = sum(len(composers) + len(tabs) for _, _, composers, tabs in workspaces.chats)
        try:
            with Database(user_dir / GLOBAL) as db:
                count += len(db.keys("cursorDiskKV", "composerData:"))
        except SourceError:
            pass
        return count

    def load(self, ref: SessionRef) -> LoadResult:
        result = LoadResult()
        for family in self.load_families(ref):
            result.sessions += family.sessions
            result.problems += family.problems
        return result

    def load_families(self, ref: SessionRef) -> Iterator[LoadResult]:
        """One composer (or legacy chat tab) at a time, so memory stays one session."""
        user_dir = Path(ref.fact("user_dir") or "")
        problems: list[Problem] = []
        workspaces = _read_workspaces(user_dir, problems)
        seen: set[str] = set()
        global_db = user_dir / GLOBAL
        if global_db.is_file():
            try:
                with Database(global_db) as db:
                    headers = _composer_headers(db)
                    for key in db.keys("cursorDiskKV", "composerData:"):
                        data = db.get("cursorDiskKV", key)
                        if not isinstance(data, dict):
                            continue
                        cid = key.removeprefix("composerData:")
                        seen.add(cid)
                        folder = (
                            _workspace_folder(data) or headers.get(cid) or workspaces.owner.get(cid)
                        )
                        session = _composer_session(data, cid, folder, db, global_db)
                        if session:
                            yield LoadResult([session], [])
            except SourceError as exc:
                problems.append(exc.problem(SOURCE))
        for folder, db_path, composers, tabs in workspaces.chats:
            for data in composers:
                cid = str(data.get("composerId"))
                if cid not in seen:
                    seen.add(cid)
                    session = _composer_session(data, cid, folder, None, db_path)
                    if session:
                        yield LoadResult([session], [])
            for tab in tabs:
                session = _tab_session(tab, folder, db_path)
                if session:
                    yield LoadResult([session], [])
        yield LoadResult([], problems)


class _Workspaces:
    def __init__(self) -> None:
        self.owner: dict[str, str | None] = {}  # composer id -> workspace folder
        self.chats: list[tuple[str | None, Path, list[dict[str, Any]], list[dict[str, Any]]]] = []


def _read_workspaces(user_dir: Path, problems: list[Problem]) -> _Workspaces:
    """Which workspace each composer belongs to, and the chats stored in workspaces."""
    found = _Workspaces()
    for workspace, db_path in workspace_dbs(user_dir):
        folder = folder_of_workspace(workspace)
        try:
            with Database(db_path) as db:
                composers = db.get("ItemTable", "composer.composerData")
                inline: list[dict[str, Any]] = []
                if isinstance(composers, dict):
                    for c in composers.get("allComposers") or []:
                        if isinstance(c, dict) and isinstance(c.get("composerId"), str):
                            found.owner.setdefault(c["composerId"], folder)
                            if c.get("conversation"):
                                inline.append(c)
                    for cid in composers.get("selectedComposerIds") or []:
                        if isinstance(cid, str):
                            found.owner.setdefault(cid, folder)
                for key, value in db.items("ItemTable", _PANE_PREFIX):
                    if key.endswith(".hidden") or not isinstance(value, dict):
                        continue
                    for view in value:
                        if view.startswith(_VIEW_PREFIX):
                            found.owner.setdefault(view.removeprefix(_VIEW_PREFIX), folder)
                panel = db.get("ItemTable", _CHAT_PANEL)
                tabs = [t for t in (panel or {}).get("tabs") or [] if isinstance(t, dict)]
                found.chats.append((folder, db_path, inline, tabs))
        except SourceError as exc:  # an error: the unit is read again next run
            problems.append(exc.problem(SOURCE))
    return found


def _composer_headers(db: Database) -> dict[str, str]:
    """composer id -> folder from the global ``composer.composerHeaders`` (written lazily)."""
    data = db.get("ItemTable", "composer.composerHeaders")
    entries = data.get("allComposers") if isinstance(data, dict) else data
    out = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("composerId"), str):
            folder = _workspace_folder(entry)
            if folder:
                out[entry["composerId"]] = folder
    return out


def _workspace_folder(data: dict[str, Any]) -> str | None:
    ident = data.get("workspaceIdentifier")
    uri = ident.get("uri") if isinstance(ident, dict) else None
    path = uri.get("fsPath") or uri.get("path") if isinstance(uri, dict) else None
    return path if isinstance(path, str) and path else None


def _composer_session(
    data: dict[str, Any], cid: str, folder: str | None, db: Database | None, path: Path
) -> Session | None:
    headers = data.get("fullConversationHeadersOnly")
    bubbles: list[dict[str, Any]] = []
    if isinstance(headers, list) and headers and db is not None:
        stored = {k.rsplit(":", 1)[-1]: v for k, v in db.items("cursorDiskKV", f"bubbleId:{cid}:")}
        for header in headers:
            if not isinstance(header, dict):
                continue
            if (
                isinstance(header.get("grouping"), dict)
                and header["grouping"].get("isRenderable") is False
            ):
                continue
            bubble = stored.get(str(header.get("bubbleId")))
            if isinstance(bubble, dict):
                bubbles.append(bubble)
    elif isinstance(data.get("conversation"), list):
        bubbles = [b for b in data["conversation"] if isinstance(b, dict)]
    default_model = (
        (data.get("modelConfig") or {}).get("modelName")
        if isinstance(data.get("modelConfig"), dict)
        else None
    )
    messages, models, usage = _bubble_messages(bubbles, default_model)
    if not messages:
        return None  # a composer opened but never used
    created = parse_timestamp(data.get("createdAt"))
    updated = parse_timestamp(data.get("lastUpdatedAt"))
    times = [m.timestamp for m in messages if m.timestamp]
    title = data.get("name") or data.get("subtitle")
    return Session(
        source=SOURCE,
        session_id=cid,
        messages=tuple(messages),
        source_path=path,
        title=title if isinstance(title, str) and title.strip() else None,
        project=project_of_path(folder),
        cwd=folder,
        git_branch=data.get("createdOnBranch")
        if isinstance(data.get("createdOnBranch"), str)
        else None,
        models=tuple(models),
        started_at=created or (min(times) if times else None),
        ended_at=max([t for t in (updated, *times) if t], default=created),
        usage=usage,
    )


def _bubble_messages(
    bubbles: list[dict[str, Any]], default_model: Any
) -> tuple[list[Message], list[str], Usage]:
    messages: list[Message] = []
    models: list[str] = []
    usage = Usage()
    for bubble in bubbles:
        kind = bubble.get("type")
        when = parse_timestamp(bubble.get("createdAt")) or parse_timestamp(
            (bubble.get("timingInfo") or {}).get("clientRpcSendTime")
            if isinstance(bubble.get("timingInfo"), dict)
            else None
        )
        source_id = bubble.get("bubbleId") if isinstance(bubble.get("bubbleId"), str) else None
        if kind in (1, "1", "user"):
            text = _user_text(bubble)
            if text:
                messages.append(Message("user", (TextPart(text),), source_id, when))
            continue
        parts: list[Part] = []
        thinking = bubble.get("thinking")
        if (
            isinstance(thinking, dict)
            and isinstance(thinking.get("text"), str)
            and thinking["text"].strip()
        ):
            parts.append(ThinkingPart(thinking["text"]))
        text = bubble.get("text") or bubble.get("rawText")
        if isinstance(text, str) and text.strip():
            parts.append(TextPart(text))
        elif bubble.get("codeBlocks"):
            parts += _code_blocks(bubble["codeBlocks"])
        tool = bubble.get("toolFormerData")
        result = None
        if isinstance(tool, dict) and tool.get("name"):
            call, result = _tool(tool, source_id)
            parts.append(call)
        if not parts:
            continue  # a streaming intermediate with nothing in it
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
            usage = usage + Usage(_int(tokens.get("inputTokens")), _int(tokens.get("outputTokens")))
    return messages, models, usage


def _tab_session(tab: dict[str, Any], folder: str | None, path: Path) -> Session | None:
    """A chat of the legacy AI-chat panel."""
    bubbles = []
    for b in tab.get("bubbles") or []:
        if isinstance(b, dict):
            bubbles.append({**b, "type": 1 if b.get("type") == "user" else 2,
                            "modelInfo": {"modelName": b.get("modelType")}})  # fmt: skip
    messages, models, usage = _bubble_messages(bubbles, None)
    if not messages or not isinstance(tab.get("tabId"), str):
        return None
    when = parse_timestamp(tab.get("lastSendTime"))
    title = tab.get("chatTitle")
    return Session(
        source=SOURCE,
        session_id=tab["tabId"],
        messages=tuple(messages),
        source_path=path,
        title=title if isinstance(title, str) and title.strip() else None,
        project=project_of_path(folder),
        cwd=folder,
        models=tuple(models),
        started_at=when,
        ended_at=when,
        usage=usage,
    )


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


def _tool(
    tool: dict[str, Any], bubble_id: str | None
) -> tuple[ToolCallPart, ToolResultPart | None]:
    call_id = tool.get("toolCallId") if isinstance(tool.get("toolCallId"), str) else bubble_id
    call_id = call_id.split("\n", 1)[0] if call_id else None
    args = _json_or_text(tool.get("rawArgs")) or _json_or_text(tool.get("params"))
    call = ToolCallPart(str(tool["name"]), args, call_id)
    status = tool.get("status")
    raw = tool.get("result")
    if raw is None and status not in ("error", "cancelled"):
        return call, None
    output = _result_text(_json_or_text(raw))
    if isinstance(tool.get("error"), str | dict) and not output:
        output = str(tool["error"])
    return call, ToolResultPart(output, call_id, status in ("error", "cancelled"))


def _result_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("output", "contents", "content"):
            if isinstance(value.get(key), str):
                return value[key]
    if value is None:
        return ""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def _json_or_text(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def _code_blocks(blocks: Any) -> list[Part]:
    parts: list[Part] = []
    for block in blocks if isinstance(blocks, list) else []:
        if (
            isinstance(block, dict)
            and isinstance(block.get("content"), str)
            and block["content"].strip()
        ):
            lang = block.get("languageId") if isinstance(block.get("languageId"), str) else ""
            code = block["content"].rstrip()
            ticks = "`" * max(3, 1 + max((len(r) for r in re.findall("`+", code)), default=0))
            parts.append(TextPart(f"{ticks}{lang}\n{code}\n{ticks}"))  # the reply's own code
    return parts


def _model_name(bubble: dict[str, Any]) -> str | None:
    info = bubble.get("modelInfo")
    name = info.get("modelName") if isinstance(info, dict) else None
    return name if isinstance(name, str) and name and name != "default" else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
