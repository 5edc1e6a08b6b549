"""A note's render key: a digest of all its rendering reads besides the run's settings and
templates (which the run's render fingerprint covers): the session as read and redacted,
the links the planner resolved for it, and which part it is. Not its path: a note read
ahead is rendered before its path is chosen (``readunit``), and where it is is checked
apart (``NoteWriter.left_as_written``).

A unit is read again when any of its files changed, and one file may hold many sessions
(Cursor keeps every composer in one database, and writes its interface's state there all
day): a session whose key is the one its note was last written with is not rendered again
(``Same``), and its note is left as it is, as for a unit whose files did not change.

The digest is of the pickled values: the same session read the same way pickles to the
same bytes, and any difference in them gives another key (at worst, a note rendered that
need not have been). A streamed session's messages are not held, so it has no key; a note
with attachments keeps none (``NoteWriter.write_note``): one deleted or renamed in the vault
is written back or followed only where the note is written.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .state import State
    from .workers import RenderJob


@dataclass(frozen=True, slots=True)
class Same:
    """A job whose render key is its note's as last written: not rendered."""

    key: str


def render_key(job: RenderJob) -> str | None:
    """The job's render key; None where it cannot be told (a streamed session's messages
    are read where it is rendered, or a value does not pickle)."""
    from .session_secrets import without_secrets

    # (not the secrets a session carries: the key is kept in the state, which keeps none)
    session = without_secrets(job.session)
    if job.packed is not None:  # the part's messages are in the packed blob
        session = replace(session, messages=())
    elif session.is_streamed:
        return None
    try:
        data = pickle.dumps(
            (session, sorted(job.links.items()), job.part, job.packed),
            protocol=pickle.HIGHEST_PROTOCOL,
        )
    except Exception:  # noqa: BLE001  (a value no one expected: rendered, as before)
        return None
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def recorded_keys(state: State, usable: bool = True) -> dict[str, str]:
    """Note key -> the render key it was last written with ("": none yet), for each note of
    a unit the state records with several notes (of one, the key would change with every
    reading: it would only cost time, and a first export makes none). None where not
    ``usable``: a run with other settings or templates, --force or --restore renders every
    note."""
    if not usable:
        return {}
    notes = state.notes
    return {
        key: notes[key].render_key
        for unit in state.sources.values()
        if len(unit.get("notes", ())) > 1
        for key in unit["notes"]
        if key in notes
    }
