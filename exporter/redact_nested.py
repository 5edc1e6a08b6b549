"""Secrets in text named only by a key above them: YAML such as

    credentials:
      prod:
        db: hunter2hunter2

and JSON such as ``"secrets": {"prod": {"db": "…"}}``. The rules see ``db: hunter2hunter2``
alone, which names no secret. A key that holds secrets (``redact_names.holder_rule``:
``secrets``, ``credentials``, ``api_keys``, …) is found by an RE2 search of the lines
around its word (``redact_names.HOLDER_WORDS``, found with the rules' keywords: most texts
hold none and are not searched), and only what it holds is read: the YAML lines indented
under it, one at a time, or the JSON object after it, parsed. Each value there is judged
by ``redact_names.held_secret`` (through the redactor's ``judge``); a secret found is
replaced wherever else the text holds it too.

Texts are searched as UTF-8 bytes; JSON is parsed as those bytes read as Latin-1, so
positions are byte offsets (its values are turned back into UTF-8 before they are judged).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import re2

from .redact_keywords import first_match
from .redact_names import HOLDER_TAILS, PLACEHOLDER, holder_rule
from .redact_spread import Spread, without_overlaps

# Judge(name, value, rule id): is this value, under a holder of that rule, a secret?
Judge = Callable[[str, str, str], bool]
Found = list[tuple[bytes, str]]  # secrets redacted (their bytes, their rule's id)

_TAILS = rf"(?i:{'|'.join(HOLDER_TAILS)})"
# A YAML key with nothing after it on its line (what it holds is indented below), or a
# JSON key before ``{``. ``holder_rule`` then says whether its name holds secrets.
_HOLDER = (
    rf"(?m)^([ \t]*)(?:-[ \t]+)?[\"']?([\w.-]*{_TAILS})[\"']?[ \t]*:[ \t]*(?:#[^\n]*)?\r?$"
    rf"|\"([\w.-]*{_TAILS})\"\s*:\s*\{{"
)
# A line under it: ``key: value`` (the key and the value quoted or bare) or a list's
# ``- value``. RE2: linear in the line, however long (a backreference made it quadratic).
_LEAF = (
    rb"""\A[ \t]*(?:-[ \t]+)?(?:(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'#:][^"'#:\n]*?))"""
    rb"""[ \t]*:[ \t]+|-[ \t]+)"""
    rb"""(?:"([^"\\\n]*)"|'([^'\n]*)'|([^\s#"'|>&*!{\[\]},]\S*))[ \t]*(?:\#.*)?\z"""
)
_KEY_GROUPS, _VALUE_GROUPS = (1, 2, 3), (4, 5, 6)
# A JSON string as written, escapes and all (each read again to compare with a secret).
_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')

_YAML_LINES = 5000  # lines read under one key at most
_INDENT = 4096  # how far before its word a holder's line may start, at most
Near = list[tuple[int, int]] | None  # stretches of a text (``redact_keywords.Spots``)
_DECODER = json.JSONDecoder()
_JSON_WINDOWS = (4 << 10, 64 << 10, 1 << 20)  # characters read of one object, at most


@cache
def _leaf() -> Any:
    options = re2.Options()
    options.log_errors = False
    return re2.compile(_LEAF, options)


@cache
def _holders() -> tuple[Any, Callable[[bytes, int, int], int]]:
    """The search for holders, and the cheap call that says where it first matches (most
    texts with a keyword hold no holder: one call, no match object)."""
    options = re2.Options()
    options.log_errors = False
    regex = re2.compile(_HOLDER, options)
    return regex, first_match(regex)


def redact_held(
    data: bytes,
    judge: Judge,
    counts: Counter[str] | None,
    near: Near = None,
    found: Found | None = None,
) -> bytes:
    """``data`` with each secret below a holder of secrets replaced by its placeholder
    (``counts`` gains one each, ``found`` each secret's bytes); ``data`` itself when there
    is none. Holders are looked for on the lines of the stretches ``near`` (where a
    holder's word is), else anywhere."""
    pieces: list[bytes] = []
    last = 0
    for start, end, rule_id in held_spans(data, judge, near):
        pieces += (data[last:start], PLACEHOLDER.format(rule_id).encode())
        last = end
        if counts is not None:
            counts[rule_id] += 1
        if found is not None:
            found.append((data[start:end], rule_id))
    if not pieces:
        return data
    pieces.append(data[last:])
    return b"".join(pieces)


def held_spans(data: bytes, judge: Judge, near: Near = None) -> list[tuple[int, int, str]]:
    """``(start, end, rule id)`` of each secret value below a holder of secrets in
    ``data``, in order, not overlapping (the bytes of a YAML value, a JSON string between
    its quotes), and of the same secret anywhere else in it."""
    spans: list[tuple[int, int, str]] = []
    decoded: list[tuple[str, str]] = []  # JSON strings' values (as Latin-1), by their rule
    done = 0  # what a holder before covered: a holder inside it is read with it
    latin: str | None = None
    regex, first = _holders()
    for low, high in _lines(data, near):
        start = first(data, max(low, done), high)
        for m in regex.finditer(data, start, high) if start >= 0 else ():
            if m.start() < done:
                continue
            yaml_name, json_name = m.group(2), m.group(3)
            name = (yaml_name or json_name).decode("ascii", "replace")
            rule_id = holder_rule(name)
            if rule_id is None:
                continue
            if yaml_name:
                done = _yaml(data, m.end(), len(m.group(1)), rule_id, judge, spans)
            else:
                latin = data.decode("latin-1") if latin is None else latin
                done = _json(latin, m.end() - 1, rule_id, judge, spans, decoded)
    if spans:  # the same secrets elsewhere in the text (a line that uses one), in one walk
        found = Spread(
            [(data[start:end].decode("latin-1"), rule_id) for start, end, rule_id in spans]
            + decoded  # (a JSON string's value, as written elsewhere)
        )
        spans += found.spans(data.decode("latin-1"))  # (inside a word too)
    return without_overlaps(spans)


def _lines(data: bytes, near: Near) -> list[tuple[int, int]]:
    """The stretches ``near`` (in order) widened to whole lines, merged: a holder's line
    starts before its word by its indent, and ends at a line's end. Each byte is looked
    at once."""
    if near is None:
        return [(0, len(data))]
    lines: list[tuple[int, int]] = []
    for low, high in near:
        if lines and low <= lines[-1][1]:
            if high <= lines[-1][1]:
                continue
            low = lines.pop()[0]
        else:
            back = max(0, low - _INDENT)
            low = max(data.rfind(b"\n", back, low) + 1, back)
        end = data.find(b"\n", high)
        lines.append((low, len(data) if end < 0 else end))
    return lines


def _yaml(data: bytes, pos: int, indent: int, rule_id: str, judge: Judge, spans: list) -> int:
    """The values of the lines indented more than ``indent`` from ``pos``; where they end."""
    size = len(data)
    pos = data.find(b"\n", pos) + 1 or size
    for _ in range(_YAML_LINES):
        if pos >= size:
            break
        end = data.find(b"\n", pos)
        end = size if end < 0 else end
        line = data[pos : end - 1 if data[end - 1 : end] == b"\r" else end]
        body = line.lstrip(b" \t")
        if body.strip() and not body.startswith(b"#"):
            if len(line) - len(body) <= indent:
                return pos
            leaf = _leaf().search(line)
            if leaf:
                group = next(g for g in _VALUE_GROUPS if leaf.group(g) is not None)
                value = leaf.group(group).decode("utf-8", "replace")
                key = next((leaf.group(g) for g in _KEY_GROUPS if leaf.group(g) is not None), b"")
                name = key.decode("utf-8", "replace")
                if judge(name, value, rule_id):
                    spans.append((pos + leaf.start(group), pos + leaf.end(group), rule_id))
        pos = end + 1
    return pos


def _json(text: str, brace: int, rule_id: str, judge: Judge, spans: list, decoded: list) -> int:
    """The string values of the JSON object at ``brace`` (``decoded``: each secret's value,
    found again elsewhere as it reads); where it ends (or where reading it stopped: a
    holder before that is not read again)."""
    for size in _JSON_WINDOWS:
        # Parsed from a slice of the text: a parse error counts the lines before it, so
        # the cost of one stays that of what it read, not of where it sits in the text.
        window = text[brace : brace + size]
        try:
            value, end = _DECODER.raw_decode(window)
            break
        except RecursionError:  # nested deeper than Python reads: not read
            return brace + len(window)
        except ValueError as exc:  # not JSON after all, or cut short: what was read stays
            pos = getattr(exc, "pos", 0)
            cut_short = pos >= len(window) - 64 or str(exc).startswith("Unterminated string")
            if not cut_short or brace + len(window) >= len(text):
                # A string not ended before the window's end holds no key either.
                return brace + (len(window) if cut_short else max(pos, 1))
    else:
        return brace + len(window)
    try:
        secret = {v for name, v in _strings(value, "") if judge(name, _utf8(v), rule_id)}
    except RecursionError:  # as deep as Python reads, just: not read
        return brace + end
    if secret:  # each string between its quotes, as written (escapes and all: ``\\u0026``)
        for m in _JSON_STRING.finditer(window, 0, end):
            try:
                read = json.loads(m.group())
            except ValueError:
                continue
            if read in secret:
                spans.append((brace + m.start() + 1, brace + m.end() - 1, rule_id))
        decoded.extend((v, rule_id) for v in secret if v)
    return brace + end


def _strings(value: Any, name: str) -> Iterator[tuple[str, str]]:
    """Each string in a parsed JSON value, with the key it is under (a list's items are
    under the list's key)."""
    if isinstance(value, str):
        yield _utf8(name), value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, key)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, name)


def _utf8(latin: str) -> str:
    return latin.encode("latin-1", "replace").decode("utf-8", "replace")
