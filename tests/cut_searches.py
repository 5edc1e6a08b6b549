"""The two searches of a list's items that secrets10 ran on the text itself, each on its own
(a short password name cut, ``["p", "wd=", "…"]``; an item a list's words are read around,
``["mysql", "-p", "…"]``), kept as the reference for the one pass that now finds them with
the cut keywords (``redact_cut``)."""

from __future__ import annotations

from collections.abc import Iterator

import re2

from exporter.redact_cut import Cut
from exporter.redact_cut_names import _SHORT_SPELLINGS
from exporter.redact_cut_words import _COMMANDS
from exporter.redact_split import _SEPARATOR

_OPTIONS = re2.Options()
_OPTIONS.encoding = re2.Options.Encoding.LATIN1
_OPTIONS.log_errors = False


def _short_pattern():
    cuts = "|".join(s.replace("|", f"({_SEPARATOR})(?:{_SEPARATOR})?") for s in _SHORT_SPELLINGS)
    assigned = r"(?:[ \t]*(?::=|=>|=|:)|[ \t]+(?:is|was)\b)"
    return re2.compile(rf"(?:[^A-Za-z\\]|\A)((?i:{cuts})){assigned}".encode("latin-1"), _OPTIONS)


def _anchor_pattern():
    anchor = (
        r"(?:[^\"'\s,\\]*/)?(?:" + _COMMANDS + r")(?:\.exe)?(?:[ \t][^\"'\\\r\n]*)?"
        r"|(?i:is|was):?|:=|=>|=|:"
    )
    opens = "[\\[(,][ \\t]*\\\\{0,3}[\"']"
    pattern = f"(?:{_SEPARATOR}|{opens})({anchor})(?:{_SEPARATOR})"
    return re2.compile(pattern.encode("latin-1"), _OPTIONS)


_SHORT = _short_pattern()
_ANCHORS = _anchor_pattern()
_SHORT_GROUPS = range(2, 2 + len(_SHORT_SPELLINGS))


def short_names(data: bytes) -> Iterator[Cut]:
    """Each short name a list cuts: a cut at its (first) separator."""
    pos = 0
    while (m := _SHORT.search(data, pos)) is not None:
        cut = next(g for g in _SHORT_GROUPS if m.start(g) >= 0)
        yield Cut(m.start(cut), m.end(cut), "name", m.end(1))
        pos = m.end(1)


def anchors(data: bytes) -> Iterator[Cut]:
    """Each item a list's words are read around."""
    pos = 0
    while (m := _ANCHORS.search(data, pos)) is not None:
        yield Cut(m.start(1), m.end(1), "words", m.end(1))
        pos = m.end(1)
