"""What a conflict copy says first: the lines the person changed in a generated part, as a
short unified diff of ccexport's text against theirs, above their whole text (review35 8:
the copy was the whole old part, ~1,000 lines for a long note, with nothing marking the
edit, and the person had to compare it by hand).

The diff is session text: it goes in a fenced block (``markdown.fence``, which its content
cannot close and no plugin runs), so a link, tag or embed in it stays inert. Only ccexport's
text as it writes the part now is known (the state keeps a hash of what it wrote before, not
the text): the lines the session added at the end since are no edit of the person's, and are
counted, not shown.

Comparing lines costs about the square of how many differ (review38 H2: a restyle of every
heading in a 24,000-line part took 34 s, in the run's main process). So the lines both texts
begin and end with are set aside first, and at most ``COMPARED`` lines a side of what lies
between are compared, once; the copy says where the comparison stopped (the whole text
still follows it).
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Callable, Iterator

from . import lineends
from .markdown import fence

SHOWN_LINES = 60  # of the diff, its two headers aside: the whole text follows it
LINE_WIDTH = 300  # characters of a line shown (one paragraph is one line: it can be long)
CONTEXT = 2  # unchanged lines around each change
COMPARED = 2000  # lines a side of the differing middle compared at most
OURS, THEIRS = "ccexport", "yours"
_LOOKED_AT = 50  # lines a side read to tell the person's last lines from the session's growth
_CANDIDATES = 50  # places of the person's last line among ccexport's tried as where it grew

Opcode = tuple[str, int, int, int, int]


def copy_text(
    head: str, written: str, theirs: str, scrub: Callable[[str], str] = str,
    written_hash: str | None = None,
) -> str:  # fmt: skip
    """A conflict copy's text: ``head`` (whose edit, what to do), what differs between
    ccexport's text ``written`` and the person's ``theirs``, then ``theirs`` whole. Both
    texts are redacted (``scrub``) before a long line is cut: a cut cannot leave a piece of
    a secret the rules no longer know as one. ``written_hash``: the end marker's hash of
    the part as ccexport last wrote it, which tells the session's growth exactly where
    ``written`` begins with that part (``_written_before``)."""
    theirs = scrub(lineends.without_cr(theirs).strip("\n"))
    before = _written_before(written, written_hash)
    if before is None:
        said = summary(scrub(written), theirs)
    else:
        ours, earlier = _lines(scrub(written)), _lines(scrub(before))
        said = summary("\n".join(earlier), theirs, max(0, len(ours) - len(earlier)))
    whole = "Your text as you had it, whole:" if said and theirs else ""
    return "\n\n".join(part for part in (head, said, whole, theirs) if part) + "\n"


def summary(written: str, theirs: str, grown: int | None = None) -> str:
    """The lines that differ, as Markdown (a sentence, a fenced ``diff`` block, a line
    saying what was left out); "" when no line differs. ``grown``: ``written`` is the part
    as ccexport last wrote it, and that many lines the session added since follow it (None:
    not known, read from the two texts)."""
    ours_lines, their_lines = _lines(written), _lines(theirs)
    same = _same_start(ours_lines, their_lines)
    if same == len(ours_lines) == len(their_lines):
        return ""
    read_growth = grown is None  # (else ``written`` holds none of it)
    if grown is None:
        ours_lines, grown = _without_growth(ours_lines, their_lines, same)
    body, grown_too, stopped = _compared(ours_lines, their_lines, same, read_growth)
    grown += grown_too
    if not body:
        return ""
    shown = [_cut(line) for line in body[:SHOWN_LINES]]
    said = [
        "What differs, in short: lines starting with `-` are ccexport's, as it writes the "
        "part now from its session; lines starting with `+` are yours."
    ]
    if grown:
        said.append(
            f"The last {_lines_of(grown)} of ccexport's text, which yours does not have after "
            "your last line (what the session added since), are left out."
        )
    if stopped:
        said.append(
            f"The comparison stopped after the first {_lines_of(COMPARED)} that differ; "
            "your whole text follows."
        )
    text = (
        " ".join(said) + "\n\n" + fence("\n".join([f"--- {OURS}", f"+++ {THEIRS}", *shown]), "diff")
    )
    if len(body) > SHOWN_LINES:
        text += f"\n\n… {_lines_of(len(body) - SHOWN_LINES)} more of this comparison left out."
    return text


def _written_before(written: str, written_hash: str | None) -> str | None:
    """The first lines of ``written`` (ccexport's part as it writes it now) that are the
    part as it last wrote it, whose hash the end marker carries (``written_hash``): what
    follows them is what the session added since, exactly, whatever the person made of
    the part's last lines. None when no shorter start of it is that part (not known: a
    note from before the marker carried a hash, or other rules, templates or settings)."""
    if not written_hash:
        return None
    lines = _lines(written)
    digest = hashlib.sha256()
    for n, line in enumerate(lines[:-1]):
        digest.update(f"{chr(10) if n else ''}{line}".encode("utf-8", "replace"))
        if line and digest.copy().hexdigest()[:16] == written_hash:
            return "\n".join(lines[: n + 1])
    return None


def _lines(text: str) -> list[str]:
    text = lineends.without_cr(text).strip("\n")
    return [line.rstrip(" \t") for line in text.split("\n")] if text else []


def _same_start(ours: list[str], theirs: list[str]) -> int:
    """How many lines both begin with."""
    count = 0
    for mine, yours in zip(ours, theirs, strict=False):
        if mine != yours:
            break
        count += 1
    return count


def _same_end(ours: list[str], theirs: list[str], start: int) -> int:
    """How many lines both end with, none of the first ``start`` of either."""
    count, most = 0, min(len(ours), len(theirs)) - start
    while count < most and ours[-1 - count] == theirs[-1 - count]:
        count += 1
    return count


def _without_growth(ours: list[str], theirs: list[str], same: int) -> tuple[list[str], int]:
    """ccexport's lines without those it has after the person's last line (the session
    went on), and how many those are, found where ccexport's text holds the person's last
    lines (their edit is above them). When the person's last lines differ from ccexport's
    too, ``_compared`` reads the growth from the comparison. None when the person has no
    line after those both begin with (they removed the part's last lines: shown removed),
    or the two end alike."""
    if same in (len(ours), len(theirs)) or ours[-1] == theirs[-1] or not theirs[-1].strip():
        return ours, 0
    best, at = 0, 0
    tried = 0
    for i in range(len(ours) - 2, same - 1, -1):
        if ours[i] != theirs[-1]:
            continue
        ends = _same_end(ours[: i + 1], theirs, same)
        if ends > best:
            best, at = ends, i + 1
        tried += 1
        if tried == _CANDIDATES:
            break
    reaches = best == min(at, len(theirs)) - same
    if best >= 2 or (best and reaches):
        return ours[:at], len(ours) - at
    return ours, 0


def _compared(
    ours: list[str], theirs: list[str], same: int, read_growth: bool = True
) -> tuple[list[str], int, bool]:
    """The diff's lines (its headers aside), how many of ccexport's last lines are the
    session's growth the person's last lines stand in front of (``read_growth``: looked
    for), and whether the comparison stopped at ``COMPARED`` lines. One comparison, of the
    middle only."""
    end = _same_end(ours, theirs, same)
    ours_to, theirs_to = len(ours) - end, len(theirs) - end
    stopped = ours_to - same > COMPARED or theirs_to - same > COMPARED
    if stopped:
        ours_to, theirs_to = min(ours_to, same + COMPARED), min(theirs_to, same + COMPARED)
    matcher = difflib.SequenceMatcher(None, ours[same:ours_to], theirs[same:theirs_to])
    opcodes: list[Opcode] = [
        (tag, i1 + same, i2 + same, j1 + same, j2 + same)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    ]
    grown = 0
    if read_growth and not stopped and not end and opcodes:
        opcodes, grown = _growth_at_end(opcodes, ours, theirs)
    before, after = min(CONTEXT, same), 0 if stopped else min(CONTEXT, end)
    if before:
        opcodes.insert(0, ("equal", same - before, same, same - before, same))
    if after:
        opcodes.append(("equal", ours_to, ours_to + after, theirs_to, theirs_to + after))
    body = [line for group in _grouped(opcodes) for line in _hunk(group, ours, theirs)]
    return body, grown, stopped


def _growth_at_end(
    opcodes: list[Opcode], ours: list[str], theirs: list[str]
) -> tuple[list[Opcode], int]:
    """The comparison without ccexport's last lines that the person's last lines do not
    stand for (review38 L2: shown as ``-`` lines, they read as if the person had deleted
    the session's growth), and how many those are. What follows the last unchanged line
    that is not blank is read as one block (blank lines match anywhere); of ccexport's
    there, as many are kept as the person has when ccexport has no more, else up to the
    last that is like one of theirs."""
    last_same = max(
        (n for n, op in enumerate(opcodes) if op[0] == "equal" and any(ours[op[1] : op[2]])),
        default=-1,
    )
    if last_same == len(opcodes) - 1:
        return opcodes, 0
    _tag, start, _stop, their_start, _their_stop = opcodes[last_same + 1]
    if their_start == len(theirs) and all(op[0] == "equal" for op in opcodes[: last_same + 1]):
        return opcodes, 0  # the person removed the part's last lines
    ours_end, theirs_end = ours[start:], theirs[their_start:]
    if len(ours_end) <= len(theirs_end):
        return opcodes, 0
    kept = _last_alike(ours_end, theirs_end)
    again = difflib.SequenceMatcher(None, ours_end[:kept], theirs_end)  # (a few lines at most)
    last = [
        (tag, i1 + start, i2 + start, j1 + their_start, j2 + their_start)
        for tag, i1, i2, j1, j2 in again.get_opcodes()
    ]
    return [*opcodes[: last_same + 1], *last], len(ours_end) - kept


def _last_alike(ours: list[str], theirs: list[str]) -> int:
    """How many of ``ours`` the person's ``theirs`` stand for: up to where lines like one
    of theirs most outnumber those like none (blank lines count neither way)."""
    looked_at = [line[:LINE_WIDTH] for line in theirs[-_LOOKED_AT:] if line.strip()]
    exact = set(looked_at)
    best = score = kept = 0
    for count, line in enumerate(ours[:_LOOKED_AT], 1):
        if not line.strip():
            continue
        score += 1 if _alike(line[:LINE_WIDTH], looked_at, exact) else -1
        if score > best:
            best, kept = score, count
    return kept


def _alike(line: str, others: list[str], exact: set[str]) -> bool:
    if line in exact or any(len(other) > 3 and other in line for other in others):
        return True
    if len(line) > 3 and any(line in other for other in others):
        return True  # (the person wrote on in a line of ccexport's)
    for other in others:
        matcher = difflib.SequenceMatcher(None, line, other, autojunk=False)
        if matcher.real_quick_ratio() >= 0.6 and matcher.quick_ratio() >= 0.6:
            if matcher.ratio() >= 0.6:
                return True
    return False


def _grouped(opcodes: list[Opcode]) -> Iterator[list[Opcode]]:
    """The changes in hunks, each with up to ``CONTEXT`` unchanged lines around it (as
    ``difflib.SequenceMatcher.get_grouped_opcodes``, over opcodes trimmed here)."""
    if not opcodes:
        return
    if opcodes[0][0] == "equal":
        tag, i1, i2, j1, j2 = opcodes[0]
        opcodes[0] = tag, max(i1, i2 - CONTEXT), i2, max(j1, j2 - CONTEXT), j2
    if opcodes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = opcodes[-1]
        opcodes[-1] = tag, i1, min(i2, i1 + CONTEXT), j1, min(j2, j1 + CONTEXT)
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal" and i2 - i1 > 2 * CONTEXT:
            group.append((tag, i1, min(i2, i1 + CONTEXT), j1, min(j2, j1 + CONTEXT)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - CONTEXT), max(j1, j2 - CONTEXT)
        group.append((tag, i1, i2, j1, j2))
    if any(op[0] != "equal" for op in group):
        yield group


def _hunk(group: list[Opcode], ours: list[str], theirs: list[str]) -> list[str]:
    first, last = group[0], group[-1]
    lines = [f"@@ -{_span(first[1], last[2])} +{_span(first[3], last[4])} @@"]
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            lines += [f" {line}" for line in ours[i1:i2]]
            continue
        lines += [f"-{line}" for line in ours[i1:i2]]
        lines += [f"+{line}" for line in theirs[j1:j2]]
    return lines


def _span(start: int, stop: int) -> str:
    """A hunk's range as a unified diff says it: its first line and how many."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start if not length else start + 1},{length}"


def _cut(line: str) -> str:
    return line if len(line) <= LINE_WIDTH else line[:LINE_WIDTH] + " …"


def _lines_of(count: int) -> str:
    return f"{count:,} line" + ("" if count == 1 else "s")
