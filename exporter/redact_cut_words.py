"""A command or a sentence whose words are the items of a list of strings
(``["mysql", "-u", "root", "-p…"]``, ``["the", "password", "is", "…"]``): read as the
words written out, one space between items, as a tool's own argv list is
(``redact_values``): a value known only by a word before it in another item goes.

Looked for only where the list holds what such a reading needs: a database or login
client's name as an item (or as a path's last part, or an item's first word), or an
assignment that is an item of its own (``is``, ``was``, ``=``, ``:``). Only a secret of the
rules that read a command's flags or a name's value, lying in one item, is taken.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import Any

import re2

from .redact_cut import MARK_RE, Cut, Marked, items_before, latin1_pattern
from .redact_names import MYSQL

# The rules whose value the words before it name: command lines' flags, names' values.
SPACED_RULES = frozenset({
    "password-flag", "secret-flag", "curl-user-password", "generic-password", "generic-secret",
    "bearer-token",
})  # fmt: skip
# The clients whose argument may be a password (``redact_names.PASSWORD_COMMANDS``, and
# ``redact_commands``' ones).
_COMMANDS = (
    MYSQL + r"|sshpass|redis-cli|ssh-keygen|htpasswd|docker|podman|buildah|skopeo|nerdctl"
    r"|oras|helm|az|curl|wget|mongo(?:sh|dump|restore|export|import|stat|top|files)?|twine"
    # (``redact_commands.MORE_PASSWORD_COMMANDS``' clients, and ``gh secret set … --body``)
    r"|sqlcmd|bcp|keytool|jarsigner|(?:un)?zip|7z[ar]?|mosquitto_(?:pub|sub|rr)|openssl|gh"
)
# An item that starts such a reading: a client by name (or path, or as the item's first
# word), or an assignment of its own (``["the", "password", "is", "…"]``), between marks
# (``redact_cut``: a run of separators; or the list's opening before its first item).
_ANCHOR = (
    r"(?:[^\"'\s,\\{mark}]*/)?(?:{commands})(?:\.exe)?(?:[ \t][^\"'\\\r\n{mark}]*)?"
    r"|(?i:is|was):?|:=|=>|=|:"
)
_STRING = re2.compile(rb"[^\"'\\\r\n]{0,300}")
_MOST_ITEMS = 24  # items read on either side of an anchor
_LONGEST = 2000  # bytes of a reading


class SpacedItems:
    """The runs of list items (``separator``: a pattern of one) worth reading spaced,
    around the anchors found in ``redact_cut``'s pass (a ``MarkedFinder``)."""

    def __init__(self, separator: str) -> None:
        self._separator: Any = latin1_pattern(separator, 16 << 20)
        self._before: Any = latin1_pattern(f"(?:{separator})\\z", 16 << 20)

    def marked_pattern(self) -> str:
        anchor = _ANCHOR.format(commands=_COMMANDS, mark=MARK_RE)
        opens = "[\\[(,][ \\t]*\\\\{0,3}[\"']"  # (the list's first item)
        return f"(?:{MARK_RE}|{opens})({anchor}){MARK_RE}"

    def first_bytes(self) -> frozenset[int]:
        return frozenset(b"\0[(,")

    def found(self, m: Any, marked: Marked) -> tuple[list[Cut], int]:
        """The anchor item ``m`` holds, as a cut of the kind ``words``."""
        start, end = marked.at(m.start(1)), marked.at(m.end(1))
        return [Cut(start, end, "words", end)], m.end(1)

    def runs(self, data: bytes, anchors: list[Cut]) -> Iterator[list[tuple[int, int]]]:
        """Each run of items around an anchor (in order): their spans (none twice)."""
        last_end = -1
        for anchor in anchors:
            if anchor.cut < last_end:
                continue  # (in the run just read)
            items = self._before_items(data, anchor.cut) + [(anchor.cut, anchor.after)]
            items += self._after_items(data, anchor.after)
            last_end = items[-1][1]
            if len(items) >= 2 and items[-1][1] - items[0][0] <= _LONGEST:
                yield items

    def _before_items(self, data: bytes, pos: int) -> list[tuple[int, int]]:
        return items_before(data, pos, self._before, _STRING, _MOST_ITEMS, _LONGEST, 16)

    def _after_items(self, data: bytes, pos: int) -> list[tuple[int, int]]:
        items: list[tuple[int, int]] = []
        while len(items) < _MOST_ITEMS:
            sep = self._separator.match(data, pos)
            if sep is None:
                break
            piece = _STRING.match(data, sep.end())
            items.append(piece.span())
            pos = piece.end()
        return items


def spaced_secrets(
    data: bytes, items: list[tuple[int, int]], finds: Any
) -> list[tuple[tuple[int, int], str]]:
    """The secrets of ``SPACED_RULES`` that ``finds`` sees in the ``items`` joined by
    spaces (none after a user's name and ``:`` after curl's ``-u``: a ``user:password``
    the list cuts), each inside one item: its span in ``data``, its rule's id."""
    words = [data[a:b] for a, b in items]
    pieces, starts, at = [], [], 0
    for n, word in enumerate(words):
        glued = n + 1 < len(words) and _cut_user(words[n - 1] if n else b"", word, words[n + 1])
        pieces.append(word if glued or n + 1 == len(words) else word + b" ")
        starts.append(at)
        at += len(pieces[-1])
    joined = b"".join(pieces)
    out = []
    for secret, rule_id in finds(joined):
        if rule_id not in SPACED_RULES or not secret:
            continue
        at = joined.find(secret)
        while at != -1:
            n = bisect.bisect_right(starts, at) - 1
            a, b = items[n]
            if at + len(secret) <= starts[n] + b - a:  # (in one item)
                out.append(((a + at - starts[n], a + at - starts[n] + len(secret)), rule_id))
            at = joined.find(secret, at + 1)
    return out


# curl's user given with ``-u``/``--user``, its ``:`` ending the item (``["-u", "me:", "…"]``,
# ``["--user=me:", "…"]``): read with the next item glued, as ``curl -u me:…`` is.
_USER_FLAG = re2.compile(rb"-u|--user")
_USER = re2.compile(rb"[^\s:\"'@]{1,100}:")
_FLAG_AND_USER = re2.compile(rb"(?:.*[ \t])?(?:-u|--user)(?:[ \t]+|=)[^\s:\"'@]{1,100}:")


def _cut_user(before: bytes, item: bytes, after: bytes) -> bool:
    """Is ``item`` a user's name and ``:`` for curl's ``-u`` (the item ``before`` it, or
    its own start) whose password is the item ``after`` (not an option: ``-…``)?"""
    if not item.endswith(b":") or not after or after.startswith(b"-"):
        return False
    if _FLAG_AND_USER.fullmatch(item) is not None:
        return True
    return _USER_FLAG.fullmatch(before) is not None and _USER.fullmatch(item) is not None
