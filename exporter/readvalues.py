"""What a unit read ahead hands back to the main process (``readunit`` reads it, in a
worker), and the filter both apply: light, as every run makes its reading settings, while
the reading itself, with the note builder, waits for the first unit read."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from .adapters.base import SourceContext
from .errors import Problem
from .model import Session
from .notespec import project_matches

if TYPE_CHECKING:
    from .options import ExportOptions
    from .packed import PackedSession
    from .redact import Redactor
    from .redact_rules import Rule
    from .workers import Outcome


@dataclass(frozen=True, slots=True)
class ReadSettings:
    """What a worker needs to read a unit as the main process would: where the sources
    are, the filters, the redaction rules and where a long session is cut into parts."""

    context: SourceContext
    project: str | None
    since: datetime | None
    redact: bool
    redact_extra: tuple[Rule, ...]
    redact_allow: tuple[str, ...]
    note_max_bytes: int

    @classmethod
    def of(cls, options: ExportOptions) -> ReadSettings:
        """As the run with these options reads."""
        return cls(
            SourceContext.for_home(options.home, options.paths, options.since, options.local_zone),
            options.project, options.since, options.redact, tuple(options.redact_extra),
            tuple(options.redact_allow), options.note_max_bytes,
        )  # fmt: skip

    def redactor(self) -> Redactor | None:
        from .redact import redactor  # the same cached rules the main process uses

        return redactor(self.redact_extra, self.redact_allow) if self.redact else None


@dataclass(slots=True)
class ReadSession:
    """A session of a unit read ahead: whole, or without its messages and with its title,
    beside its note rendered at no path yet (``note``) or its parts (``packed``)."""

    session: Session
    note: Outcome | None = None
    # A session of a family whose links stay inside its unit: its note was rendered at the
    # path the main process gives a new note, linking to the others there (key -> stem);
    # the main process checks that before using it. None: a lone session's note.
    links: dict[str, str | None] | None = None
    # A streamed session read once: its parts, cut and packed as it was read.
    packed: PackedSession | None = None


@dataclass(slots=True)
class ReadUnit:
    """A unit as the main process would have it after reading and redacting it."""

    problems: list[Problem]
    sessions: list[ReadSession]  # the sessions the filters keep, in order
    conversations: int  # sessions with a conversation, kept or not
    redactions: Counter[str]
    # Sessions read, and of them those --project and --since keep (with a conversation or
    # not): a family whose every session they leave out is none of the run's business (its
    # problems, or having no conversation, are not reported); see ``left_out``.
    held: int = 0
    selected: int = 0
    # A copy of a session another file holds, or a conversation a warning says could not be
    # read (``LoadResult.copy``, ``unreadable``): not a file "without a conversation".
    copy: bool = False
    wait: bool = False  # to be read again next run (``LoadResult.wait``)

    @property
    def left_out(self) -> bool:
        """Do the filters leave out every session of this family? (Not one without any
        session: what it held is not known.)"""
        return self.selected < self.held and self.selected == 0


def wanted(session: Session, project: str | None, since: datetime | None) -> bool:
    """Does the run export this session (a conversation, and the filters keep it)?"""
    from .notes import has_conversation

    return has_conversation(session) and selected(session, project, since)


def wanted_redacted(
    sessions: list[Session],
    problems: list[Problem],
    rules: Redactor | None,
    project: str | None,
    since: datetime | None,
    counts: Counter[str],
    streamed: bool = True,
    inherited: Callable[[Session], Iterable[tuple[str, str]]] | None = None,
) -> list[Session]:
    """The sessions of a unit (or of one family of it) the run exports, each with the lines
    of its file the reading skipped (``with_unread_lines``), redacted, each family's
    secrets looked for across all of it (``Redactor.sessions``), in a worker (``streamed``
    False: the main process redacts a streamed session) and in the main process alike
    (``inherited``: the secrets of relatives read in other units, ``redact_family``)."""
    sessions = with_unread_lines(sessions, problems)
    if rules is None:
        return [s for s in sessions if wanted(s, project, since)]
    return rules.sessions(
        sessions, counts, streamed, lambda s: wanted(s, project, since), inherited
    )


def with_unread_lines(sessions: list[Session], problems: list[Problem]) -> list[Session]:
    """Each session given the lines of its own file that could not be read at all (a
    problem ``left_out``): where that file holds this session alone (a database, or a file
    of several conversations, cannot say whose a line was), or holds it and its own
    subagents (Copilot CLI's ``events.jsonl``): the lines are the session's, whose note
    links its subagents'. A streamed session's lines are read after this, as its note is
    written: its note does not list them."""
    lines: dict[str, set[int]] = {}
    for problem in problems:
        if problem.left_out and problem.line:
            lines.setdefault(problem.path, set()).add(problem.line)
    if not lines:
        return sessions
    by_path: dict[str, list[Session]] = {}
    for session in sessions:
        by_path.setdefault(str(session.source_path), []).append(session)
    return [
        replace(s, unread_lines=tuple(sorted(lines[path])))
        if (path := str(s.source_path)) in lines
        and _holds_file(s, by_path[path])
        and not s.is_streamed
        else s
        for s in sessions
    ]


def _holds_file(session: Session, holders: list[Session]) -> bool:
    """Is ``session`` the one its file is of: alone in it, or beside its own subagents?"""
    if len(holders) == 1:
        return True
    return session.parent_id is None and all(
        other is session or other.parent_id == session.session_id for other in holders
    )


def selected(session: Session, project: str | None, since: datetime | None) -> bool:
    """Do --project and --since keep this session (a conversation or not)? A project that
    is not known matches no --project. --since keeps what ran since: a session whose end is
    not known is judged by its start (a database or a log file is touched by every session
    in it, so that its file was touched since says nothing of this one); one with neither
    is kept (the file was touched since, or discovery would have left it out)."""
    if project and not project_matches(project, session.project):
        return False
    last = session.ended_at or session.started_at
    if since and last and last < since:
        return False
    return True


def placed(note: Outcome, relpath: str) -> Outcome:
    """A note rendered ahead, at the path the main process chose for it."""
    from .notes import Note

    return note.placed_at(relpath) if isinstance(note, Note) else note
