"""``session_body`` writes the shipped session template's bytes without Jinja: for any
context a note can have, it equals the template rendered by Jinja; it is used only while
the template in effect is the shipped file, unchanged."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter import notes
from exporter.model import Session
from exporter.notes import unread_words
from exporter.render import (
    REFERENCE_ENV,
    default_templates_dir,
    fresh_templates,
    render,
    shipped_template_in_effect,
)
from exporter.session_body import SHIPPED_TEMPLATE_SHA256, session_body

TEMPLATE = "session.md.j2"

# Short texts that reach every escape: Markdown and Obsidian syntax, code, tabs, lines.
_texts = st.lists(st.sampled_from(list("ab_*`#[]|<>=$%:^\\-\n\t ~!.1é") + ["```", "- ", "> "]),
                  max_size=20).map("".join)  # fmt: skip
_maybe_text = st.one_of(st.none(), st.just(""), _texts)
_counts = st.one_of(st.none(), st.integers(-2, 300))
_not_run = st.sampled_from([None, "rejected", "denied", "cancelled"])


_origins = st.sampled_from([None, "editor-file", "editor-selection"])
_image_paths = st.sampled_from(["attachments/ccexport/0123abcd.png", "a b/c`d.pdf"])
_output_paths = st.sampled_from([None, "attachments/ccexport/89abcdef01234567.txt", "a`b/c d.txt"])


@st.composite
def _item(draw) -> dict:
    kind = draw(st.sampled_from(["text", "thinking", "tool_call", "tool_result", "command",
                                 "command_output", "summary", "attachment", "notice"]))  # fmt: skip
    item: dict = {"kind": kind, "one_line": draw(st.booleans()) and kind == "tool_call"}
    if kind in ("text", "summary"):
        item.update(text=draw(_texts), trigger=draw(_maybe_text))
        item.update(tokens=draw(st.one_of(st.none(), st.integers(1, 10**7))))
    elif kind == "thinking":
        item.update(text=draw(_texts), redacted=draw(st.booleans()))
    elif kind == "tool_call":
        todos = draw(st.one_of(st.none(), st.lists(st.fixed_dictionaries({
            "text": _texts, "done": st.booleans(),
            "status": st.sampled_from(["pending", "in_progress", "completed", "cancelled"]),
        }), max_size=3)))  # fmt: skip
        item.update(
            name=draw(st.sampled_from(["Bash", "Task", "Agent", "Edit", "x`y"])),
            summary=draw(_maybe_text),
            summary_code=draw(st.booleans()),
            summary_cut=draw(st.sampled_from(["", "…", " …"])),
            inputs=draw(
                st.lists(
                    st.fixed_dictionaries(
                        {
                            "label": _maybe_text,
                            "text": _texts,
                            "lang": st.sampled_from(["", "sh", "json", "dataview", "diff"]),
                        }
                    ),
                    max_size=2,
                )
            ),  # fmt: skip
            output=draw(_maybe_text),
            output_path=draw(_output_paths),
            output_more=draw(st.sampled_from([0, 1, 2, 57])),
            is_error=draw(st.booleans()),
            not_run=draw(_not_run),
            exit_code=draw(_counts),
            duration=draw(st.one_of(st.none(), st.floats(0, 1e4, allow_nan=False))),
            subagent=draw(st.one_of(st.none(), st.just("[[2026-01-02 agent a1b2]]"))),
            prompt=draw(_maybe_text),
            agent_type=draw(_maybe_text),
            todos=todos,
            explanation=draw(_maybe_text),
            # the images its result returned, shown in its callout
            attachments=draw(
                st.lists(
                    st.builds(lambda p: {"path": p, "media_type": "image/png"}, _image_paths),
                    max_size=2,
                )
            ),
        )
    elif kind == "tool_result":
        item.update(output=draw(_texts), is_error=draw(st.booleans()), not_run=draw(_not_run),
                    output_more=draw(st.sampled_from([0, 1, 3])),
                    output_path=draw(_output_paths))  # fmt: skip
    elif kind == "command":
        item.update(command=draw(_texts), shell=draw(st.booleans()))
    elif kind == "command_output":
        item.update(output=draw(_texts), is_error=draw(st.booleans()), sent=draw(st.booleans()))
    elif kind == "attachment" and draw(st.booleans()):  # a text file, shown as code
        item.update(path="attachments/ccexport/0123abcd.txt", media_type="text/plain",
                    name=draw(_maybe_text), text=draw(_texts), cut=draw(st.booleans()),
                    shortened=draw(st.booleans()), origin=draw(_origins),
                    lang=draw(st.sampled_from(["text", "rust", "dataview"])),
                    lines=draw(st.integers(1, 40)))  # fmt: skip
    elif kind == "attachment":
        item.update(path="attachments/ccexport/0123abcd.png", media_type="image/png",
                    name=draw(_maybe_text), text=None, lang=None, lines=0, cut=False,
                    shortened=False, origin=draw(_origins),
                    in_call=draw(st.booleans()))  # fmt: skip
    else:
        item.update(notice=draw(st.sampled_from(["interrupted", "rewound", "error", "other",
                                                 "attachment", "unanswered",
                                                 "awaiting_approval", "warning",
                                                 "decision"])),
                    text=draw(_texts))  # fmt: skip
        if item["notice"] == "error":  # an app's, or the API's
            item["app"] = draw(st.booleans())
        if item["notice"] == "attachment":  # why it is not in the vault, when it was withheld
            item["withheld"] = draw(st.sampled_from(["", "it is not text and holds a secret"]))
            item["origin"] = draw(_origins)
    return item


_when = st.one_of(st.none(), st.datetimes(min_value=datetime(2020, 1, 1),
                                          max_value=datetime(2030, 1, 1), timezones=st.just(UTC)))  # fmt: skip
# A session across the autumn change of New York's clocks (2026-11-01 06:00 UTC): its start
# and end in zones of their own names (EDT, EST).
_NEW_YORK = ZoneInfo("America/New_York")
_across = st.datetimes(min_value=datetime(2026, 11, 1, 5, 0), max_value=datetime(2026, 11, 1, 7, 0),
                       timezones=st.just(UTC)).map(lambda t: t.astimezone(_NEW_YORK))  # fmt: skip


@st.composite
def _context(draw) -> dict:
    started = draw(st.one_of(_when, _across))
    ended = draw(st.one_of(_when, _across, st.just(started and started + timedelta(hours=2))))
    session = Session(
        source="claude-code",
        session_id="s1",
        messages=(),
        source_path=Path("s1.jsonl"),
        git_branch=draw(_maybe_text),
        models=tuple(
            draw(
                st.lists(st.sampled_from(["claude-opus-4-1-20250805", "gpt-5", "a*b"]), max_size=2)
            )
        ),  # fmt: skip
        agent_label=draw(_maybe_text),
        saved_copy=draw(st.booleans()),
    )
    onward = {how: draw(st.lists(st.sampled_from(["[[c]]", "[[d|D]]"]), max_size=2))
              for how in ("forked", "saved")}  # fmt: skip
    onward["all"] = [*onward["forked"], *onward["saved"]]
    properties = draw(st.sampled_from([{}, {"model": "x"}, {"resume": "claude --resume s1"}]))
    turns = draw(st.lists(st.fixed_dictionaries({
        "role": st.sampled_from(["user", "assistant", "system"]),
        "when": st.sampled_from(["", "09:05", "2026-01-02 10:00"]),
        "queued": st.booleans(),
        "task": st.booleans(),
        "model": st.one_of(_maybe_text, st.just("voxtral-small-24b-20250701")),
        "items": st.lists(_item(), max_size=4),
    }), max_size=4))  # fmt: skip
    return {
        "properties": properties,
        "session": session,
        "title": draw(_texts),
        "source_label": "Claude Code",
        "project": draw(_texts),
        "turns": turns,
        "parent_link": draw(st.one_of(st.none(), st.just("[[parent note]]"))),
        "fork_link": draw(st.one_of(st.none(), st.just("[[fork origin]]"))),
        "fork_links": onward,
        "subagent_links": draw(st.lists(st.sampled_from(["[[a]]", "[[b|B]]"]), max_size=2)),
        "unread": unread_words(tuple(draw(st.lists(st.integers(1, 99), max_size=10)))),
        "started": started,
        "ended": ended,
        "tz": UTC,
        "tool_output": "full",
        "tool_output_lines": 20,
        "thinking": draw(st.sampled_from(["folded", "shown", "hidden"])),
        "tools": "full",
        "todo_as_checklist": draw(st.booleans()),
    }


@settings(max_examples=600, deadline=None)
@given(_context())
def test_it_writes_what_jinja_renders_from_the_shipped_template(context):
    assert session_body(context) == render(TEMPLATE, context)


def test_the_shipped_template_is_the_one_it_follows():
    """Edit templates/session.md.j2 and this fails until session_body follows the edit and
    its digest is updated (until then notes are rendered by Jinja: correct, slower)."""
    data = (default_templates_dir() / TEMPLATE).read_bytes()
    assert hashlib.sha256(data).hexdigest() == SHIPPED_TEMPLATE_SHA256


def test_it_is_used_only_for_the_shipped_template_unchanged(tmp_path, monkeypatch):
    monkeypatch.delenv(REFERENCE_ENV, raising=False)
    fresh_templates()
    assert shipped_template_in_effect(TEMPLATE, None, SHIPPED_TEMPLATE_SHA256)
    assert shipped_template_in_effect(TEMPLATE, tmp_path, SHIPPED_TEMPLATE_SHA256)
    assert not shipped_template_in_effect(TEMPLATE, None, "0" * 64)  # the file was edited
    (tmp_path / TEMPLATE).write_text("{{ title }}\n")
    fresh_templates()
    assert not shipped_template_in_effect(TEMPLATE, tmp_path, SHIPPED_TEMPLATE_SHA256)
    monkeypatch.setenv(REFERENCE_ENV, "1")
    fresh_templates()
    assert not shipped_template_in_effect(TEMPLATE, None, SHIPPED_TEMPLATE_SHA256)
    fresh_templates()


def test_a_note_is_built_without_jinja_only_when_the_template_is_shipped(tmp_path, monkeypatch):
    monkeypatch.delenv(REFERENCE_ENV, raising=False)
    calls: list[str] = []
    monkeypatch.setattr(notes, "render", lambda name, *a: calls.append(name) or "jinja\n")
    monkeypatch.setattr(notes, "session_body", lambda c: calls.append("python") or "python\n")
    mine = tmp_path / "mine"
    mine.mkdir()
    fresh_templates()
    for folder in (None, mine):
        settings_ = notes.NoteSettings(templates=folder)
        assert notes._body(settings_, {}) == "python\n"
    (mine / TEMPLATE).write_text("{{ title }}\n")
    fresh_templates()
    assert notes._body(notes.NoteSettings(templates=mine), {}) == "jinja\n"
    other = notes.NoteSettings(session_template="other.md.j2")
    assert notes._body(other, {}) == "jinja\n"
    assert calls == ["python", "python", TEMPLATE, "other.md.j2"]
    fresh_templates()


def test_an_attachment_shows_its_name_and_one_not_stored_is_still_said():
    """A file a person attached shows its name (a path) above it; one the session names
    but does not hold (kept elsewhere, by path or URL) is said, not dropped."""
    from exporter.model import AttachmentPart
    from exporter.session_body import _item
    from exporter.turns import _attachment_item

    turn = {"role": "user"}
    stored = _attachment_item(AttachmentPart("text/plain", b"x\n", "src/a_b.ts"), "att", [])
    assert _item(stored, turn, "folded", False) == (
        "> [!cite] Attached `src/a_b.ts`\n> ```typescript\n> x\n> ```\n"
    )
    pdf = _attachment_item(AttachmentPart("application/pdf", b"%PDF", "a_b.pdf"), "att", [])
    assert _item(pdf, turn, "folded", False).startswith("Attached `a_b.pdf`:\n![[att/")
    image = _attachment_item(AttachmentPart("image/png", b"\x89PNG"), "att", [])
    assert _item(image, turn, "folded", False).startswith("![[att/")
    gone = _attachment_item(AttachmentPart("text/plain", None, "logs/error.log"), "att", [])
    assert _item(gone, turn, "folded", False) == (
        "*Attached `logs/error.log`, not stored in the session.*\n"
    )
    unnamed = _attachment_item(AttachmentPart("image/png"), "att", [])
    assert _item(unnamed, turn, "folded", False) == "*An attachment, not stored in the session.*\n"


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "template"])
def test_a_call_under_a_tenth_of_a_second_reads_in_milliseconds(monkeypatch, reference):
    """A 4 ms call read '0.0 s' (Copilot CLI's durationMs); a recorded 0 stays as recorded
    (Codex writes tenths), and longer calls keep their tenths. Both render paths."""
    from message_builder import msg, session

    from exporter.model import TextPart, ToolCallPart, ToolResultPart
    from exporter.notes import NoteSettings, build_note

    if reference:
        monkeypatch.setenv(REFERENCE_ENV, "1")
    fresh_templates()
    shown = []
    for seconds in (0.004, 0.0996, 0.0, 0.1, 1.5):
        call = ToolCallPart("shell", {"command": "ls"}, "c1")
        s = session(msg("user", TextPart("list it")), msg("assistant", call),
                    msg("tool", ToolResultPart("a.txt", "c1", duration=seconds)))  # fmt: skip
        body = build_note(s, "n.md", NoteSettings(), lambda key: None).body
        shown.append(body.split("`shell`", 1)[1].split("\n", 1)[0])
    fresh_templates()
    assert shown == [" — `ls` · 4 ms", " — `ls` · 100 ms", " — `ls` · 0.0 s", " — `ls` · 0.1 s",
                     " — `ls` · 1.5 s"]  # fmt: skip
