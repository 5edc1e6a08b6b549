"""Cursor's wrapper tags in the text of an Agent transcript's user turn (FORMATS.md §3.7).

What the person typed sits in ``<user_query>``; ``<timestamp>`` gives the turn's time, in
ISO or as Cursor shows it (``Tuesday, Apr 28, 2026, 10:15 AM (UTC+3)``); the other
wrappers (``WRAPPERS``) are context Cursor added and are dropped from the text, except
``<attached_files>``, read for what the person attached (``attached_parts``), and
``<user_info>``, read for the folder the Agent worked in (``workspace_path``).
"""

from __future__ import annotations

import bisect
import re
from datetime import UTC, datetime, timedelta, timezone

from ...model import AttachmentPart
from .._jsonl import parse_timestamp
from .._times import Times
from .._values import trimmed

PROMPT_TAG = "user_query"
TIME_TAG = "timestamp"
WRAPPERS = ("user_info", "attached_files", "manually_attached_skills", "plugin_info", TIME_TAG)

_PROMPT = re.compile(rf"<{PROMPT_TAG}>(.*?)</{PROMPT_TAG}>", re.DOTALL)
_TIME = re.compile(rf"<{TIME_TAG}>(.*?)</{TIME_TAG}>", re.DOTALL)
# (a wrapper goes with the rest of its line, never with the indentation of the next)
_WRAPPER = re.compile(r"<({})>.*?</\1>[ \t]*\n?".format("|".join(WRAPPERS)), re.DOTALL)
_HUMAN_TIME = re.compile(
    r"(?:[A-Za-z]+,\s*)?(?P<month>[A-Za-z]{3,})\.?\s+(?P<day>\d{1,2}),?\s+(?P<year>\d{4}),?\s+"
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2}))?\s*(?P<ampm>[AaPp]\.?[Mm]\.?)?"
    r"\s*(?:\(\s*(?:UTC|GMT)\s*(?:(?P<sign>[+\-\u2212])(?P<oh>\d{1,2})(?::?(?P<om>\d{2}))?)?\s*\))?"
)
_MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}


_ATTACHED_OPEN, _ATTACHED_CLOSE = "<attached_files>", "</attached_files>"
_START_TAG = re.compile(r"<(\w+)((?:\s[^<>]*)?)>")
_END_TAG = re.compile(r"</(\w+)>")
_ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')
_USER_INFO = re.compile(r"<user_info>(.*?)</user_info>", re.DOTALL)
_WORKSPACE = re.compile(r"^[ \t]*Workspace Path:([^\n]*)", re.MULTILINE)
_FENCED = re.compile(r"^\s*(`{3,})([^\n]*)\n(.*?)\n?\1\s*$", re.DOTALL)


def _attached_blocks(text: str) -> list[str]:
    """The insides of the ``<attached_files>`` elements, found with ``str.find``: linear."""
    blocks, at = [], 0
    while (start := text.find(_ATTACHED_OPEN, at)) >= 0:
        end = text.find(_ATTACHED_CLOSE, start)
        if end < 0:
            break
        blocks.append(text[start + len(_ATTACHED_OPEN) : end])
        at = end + len(_ATTACHED_CLOSE)
    return blocks


def _children(block: str) -> list[tuple[str, str]]:
    """(attributes, body) of each top-level element of ``block``. Each start tag is matched
    with the first end tag of its name after it, looked up among all the block's end tags
    (collected in one pass), so code full of ``Vec<String>`` costs no scan per ``<``."""
    ends: dict[str, list[int]] = {}
    for m in _END_TAG.finditer(block):
        ends.setdefault(m.group(1), []).append(m.start())
    found, at = [], 0
    while m := _START_TAG.search(block, at):
        closes = ends.get(m.group(1), [])
        i = bisect.bisect_left(closes, m.end())
        if i == len(closes):
            at = m.end()  # never closed: not an element
            continue
        found.append((m.group(2), block[m.end() : closes[i]]))
        at = closes[i] + len(m.group(1)) + 3
    return found


def workspace_path(text: str) -> str | None:
    """The ``Workspace Path:`` line of the text's ``<user_info>`` preamble (the folder the
    Agent worked in, as Cursor told the model), if it has one."""
    for info in _USER_INFO.findall(text):
        found = _WORKSPACE.search(info)
        if found and found.group(1).strip():
            return found.group(1).strip()
    return None


def attached_parts(text: str) -> list[AttachmentPart]:
    """What ``<attached_files>`` holds: each ``<file_contents>``/``<code_selection>``-like
    child as a text attachment (named by its ``path``/``lines`` attributes or the
    ``path=…, lines=…`` header of its code fence), or, with no children, each line as the
    name of a file attached (Cursor kept only its path)."""
    found: list[AttachmentPart] = []
    for block in _attached_blocks(_PROMPT.sub("", text)):  # the person's words stay theirs
        children = _children(block)
        for attributes, body in children:
            attrs = dict(_ATTRIBUTE.findall(attributes))
            fenced = _FENCED.match(body)
            content = fenced.group(3) if fenced else body.strip("\n")
            header = {
                k.strip(): v.strip()
                for k, _, v in (
                    p.partition("=") for p in (fenced.group(2) if fenced else "").split(",")
                )
                if v
            }
            path = attrs.get("path") or header.get("path")
            lines = attrs.get("lines") or header.get("lines")
            name = f"{path}:{lines}" if path and lines else path or "attached file"
            found.append(
                AttachmentPart("text/plain", content.encode() if content.strip() else None, name)
            )
        if not children and "<" not in block:  # a list of paths, not unclosed elements
            for line in block.splitlines():
                name = line.strip().removeprefix("- ").strip()
                if name:
                    found.append(AttachmentPart("application/octet-stream", None, name))
    return found


def clean_user_text(
    text: str, times: Times | None = None, line: int | None = None
) -> tuple[str, datetime | None]:
    """The prompt inside Cursor's wrappers, and the time its ``<timestamp>`` tag gives (a tag
    that cannot be read is counted in ``times``, found at ``line``)."""
    stamp = _TIME.search(text)
    when = parse_cursor_time(stamp.group(1)) if stamp else None
    if stamp and when is None and times is not None:
        times.unread(stamp.group(1).strip(), line)
    queries = _PROMPT.findall(text)
    prompt = "\n\n".join(trimmed(q) for q in queries) if queries else _WRAPPER.sub("", text)
    return trimmed(prompt), when


def parse_cursor_time(text: str) -> datetime | None:
    """``Tuesday, Apr 28, 2026, 10:15 AM (UTC+3)`` (or an ISO time) as UTC; no zone = UTC."""
    text = text.strip()
    iso = parse_timestamp(text)
    if iso:
        return iso
    m = _HUMAN_TIME.search(text)
    month = _MONTHS.get(m.group("month")[:3].lower()) if m else None
    if not m or not month:
        return None
    hour = int(m.group("hour"))
    ampm = (m.group("ampm") or "").lower().replace(".", "")
    if ampm:
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    offset = timedelta(hours=int(m.group("oh") or 0), minutes=int(m.group("om") or 0))
    if m.group("sign") in ("-", "\u2212"):
        offset = -offset
    try:
        local = datetime(int(m.group("year")), month, int(m.group("day")), hour,
                         int(m.group("minute")), int(m.group("second") or 0),
                         tzinfo=timezone(offset))  # fmt: skip
    except ValueError:
        return None
    try:
        return local.astimezone(UTC)
    except OverflowError:  # year 1 east of UTC, year 9999 west of it
        return None
