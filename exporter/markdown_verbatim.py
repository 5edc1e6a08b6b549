"""Words a person typed that would need a backslash to stay text, shown as code instead.

In a person's prompt, ``src/__init__.py``, ``__main__`` or a second ``**/*.js`` on a line
hold runs of ``_`` or ``*`` that CommonMark would pair into emphasis. A backslash before
each closing run keeps them text, but the note's text then holds ``__init\\_\\_``, which
a search for ``__init__`` (Obsidian's searches the raw Markdown) does not find. Such a word
becomes a code span instead: shown as typed, found as typed, and inert (no emphasis, tag,
link or maths inside code). A word is a run of characters between white space, less the
punctuation around it (``(src/__init__.py).`` gives ``src/__init__.py``). Only a word that
reads as code is taken: a path or file name (a ``/``, or a ``.`` between letters or digits),
a dunder (``__``), or a run between two letters or digits (``a*b*c``), whose escaped run
does not close emphasis the person meant (``_meant_as_emphasis``): ``**Read tasks.md**``,
``**v1.2**``, ``*really*`` and ``_this_`` keep their backslash and their look, as do a lone
``**``, a ``***`` rule, and a word that cannot be a code span as it is (a backtick in it,
a code span of its own beside it, a table's ``|``, or a start Dataview would run: ``=``,
``$=``). A paragraph that holds a backtick of the person's outside code gets no code span
this way: that backtick would pair with the span's.
"""

from __future__ import annotations

import re

from .markdown_text import _CODE_MARK

_WORD = re.compile(r"[^\s" + _CODE_MARK + r"]+")
_AROUND = "\"'()[]{}<>.,;:!?"  # taken off a word's ends (unless escaped emphasis is there)
_NOT_CODE = re.compile(r"[`|]|^\$?=")
_STARS, _UNDERSCORES = re.compile(r"\*+"), re.compile(r"_+")
_CODE_LIKE = re.compile(r"/|[^\W_]\.[^\W_]|__|[^\W_][*_]+[^\W_]")


def verbatim_words(text: str, escaped: list[int]) -> list[tuple[int, int]]:
    """The (start, end) in ``text`` of each word to show as code, given the positions of
    the ``*`` and ``_`` escaping would put a backslash before."""
    spans: list[tuple[int, int]] = []
    for at in escaped:
        if spans and spans[-1][0] <= at < spans[-1][1]:
            continue  # (the word of an earlier run)
        word = _word_at(text, at)
        if word is not None and (not spans or word[0] >= spans[-1][1]):
            spans.append(word)
    return spans


def _word_at(text: str, at: int) -> tuple[int, int] | None:
    start, end = _start_of_word(text, at), _WORD.match(text, at).end()  # type: ignore[union-attr]
    while start < at and text[start] in _AROUND:
        start += 1
    while end - 1 > at and text[end - 1] in _AROUND:
        end -= 1
    word = text[start:end]
    # Beside a code span or a mark, the word would run into it: left with its backslash.
    touching = text[start - 1 : start] == _CODE_MARK or text[end : end + 1] == _CODE_MARK
    if touching or _NOT_CODE.search(word) or not _CODE_LIKE.search(word):
        return None
    if not any(c.isalnum() for c in word):
        return None  # (``**/*`` alone: a glob, but also what a rule of stars looks like)
    return None if _meant_as_emphasis(word, at - start) else (start, end)


def _meant_as_emphasis(word: str, at: int) -> bool:
    """Does the run escaped at ``at`` close emphasis the person meant? It ends the word,
    and it is the word's only run of its character (opened in an earlier word: ``**Read
    tasks.md**``) or the word starts with one too (``**v1.2**``, ``_a.b_``; but a dunder,
    ``__init__``, is code). A run inside the word (``src/__init__.py``, ``test_*.py``)
    closes what it never meant to."""
    runs = list((_STARS if word[at] == "*" else _UNDERSCORES).finditer(word))
    closing = next(m for m in runs if m.start() <= at < m.end())
    if closing.end() < len(word):
        return False
    if len(runs) == 1:
        return True
    first = runs[0].group()
    return runs[0].start() == 0 and (first[0] == "*" or len(first) == len(closing.group()) == 1)


def _start_of_word(text: str, at: int) -> int:
    start = at
    while start > 0 and not text[start - 1].isspace() and text[start - 1] != _CODE_MARK:
        start -= 1
    return start


def as_code(text: str, codes: list[str], words: list[tuple[int, int]]) -> tuple[str, list[str]]:
    """``text`` (code spans parked as marks, ``codes`` in their order) with each of ``words``
    parked as a code span too: the new text and every code span, in order."""
    out: list[str] = []
    spans: list[str] = []
    taken = iter(codes)
    pos = 0
    for start, end in words:
        piece = text[pos:start]
        spans.extend(next(taken) for _ in range(piece.count(_CODE_MARK)))
        out += (piece, _CODE_MARK)
        spans.append(f"`{text[start:end]}`")
        pos = end
    spans.extend(taken)  # (those after the last word)
    out.append(text[pos:])
    return "".join(out), spans
