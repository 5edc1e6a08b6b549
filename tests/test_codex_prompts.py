"""A Codex custom prompt (``/prompts:<name> <args>``): the rollout holds only the file's text
as sent, with its placeholders filled in, so the note showed the whole template as if the
person had typed it, and was titled by its first heading (corpus code_butler, ai-trading-bot).
Matched against ``$CODEX_HOME/prompts``, it is the command typed, the text it sent folded."""

from __future__ import annotations

import pytest
from codex_builder import CodexRollout
from test_codex_adapter import TID, load_all

from exporter.adapters import codex
from exporter.export import ExportOptions, run_export
from exporter.model import CommandOutputPart, CommandPart, TextPart

BUTLER = """---
description: Execute a ButlerSpec
argument-hint: <SPEC_PATH>
---
# /butler-exec — Execute a ButlerSpec

Purpose: run a single ButlerSpec file with strict guardrails; never replan or modify
other files.

Spec to run: $1 (and nothing else; mode $MODE)
"""


def sent(spec: str, mode: str) -> str:
    body = BUTLER.split("---\n", 2)[2]
    return body.replace("$1", spec).replace("$MODE", mode).strip()


def home_with(tmp_path, *prompts: tuple[str, str]):
    folder = tmp_path / ".codex" / "prompts"
    folder.mkdir(parents=True)
    for name, text in prompts:
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    return tmp_path


def rollout(*prompts: str) -> CodexRollout:
    r = CodexRollout(TID)
    for n, text in enumerate(prompts):
        r.user(text)
        r.assistant(f"Done {n}.")
    return r


def user_parts(session):
    return [p for m in session.messages if m.role == "user" for p in m.parts]


def test_a_prompt_file_filled_in_is_the_command_typed(tmp_path):
    home = home_with(tmp_path, ("butler-exec", BUTLER), ("short", "Review $1"))
    text = sent("specs/a.butler.yaml", "strict")
    rollout(text, "Review this", "thanks").write(home / ".codex")
    ((session,), problems) = load_all(home)
    assert problems == []
    assert user_parts(session) == [
        CommandPart("/prompts:butler-exec specs/a.butler.yaml MODE=strict"),
        CommandOutputPart(text, sent=True),
        TextPart("Review this"),  # a prompt too short to tell from typing: as typed
        TextPart("thanks"),
    ]
    vault = tmp_path / "v"
    run_export(ExportOptions(vault=vault, home=home))
    (note,) = [p.read_text() for p in vault.rglob("*.md") if "/codex/" in str(p)]
    assert "\ntitle: /prompts:butler-exec specs/a.butler.yaml MODE=strict\n" in note
    # (the prompt file as sent, not anything the command printed: it read "Output")
    assert "> [!note]- Prompt sent" in note and "Purpose: run a single ButlerSpec" in note


@pytest.mark.parametrize(
    ("body", "typed"),
    [
        ("Create or update the constitution from these principles: $ARGUMENTS.\n\n"
         "Follow the outline below exactly; keep it short.", "/prompts:constitution focus on tests"),
        ("Create or update the constitution from these principles: $1 and $2.\n\n"
         "Follow the outline below exactly; keep it short.",
         '/prompts:constitution "focus on" tests'),
    ],
)  # fmt: skip
def test_arguments_are_given_back_as_typed(tmp_path, body, typed):
    home = home_with(tmp_path, ("constitution", body))
    filled = body.replace("$ARGUMENTS", "focus on tests").replace("$1", "focus on")
    rollout(filled.replace("$2", "tests")).write(home / ".codex")
    ((session,), _) = load_all(home)
    assert user_parts(session)[0] == CommandPart(typed)


def test_without_prompt_files_or_a_match_the_text_is_as_sent(tmp_path):
    text = sent("specs/a.butler.yaml", "strict")
    rollout(text).write(tmp_path / ".codex")
    ((session,), _) = load_all(tmp_path)
    assert user_parts(session) == [TextPart(text)]
    home = home_with(tmp_path / "other", ("butler-exec", BUTLER))
    rollout(text + "\n\nAnd one more thing.").write(home / ".codex")
    ((session,), _) = load_all(home)
    assert isinstance(user_parts(session)[0], TextPart)  # more than the file: typed


def test_a_streamed_rollout_reads_the_same(tmp_path, monkeypatch):
    home = home_with(tmp_path, ("butler-exec", BUTLER))
    rollout(sent("x.yaml", "dry")).write(home / ".codex")
    ((held,), _) = load_all(home)
    monkeypatch.setattr(codex, "STREAM_FROM", 0)
    ((streamed,), _) = load_all(home)
    assert streamed.is_streamed and tuple(streamed.messages) == held.messages
    assert user_parts(held)[0] == CommandPart("/prompts:butler-exec x.yaml MODE=dry")
