"""The secrets a run redacted, counted per family read and said only of the families whose
notes the run wrote (review43 L3): after a version switch every note is rendered again and
few or none are written, and "2 secrets redacted" spoke of notes left as they were."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from .vault import Action, Change

# The changes that put a note's text in the vault (as the summary's "written" counts them).
_WRITTEN = (Action.CREATED, Action.RENAMED, Action.UPDATED, Action.CONFLICT)


def _session_key(note_key: str) -> str:
    """The session a note is of: a later part's key is its session's with ``#partN``."""
    return note_key.partition("#part")[0]


class RedactionTally:
    """Secrets redacted, per family of sessions read together (they redact each other's
    text, so their counts are not told apart); a streamed session's are added as its
    messages are read, to its family's count."""

    def __init__(self) -> None:
        self._families: list[Counter[str]] = []
        self._family_of: dict[str, int] = {}  # session key -> its family's count

    def family(self, session_keys: Iterable[str], counts: Counter[str]) -> None:
        """A family read: its sessions and the secrets redacted in them."""
        self._families.append(Counter(counts))
        for key in session_keys:
            self._family_of[key] = len(self._families) - 1

    def of(self, session_key: str) -> Counter[str]:
        """The count a session's secrets go to as its messages are read (a streamed one);
        a session of no family read here gets a count of its own."""
        if session_key not in self._family_of:
            self.family([session_key], Counter())
        return self._families[self._family_of[session_key]]

    def in_written(self, changes: Iterable[Change]) -> dict[str, int]:
        """The secrets of the families of which some note was written (or, a dry run's,
        would be), per rule."""
        families = {
            self._family_of[key]
            for change in changes
            if change.action in _WRITTEN and (key := _session_key(change.key)) in self._family_of
        }
        total: Counter[str] = Counter()
        for family in sorted(families):
            total.update(self._families[family])
        return dict(+total)
