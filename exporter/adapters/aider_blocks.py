"""An Aider run's lines cut into blocks (prompts, Aider's own output, the model's replies),
and the code fences in a reply: which lines are code, where a fence the reply left open
ends, and Aider's tag fences (``<source>python`` … ``</source>``) made Markdown ones.

Kept apart from aider_log.py, which turns the blocks into a session's messages.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# Aider's other code fences, asked of the model when a file in the chat holds ``` lines:
# a tag alone on its line, with the language after it (``<source>python``), opens one, and
# its end tag (``</source>``) closes it.
_TAG_FENCE = re.compile(r"^<(source|code|pre|codeblock|sourcecode)>([\w+#.-]*)[ \t]*$")
_BACKTICKS = re.compile(r" *(`+)")


def prompt_marker(lines: list[str]) -> Callable[[str, int], bool]:
    """Which ``####`` lines of a run are prompts. Aider logs every line of an input as
    ``#### <line>`` followed by two spaces (a Markdown hard break), and writes the model's
    reply as it came, so in a run where its prompts carry those spaces a ``####`` line
    without them is the reply's (a heading ``#### Details``, or a line of a file in an edit
    block) and a prompt never is. A run where no ``####`` line carries them (a log whose
    spaces an editor trimmed, an old or hand-made log) reads every ``####`` line as a
    prompt, as Aider's own history reader does. The log's last line, being written, may not
    have its spaces yet: it is what it starts as."""
    marked = any(line.startswith("####") and line.endswith("  ") for line in lines)
    last = len(lines) - 1

    def is_prompt(line: str, at: int = -1) -> bool:
        if not (line.startswith("#### ") or line.rstrip() == "####"):
            return False
        return not marked or line.endswith("  ") or at == last

    return is_prompt


def blocks(lines: list[str]) -> Iterator[tuple[str, list[str]]]:
    """Runs of lines of one kind: ``user`` (####), ``aider`` (>) or ``reply`` (the rest).

    A ``####`` line is a prompt as :func:`prompt_marker` says; one that is not is a line of
    the reply. A blank line ends a prompt (each input is its own run of ``####`` lines). Inside a
    code fence the reply opened, ``>`` lines are the reply's (quoted text, the
    ``>>>>>>> REPLACE`` of an edit block); a prompt, Aider's usage line after the reply or
    its report of a Ctrl-C closes any fence left open, as does a message of Aider's after
    which the run holds nothing of the reply (see :class:`_AiderTail`). Aider ends
    each message of its own with two spaces and marks only its first line with ``>``: a
    ``>`` line without them goes on to the line that has them (a command's output, a usage
    line split in two), or to the next prompt; right after a reply, where it may be the
    reply's own quote, only as far as a blank line. A run where no ``>`` line carries the
    two spaces (a log an editor trimmed, as :func:`prompt_marker` reads its prompts) has
    no sign of where a message ends: each ``>`` line is one of its own, and goes on to
    nothing (but for a usage line split before ``Cost:``)."""
    lines = _restarts_closed(lines)
    kind, block, fence, going_on, to_blank = "", [], "", False, False
    opener = ""  # the line that opened the fence open in the reply (to open it again)
    awaited = False  # a message went to the model and no reply came yet: one belongs next
    retry_to = -1  # the last line of Aider's report of a retry inside the reply's code
    is_prompt = prompt_marker(lines)
    marked = _marked(lines)
    goes_on = _going_on(lines, marked)
    ahead = _TagCloser(lines, is_prompt)
    tail = _AiderTail(lines, is_prompt, goes_on)
    for at, line in enumerate(lines):
        if at <= retry_to:  # Aider's report of a failed request it tried again
            block.append(line[2:].rstrip() if line.startswith("> ") else line[1:].rstrip())
            continue
        if going_on and not is_prompt(line, at) and (line.strip() or not to_blank):
            block.append(line.rstrip())
            going_on = goes_on(line, at)
            continue
        going_on = False
        reopen = opener if fence else ""  # the fence open before this line
        if is_prompt(line, at):
            this, text, fence = "user", line[5:], ""
            awaited = (awaited and kind == "user") or _to_model(text)
        elif fence and (retry_to := _retry_in_code(lines, at)) >= 0:
            # (the reply goes on after it in the same fence: its next block opens it again)
            if block:
                yield kind, block
            kind, block = "aider", [line[2:].rstrip() if line.startswith("> ") else line[1:]]
            continue
        elif fence and (
            line.startswith("> Tokens: ") or _interrupt_at(lines, at) or tail.only_aider(at)
        ):
            # A reply that left a fence open: Aider's usage line, its Ctrl-C (the empty ">"
            # lines it prints first, then "^C KeyboardInterrupt"), or a message of its own
            # with nothing of the reply after it (an API error that cut the reply short, a
            # token limit hit) ends it.
            this, text, fence = "aider", line[2:], ""
            going_on, to_blank = goes_on(line, at, True), False
        elif not fence and marked and _quote_in_reply(lines, at, kind, awaited):
            this, text = "reply", line  # the reply's own blockquote, its marks kept
        elif line.startswith(">") and not fence and not line.startswith(">>>>>>>"):
            this, text = "aider", line[2:] if line.startswith("> ") else line[1:]
            going_on = goes_on(line, at, True)
            to_blank = kind == "reply" and not line.startswith("> Tokens: ")
        elif not line.strip():
            if kind == "user":
                yield kind, block
                kind, block = "", []
            elif kind == "reply" and fence:
                block.append(line)  # code keeps its bytes, a line of spaces too
            elif kind:
                block.append("")  # a blank line stays with what it follows
            continue
        else:
            this, text = "reply", line
            tag = None if fence else _TAG_FENCE.match(line)
            if tag:  # a fence only if its end tag comes in this reply (see _TagCloser)
                fence = f"</{tag.group(1)}>" if ahead.closes(at, f"</{tag.group(1)}>") else ""
                opener = ""
            else:
                was, fence = fence, _fence_after(line, fence)
                opener = line if fence and not was else opener if fence else ""
        if this == "reply" or line.startswith("> Tokens: "):
            awaited = False  # (answered: a reply, or Aider's usage line for an empty one)
        if this != kind and block:
            yield kind, block
            block = []
            if this == "reply" and kind == "aider" and reopen:
                block.append(reopen)  # the reply's code goes on after Aider's report
        kind = this
        block.append(text.rstrip() if this != "reply" else text)
    if block:
        yield kind, block


def _marked(lines: list[str]) -> bool:
    """Do Aider's ``>`` lines in this run carry the two spaces it ends its messages with
    (else an editor trimmed them)?"""
    return any(
        line.startswith(">") and not line.startswith(">>>>>>>") and line.endswith("  ")
        for line in lines
    )


def _quote_in_reply(lines: list[str], at: int, kind: str, awaited: bool) -> bool:
    """Is the ``>`` line ``at`` the reply's own Markdown blockquote? Asked where a reply
    starts or goes on: ``kind`` ``reply``, or ``""`` where a prompt's lines ended, or, when
    a message went to the model and no reply came yet (``awaited``), after a blank line that
    follows a message of Aider's (``Add https://… to the chat? n``: a reply of a quote alone
    comes after it). Aider ends each message of its own with two spaces (on its last line,
    when older versions marked only its first with ``>``), so the first line on from ``at``
    that has them ends the message ``at`` starts, if it is one; a ``>`` line after a blank
    line that has them is a message of Aider's after it. With none up to the next prompt or
    the run's end (the log's last reply, an Aider that printed no usage line after it), a
    quote after the reply's words, or where a reply is awaited, is the reply's: no message
    of Aider's starts there (but for its usage line, the log's last line cut before its
    spaces were written). Where no message to the model came before (the run's start, a
    command's output), it is Aider's, as it was (a log edited by hand)."""
    if not lines[at].startswith(">") or lines[at].startswith(">>>>>>>"):
        return False
    # (Aider writes a blank line before a reply: one after a message of its own follows it)
    after_aider = kind == "aider" and awaited and not lines[at - 1].strip()
    if kind not in ("reply", "") and not after_aider:
        return False
    for k in range(at, len(lines)):
        line = lines[k]
        if k > at and line.startswith("####"):
            break
        if line.endswith("  "):
            return k > at and line.startswith(">") and not lines[k - 1].strip()
    return (kind == "reply" or awaited) and not lines[at].startswith("> Tokens: ")


def _to_model(text: str) -> bool:
    """Does a prompt's line go to the model: words, not a command (``/add …``, ``!ls``) nor
    an Enter pressed on an empty line (``<blank>``)? A mode command's question is logged
    again after it (``/ask hi``, then `` hi``): that line goes."""
    typed = text.strip()
    return bool(typed) and typed != "<blank>" and not typed.startswith(("/", "!"))


def _going_on(lines: list[str], marked: bool) -> Callable[[str, int, bool], bool]:
    """Whether the message of Aider's that line ``at`` is in goes on after it (``first``:
    the line starts it). In a run where Aider's lines carry their two spaces, until a line
    ends with them (a first line of spaces alone, ``>   ``, too); in one where no ``>`` line
    does (trimmed), never: each ``>`` line is a message of its own, but for the first half
    of a usage line split before ``Cost:``."""

    def goes_on(line: str, at: int, first: bool = False) -> bool:
        if marked:
            return not line.endswith("  ") if first else not _ends_message(line)
        return (
            line.startswith("> Tokens: ")
            and "Cost: " not in line
            and at + 1 < len(lines)
            and lines[at + 1].startswith("Cost: ")
        )

    return goes_on


def _restarts_closed(lines: list[str]) -> list[str]:
    """A reply that starts again while its code block is open (the model cut off, then
    writing the whole answer anew: a paragraph, the same file's name, an opening fence)
    gets that block closed where the new start begins: else the new fence closes the old
    one and the file that follows reads as Markdown (corpus lines 51337-52949, 169
    headings). The closing line is the opening one's marks."""
    is_prompt = prompt_marker(lines)
    out: list[str] = []
    fence, named, last_text = "", "", ""
    for at, line in enumerate(lines):
        if is_prompt(line, at) or line.startswith("> Tokens: "):
            fence = ""
        elif fence and named and _starts_again(lines, at, fence, named):
            start = len(out)
            while start and not out[start - 1].strip():
                start -= 1
            paragraph = start
            while paragraph and out[paragraph - 1].strip():
                paragraph -= 1
            if paragraph and paragraph < start:  # the new start's words, before the name
                start = paragraph
                while start and not out[start - 1].strip():
                    start -= 1
            out.insert(start, fence)
            fence = ""
        else:
            was, fence = fence, _fence_after(line, fence)
            named = (last_text.strip() if fence and not was else named) if fence else ""
        out.append(line)
        last_text = line if line.strip() else last_text
    return out


_FILE_NAME = re.compile(r"^[\w./-]+\.[\w]+$")


def _starts_again(lines: list[str], at: int, fence: str, named: str) -> bool:
    """Line ``at`` names the file the open block was for, after a blank line, and the next
    line is a bare fence: the same file written again from its start."""
    if fence.startswith("</") or lines[at].strip() != named or not _FILE_NAME.match(named):
        return False
    if at == 0 or lines[at - 1].strip() or at + 1 >= len(lines):
        return False
    after = _FENCE.match(lines[at + 1])
    return bool(after) and after.group(1) == fence and not after.group(2).strip()


_RETRYING = re.compile(r"^> ?Retrying in [\d.]+ seconds?\.\.\.  $")


def _retry_in_code(lines: list[str], at: int) -> int:
    """Where Aider's report of a failed request it tried again ends, when one starts on this
    line inside the reply's code and the reply goes on after it: ``>`` lines (the error,
    ``> badness`` in a test build) up to ``> Retrying in 0.2 seconds...`` and its two
    spaces, then more of the reply. -1 when none does."""
    k = at
    while k < len(lines) and lines[k].startswith(">") and not lines[k].startswith(">>>>>>>"):
        if _RETRYING.match(lines[k]):
            after = next((x for x in lines[k + 1 :] if x.strip()), "")
            return k if after and not after.startswith(("> ", "####")) else -1
        k += 1
    return -1


def _interrupt_at(lines: list[str], at: int) -> bool:
    """Does Aider's report of a Ctrl-C start on this line: empty ``>`` lines, then ``> ^C``?"""
    k = at
    while k < len(lines) and _EMPTY_QUOTE.fullmatch(lines[k]):
        k += 1
    return k < len(lines) and lines[k].startswith("> ^C")


_EMPTY_QUOTE = re.compile(r">[ \t]*")


class _AiderTail:
    """Where the rest of a reply is Aider's alone: from a ``>`` line to the next prompt (or
    the run's end) nothing but ``>`` lines and blank ones, one of them ending a message of
    Aider's (its two spaces). A reply cut short (an API error, a token limit hit) leaves its
    code fence open, and what follows is Aider's report; a ``>`` line in a reply's code is
    followed by more of the reply. Worked out once, from the end, when first asked."""

    def __init__(
        self,
        lines: list[str],
        is_prompt: Callable[[str, int], bool],
        goes_on: Callable[[str, int, bool], bool],
    ) -> None:
        self.lines, self.is_prompt, self.goes_on = lines, is_prompt, goes_on
        self.tail: list[int] | None = None  # 0: reply lines follow; 1: Aider's; 2: and one ends

    def only_aider(self, at: int) -> bool:
        if not self.lines[at].startswith(">") or self.lines[at].startswith(">>>>>>>"):
            return False
        if self.tail is None:
            tail, after = [0] * len(self.lines), 1  # (a prompt, or the end: nothing after)
            for k in range(len(self.lines) - 1, -1, -1):
                line = self.lines[k]
                if self.is_prompt(line, k):
                    after = 1
                elif line.startswith(">") and not line.startswith(">>>>>>>"):
                    after = 2 if after and not self.goes_on(line, k, False) else after
                elif line.strip():
                    after = 0
                tail[k] = after
            self.tail = tail
        return self.tail[at] == 2


class _TagCloser:
    """Where each of Aider's end tags is, found once: a tag opens a fence only when its end
    tag comes before the next prompt or usage line (a reply cut by Ctrl-C never closes it,
    and Aider's own ``>`` lines after it must stay Aider's, not become the reply's)."""

    def __init__(
        self, lines: list[str], is_prompt: Callable[[str, int], bool] | None = None
    ) -> None:
        self.lines = lines
        self.is_prompt = is_prompt or _never  # (a reply's own lines hold no prompt)
        self.ends: dict[str, list[int]] | None = None  # end tag -> its lines, in order
        self.stops: list[int] = []  # the prompts' and usage lines' numbers

    def closes(self, at: int, closer: str) -> bool:
        return self.end(at, closer) is not None

    def end(self, at: int, closer: str) -> int | None:
        """The line of the end tag that closes a tag opened on line ``at``, if any."""
        if self.ends is None:
            self.ends = {}
            for k, line in enumerate(self.lines):
                if self.is_prompt(line, k) or line.startswith("> Tokens: "):
                    self.stops.append(k)
                elif line.startswith("</"):
                    self.ends.setdefault(line.strip(), []).append(k)
        ends = self.ends.get(closer, [])
        end = bisect_right(ends, at)
        stop = bisect_right(self.stops, at)
        if end < len(ends) and (stop == len(self.stops) or ends[end] < self.stops[stop]):
            return ends[end]
        return None


def _never(line: str, at: int) -> bool:
    return False


def _ends_message(line: str) -> bool:
    """Does the message a ``>`` line began end on this line: text, then the two spaces
    Aider adds (a line of spaces alone, or with more of them, is output going on)?"""
    return line.endswith("  ") and not line.endswith("   ") and bool(line.strip())


def _fence_after(line: str, fence: str) -> str:
    """The code fence open after ``line`` ("" when none): opened by ``` or ~~~, closed by
    a line of at least as many of the same character; or, opened by one of Aider's tags
    (the caller decides whether a tag opens one: ``_TagCloser``), closed by its end tag,
    which ``fence`` then holds."""
    if fence.startswith("</"):
        return "" if line.strip() == fence else fence
    match = _FENCE.match(line)
    if not match:
        return fence
    marks = match.group(1)
    if not fence:
        return marks
    closes = marks[0] == fence[0] and len(marks) >= len(fence) and not match.group(2).strip()
    return "" if closes else fence


def tag_fences_as_markdown(lines: list[str]) -> list[str]:
    """A reply's lines with each closed tag fence (``<source>python`` … ``</source>``) made
    the Markdown fence it stands for, long enough that no line of its code closes it; the
    lines between are kept as they are. A tag inside a Markdown fence is that fence's code."""
    out, fence, k = list(lines), "", 0
    ahead = _TagCloser(out)
    while k < len(out):
        tag = None if fence else _TAG_FENCE.match(out[k])
        end = ahead.end(k, f"</{tag.group(1)}>") if tag else None
        if tag and end is not None:
            runs = (_BACKTICKS.match(line) for line in out[k + 1 : end])
            ticks = "`" * max([3, *(len(m.group(1)) + 1 for m in runs if m)])
            out[k], out[end] = ticks + tag.group(2), ticks
            k = end + 1
            continue
        fence = _fence_after(out[k], fence)
        k += 1
    return out
