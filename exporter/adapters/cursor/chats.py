"""One Cursor chat of the ``state.vscdb`` databases as a session (FORMATS.md §3.1-§3.6): a
composer, its bubbles stored inline (``conversation``) or as rows of their own
(``bubbleId:<id>:<bubble>``), and its folder and branch, from the composer or from the
context its requests sent; or a tab of the legacy AI-chat panel. Finding the chats and
reading the databases in parts is ``composer.py``'s."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from ...errors import clipped
from ...model import Session
from .._jsonl import parse_timestamp
from .._times import Times
from .._values import json_kind
from ..vscode import Database, project_of_path
from .context import images_loaded
from .decisions import with_decisions

SOURCE = "cursor"


def stored_list(value: Any) -> list[Any]:
    """A stored list, or none when a damaged value holds something else."""
    return value if isinstance(value, list) else []


def composer_session(
    data: dict[str, Any],
    cid: str,
    folder: str | None,
    db: Database | None,
    path: Path,
    times: Times | None = None,
    user_dir: Path | None = None,
) -> Session | None:
    """A composer as a session; ``user_dir``, the ``User`` folder ``path`` is in, holds the
    images pasted into its prompts (None: they are named only)."""
    times = times or Times()
    headers = data.get("fullConversationHeadersOnly")
    bubbles: list[dict[str, Any]] = []
    if isinstance(headers, list) and headers and db is not None:
        bubbles = _listed_bubbles(headers, cid, db, times)
    elif isinstance(data.get("conversation"), list):
        bubbles = [b for b in data["conversation"] if isinstance(b, dict)]
    if headers is not None and not isinstance(headers, list):
        why = f"its conversation headers are {json_kind(headers)}, not a list: left out"
        times.wrong_type(why, f"composer {cid}")
    model = data.get("modelConfig")
    default_model = model.get("modelName") if isinstance(model, dict) else None
    if not isinstance(default_model, str):  # (a damaged name cost the whole database)
        default_model = None
    from .bubbles import bubble_messages  # the parser: imported when a chat is read

    messages, models, usage, per_model = bubble_messages(
        bubbles, default_model, times, f"composer {cid}", user_dir
    )
    if not messages:
        return None  # a composer opened but never used
    created, updated = data.get("createdAt"), data.get("lastUpdatedAt")
    created = parse_timestamp(created) or times.unread(created, f"composer {cid}")
    updated = parse_timestamp(updated) or times.unread(updated, f"composer {cid}")
    times = [m.timestamp for m in messages if m.timestamp]
    title = data.get("name") or data.get("subtitle")
    branch = data.get("createdOnBranch") if isinstance(data.get("createdOnBranch"), str) else None
    if db is not None and (folder is None or branch is None):
        found_folder, found_branch = request_context(db, cid)
        folder, branch = folder or found_folder, branch or found_branch
    messages = with_decisions(messages, bubbles, data, folder)  # accepted or rejected edits
    return Session(
        source=SOURCE,
        session_id=cid,
        messages=tuple(messages),
        source_path=path,
        title=title if isinstance(title, str) and title.strip() else None,
        project=project_of_path(folder),
        cwd=folder,
        git_branch=branch,
        models=tuple(models),
        started_at=created or (min(times) if times else None),
        # (A composer of one prompt and its reply often holds its creation time alone: when
        # the reply came is not known, so neither is the end.)
        ended_at=max([t for t in (updated, *times) if t], default=None),
        usage=usage,
        model_usage=per_model,
    )


def _listed_bubbles(
    headers: list[Any], cid: str, db: Database, times: Times
) -> list[dict[str, Any]]:
    """The bubbles a composer's headers list, in their order; a header or bubble that
    cannot be read is said (``times``), and left out. Headers that name no stored bubble
    are said once for the composer, counted (a composer whose bubbles are gone would
    otherwise say so once per turn)."""
    stored = {k.rsplit(":", 1)[-1]: v for k, v in db.items("cursorDiskKV", f"bubbleId:{cid}:")}
    bubbles = []
    missing: list[tuple[int, str]] = []  # (header number, bubble id)
    for number, header in enumerate(headers, start=1):
        where = f"composer {cid}, conversation header {number}"
        if not isinstance(header, dict):
            times.wrong_type(f"it is {json_kind(header)}, not an object: left out", where)
            continue
        grouping = header.get("grouping")
        if isinstance(grouping, dict) and grouping.get("isRenderable") is False:
            continue
        ident = header.get("bubbleId")
        if not isinstance(ident, str):
            times.wrong_type(f"its bubbleId is {json_kind(ident)}, not text: left out", where)
            continue
        if ident not in stored:
            missing.append((number, ident))
            continue
        bubble = stored[ident]
        if not isinstance(bubble, dict):
            times.wrong_type(
                f"its bubble {clipped(ident, 40)} is not a JSON object: left out", where
            )
            continue
        bubbles.append(bubble)
    _say_missing(missing, len(headers), cid, times)
    return bubbles


def _say_missing(missing: list[tuple[int, str]], headers: int, cid: str, times: Times) -> None:
    """One warning for the headers of composer ``cid`` that name no stored bubble."""
    if not missing:
        return
    number, ident = missing[0]
    ident = clipped(ident, 40)
    if len(missing) == 1:
        where = f"composer {cid}, conversation header {number}"
        times.wrong_type(f"its bubble {ident} is not stored: left out", where)
        return
    why = (
        f"{len(missing)} of {headers} conversation headers name no stored bubble: left out"
        f" (the first: header {number}, bubble {ident})"
    )
    times.wrong_type(why, f"composer {cid}")


_ON_BRANCH = re.compile(r"^On branch (\S+)", re.MULTILINE)


def request_context(db: Database, cid: str) -> tuple[str | None, str | None]:
    """(workspace folder, git branch) from the context Cursor sent with the composer's
    requests (``messageRequestContext:<id>:<bubble>``, FORMATS.md §3.5 item 5): the root of
    ``projectLayouts`` when the workspace had one folder, and ``git status``'s branch. For a
    composer no workspace claims (and the branch when ``createdOnBranch`` is absent)."""
    folder = branch = None
    for _key, value in db.items("cursorDiskKV", f"messageRequestContext:{cid}:"):
        if not isinstance(value, dict):
            continue
        if folder is None:
            roots = {root for layout in stored_list(value.get("projectLayouts"))
                     if (root := _layout_root(layout))}  # fmt: skip
            folder = roots.pop() if len(roots) == 1 else None
        status = value.get("gitStatusRaw")
        found = _ON_BRANCH.search(status) if isinstance(status, str) and branch is None else None
        branch = branch or (found.group(1) if found else None)
        if folder and branch:
            break
    return folder, branch


def _layout_root(layout: Any) -> str | None:
    """The absolute root folder of one ``projectLayouts`` entry (a JSON string)."""
    if isinstance(layout, str):
        try:
            layout = orjson.loads(layout)
        except orjson.JSONDecodeError:
            return None
    listing = layout.get("listDirV2Result") if isinstance(layout, dict) else None
    tree = listing.get("directoryTreeRoot") if isinstance(listing, dict) else None
    root = tree.get("absPath") if isinstance(tree, dict) else None
    return root if isinstance(root, str) and root.strip() else None


def tab_session(
    tab: dict[str, Any],
    folder: str | None,
    path: Path,
    times: Times | None = None,
    user_dir: Path | None = None,
) -> Session | None:
    """A chat of the legacy AI-chat panel (``user_dir``: as for ``composer_session``)."""
    bubbles = []
    for b in tab.get("bubbles") or []:
        if isinstance(b, dict):
            bubbles.append({**b, "type": 1 if b.get("type") == "user" else 2,
                            "modelInfo": {"modelName": b.get("modelType")}})  # fmt: skip
    from .bubbles import bubble_messages

    times, chat = times or Times(), f"chat tab {tab.get('tabId')}"
    messages, models, usage, per_model = bubble_messages(bubbles, None, times, chat, user_dir)
    if not messages or not isinstance(tab.get("tabId"), str):
        return None
    # A tab holds one time, when its last prompt was sent (no bubble has one): not when it
    # began, nor when the last reply came. The note's date, file name and place in the
    # index need a start: an image pasted into a prompt earlier tells one (when it was
    # loaded), else that time stands for it (docs/sources/cursor.md says so), and is then
    # not the end too, which read as a chat of no length ("04:37 → 04:37").
    last = parse_timestamp(tab.get("lastSendTime")) or times.unread(tab.get("lastSendTime"), chat)
    first = min((t for b in bubbles for t in images_loaded(b) if last and t < last), default=last)
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
        started_at=first,
        ended_at=last if first != last else None,
        usage=usage,
        model_usage=per_model,
    )
