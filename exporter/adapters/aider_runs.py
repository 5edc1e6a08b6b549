"""An Aider chat log cut into runs at its ``# aider chat started at`` headers, each dated by
its header, and where an Aider exited with another's lines after it; the runs grouped into
sessions: all that discovery needs (aider.py), without the log parser (aider_log.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from ..errors import Problem
from .aider import SOURCE

_HEADER = re.compile(rb"^# aider chat started at (.*?)[ \t]*\r?$", re.M)


@dataclass(slots=True)
class Run:
    """One ``aider`` launch: its header's time text, where it is, and its lines."""

    header: str | None
    first_line: int  # 1-based line number of the header (or 1 for text before any header)
    start: int = 0  # byte offsets in the log
    end: int = 0
    lines: list[str] = field(default_factory=list)
    # Lines another Aider logged after this run's Aider exited (``cut_at_exits``): the line
    # of that exit, and where ``join_runs`` put them: "reply", "costs" or "" (their own).
    exited: int = 0
    joined: str = ""


def split_runs(raw: bytes, lines: bool = True) -> Iterator[Run]:
    """The log cut at its headers; text before the first header is a run without one.
    ``lines``: decode each run's lines (discovery only needs where runs are)."""
    starts = list(_HEADER.finditer(raw))
    if not starts or raw[: starts[0].start()].strip():
        end = starts[0].start() if starts else len(raw)
        yield Run(None, 1, 0, end, _lines(raw[:end]) if lines else [])
    line_no, counted = 1, 0
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(raw)
        line_no += raw.count(b"\n", counted, match.start())
        counted = match.start()
        header = match.group(1).decode("utf-8", "replace")
        body = _lines(raw[match.end() : end]) if lines else []
        yield Run(header, line_no, match.start(), end, body)


def _lines(chunk: bytes) -> list[str]:
    return chunk.decode("utf-8", "replace").splitlines()


def parse_header(header: str | None, zone: tzinfo | None = None) -> datetime | None:
    """A header's local time as UTC (Aider writes this machine's local time, no zone)."""
    try:
        return as_utc(datetime.strptime(header or "", "%Y-%m-%d %H:%M:%S"), zone)
    except (ValueError, OverflowError, OSError):  # no such time here (year 1 east of UTC)
        return None


def as_utc(local: datetime, zone: tzinfo | None) -> datetime:
    """A local time without a zone, in UTC: read in ``zone``, the vault's (the machine's,
    kept from its first export: a run with another ``TZ`` reads it alike), else in this
    process's local time."""
    return (local.replace(tzinfo=zone) if zone else local.astimezone()).astimezone(UTC)


def header_time(
    run: Run, path: Path, problems: list[Problem], zone: tzinfo | None = None
) -> datetime | None:
    started = parse_header(run.header, zone)
    if run.header is not None and started is None:
        problems.append(
            Problem(str(path), f"unreadable session start {run.header!r}; the session is undated",
                    run.first_line, "warning", SOURCE)
        )  # fmt: skip
    return started


PROMPT = re.compile(rb"^####", re.M)
# What a run without a prompt did to the code: an edit applied, a commit made.
ACTION = re.compile(rb"^> (?:Applied edit to |Commit [0-9a-f]{7,40}\b)", re.M)
_REQUEST = re.compile(rb"^> Tokens: ", re.M)  # a request to the model was answered


def _one_shot(options: bytes) -> re.Pattern[bytes]:
    """An Aider started with one of ``options`` (``a|b``) on its command line."""
    return re.compile(
        rb"^> \S*aider(?:\.exe|-chat)?\b[^\n]*\s(?:" + options + rb")(?:[\s=]|$)", re.M
    )


# A one-shot Aider that asks the model itself (lint or test fixes, a --message, a commit
# message): its requests are its own, never the run before going on.
_ASKS_ITSELF = rb"--lint|--test|--message|--msg|-m|--message-file|-f|--commit"
_OWN_REQUESTS = _one_shot(_ASKS_ITSELF)
# A usage line's cost: the request's, and Aider's running total for its process so far.
# On Aider's own usage line, its cost maybe on the next line (a prompt or reply quoting one
# is no cost of this process).
_USAGE = rb"^> Tokens: [^\n]*?(?:\n(?:> ?)?)?"
_COSTS = re.compile(_USAGE + rb"Cost: \$([\d.,]+) (?:request|message), \$([\d.,]+) session", re.M)
_TOTAL = re.compile(_USAGE + rb"Cost: [^\n]*?\$([\d.,]+) session", re.M)
_ROUNDING = 0.015  # Aider prints both to the cent: the sum of two may be off by this
# A one-shot Aider that changes the code itself; another one that printed a commit
# (``--show-prompt``, ``--exit``) printed the one of the Aider that was running.
_CHANGES_ITSELF = _one_shot(_ASKS_ITSELF + rb"|--apply")
# A prompt that starts another Aider in this repository (``/run aider …``, ``!aider …``).
NESTED = re.compile(rb"^#### *(?:/run +|!) *(?:\S*/)?aider(?:\.exe|-chat)?(?:\s|$)")


# Aider's report of a second Ctrl-C within two seconds, after which it exits (aider's
# ``Coder.keyboard_interrupt`` prints it, then calls ``sys.exit``).
_EXIT = re.compile(rb"^> \^C KeyboardInterrupt[ \t]*\r?$", re.M)
# What only an Aider still running can log: a prompt, a model request answered.
_LIVE = re.compile(rb"^(?:####|> Tokens: )", re.M)
_REPLY_LINE = re.compile(rb"^(?!>|####)[^\s]", re.M)  # a line of a reply (or of Aider's output)
_STOPPED = re.compile(rb"^> (?:Tokens: |\^C)", re.M)  # a reply finished, or cut by Ctrl-C


def cut_at_exits(raw: bytes, runs: list[Run]) -> list[Run]:
    """Each run cut where its Aider exited when another Aider, appending to the same log,
    went on writing there: a prompt or a model request after the exit is not the exited
    one's. The lines after it are a run of their own (``exited``), cut in two where a reply
    they go on (another Aider's, still streaming) gives way to prompts. Aider's own output
    alone after the exit stays the run's (a ``--lint`` run printed its findings and commit
    after one: the exit was caught there); so does a request whose running cost goes on
    from the run's own."""
    out: list[Run] = []
    for run in runs:
        while (at := _exit_in(raw, run)) is not None:
            line = run.first_line + raw.count(b"\n", run.start, at)
            start = raw.find(b"\n", at)
            start = run.end if start < 0 else start + 1
            out.append(Run(run.header, run.first_line, run.start, start, exited=run.exited))
            tail = raw[start : run.end]
            prompt = PROMPT.search(tail)
            split = prompt.start() if prompt and prompt.start() else None
            if split is not None and not _REPLY_LINE.search(tail, 0, split):
                split = None  # (only Ctrl-C lines of the other Aider before its prompt)
            if split is not None and not _REQUEST.search(tail, 0, split):
                split = None
            if split is not None:  # a reply going on, then prompts
                middle = start + split
                middle_line = line + 1 + raw.count(b"\n", start, middle)
                out.append(Run(run.header, line + 1, start, middle, exited=line))
                run = Run(run.header, middle_line, middle, run.end, exited=line)
            else:
                run = Run(run.header, line + 1, start, run.end, exited=line)
        out.append(run)
    return out


def _exit_in(raw: bytes, run: Run) -> int | None:
    """Where the first exit in ``run`` is that another Aider's lines follow, if any."""
    for found in _EXIT.finditer(raw, run.start, run.end):
        after = raw[found.end() : run.end]
        if not _LIVE.search(after):
            return None  # nothing after it that the exited Aider could not have written
        if not _same_process(raw[run.start : found.start()], after):
            return found.start()
    return None


def _same_process(before: bytes, after: bytes) -> bool:
    """The first request after an exit counts on from the running cost before it: the
    process did not exit (its exit was caught)."""
    first = _COSTS.search(after)
    totals = _TOTAL.findall(before)
    if not first or not totals:
        return False
    spent_before = _money(first.group(2)) - _money(first.group(1))
    return spent_before > _ROUNDING and abs(_money(totals[-1]) - spent_before) <= _ROUNDING


def join_runs(raw: bytes, runs: list[Run]) -> list[list[Run]]:
    """The runs grouped into sessions: a run without a prompt that is the run before it
    going on joins it. That is a run started by a prompt ``/run aider …`` or ``!aider …``
    (the nested Aider wrote its header into the same log; all the parent wrote after it
    follows that header), and a run holding a model request (``> Tokens:``) though nobody
    typed in it (a second Aider started in the repository while the first was answering).
    Lines logged after an Aider exited (``cut_at_exits``) go where ``_group_after_exit`` says.

    A group depends only on its own runs and the ones before it, so an append changes the
    last group and adds new ones; only lines after an exit that go to an earlier run still
    open (or whose costs they go on) change an earlier group."""
    groups: list[list[Run]] = []
    prompted = False  # the last group holds a prompt
    for run in runs:
        body = raw[run.start : run.end]
        if run.exited:  # another Aider's lines, logged after the run's Aider exited
            at = _group_after_exit(raw, groups, body)
            if at is not None:
                run.joined = "costs" if PROMPT.search(body) else "reply"
                groups[at].append(run)
                continue
            groups.append([run])
            prompted = bool(PROMPT.search(body))
        elif PROMPT.search(body):
            at = _went_on_from(raw, groups, body)
            if at is not None:  # the prompts went to an Aider started before this header
                groups[at:] = [[r for group in groups[at:] for r in group] + [run]]
            else:
                groups.append([run])
            prompted = True
        elif prompted and _continues(raw[groups[-1][-1].start : groups[-1][-1].end], body):
            groups[-1].append(run)
        else:
            groups.append([run])
            prompted = False
    return groups


def _group_after_exit(raw: bytes, groups: list[list[Run]], body: bytes) -> int | None:
    """The group that lines logged after an exit belong to: prompts, the group whose
    running cost their first request goes on (the nearest that matches); a reply's rest,
    the nearest group with a prompt that has not exited, when its reply is still open
    (begun, with no usage line after it, nor a Ctrl-C). None: their own."""
    if PROMPT.search(body):
        first = _COSTS.search(body)
        if not first or _money(first.group(2)) <= _money(first.group(1)) + _ROUNDING:
            return None  # (a process's first request: whose process, the log cannot say)
        spent_before = _money(first.group(2)) - _money(first.group(1))
        for at in range(len(groups) - 1, -1, -1):
            totals = _TOTAL.findall(_joined(raw, groups[at]))
            if totals and abs(_money(totals[-1]) - spent_before) <= _ROUNDING:
                return None if _exited(raw, groups[at]) else at
        return None
    for at in range(len(groups) - 1, -1, -1):
        group = _joined(raw, groups[at])
        if _exited(raw, groups[at]) or not PROMPT.search(group):
            continue
        last = list(PROMPT.finditer(group))[-1].end()
        open_reply = _REPLY_LINE.search(group, last) and not _STOPPED.search(group, last)
        return at if open_reply else None
    return None


def _joined(raw: bytes, group: list[Run]) -> bytes:
    return b"".join(raw[run.start : run.end] for run in group)


def _exited(raw: bytes, group: list[Run]) -> bool:
    """The group's Aider exited: its last line is the exit (``cut_at_exits`` cut it there)."""
    last = group[-1]
    return raw[last.start : last.end].rstrip().endswith(b"^C KeyboardInterrupt")


def _went_on_from(raw: bytes, groups: list[list[Run]], body: bytes) -> int | None:
    """The group whose Aider the prompts of ``body`` went to, when another Aider (``--exit``,
    ``--show-prompt``, ``--msg``, a test run) wrote its banner into the log while that one
    was running: the run's first usage line reports a running total above its request
    (``$0.04 request, $0.78 session``: the process had spent $0.74 before), and the last
    group with a prompt ended at that total, only banners written since. Joining them
    keeps the cost counted once and the model the process's."""
    first = _COSTS.search(body)
    if not first or _money(first.group(2)) <= _money(first.group(1)):
        return None
    spent_before = _money(first.group(2)) - _money(first.group(1))
    for at in range(len(groups) - 1, -1, -1):
        group = _joined(raw, groups[at])
        if _REQUEST.search(group):
            totals = _TOTAL.findall(group)
            total = _money(totals[-1]) if totals else 0.0
            return at if abs(total - spent_before) <= _ROUNDING else None
        if PROMPT.search(group) or (ACTION.search(group) and _CHANGES_ITSELF.search(group)):
            return None  # a run of its own in between: the prompts are not joined across it
    return None


def _money(amount: bytes) -> float:
    return float(amount.replace(b",", b""))


def _continues(before: bytes, body: bytes) -> bool:
    """``body`` (a run without a prompt) is what the Aider of the run ``before`` wrote."""
    if _REQUEST.search(body):
        return not _OWN_REQUESTS.search(body)
    last = before.rstrip().rsplit(b"\n", 1)[-1]
    return bool(NESTED.match(last))
