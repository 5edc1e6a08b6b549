"""One Cursor Agent conversation (generation 4) and its subagents as model sessions.

Metadata, in order of trust (FORMATS.md §3.7 "Metadata recipe"):

- title: ``conversation_summaries.title`` → ``store.db``/``meta.json`` ``name`` → none (the
  note then uses the first prompt);
- working folder: the ``Workspace Path:`` of the first ``<user_info>`` preamble, when its
  slug is the project folder's name → a path the tool calls name whose slug is it → the
  reading of the slug whose MD5 names the ``chats/`` folder → the one folder Cursor
  recorded opening (``workspace.json``, composer headers) whose slug it is → an existing
  folder found by walking the slug → none: then the project is the slug as written
  (``home-me-my-app``), exact though not pretty (its last part may be half a name), and
  ``cwd`` is not known;
- times: the ``<timestamp>`` tags of the prompts, widened by ``meta.json``'s
  ``createdAtMs``…``updatedAtMs`` or ``store.db``'s ``createdAt``; with none of them, the
  file's creation time (where the system keeps one: macOS, Windows) to its modification
  time, else the modification time alone as the start, the end not known; one time known
  is the start alone, never a span of no length;
- model: ``lastUsedModel`` (not ``default``) → ``conversation_summaries.model``.

A conversation the IDE also keeps in ``state.vscdb`` (same id, with messages there) is
exported from there: that copy keeps tool results, thinking and per-message times. Its
transcript's subagents are still exported from here (the database's note is their parent),
but for one the database holds as a composer of its own.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from ...errors import Problem
from ...model import Message, NoticePart, Session, ToolCallPart
from .._jsonl import parse_timestamp
from ..base import FileStamp, LoadResult, SessionRef
from ..vscode import project_of_path
from .agent_store import (
    STATE_DB_FACT,
    WORKSPACE_FACT,
    ChatMeta,
    chat_hash,
    decode_slug,
    folder_from_hash,
    folder_from_paths,
    folder_from_workspace,
    read_chat_meta,
    slug_of,
)
from .composer import exported_composers
from .family import PARENT_EMPTY
from .transcripts import Transcript, prompt_of, read_text_transcript, read_transcript

SOURCE = "cursor"


def load_conversation(ref: SessionRef) -> LoadResult:
    result = LoadResult()
    parent_id = ref.fact("parent")
    agents = [stamp for stamp in ref.related if stamp.path.parent.name == "subagents"]
    held = _held(ref, [ref.session_id, *(stamp.path.stem for stamp in agents)])
    # A conversation the database holds is exported from there, the richer copy: a copy,
    # not a file without a conversation. Its subagents the database does not hold are
    # still exported from here, the database's note their parent.
    result.copy = ref.session_id in held
    agents = [stamp for stamp in agents if stamp.path.stem not in held]
    if result.copy and (parent_id is not None or not agents):
        return result
    main = _read(ref.main.path, result.problems)
    children = [(stamp, _read_child(stamp.path, result.problems)) for stamp in agents]
    meta = read_chat_meta(ref.related, result.problems)
    cwd = _working_folder(ref, [main, *(t for _, t in children)])
    slug = slug_of(ref.main.path)
    links = _link_children(main, [(s.path.stem, t) for s, t in children])
    summarised = ref.fact("updated")  # the summary table's updatedAt, epoch ms
    updated = parse_timestamp(int(summarised)) if summarised and summarised.isdigit() else None
    session = _session(ref.main, ref.session_id, main, meta, cwd, ref.fact("title"),
                       ref.fact("model"), parent_id, updated)  # fmt: skip
    if session.project is None and slug:  # the folder is not known: its slug, as written
        session = replace(session, project=slug)
    if parent_id is None:
        kept = tuple(child.path.stem for child, t in children if t.messages)
        told = session.messages[: len(session.messages) - len(main.messages)]
        messages = (*told, *_with_links(main.messages, links))
        session = replace(session, messages=messages, subagent_ids=kept)
    if main.messages and not result.copy:
        result.sessions.append(session)
    calls = {child: main.messages[i].parts[j] for (i, j), child in links.items()}
    for stamp, child in children:
        if not child.messages:
            continue
        call = calls.get(stamp.path.stem)
        call = call if isinstance(call, ToolCallPart) else None
        description = call.description if call else None
        label = call.input.get("subagent_type") if call and isinstance(call.input, dict) else None
        child_session = _session(stamp, stamp.path.stem, child, ChatMeta(), cwd, description,
                                 None, ref.session_id)  # fmt: skip
        result.sessions.append(
            replace(
                child_session,
                project=session.project,
                agent_label=label if isinstance(label, str) else None,
                # (its parent, in neither store with a conversation, has no note: it says why;
                # what its own transcript told, a time from its file, stays)
                extra={**child_session.extra, PARENT_EMPTY: True}
                if not (main.messages or result.copy)
                else child_session.extra,
            )  # fmt: skip
        )
    return result


def _held(ref: SessionRef, ids: list[str]) -> set[str]:
    """Which of ``ids`` the IDE's global databases (the unit's facts) hold as composers with
    a conversation: those are exported from there."""
    state_dbs = [Path(x.partition("=")[2]) for x in ref.extra if x.startswith(STATE_DB_FACT + "=")]
    return exported_composers(state_dbs, ids) if state_dbs else set()


def _read_child(path: Path, problems: list[Problem]) -> Transcript:
    """A subagent's transcript; one that cannot be read costs its own note, not its parent's."""
    try:
        return _read(path, problems)
    except OSError as exc:
        why = f"could not be read ({exc.strerror or exc}); this subagent's note is left out"
        problems.append(Problem(str(path), why, severity="error", source=SOURCE))
        return Transcript()


def _read(path: Path, problems: list[Problem]) -> Transcript:
    if path.suffix == ".txt":
        return read_text_transcript(path, problems)
    return read_transcript(path, problems)


def _working_folder(ref: SessionRef, transcripts: list[Transcript]) -> str | None:
    slug = slug_of(ref.main.path)
    if not slug:
        return None
    paths = [p for t in transcripts for p in t.paths]
    told = next((t.workspace for t in transcripts if t.workspace), None)
    return (
        folder_from_workspace(slug, told)
        or folder_from_paths(slug, paths)
        or folder_from_hash(slug, chat_hash(ref.related))
        or ref.fact(WORKSPACE_FACT)
        or decode_slug(slug)
    )


def _link_children(
    main: Transcript, children: list[tuple[str, Transcript]]
) -> dict[tuple[int, int], str]:
    """(message, part) of a delegation call -> child id: by the prompt the child received;
    a single call and a single child left over are each other's."""
    calls = {(i, j): call for i, j, call in main.delegations()}
    waiting = {cid: " ".join((t.first_prompt or "").split()) for cid, t in children if t.messages}
    links: dict[tuple[int, int], str] = {}
    for where, call in calls.items():
        prompt = " ".join((prompt_of(call) or "").split())
        child = next((cid for cid, first in waiting.items() if first and first == prompt), None)
        if child:
            links[where] = child
            del waiting[child]
    rest = [where for where in calls if where not in links]
    if len(rest) == 1 and len(waiting) == 1:
        links[rest[0]] = next(iter(waiting))
    return links


def _with_links(messages: list[Message], links: dict[tuple[int, int], str]) -> tuple[Message, ...]:
    out = list(messages)
    for (i, j), child in links.items():
        parts = list(out[i].parts)
        call = parts[j]
        if isinstance(call, ToolCallPart):
            parts[j] = replace(call, subagent_id=child)
        out[i] = replace(out[i], parts=tuple(parts))
    return tuple(out)


def _session(
    stamp: FileStamp,
    session_id: str,
    transcript: Transcript,
    meta: ChatMeta,
    cwd: str | None,
    title: str | None,
    model: str | None,
    parent_id: str | None,
    updated: datetime | None = None,
) -> Session:
    known = [*transcript.times, *(t for t in (meta.created, meta.updated, updated) if t)]
    from_file = not known
    calls = any(isinstance(p, ToolCallPart) for m in transcript.messages for p in m.parts)
    if from_file:
        known = _file_times(stamp)
    models = meta.model or model
    return Session(
        source=SOURCE,
        session_id=session_id,
        messages=(*_told(transcript, from_file), *transcript.messages),
        source_path=stamp.path,
        title=title or meta.title,
        project=project_of_path(cwd),
        cwd=cwd,
        models=(models,) if models else (),
        started_at=min(known),
        # One time is when it began (or, from the file alone, was last written): its end is
        # not known, and a span of no length would say it was.
        ended_at=max(known) if max(known) > min(known) else None,
        parent_id=parent_id,
        # (a property and a word in the header: its time is not to be taken as exact; no
        # ``errors`` where no call's outcome is kept)
        extra={
            **({"time_from_file": True} if from_file else {}),
            **({"outcomes_unknown": True} if calls and not transcript.results else {}),
        },
    )


def _told(transcript: Transcript, from_file: bool) -> tuple[Message, ...]:
    """What the note says once, before the conversation, of what the transcript does not
    keep: its times (the note's are its file's), any tool's output (so a call shown
    without one is not taken for a call that returned nothing), the thinking it keeps not."""
    said = []
    if from_file:
        said.append(
            "The transcript records no times: the time shown is its file's (when it was "
            "created or last written), which a copy or a restore changes."
        )
    calls = any(isinstance(p, ToolCallPart) for m in transcript.messages for p in m.parts)
    if calls and not transcript.results:
        said.append("Cursor's transcript keeps no tool output: each call is shown with its input.")
    if marks := transcript.thinking_marks:
        # (the mark stands for thinking Cursor does not persist, never for a missing answer)
        times = "once" if marks == 1 else f"{marks} times"
        said.append(f"Cursor keeps no thinking: its redaction mark stands in its place {times}.")
    if not said:
        return ()
    return (Message("system", (NoticePart("remark", " ".join(said)),)),)


def _file_times(stamp: FileStamp) -> list[datetime]:
    """The transcript file's creation and modification times, or the latter alone where
    the system keeps no creation time (Linux) or a copy made it later than the last write."""
    modified = datetime.fromtimestamp(stamp.mtime_ns / 1e9, UTC)
    try:
        born = getattr(stamp.path.stat(), "st_birthtime", None)
    except OSError:
        born = None
    if not born or born >= stamp.mtime_ns / 1e9:
        return [modified]
    return [datetime.fromtimestamp(born, UTC), modified]
