"""A unit's facts (``SessionRef.extra``: a title an index gives, a Codex thread's name, a
Copilot or Claude Desktop title) as the state records them: redacted by the rules where
they are found (``PartRedaction.facts``), and by the secrets of the unit's sessions once
they are read (``session_secrets``), so the state keeps none of those either.

The facts are part of the fingerprint a run compares to skip a unit unread, and the next
run finds them by the rules alone, before any session is read: a recorded fact matches a
found one that holds, where the record has a placeholder the found one lacks, a value as
the spread pass looks for (``redact_spread.spreadable``). The comparison stays a matter of
the fingerprints alone: a run with nothing new reads no file for it.
"""

from __future__ import annotations

import re

from .adapters import SessionRef
from .redact_names import PLACED
from .redact_parts import PATH_FACTS
from .redact_spread import spreadable
from .session_secrets import KnownSecrets

Fingerprint = list[list[object]]


def facts_redacted(fingerprint: Fingerprint, secrets: KnownSecrets | None) -> Fingerprint:
    """``fingerprint`` with the facts it ends with (if any) redacted by ``secrets``; the
    facts that say where a unit's data is read stay as they are."""
    facts = SessionRef.facts_in(fingerprint)
    if not facts or not secrets:
        return fingerprint
    redacted = [_fact(fact, secrets) for fact in facts]
    return fingerprint if redacted == list(facts) else [*fingerprint[:-1], redacted]


def _fact(fact: str, secrets: KnownSecrets) -> str:
    name, sep, value = fact.partition("=")
    if sep and name in PATH_FACTS:
        return fact
    return f"{name}={secrets.text(value)}" if sep else secrets.text(fact)


def facts_match(recorded: list[object], found: Fingerprint) -> bool:
    """Is ``recorded`` (a fingerprint from the state) ``found``, but for its facts holding a
    placeholder where the found ones hold a secret (``facts_redacted``)?"""
    if len(recorded) != len(found) or not found or recorded[:-1] != found[:-1]:
        return False
    theirs, ours = SessionRef.facts_in(recorded), SessionRef.facts_in(found)
    if not theirs or len(theirs) != len(ours) or len(theirs) != len(found[-1]):
        return False
    return all(a == b or _redacted_of(a, b) for a, b in zip(theirs, ours, strict=True))


def _redacted_of(recorded: str, found: str) -> bool:
    """Is ``recorded`` ``found`` with values the spread pass looks for replaced by
    placeholders (a placeholder of the rules' stands for itself)?"""
    pieces = PLACED.split(recorded)[::2]  # (the rules' ids between them left out)
    if len(pieces) == 1:
        return False
    pattern = r"(\S+)".join(re.escape(piece) for piece in pieces)
    m = re.fullmatch(pattern, found)
    return m is not None and all(
        spreadable(value) or PLACED.fullmatch(value) for value in m.groups()
    )
