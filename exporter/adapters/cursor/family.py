"""Composers of the global database that belong together (FORMATS.md §3.3): a conversation
and the composers it started, each a ``composerData:<id>`` of its own.

- A **subagent** (the Agent's ``Task`` tool, Cursor ≥ 2): a new composer whose
  ``subagentInfo`` names its ``parentComposerId``, the ``toolCallId`` of the call that
  started it and its ``subagentTypeName`` (``explore``, ``generalPurpose``, …); the parent
  lists it in ``subagentComposerIds``. Exported as the parent's subagent (``parent_id``),
  the call linked to it, as other sources' subagents are.
- A **best-of-N alternative** (one prompt run by several models side by side, each in a
  worktree of its own; also a background agent's group): ``isBestOfNSubcomposer`` with
  ``subagentInfo.parentComposerId``, listed in the parent's ``subComposerIds``. The parent
  runs the first model itself; each alternative answers the same prompt with another
  model, and Cursor shows them as tabs of the parent's chat. Not a subagent: nothing
  delegated to it, and nothing it found went back to the parent. Exported as a fork of the
  parent (``forked_from``): its note says "Forked from" the parent's, which says "Forked
  into" it.

A composer named only by its parent's list (its own ``subagentInfo`` missing: public
readers found that mark not always set) is a subagent when listed in
``subagentComposerIds``, an alternative when listed only in ``subComposerIds``.

A family is read together (one unit of placing: the parent's note first, its subagents'
beside it), in the database's key order of the parent, each child right after its parent.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC
from functools import partial
from typing import Any

from ...model import Message, MessageStream, Session, linked_message
from .._sqlite import decode_json
from ..vscode import Database

SUBAGENTS = "subagentComposerIds"
# A subagent's ``extra`` key: its parent is stored but holds no conversation, so it has no
# note (unless its Agent transcript gives one): the subagent's note says why it has none.
PARENT_EMPTY = "parent_empty"
SUB_COMPOSERS = "subComposerIds"

# The composers that name a parent or list children: a cheap filter SQLite applies to the
# text (Cursor writes JSON without spaces; a builder's ``json.dumps`` with them), each
# match then read as JSON here. A list that is empty, or holds no text, names no child.
_LINKED_SQL = (
    "SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;'"
    " AND (instr(value, '\"parentComposerId\"') > 0 OR instr(value, 'ComposerIds\":[\"') > 0"
    " OR instr(value, 'ComposerIds\": [\"') > 0)"
)


def _info(data: dict[str, Any]) -> dict[str, Any]:
    info = data.get("subagentInfo")
    return info if isinstance(info, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _listed(data: dict[str, Any], key: str) -> list[str]:
    value = data.get(key)
    return [x for x in value if isinstance(x, str) and x] if isinstance(value, list) else []


def parents(db: Database) -> dict[str, str]:
    """composer id -> the composer that started it (its own ``subagentInfo`` first, else a
    composer whose lists name it), for those the database links. Raises SourceError."""
    if "cursorDiskKV" not in db.tables:
        return {}
    named: dict[str, str] = {}
    listed: dict[str, str] = {}
    for key, raw in db.query(_LINKED_SQL):
        data = decode_json(raw)
        if not isinstance(data, dict) or not isinstance(key, str):
            continue  # (damage is said where the composer is read)
        cid = key.removeprefix("composerData:")
        parent = _text(_info(data).get("parentComposerId"))
        if parent and parent != cid:
            named[cid] = parent
        for child in _listed(data, SUBAGENTS) + _listed(data, SUB_COMPOSERS):
            if child != cid:
                listed.setdefault(child, cid)
    return {**listed, **named}


def families(cids: list[str], parent_of: dict[str, str]) -> list[list[str]]:
    """``cids`` grouped in families: each composer no other of ``cids`` started, in their
    order, followed by those it started (and theirs), depth first in the same order. Links
    that go round in a loop (damage) are broken where the loop is first met."""
    present = set(cids)
    children: dict[str, list[str]] = {}
    for cid in cids:
        parent = parent_of.get(cid)
        if parent in present and parent != cid:
            children.setdefault(parent, []).append(cid)
    placed: set[str] = set()

    def walk(root: str) -> list[str]:
        family, stack = [], [root]
        while stack:
            cid = stack.pop()
            if cid not in placed:
                placed.add(cid)
                family.append(cid)
                stack.extend(reversed(children.get(cid, [])))
        return family

    found = [walk(cid) for cid in cids if parent_of.get(cid) not in present]
    found += [walk(cid) for cid in cids if cid not in placed]
    return [family for family in found if family]


def linked_family(members: list[tuple[str, dict[str, Any], Session | None]]) -> list[Session]:
    """The sessions of one family (``families``' order: each composer's id, data and
    session, None when it holds no conversation), linked: a subagent to its parent (and
    the call that started it to it), an alternative as a fork of it. A child's parent is
    one read before it in the family, or one its ``subagentInfo`` names that is not of
    the family (not stored); a child of no known folder works in its parent's. A subagent
    whose parent holds no conversation is marked ``PARENT_EMPTY``."""
    datas = {cid: data for cid, data, _session in members}
    sessions = {cid: session for cid, _data, session in members if session}
    order = list(datas)
    kids: dict[str, list[str]] = {}
    forks: dict[str, list[str]] = {}
    calls: dict[str, dict[str, str]] = {}  # parent -> call id -> subagent
    for number, (cid, data, _session) in enumerate(members):
        earlier = order[:number]
        parent = _text(_info(data).get("parentComposerId"))
        # (one named but not of the family is not stored, or not an object: its note, if
        # another source has one, or the words that it has none; one later in the family
        # is a loop of damaged links, broken here)
        if parent in order[number:]:
            parent = None
        if parent not in earlier and not (parent and parent not in order):
            parent = next((p for p in earlier if cid in _children(datas[p])), None)
        session = sessions.get(cid)
        if parent is None or session is None:
            continue
        above = sessions.get(parent)
        if above is not None and session.project is None:
            session = replace(session, project=above.project, cwd=above.cwd)
        if _is_alternative(cid, data, datas.get(parent, {})):
            session = replace(session, forked_from=parent)
            forks.setdefault(parent, []).append(cid)
        else:
            label = _text(_info(data).get("subagentTypeName"))
            session = replace(session, parent_id=parent, agent_label=label)
            if parent in datas and above is None:  # (stored, holding no conversation)
                session = replace(session, extra={**session.extra, PARENT_EMPTY: True})
            kids.setdefault(parent, []).append(cid)
            call = _text(_info(data).get("toolCallId"))
            if call:  # (the bubble's call id is its first line: ``call_1\nfc_1``)
                calls.setdefault(parent, {})[call.split("\n", 1)[0]] = cid
        sessions[cid] = session
    for parent, session in list(sessions.items()):
        if parent in kids:
            links = calls.get(parent, {})
            messages: tuple[Message, ...] | MessageStream
            if isinstance(session.messages, MessageStream):  # (packed: ``packing``)
                messages = session.messages.mapped(partial(_linked, links))
            else:
                messages = tuple(linked_message(m, links) for m in session.messages)
            session = replace(
                session,
                messages=messages,
                subagent_ids=tuple(dict.fromkeys([*session.subagent_ids, *kids[parent]])),
            )
        if parent in forks:
            went_on = sorted((sessions[cid] for cid in forks[parent]), key=_start_order)
            session = replace(session, forks=tuple((s.session_id, "forked") for s in went_on))
        sessions[parent] = session
    return [sessions[cid] for cid in order if cid in sessions]


def _linked(links: dict[str, str], message: Message, _tally: Any) -> Message:
    """``linked_message`` as a step of a MessageStream (which passes each step a tally)."""
    return linked_message(message, links)


def _children(data: dict[str, Any]) -> list[str]:
    return _listed(data, SUBAGENTS) + _listed(data, SUB_COMPOSERS)


def _is_alternative(cid: str, data: dict[str, Any], parent: dict[str, Any]) -> bool:
    """Is this child a best-of-N alternative of its parent, not a subagent?"""
    if data.get("isBestOfNSubcomposer") is True:
        return True
    if _info(data).get("parentComposerId"):
        return False  # started by a tool call
    return cid in _listed(parent, SUB_COMPOSERS) and cid not in _listed(parent, SUBAGENTS)


def _start_order(session: Session) -> tuple[bool, str, str]:
    """The order the vault keeps a session's forks in: by start, an unknown start last."""
    start = session.started_at.astimezone(UTC).isoformat() if session.started_at else ""
    return (not start, start, session.key)
