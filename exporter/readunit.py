"""What a worker does with a unit handed to it ahead of its turn (``readahead``): reads it
the way the main process would (the same adapter code, filters and redaction), renders
each session that stands alone, and a family whose links stay inside its unit at the
paths new notes get; a streamed session's parts come back packed (``packed``). The
main process places those notes, or reads the unit again itself when anything is in
doubt (``export``). Imported with the first unit sent to a worker (``readahead``), with
the note builder: the values it hands back are in ``readvalues``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from .adapters.base import SessionRef
from .model import Session, session_key
from .notenames import titled_stub
from .notes import default_relpath, has_conversation, linked_keys
from .packed import PartPacker
from .readvalues import ReadSession, ReadUnit, selected, wanted_redacted
from .renderkey import Same
from .session_secrets import without_secrets  # (the main process keeps them: not a note)
from .split import iter_parts
from .vaultpaths import safe_relpath
from .workers import RenderJob, render_job, worker_known, worker_settings

# One adapter of each kind per worker process: adapters cache per run, and a worker lives
# for one run.
_adapters: dict[type, Any] = {}


def read_units(batch: list[tuple[str, type, SessionRef]]) -> list[ReadUnit | None]:
    """In a worker: each unit of a job read (None: that one failed, whatever the reason;
    the main process reads it itself)."""
    read: list[ReadUnit | None] = []
    for unit, adapter_type, ref in batch:
        try:
            read.append(read_unit(unit, adapter_type, ref))
        except Exception:  # noqa: BLE001  (the main process reads it and reports what failed)
            read.append(None)
    return read


def read_unit(unit: str, adapter_type: type, ref: SessionRef) -> ReadUnit:
    """In a worker: the unit read, filtered and redacted, its lone sessions rendered."""
    settings, reading = worker_settings()
    adapter = _adapters.get(adapter_type)
    if adapter is None:
        adapter = _adapters[adapter_type] = adapter_type()
        use_context = getattr(adapter, "use_context", None)
        if use_context:  # as discovery told the main process's adapter
            use_context(reading.context)
    rules = reading.redactor()
    packer = None
    if getattr(adapter, "keeps_streamed", False):  # a streamed session is read once (packed)
        packer = PartPacker(reading.note_max_bytes, rules, adapter.name)
        loaded = adapter.load(ref, keep=packer)
    else:
        loaded = adapter.load(ref)
    counts: Counter[str] = Counter()
    # A streamed session the packer let go is redacted by the main process, which reads its
    # messages: it comes back as loaded, and only it does.
    sessions = wanted_redacted(
        loaded.sessions, loaded.problems, rules, reading.project, reading.since, counts,
        streamed=False,
    )  # fmt: skip
    conversations = sum(1 for s in loaded.sessions if has_conversation(s))
    kept = sum(1 for s in loaded.sessions if selected(s, reading.project, reading.since))
    family = _family_paths(sessions, settings, reading.note_max_bytes)
    if family is not None:
        read = [_rendered_at(unit, s, settings, family) for s in sessions]
    else:
        read = [_rendered(unit, s, settings, reading.note_max_bytes) for s in sessions]
    if packer is not None and any(r.session.is_streamed for r in read):
        read = [_packed(r, packer, counts) if r.session.is_streamed else r for r in read]
    return ReadUnit(
        loaded.problems,
        read,
        conversations,
        counts,
        len(loaded.sessions),
        kept,
        loaded.copy or loaded.unreadable,
        loaded.wait,
    )


def _packed(read: ReadSession, packer: PartPacker, counts: Counter[str]) -> ReadSession:
    """A streamed session with its parts packed as it was read, redacted; else as loaded."""
    found = packer.packed(read.session)
    if found is None:
        return read
    counts.update(packer.counts)
    return ReadSession(found[0], packed=found[1])


def _rendered(unit: str, session: Session, settings: Any, max_bytes: int) -> ReadSession:
    """The session's note, when nothing but its path is left to decide."""
    if session.is_streamed or linked_keys(session):
        return ReadSession(session)
    stub = _one_note(session, max_bytes)
    if stub is None:
        return ReadSession(session)
    job = RenderJob(unit, without_secrets(session), "", {}, known=worker_known(session.key))
    return _read(stub, session, render_job(job, settings))


def _one_note(session: Session, max_bytes: int) -> Session | None:
    """What placing the session's note needs (the session without its messages, with its
    title), if it makes one note; None if it is planned by the main process: in parts, or
    without a title at all ("" from a bare fence)."""
    number, _whole, last = next(iter_parts(session, max_bytes))
    if not (number == 1 and last):
        return None
    return titled_stub(session)


def _family_paths(
    sessions: list[Session], settings: Any, max_bytes: int
) -> dict[str, tuple[str, Session]] | None:
    """For a unit whose sessions link only to each other (a session and its subagents):
    each one's path as a new note (key -> (path, stub)), every parent placed before its
    subagents, as the main process places them. None when a link leaves the unit, or a
    session is streamed, in parts or untitled (then each linked session goes back whole)."""
    if any(s.is_streamed for s in sessions):
        return None  # (its messages are read where its parts are made, not here)
    keys = {s.key for s in sessions}
    if not any(linked_keys(s) for s in sessions):
        return None  # lone sessions: rendered at no path (``_rendered``)
    family: dict[str, tuple[str, Session]] = {}
    for session in sessions:
        parent = session_key(session.source, session.parent_id) if session.parent_id else None
        if not linked_keys(session) <= keys:
            return None
        if parent is not None and parent not in family:
            return None  # a subagent read before its parent
        stub = _one_note(session, max_bytes)
        if stub is None:
            return None
        parent_path = family[parent][0] if parent else None
        family[session.key] = (safe_relpath(default_relpath(stub, settings, parent_path)), stub)
    if len({path for path, _stub in family.values()}) < len(family):
        return None  # two notes would want one path: the main process decides
    return family


def _rendered_at(
    unit: str, session: Session, settings: Any, family: dict[str, tuple[str, Session]]
) -> ReadSession:
    """A family's session rendered at its path as a new note, linked to the others."""
    path, stub = family[session.key]
    links: dict[str, str | None] = {k: Path(family[k][0]).stem for k in linked_keys(session)}
    job = RenderJob(unit, without_secrets(session), path, links, known=worker_known(session.key))
    return _read(stub, session, render_job(job, settings), links)


def _read(
    stub: Session, session: Session, note: Any, links: dict[str, str | None] | None = None
) -> ReadSession:
    """A session rendered ahead: its stub beside its note; whole beside ``Same`` (its note
    is as last written), as the main process renders it after all if the file is not."""
    return ReadSession(session if isinstance(note, Same) else stub, note, links)
