"""Redacting whole sessions: the rules' pass, then, for a session where they found a
secret by what stood around it, a second pass that looks for that secret everywhere else in
it, and in the rest of its family read with it (a parent, its subagents and theirs)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .redact_spread import Spread, families, spreadable
from .session_secrets import with_secrets

if TYPE_CHECKING:
    from .model import Message, Session


class FamilyRedaction:
    """The passes over sessions; a session's strings are redacted by ``Redactor``."""

    _found: list[tuple[bytes, str]] | None
    _spread: Spread | None

    def _session(self, session: Session, counts: Counter[str] | None) -> Session:
        raise NotImplementedError

    def session(self, session: Session, counts: Counter[str] | None = None) -> Session:
        """The session with every string in it redacted (ids and times are kept), and each
        secret a rule found anywhere in it (by what stood around it: ``token="…"``) redacted
        wherever else the session holds it too, in a message before it as well: a second
        pass, only for a session with such a secret. Per session: one session's secrets do
        not redact another's text. A streamed session (``MessageStream``) is redacted as its
        messages are read, each on its own."""
        if self._found is not None or self._spread is not None or session.is_streamed:
            return self._session(session, counts)
        redacted, secrets = self._first_pass(session, counts)
        return self._spread_pass(redacted, secrets, counts)

    def sessions(
        self,
        sessions: Iterable[Session],
        counts: Counter[str],
        streamed: bool = True,
        keep: Callable[[Session], bool] | None = None,
        inherited: Callable[[Session], Iterable[tuple[str, str]]] | None = None,
    ) -> list[Session]:
        """The sessions ``keep`` keeps (all by default), read together (a unit), each
        redacted as ``session`` does, where a secret found in one is looked for in its whole
        family too: a parent, its subagents and theirs (a parent writes its subagent's task,
        and a subagent's findings come back to it), also one ``keep`` leaves out (a subagent
        that ended before ``--since``: its parent's note must not show what it named; what
        is redacted there is not counted). Sessions of no shared family stay apart: one's
        secrets redact no other's. A streamed session is redacted as its messages are read;
        one in a family with others (a Cursor family packed as it was read, a long session
        with subagents) is read once more first, for the secrets its rules find, and the
        family's are looked for in it as it is read. With ``streamed`` False it is left as it
        is (a worker's: the main process reads it). ``inherited``: the secrets of a session's
        relatives read in other units (a Codex subagent's rollout, its parent's:
        ``redact_family``), looked for across its family here as its own are."""
        sessions = list(sessions)
        kept = [keep is None or keep(s) for s in sessions]
        family = families(sessions)
        members = Counter(family.values())
        asked = {family[s.session_id] for s, k in zip(sessions, kept, strict=True) if k}
        shared: dict[str, dict[str, str]] = {}
        done: list[Session] = []
        for s, k in zip(sessions, kept, strict=True):
            if not k and (family[s.session_id] not in asked or s.is_streamed and not streamed):
                continue
            if s.is_streamed and not streamed:
                done.append(s)
                continue
            if s.is_streamed:
                alone = members[family[s.session_id]] == 1
                secrets = {} if alone else self._streamed_secrets(s)
                if k:
                    done.append(self._session(s, counts))
            else:
                redacted, secrets = self._first_pass(s, counts if k else Counter())
                if k:
                    done.append(redacted)
            if inherited is not None:
                secrets = {**dict(inherited(s)), **secrets}
            for value, rule_id in secrets.items():
                shared.setdefault(family[s.session_id], {}).setdefault(value, rule_id)
        return [
            (s if not streamed else self._spread_stream(s, shared.get(family[s.session_id], {})))
            if s.is_streamed
            else self._spread_pass(s, shared.get(family[s.session_id], {}), counts)
            for s in done
        ]

    def _streamed_secrets(self, session: Session) -> dict[str, str]:
        """The secrets the rules find in a streamed session that may be looked for across
        its family: its messages read once for them (not counted: the pass that renders
        them counts)."""
        self._found = found = []
        try:
            for _message in self._session(session, None).messages:
                pass
        finally:
            self._found = None
        return _spreadable(found)

    def _spread_stream(self, redacted: Session, secrets: dict[str, str]) -> Session:
        """A streamed session (redacted by the rules as it is read) with ``secrets`` looked
        for in its title and the like now, and in each message after the rules' pass, as it
        is read; carrying them (``session_secrets``)."""
        if not secrets:
            return redacted
        spread = Spread(secrets.items())
        stream = redacted.messages
        self._spread = spread
        try:
            fields = self._session(replace(redacted, messages=()), None)
        finally:
            self._spread = None
        source = redacted.source

        def spread_step(message: Message, tally: Any) -> Message:
            self._spread = spread
            try:
                return self.message(message, tally, source)
            finally:
                self._spread = None

        return with_secrets(replace(fields, messages=stream.mapped(spread_step)), secrets)

    def _first_pass(
        self, session: Session, counts: Counter[str] | None
    ) -> tuple[Session, dict[str, str]]:
        """The session redacted by the rules, and the secrets they found that may be looked
        for across it (``spreadable``), each with its rule's id."""
        self._found = found = []
        try:
            redacted = self._session(session, counts)
        finally:
            self._found = None
        return redacted, _spreadable(found)

    def _spread_pass(
        self, redacted: Session, secrets: dict[str, str], counts: Counter[str] | None
    ) -> Session:
        """The session with ``secrets`` redacted wherever it holds them, and carrying them
        (``session_secrets``): what an earlier run wrote of it may hold them still."""
        if not secrets:
            return redacted
        self._spread = Spread(secrets.items())
        try:
            return with_secrets(self._session(redacted, counts), secrets)
        finally:
            self._spread = None


def _spreadable(found: list[tuple[bytes, str]]) -> dict[str, str]:
    """The secrets the rules found that may be looked for across a session and its family
    (``spreadable``), each with its rule's id."""
    secrets: dict[str, str] = {}
    for secret, rule_id in found:
        value = secret.decode("utf-8", "replace")  # (a rule matches whole characters)
        if value not in secrets and spreadable(value):
            secrets[value] = rule_id
    return secrets
