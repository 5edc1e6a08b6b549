"""Where part notes are cut, against what the whole note shows: a tool call and its result
are never in two parts, not when a prompt the person typed meanwhile (queued, delivered
with the result) or another call of the same reply comes between them; and the parts read
one after the other are the whole note's conversation (review26 F1)."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession, tool_use
from conftest import note_files
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from exporter import split
from exporter.clean import INTERRUPT_MARKERS
from exporter.export import ExportOptions, run_export
from exporter.model import Message, NoticePart, TextPart, ToolCallPart, ToolResultPart

SID = "0000abcd-0000-4000-8000-0000000000f1"


def prompt(text: str, *, queued: bool = False) -> Message:
    parts = (NoticePart("queued"), TextPart(text)) if queued else (TextPart(text),)
    return Message("user", parts)


def call(call_id: str, size: int = 200) -> Message:
    return Message("assistant", (ToolCallPart("Bash", {"command": "x" * size}, call_id),))


def result(call_id: str, size: int = 200) -> Message:
    return Message("tool", (ToolResultPart("o" * size, call_id),))


def reply(text: str) -> Message:
    return Message("assistant", (TextPart(text),))


def parts_of(messages: list[Message], max_bytes: int) -> list[int]:
    """The part each message is in."""
    where = []
    for number, (start, end) in enumerate(split.part_ranges(tuple(messages), max_bytes)):
        where += [number] * (end - start)
    return where


def separated(messages: list[Message], max_bytes: int) -> list[str]:
    """The ids of calls whose result is in a later part than the call."""
    where = parts_of(messages, max_bytes)
    called = {
        p.call_id: where[i]
        for i, m in enumerate(messages)
        for p in m.parts
        if isinstance(p, ToolCallPart)
    }
    return [
        p.call_id
        for i, m in enumerate(messages)
        for p in m.parts
        if isinstance(p, ToolResultPart) and called.get(p.call_id, where[i]) != where[i]
    ]


def interruption(marker: str = INTERRUPT_MARKERS[0]) -> Message:
    """Claude Code's notice that the person stopped the turn, as its log holds it."""
    return Message("user", (TextPart(marker),))


def cut_before_an_interruption(messages: list[Message], max_bytes: int) -> list[int]:
    """The positions of interruption notices that open a part, away from the turn they end."""
    where = parts_of(messages, max_bytes)
    return [
        i
        for i, m in enumerate(messages)
        if i
        and m.parts
        and all(getattr(p, "text", None) in INTERRUPT_MARKERS for p in m.parts)
        and where[i] != where[i - 1]
    ]


def test_the_notice_that_the_person_interrupted_stays_with_the_turn_it_ends():
    """``[Request interrupted by user]`` is written as the person's message, and was cut
    before as a prompt: the turn ended one part, and the next opened with the notice."""
    messages = [prompt("go"), reply("r" * 1500), interruption(), prompt("next"), reply("ok")]
    messages += [call("c1"), result("c1"), interruption(INTERRUPT_MARKERS[1]), prompt("again")]
    for limit in range(300, 3000, 50):
        assert not cut_before_an_interruption(messages, limit), limit
    assert parts_of(messages, 2000)[3] == 1  # (the next prompt may still open a part)


def test_a_prompt_queued_while_a_tool_ran_stays_after_the_call_and_its_result():
    """As in the corpus (b566e56e, 624a4a58): the person typed while a Bash call ran, and
    the message was handed over with the call's result. The part was full by then: it
    was cut before the queued prompt, the call ended its part without output."""
    messages = [prompt("p" * 2000), call("c1"), prompt("also this", queued=True), result("c1")]
    messages += [reply("done"), prompt("next"), reply("ok")]
    limit = sum(split.estimated_bytes(m) for m in messages[:2]) + 50
    assert not separated(messages, limit)
    where = parts_of(messages, limit)
    assert where[1] == where[2] == where[3] and where[4] > where[3]  # cut at the next reply


def test_the_calls_of_one_reply_stay_with_their_results():
    """Codex writes each call of one response as a message of its own, then the results:
    a cut before the second call (the turn ran long) left the first call's output alone."""
    messages = [prompt("go"), reply("r" * 3000), call("a"), call("b"), result("a"), result("b")]
    messages += [reply("done")]
    limit = sum(split.estimated_bytes(m) for m in messages[:3]) * 100 // 124
    assert not separated(messages, limit)
    assert parts_of(messages, limit)[-1] == 1  # cut before the next reply


def test_a_call_that_got_no_result_does_not_hold_back_every_later_cut():
    """Its result is not coming once the model went on after other results, or the person
    wrote a new prompt: cuts fall again (one part of a whole long turn is what it cost)."""
    early = [prompt("go"), call("lost"), call("b"), result("b")]
    for i in range(20):
        early += [reply("r" * 400), call(f"c{i}"), result(f"c{i}")]
    assert len(split.part_ranges(tuple(early), 2000)) > 5
    chat = [prompt("go"), call("lost")]
    for _ in range(20):
        chat += [prompt("q" * 400), reply("a" * 400)]
    assert len(split.part_ranges(tuple(chat), 2000)) > 5


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    """Turns of a prompt and replies; a reply's calls (one message each, or in one message)
    are followed by their results, with a queued prompt anywhere among them."""
    messages: list[Message] = []
    n = 0
    for _ in range(draw(st.integers(1, 6))):
        messages.append(prompt("p" * draw(st.integers(1, 900))))
        for _ in range(draw(st.integers(0, 4))):
            if draw(st.booleans()):
                messages.append(reply("r" * draw(st.integers(1, 900))))
            ids = [f"c{n + i}" for i in range(draw(st.integers(1, 3)))]
            n += len(ids)
            sizes = [draw(st.integers(1, 900)) for _ in ids]
            if draw(st.booleans()):
                messages += [call(i, s) for i, s in zip(ids, sizes, strict=True)]
            else:
                pairs = zip(ids, sizes, strict=True)
                calls = tuple(ToolCallPart("Read", {"p": "x" * s}, i) for i, s in pairs)
                messages.append(Message("assistant", calls))
            answers = [result(i, draw(st.integers(0, 900))) for i in ids]
            at = draw(st.integers(0, len(answers)))
            if draw(st.booleans()):
                answers.insert(at, prompt("q" * draw(st.integers(1, 300)), queued=True))
            messages += answers
        if draw(st.booleans()):  # the person stopped the turn (or a call of it)
            messages.append(interruption(draw(st.sampled_from(INTERRUPT_MARKERS))))
    return messages


@settings(max_examples=400, deadline=None)
@given(conversations(), st.integers(300, 6000))
def test_no_cut_falls_between_a_call_and_its_result(messages, limit):
    assert not separated(messages, limit)
    assert not cut_before_an_interruption(messages, limit)
    full = split.part_ranges(tuple(messages), limit)
    for end in range(1, len(messages)):  # and a cut still depends only on what precedes it
        prefix = split.part_ranges(tuple(messages[:end]), limit)
        assert prefix[:-1] == full[: len(prefix) - 1]


def _generated(path: Path) -> str:
    """A note's conversation: its generated part from the first turn on, without the line
    that leads to the next part."""
    text = path.read_text(encoding="utf-8")
    body = text.split("%% ccexport:begin", 1)[1].split("%% ccexport:end", 1)[0]
    start = re.search(r"(?m)^### ", body)
    body = body[start.start() :] if start else ""
    return re.sub(r"\n> \[!info\] Continued in \[\[[^\n]*\n$", "\n", body)


def joined(paths: list[Path]) -> str:
    """Parts read one after the other. A part cut inside the model's turn opens with a
    heading of its own, where the whole note goes on under the one before: left out."""
    out = ""
    for path in paths:
        text = _generated(path)
        headings = re.findall(r"(?m)^### (\w+)", out)
        if headings and headings[-1] == "Assistant" and text.startswith("### Assistant"):
            text = text.split("\n", 2)[2]
        out = out.rstrip("\n") + "\n\n" + text if out else text
    return out


@st.composite
def claude_sessions(draw: st.DrawFn) -> ClaudeSession:
    """Turns whose replies call tools, one or two calls to a response, and a prompt the
    person typed meanwhile, handed over before the results, between them, or after."""
    s = ClaudeSession(SID, "/home/dev/work/cuts")
    n = 0
    for turn in range(draw(st.integers(1, 4))):
        s.user(f"prompt {turn} " + "p" * draw(st.integers(1, 600)))
        for _ in range(draw(st.integers(1, 4))):
            ids = [f"toolu_{n + i}" for i in range(draw(st.integers(1, 2)))]
            n += len(ids)
            s.assistant([tool_use("Bash", {"command": f"run {i}"}, i) for i in ids])
            typed = draw(st.none() | st.integers(0, len(ids)))
            for at, i in enumerate([*ids, None]):
                if at == typed:
                    s.meta("queue-operation", operation="enqueue", sessionId=SID,
                           content=f"typed {i}", timestamp=s.tick())  # fmt: skip
                    s.meta("queue-operation", operation="remove", sessionId=SID,
                           timestamp=s.tick())  # fmt: skip
                if i is not None:
                    s.tool_result(i, f"output of {i}\n" + "o\n" * draw(st.integers(0, 200)))
            s.assistant("reply " + "r" * draw(st.integers(0, 600)))
    return s


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claude_sessions(), st.integers(1500, 9000))
def test_parts_joined_read_as_the_whole_note(tmp_path_factory, session, limit):
    """Each part's calls show their output; read one after the other, the parts are the
    whole note's conversation (no call ends a part without output, no output stands
    alone after a queued prompt)."""
    tmp = tmp_path_factory.mktemp("cuts")
    session.write(tmp / "home" / ".claude" / "projects" / "-w-cuts" / f"{SID}.jsonl")
    notes = {}
    for name, max_bytes in (("whole", 10**9), ("parts", limit)):
        vault = tmp / name
        options = ExportOptions(vault=vault, home=tmp / "home", timezone=UTC,
                                note_max_bytes=max_bytes)  # fmt: skip
        assert not run_export(options).failed
        notes[name] = sorted((vault / p for p in note_files(vault)), key=lambda p: len(p.name))
    (whole,) = notes["whole"]
    assume(len(notes["parts"]) > 1)
    assert joined(notes["parts"]) == _generated(whole)
    assert all("[!example]- Tool output" not in p.read_text() for p in notes["parts"])
