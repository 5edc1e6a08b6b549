"""Claude Code subagents linked to their parent session (FORMATS.md §1): which Task call
started which agent, read from the Task results, the ``.meta.json`` sidecars or, for the
sidechain lines written into the main file before 2.0.28, the prompt the agent answers.

Kept apart from claude_code.py, which loads the transcripts and builds the sessions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..errors import Problem, how_many
from ._values import quoted
from .base import open_regular, read_regular
from .claude_transcript import Transcript, build_transcript

WARMUP_PROMPT = "Warmup"  # the agents Claude Code 2.0 starts to prime its cache
_AGENT_ID_TAIL = re.compile(r"agentId: ([0-9a-zA-Z_-]+)")
_TASK_TOOLS = ("Task", "Agent")  # the tools that start a subagent


class TaskIndex:
    """The Task calls of a transcript, gathered one record at a time: call id -> agent id
    (from the results), call id -> (description, agent type), and the inputs of the calls
    outside sidechains (their prompts name the sidechain agents that answer them)."""

    def __init__(self) -> None:
        self.links: dict[str, str] = {}
        self.descriptions: dict[str, tuple[str | None, str | None]] = {}
        self.inputs: dict[str, dict[str, Any]] = {}

    def add(self, rec: dict[str, Any], sidechain: bool | None = None) -> None:
        """``sidechain``: whether the line is a sidechain's, as ``Sidechains`` told it."""
        message = rec.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return
        if sidechain is None:
            sidechain = rec.get("isSidechain") is True
        inputs = rec.get("type") == "assistant" and not sidechain
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if block.get("name") in _TASK_TOOLS:
                task_input = block.get("input")
                if inputs and isinstance(task_input, dict):
                    self.inputs[str(block.get("id"))] = task_input
                if kind == "tool_use":
                    data = task_input if isinstance(task_input, dict) else {}
                    # (text only: the call's input, shown in full, still holds the rest)
                    self.descriptions[str(block.get("id"))] = (
                        _text_or_none(data.get("description")),
                        _text_or_none(data.get("subagent_type")),
                    )
                    continue
            if kind == "tool_result":
                agent = _result_agent_id(rec.get("toolUseResult"), block.get("content"))
                if agent:
                    self.links[str(block.get("tool_use_id"))] = agent


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _result_agent_id(rich: Any, content: Any) -> str | None:
    if isinstance(rich, dict) and isinstance(rich.get("agentId"), str):
        return str(rich["agentId"])
    text = content if isinstance(content, str) else ""
    if isinstance(content, list):
        text = " ".join(
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    m = _AGENT_ID_TAIL.search(text) if "agentId:" in text else None
    return m.group(1) if m else None


class Sidechains:
    """Tells the sidechain lines of a main file (FORMATS.md §1.1: ``isSidechain: true``,
    written there before 2.0.28) one line at a time, in the file's order. A value that is
    neither true nor false (``null`` or none is false: not a sidechain) is damage: the line
    is taken for what its parent line is, a sidechain's below a sidechain line and the
    conversation's otherwise (a root line: the conversation keeps it, where nothing is
    lost), and said once per file (``report``), with the first such line."""

    __slots__ = ("uuids", "count", "first", "value", "side")

    def __init__(self) -> None:
        self.uuids: set[str] = set()  # the sidechain lines' (none in a newer file)
        self.count = 0
        self.first: int | None = None
        self.value: Any = None
        self.side = False  # how the first damaged line was read

    def __call__(self, rec: dict[str, Any], locate: Callable[[], object] | None = None) -> bool:
        """Is the line a sidechain's? ``locate`` tells its number, for the report."""
        value = rec.get("isSidechain")
        if value is True:
            side = True
        elif value is None or value is False:
            return False
        else:
            side = known_uuid(rec.get("parentUuid"), self.uuids)
            self.count += 1
            if self.count == 1:
                where = locate() if locate is not None else None
                self.first = where if isinstance(where, int) else None
                self.value, self.side = value, side
        uuid = rec.get("uuid")
        if side and isinstance(uuid, str):
            self.uuids.add(uuid)
        return side

    def report(self, problems: list[Problem], path: Path, source: str) -> None:
        """One warning for the file's lines whose ``isSidechain`` is damaged, if any."""
        if not self.count:
            return
        why = f"isSidechain is {quoted(self.value)}, not true or false"
        if self.count == 1:
            whose = "of the subagent its parent line is in" if self.side else "of the conversation"
            why += f": read as a line {whose}"
        else:
            why += how_many(self.count, "line")
            why += ": each read as a line of the subagent its parent line is in, else of the"
            why += " conversation"
        problems.append(Problem(str(path), why, self.first, source=source))


def child_session_ids(links: dict[str, str], main_id: str) -> dict[str, str]:
    return {call: f"{main_id}/agent-{agent}" for call, agent in links.items()}


def sidechain_groups(
    side: list[dict[str, Any]], tasks: TaskIndex, main_conversation: bool
) -> tuple[list[tuple[str, str | None, Transcript]], set[str]]:
    """The subagents written into the main file as sidechain lines (Claude Code < 2.0.28),
    grouped by their root line: (agent id, the Task call it answers or None, transcript)
    each, Warmup agents left out (the uuids of their lines come second: they belong to no
    conversation); ``tasks.links`` gains call id -> agent id for the calls found. ``side``
    holds the file's sidechain lines that have a uuid; ``main_conversation`` says whether
    any user or assistant line lies outside a sidechain."""
    warmup: set[str] = set()
    if not side or not main_conversation:
        return [], warmup
    groups: dict[str, list[dict[str, Any]]] = {}
    for rec, root in zip(side, sidechain_roots(side), strict=True):
        groups.setdefault(root, []).append(rec)
    prompts = {_prompt_of(task_input): call for call, task_input in tasks.inputs.items()}
    found = []
    for root, group in groups.items():
        transcript = build_transcript(group, {})
        if transcript.first_prompt == WARMUP_PROMPT:
            warmup.update(r["uuid"] for r in group)
            continue
        if not transcript.messages:
            continue
        agent = next((r["agentId"] for r in group if isinstance(r.get("agentId"), str)), root[:8])
        call = prompts.get((transcript.first_prompt or "").strip())
        if call:
            tasks.links[call] = agent
        found.append((agent, call, transcript))
    return found, warmup


def sidechain_roots(side: list[dict[str, Any]]) -> list[str]:
    """The root of each sidechain line: its oldest ancestor among them. A line's chain is
    walked once: every line on it gets the root found (walking each line up to its root
    costs the square of a long agent's length). A chain that loops has no oldest ancestor:
    its lines walk as many steps as there are lines, and end where that leaves them."""
    # The first line under a uuid says where its chain goes: a later line reusing it (the
    # agent's prompt written again under its answer) would make a loop, and the agent two.
    parent_of: dict[str, Any] = {}
    for r in side:
        parent_of.setdefault(r["uuid"], r.get("parentUuid"))
    roots: dict[str, str] = {}  # lines whose chain ends, by a root

    def walked(start: str) -> str:
        node, hops = start, 0
        while known_uuid(parent_of.get(node), parent_of) and hops < len(side):
            node = parent_of[node]
            hops += 1
        return node

    def root_of(start: str) -> str:
        path, on_path, node = [], set(), start
        while node not in roots:
            parent = parent_of.get(node)
            if not known_uuid(parent, parent_of):
                roots[node] = node
                break
            path.append(node)
            on_path.add(node)
            if parent in on_path:
                return walked(start)  # a loop
            node = parent
        for line in path:
            roots[line] = roots[node]
        return roots[node]

    return [root_of(r["uuid"]) for r in side]


def known_uuid(uuid: Any, known: Container[str]) -> bool:
    """``uuid in known``, for a value read from a line: a damaged one may hold anything."""
    return isinstance(uuid, str) and uuid in known


def _prompt_of(task_input: dict[str, Any]) -> str:
    prompt = task_input.get("prompt")
    return prompt.strip() if isinstance(prompt, str) else ""


@dataclass(frozen=True, slots=True)
class AgentMeta:
    """What an ``agent-<id>.meta.json`` sidecar says of its agent: the Task call that started
    it (``toolUseId``), and the call's ``subagent_type`` and ``description`` (``agentType``,
    ``description``), all three when Claude Code wrote them. The sidecar outlives the parent's
    transcript (Claude Code's cleanup, or the person, may delete the session file and keep
    its ``subagents/`` folder): then it alone still says what the Task call said."""

    tool_use_id: str | None = None
    agent_type: str | None = None
    description: str | None = None


def read_agent_meta(path: Path) -> AgentMeta:
    """The sidecar's facts; none from one that cannot be read or parsed (a value that is
    not a string, or is blank, is no fact)."""
    try:
        data = orjson.loads(read_regular(path))
    except (OSError, orjson.JSONDecodeError):
        return AgentMeta()
    if not isinstance(data, dict):
        return AgentMeta()

    def text(key: str) -> str | None:
        value = data.get(key)
        return value if isinstance(value, str) and value.strip() else None

    return AgentMeta(text("toolUseId"), text("agentType"), text("description"))


def agent_id(stem: str) -> str:
    return stem.removeprefix("agent-")


# The Task calls of a session file an older agent file names, by the file's path, size and
# time: its agents, read one by one, read the session once (a few per process).
_TASKS_OF: dict[tuple[str, int, int], TaskIndex] = {}


AgentTask = tuple[str | None, str | None, str | None]  # description, agent type, prompt


def task_prompt(tasks: TaskIndex, call: str | None) -> str | None:
    """The prompt a Task call gave its agent (None: no such call, or no prompt)."""
    prompt = _prompt_of(tasks.inputs.get(call, {})) if call else ""
    return prompt or None


def task_of_agent_file(path: Path, session_id: str | None) -> AgentTask:
    """The description, agent type and prompt of the Task call an older
    ``agent-<id>.jsonl`` (beside its session, with no sidecar) answered, from the session's
    file beside it: all None when it is gone or names no such call."""
    if not session_id or not re.fullmatch(r"[\w.-]{1,200}", session_id):
        return None, None, None
    session = path.with_name(f"{session_id}.jsonl")
    try:
        st = session.stat()
        key = (str(session), st.st_size, st.st_mtime_ns)
        index = _TASKS_OF.get(key)
        if index is None:
            index = TaskIndex()
            with open_regular(session) as f:
                for line in f:  # (line by line: a session file may be hundreds of MB)
                    if b'"Task' not in line and b'"Agent' not in line and b"agentId" not in line:
                        continue
                    try:
                        rec = orjson.loads(line)
                    except orjson.JSONDecodeError:
                        continue  # (the session's own reading reports it)
                    if isinstance(rec, dict):
                        index.add(rec)
            if len(_TASKS_OF) >= 8:
                _TASKS_OF.clear()
            _TASKS_OF[key] = index
    except OSError:
        return None, None, None
    agent = agent_id(path.stem)
    call = next((c for c, a in index.links.items() if a == agent), None)
    if not call:
        return None, None, None
    return *index.descriptions.get(call, (None, None)), task_prompt(index, call)
