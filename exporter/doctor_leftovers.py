"""Secrets a note's own title says it held: for ``ccexport doctor``.

A session's spread pass redacts a value wherever the session holds it, once a rule found it
named somewhere (``api_token: …``); a note named, or retitled, before that kept the value in
its file name and in the older titles its ``aliases`` list. A run that reads the session
again renames the note and cleans its aliases (``session_secrets``). One whose source is no
longer read keeps them, and the state keeps no secret to look for. The note tells them
itself: its title (ccexport's, now redacted) holds a placeholder where an alias, or its
file name, holds a value the spread pass would have looked for (``spreadable``) between the
same words. Only such values are found: a cheap look at a note doctor reads anyway.
"""

from __future__ import annotations

import re
from typing import Any

from .redact_names import PLACED

_AROUND = 24  # characters of the title on each side of a placeholder that must match


def leftover_secrets(metadata: dict[str, Any] | None, name: str) -> dict[str, str]:
    """The values the note's redacted ``title`` stands for in its ``aliases`` or its file
    ``name``, each with the rule its placeholder names."""
    title = metadata.get("title") if metadata else None
    if not isinstance(title, str) or "[REDACTED:" not in title:
        return {}
    aliases = metadata.get("aliases") if metadata else None
    kept = [a for a in aliases if isinstance(a, str)] if isinstance(aliases, list) else []
    found: dict[str, str] = {}
    for m in PLACED.finditer(title):
        before = title[max(0, m.start() - _AROUND) : m.start()]
        after = title[m.end() : m.end() + _AROUND]
        for text, cut in [*((a, False) for a in kept), (name, True)]:
            for value in _values(before, after, text, cut):
                found.setdefault(value, m.group(1))
    return found


def _values(before: str, after: str, text: str, cut: bool) -> list[str]:
    """What stands in ``text`` between ``before`` and ``after`` (``cut``: a file name, whose
    title may end in ``…`` anywhere after the value, and go on with the note's short id),
    as the spread pass looks for it."""
    from .redact_spread import spreadable

    if cut:
        ends = [re.escape(after[:8]) if after else r"\s", "…", "$"]
        ends += [re.escape(after[:n]) + "…" for n in range(1, min(8, len(after)))]
    else:
        ends = [re.escape(after) if after else "$"]
    pattern = re.escape(before) + r"([^\s…/]+)(?=" + "|".join(ends) + ")"
    return [v for v in re.findall(pattern, text) if spreadable(v) and "REDACTED" not in v]
