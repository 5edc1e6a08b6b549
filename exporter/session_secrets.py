"""The secrets a session's redaction found, carried with the redacted session to where its
note is placed and written, and those of every session a run read.

A session is redacted where it is read (in a worker, or the main process), and the secrets
its spread pass looked for (``redact_sessions``) are gone from its text. What an earlier run
wrote from it may still hold them: a note's file name chosen when no rule knew the value
yet, the old titles kept in its ``aliases``, links to it, the state's records. The run that
learns a secret repairs those (``secret_paths``), so the secrets travel with the session:
in ``Session.extra`` under ``SECRETS_KEY``, which no note shows. They are never written:
not in a note, not in the state (their ``repr`` names only how many there are).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .redact_spread import Spread

if TYPE_CHECKING:
    from .model import Session

SECRETS_KEY = "ccexport_secrets"  # (in ``Session.extra``: no template or note reads it)


@dataclass(frozen=True, slots=True, repr=False)
class SessionSecrets:
    """A session's secrets (and its family's read with it), each with its rule's id, in a
    stable order: the same session read the same way pickles to the same bytes
    (``renderkey``)."""

    found: tuple[tuple[str, str], ...]

    def __repr__(self) -> str:  # (never the values: an error message may show a session)
        return f"SessionSecrets({len(self.found)})"


def with_secrets(session: Session, secrets: Mapping[str, str]) -> Session:
    """``session`` carrying ``secrets`` (value -> rule id); itself when there are none."""
    if not secrets:
        return session
    carried = SessionSecrets(tuple(sorted(secrets.items())))
    return replace(session, extra={**session.extra, SECRETS_KEY: carried})


def secrets_of(session: Session) -> tuple[tuple[str, str], ...]:
    """The secrets ``session`` carries (``with_secrets``)."""
    carried = session.extra.get(SECRETS_KEY) if session.extra else None
    return carried.found if isinstance(carried, SessionSecrets) else ()


def without_secrets(session: Session) -> Session:
    """``session`` carrying no secrets (as it is handed over to be rendered)."""
    if not session.extra or SECRETS_KEY not in session.extra:
        return session
    return replace(session, extra=without_carried(session.extra))


def without_carried(extra: Mapping[str, object]) -> dict[str, object]:
    """A session's ``extra`` without the secrets it carries (what is redacted, or shown)."""
    return {k: v for k, v in extra.items() if k != SECRETS_KEY}


class KnownSecrets:
    """Secrets found again in a text: a session's, or all a run learned so far (``add``).
    ``text`` replaces each by its placeholder, as the spread pass does."""

    def __init__(self, found: Iterable[tuple[str, str]] = ()) -> None:
        self._found: dict[str, str] = {}
        self._spread: Spread | None = None
        self.add(found)

    def add(self, found: Iterable[tuple[str, str]]) -> None:
        for value, rule_id in found:
            if value and value not in self._found:
                self._found[value] = rule_id
                self._spread = None  # (built again when next asked)

    def __bool__(self) -> bool:
        return bool(self._found)

    def __repr__(self) -> str:
        return f"KnownSecrets({len(self._found)})"

    def text(self, text: str) -> str:
        if not self._found or not text:
            return text
        if self._spread is None:
            self._spread = Spread(self._found.items())
        return self._spread.text(text)

    def after(self, scrub: Callable[[str], str]) -> Callable[[str], str]:
        """``scrub`` (a text's redaction by the rules), then these secrets (also those
        added later)."""
        return lambda text: self.text(scrub(text))
