"""Escaping one paragraph's text outside its code: only the characters CommonMark or
Obsidian would act on in their position (tags, links, HTML, entities, maths, highlights,
comments, block ids, Dataview fields, emphasis pairs), so identifiers stay as typed.

``markdown.py`` calls ``_escape_text`` for the text between code spans; code itself never
reaches this module.
"""

from __future__ import annotations

import html.entities
import re
import unicodedata
from typing import Any

# A reply's headings sit below the note's turn headings (h3): its "##", the level replies
# use for their sections, becomes h4 (NOTE-EXAMPLE.md: "## Steps" became "####"), each
# level below it one more, to h6; a "#" is h4 too.
HEADING_FLOOR = 4

_ATX = re.compile(r"(#{1,6})(?=[ \t]|$)")
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LINK_START = re.compile(r"\[[^\[\]\n]*\]\((?:https?|mailto|ftp):", re.IGNORECASE)
_BLOCK_HTML = re.compile(r"^ {0,3}<[A-Za-z/!?]")
# A task box: Obsidian takes any one character between the brackets ("[?]", "[-]", "[a]":
# a theme's or the Tasks plugin's statuses), not only a space or an x.
_TASK = re.compile(r"\[(?:[ xX]\]|[^\n]\](?:[ \t]|$))")  # (" " and x as before: even unspaced)
# CommonMark raw HTML and autolinks, where ``<`` would start one.
_ATTR = r"""(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)"""
_INLINE_HTML = re.compile(
    rf"<(?:[A-Za-z][A-Za-z0-9-]*{_ATTR}*\s*/?>|/[A-Za-z][A-Za-z0-9-]*\s*>|!--|\?|![A-Za-z]"
    r"|!\[CDATA\[|[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\x00-\x20<>\x7f]*>"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*>)"
)
_ENTITY = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")
_NAMED_ENTITIES = {name.rstrip(";") for name in html.entities.html5 if name.endswith(";")}
# Obsidian: a tag is ``#`` not inside a word, then tag characters, not all digits. A block
# id is `` ^id`` at the end of a line.
_BLOCK_ID = re.compile(r"(?<!\S)\^(?=[A-Za-z0-9-]+[^\S\n]*\\?$)", re.MULTILINE)
_LINK_TAIL = re.compile(
    r"\]\(\s*(<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)
_WEB = re.compile(r"<?(?:https?|mailto|ftp):", re.IGNORECASE)
_ASCII_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_CODE_MARK = "\ue000"  # stands for one code span while text around it is escaped


# The characters some rule of ``_escape_text`` acts on (emphasis only in literal text).
_ACTS = {
    False: re.compile(r"[\\#<\[\]^%`$=~&]|::"),
    True: re.compile(r"[\\#<\[\]^%`$=~&*_]|::"),
}


class _Unsure(Exception):
    """Text that cannot be escaped with certainty: it is shown verbatim."""


def _is_punct(c: str) -> bool:
    if c in _ASCII_PUNCT or c == _CODE_MARK:
        return True
    return unicodedata.category(c)[0] in "PS"


def _escape_text(
    text: str,
    *,
    literal: bool,
    inline: bool = False,
    underlines: set[int] | None = None,
    deep: set[int] | None = None,
    plain: set[int] | None = None,
    escaped_emphasis: list[int] | None = None,
) -> str:
    """Backslashes before exactly the characters that would act in their position.

    ``text`` is one paragraph (lines start where a block could start) with each code span
    replaced by ``_CODE_MARK``; ``inline`` text is one line inside a heading or title.
    ``escaped_emphasis`` is given the positions of the ``*`` and ``_`` escaped."""
    if not underlines and not plain and not _ACTS[literal or inline].search(text):
        return text  # no character any rule below acts on (inline: emphasis too)
    n = len(text)
    slash = bytearray(n)  # 1: a backslash goes before this character
    keep = bytearray(n)  # 1: escaped by the author, or part of a web link's address
    heading: dict[int, tuple[int, str]] = {}

    i = text.find("\\")
    streak = 0  # backslashes in a row, ending at i
    while 0 <= i < n:
        streak = streak + 1 if i and text[i - 1] == "\\" else 1
        following = text[i + 1] if i + 1 < n else "\n"
        if literal and (following in _ASCII_PUNCT or following in "\n" + _CODE_MARK):
            slash[i] = True
            if following == "`" and streak % 2:
                # It was escaped, and must stay text. (After an even run of backslashes it
                # was not: escaping it would shorten its run, which could then pair as code.)
                slash[i + 1] = True
        elif not literal and following in _ASCII_PUNCT:
            keep[i] = keep[i + 1] = True
            i += 1
        i = text.find("\\", i + 1)

    def mark(at: int) -> None:
        if 0 <= at < n and not keep[at]:
            slash[at] = True

    offset = 0
    fields, carets = "::" in text, "^" in text  # most paragraphs have neither
    # Where the last "]:" starts: a line opening with "[" may begin a link reference
    # definition only if one comes after it (searched once, not once per such line).
    label_end = text.rfind("]:")
    underlined, deeper, plainer = underlines or (), deep or (), plain or ()
    for number, line in enumerate(text.split("\n")):
        # A line opening with a letter starts no block (most lines): unless it underlines.
        if not inline and not (line[:1].isalpha() and number not in underlined):
            _line_start(
                line, offset, number in underlined, mark, heading, label_end,
                number in deeper, number in plainer,
            )  # fmt: skip
        if fields:
            _dataview_fields(line, offset, mark, every=inline)
        if carets:
            for m in _BLOCK_ID.finditer(line):
                mark(offset + m.start())
        offset += len(line) + 1

    for m in _SPECIAL.finditer(text):
        at, s = m.start(), m.group(0)
        if keep[at] and len(s) > 1:
            at, s = at + 1, s[1:]  # the rest of a run whose first character is escaped
        if keep[at]:
            continue
        c = s[0]
        if c == "<":
            tag = _INLINE_HTML.match(text, at)
            if tag:
                mark(at)
                if not literal:  # (literal text escapes all emphasis below)
                    _no_emphasis_in(text, at + 1, tag.end(), mark)
        elif c == "&":
            e = _ENTITY.match(text, at)
            if e and (e.group(1)[0] == "#" or e.group(1) in _NAMED_ENTITIES):
                mark(at)
        elif c == "#":
            before = text[at - 1] if at else " "
            if not (before.isalnum() or before in "/&") and _TAG_BODY.match(text, at + 1):
                mark(at)
        elif c in "[]":
            if len(s) > 1:
                for k in range(at, at + len(s)):
                    mark(k)
            elif c == "[" and (text[at - 1 : at] == "!" or text[at + 1 : at + 2] == "^"):
                mark(at)
            elif c == "]" and text[at + 1 : at + 2] == "(":
                tail = _LINK_TAIL.match(text, at)
                if tail and _WEB.match(tail.group(1).strip()) and _opened(text, at, slash, keep):
                    for k in range(at + 1, tail.end()):
                        keep[k] = True
                else:
                    mark(at)
                    if tail and not literal:  # (literal text escapes all emphasis below)
                        _no_emphasis_in(text, at + 2, tail.end(), mark)
        elif c == "^" and text[at + 1 : at + 2] == "[":
            mark(at)
        elif c == "%" and len(s) > 1:
            for k in range(at, at + len(s)):
                mark(k)
        elif c == "`" and inline:
            for k in range(at, at + len(s)):
                mark(k)
    if inline:
        closing = re.search(r"(?<!\S)#+[ \t]*$", text)
        if closing:
            mark(closing.start())  # a heading's closing sequence would vanish
    for char in "$=~":
        _paired(text, char, keep, mark)
    if literal or inline:
        _emphasis(text, keep, slash)
        if escaped_emphasis is not None:
            escaped_emphasis.extend(
                m.start() for m in _EMPHASIS_CHAR.finditer(text) if slash[m.start()]
            )

    # The text with a backslash before each marked character and demoted headings, cut
    # at those points rather than walked character by character.
    points = set(heading)
    at = slash.find(1)
    while at >= 0:
        points.add(at)
        at = slash.find(1, at + 1)
    out: list[str] = []
    pos = 0
    for at in sorted(points):
        if at < pos:
            continue  # inside a heading's run of hashes, which was replaced
        out.append(text[pos:at])
        if at in heading:
            length, hashes = heading[at]
            out.append(hashes)
            pos = at + length
        else:
            out.append("\\")
            pos = at
    out.append(text[pos:])
    return "".join(out)


def _opened(text: str, at: int, slash: bytearray, keep: bytearray) -> bool:
    """Does the web link closing at ``at`` (its ``](``) open where its author opened it?
    Walking back over balanced brackets (``[a [b] c](…)``) and the author's escaped ones to
    the ``[`` that opens it, only if no bracket on the way was escaped here: else the ``]``
    would pair with another (an image's ``[`` is escaped, so a local link's ``[`` before it
    took the image's address) and make a link the session never had. Link text is short:
    one that goes on for ``_LINK_TEXT`` characters is made text, so the walk stays short."""
    depth = 0
    for k in range(at - 1, max(-1, at - 1 - _LINK_TEXT), -1):
        c = text[k]
        if c != "[" and c != "]":
            continue
        if slash[k]:
            return False  # a bracket escaped here: the pairs would not be the author's
        if keep[k]:
            continue  # escaped by the author (or in a web address): text either way
        if c == "]":
            depth += 1
        elif depth:
            depth -= 1
        else:
            return True
    return False


_LINK_TEXT = 1000


_THEMATIC_BREAK = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_TABLE_DELIMITER = re.compile(r"(?=[^-\n]*-)[|:-][ \t|:-]*$")  # "| --- | :-: |", "--|--"
_SPECIAL = re.compile(r"<|&|#|\[+|\]+|\^|%+|`+")
_TAG_BODY = re.compile(r"[\w/-]*(?:[^\W\d]|[/-])")


def _line_start(
    line: str,
    offset: int,
    underline: bool,
    mark: Any,
    heading: dict[int, tuple[int, str]],
    label_end: int,
    deep: bool = False,
    plain: bool = False,
) -> None:
    """Rules for the start of a block: headings are demoted; HTML blocks, definitions,
    callouts, task boxes, fences and setext underlines become text. On a ``deep`` line
    (indented four columns past its paragraph) a ``#`` run is already text: kept. On a
    ``plain`` one (an HTML block's, text now) a heading, a rule or a table's delimiter row
    becomes text too."""
    body = line.lstrip(" ")
    at = offset + (len(line) - len(body))
    m = _ATX.match(body)
    if plain and (m or _THEMATIC_BREAK.match(body) or _TABLE_DELIMITER.match(body)):
        mark(at)  # (a table's delimiter row would make the lines above it a table)
        return
    if m and not deep:
        level = len(m.group(1))
        heading[at] = (level, "#" * min(6, max(HEADING_FLOOR, level + HEADING_FLOOR - 2)))
        return
    if underline:
        if not body.strip(" -"):
            mark(at)  # one is enough: a run of hyphens pairs into nothing
            return
        for k in range(len(body.rstrip())):
            mark(at + k)  # every character: what is left of a run would still pair
        return
    # Readers that trim any white space first (no-break spaces too) see the same start.
    lead = len(body) - len(body.lstrip())
    if _BLOCK_HTML.match(body[lead:]) or body[lead:].startswith("[!") or _TASK.match(body, lead):
        mark(at + lead)
    elif body[lead:].startswith("[") and label_end >= offset and not _LINK_START.match(body[lead:]):
        mark(at + lead)  # a link reference definition, its label possibly across lines
    fence = _FENCE_LINE.match(body)
    if fence and fence.group(1)[0] == "~":
        for k in range(len(fence.group(1))):
            mark(at + k)
    elif fence and "`" not in body[len(fence.group(0)) :]:
        # The parse saw no fence here (an HTML block before it, say), but once that is
        # text this line would open one; backslashes in a backtick run would pair with
        # other runs, so the text is shown verbatim instead.
        raise _Unsure


def _no_emphasis_in(text: str, start: int, end: int, mark: Any) -> None:
    """Text that was not inline text before it was made so (a link's destination once the
    link to a local file is undone, an HTML tag or autolink once its ``<`` is escaped): its
    ``*`` and ``_`` were never emphasis, and must not become it. Every ``*`` run, and each
    ``_`` run not inside a word (``my_file`` cannot pair), gets backslashes."""
    for m in _EMPHASIS_RUN.finditer(text, start, end):
        a, b = m.span()
        if text[a] == "_" and text[a - 1 : a].isalnum() and text[b : b + 1].isalnum():
            continue
        for k in range(a, b):
            mark(k)


_EMPHASIS_RUN = re.compile(r"\*+|_+")
_EMPHASIS_CHAR = re.compile(r"[*_]")


def _dataview_fields(line: str, offset: int, mark: Any, *, every: bool = False) -> None:
    """Dataview reads ``[key:: value]`` and ``(key:: value)`` anywhere, and a line as
    ``key:: value`` at its first ``::`` when only signs (any character but a letter, a
    digit or ``_``: colons and backslashes too) and then a key come before it. So every
    ``::`` after a bracket is broken, and each ``::`` from the start of the line until one
    broken after the line's first letter or digit has left a colon in the key; in a title
    (``every``) the template's own text comes first, so every ``::`` is broken."""
    word = next((i for i, c in enumerate(line) if c.isalpha() or c in _KEY_START), len(line))
    keyed = False  # a broken ``::`` follows the first letter: no key before a later one
    opener = min((at for at in (line.find("["), line.find("(")) if at >= 0), default=len(line))
    for m in re.finditer(":{2,}", line):
        if not keyed or every or opener < m.start():
            for k in range(m.start() + 1, m.end()):
                mark(offset + k)  # no two colons left side by side
            keyed = keyed or m.start() > word


_KEY_START = frozenset("0123456789_")  # with the letters, what starts a Dataview key


def _paired(text: str, char: str, keep: bytearray, mark: Any) -> None:
    """Maths (``$``), highlights (``==``) and strikethrough (``~~``) need an opening run
    followed by text and a later closing run after text; only then are all runs escaped.
    A character its author escaped ends a run (what is left of it may still pair)."""
    if char not in text:
        return
    least = 1 if char == "$" else 2
    runs: list[tuple[int, int]] = []
    for m in re.finditer(re.escape(char) + "+", text):
        start = None
        for k in range(m.start(), m.end() + 1):
            if k < m.end() and not keep[k]:
                start = k if start is None else start
            elif start is not None:
                if k - start >= least:
                    runs.append((start, k))
                start = None
    if not runs:
        return
    display = char == "$" and sum((b - a) // 2 for a, b in runs) > 1  # $$ … $$
    opened = False
    for a, b in runs:
        after = text[b : b + 1]
        before = text[a - 1 : a] if a else ""
        if display or (opened and before and not before.isspace()):
            for start, end in runs:
                for k in range(start, end):
                    mark(k)
            return
        if after and not after.isspace():
            opened = True


def _emphasis(text: str, keep: bytearray, slash: bytearray) -> None:
    """Escape the runs of ``*`` and ``_`` that would close emphasis, in one pass.

    With no pair formed, CommonMark's process_emphasis lets a closer pair with any earlier
    run that can open, of its character, unless the rule of three forbids it (the lengths
    are whole then). So a closer is escaped exactly when such an opener is left unescaped
    before it; what is left then pairs nowhere (``**/*.ts`` and ``snake_case`` never do),
    and each escape is needed. Openers are counted by the classes that rule reads: linear
    where escaping and parsing again took a round per closer (``*a* a* a* …``)."""
    # Openers left so far, per character, per (can also close, length mod 3).
    openers = {"*": [[0, 0, 0], [0, 0, 0]], "_": [[0, 0, 0], [0, 0, 0]]}
    for m in _EMPHASIS_RUN.finditer(text):
        start, end = m.start(), m.end()
        if any(keep[start:end]) or any(slash[start:end]):
            continue  # part of the run is already text; treat the rest as text too
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        left = not after.isspace() and (
            not _is_punct(after) or before.isspace() or _is_punct(before)
        )
        right = not before.isspace() and (
            not _is_punct(before) or after.isspace() or _is_punct(after)
        )
        char = text[start]
        if char == "*":
            can_open, can_close = left, right
        else:
            can_open = left and (not right or _is_punct(before))
            can_close = right and (not left or _is_punct(after))
        mod = (end - start) % 3
        counts = openers[char]
        if can_close and any(
            counts[closes][rest]
            and not ((closes or can_open) and (rest + mod) % 3 == 0 and (rest or mod))
            for closes in (0, 1)
            for rest in (0, 1, 2)
        ):
            for k in range(start, end):
                slash[k] = True
        elif can_open:
            counts[can_close][mod] += 1
