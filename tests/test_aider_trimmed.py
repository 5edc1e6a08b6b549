"""An Aider log whose trailing spaces were trimmed (an editor, a pre-commit
trailing-whitespace hook) reads as the log Aider wrote: with no ``>`` line ending in Aider's
two spaces, each ``>`` line is a message of its own, never a line of the one before it
carrying its raw ``> `` (review21 F1)."""

from __future__ import annotations

import shutil
from pathlib import Path

from aider_builder import CORPUS_SMALL as SMALL
from aider_builder import AiderLog, corpus_home
from test_aider_adapter import load, utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)

from exporter.model import CommandOutputPart, ToolCallPart, ToolResultPart
from exporter.stats import edited_files

EXAMPLE = Path(__file__).parent.parent / "examples" / "home" / "src" / "weather-cli"


def trimmed(text: str) -> str:
    return "\n".join(line.rstrip(" ") for line in text.split("\n"))


def example_home(home: Path, trim: bool) -> Path:
    repo = home / "src" / "weather-cli"
    repo.mkdir(parents=True)
    text = (EXAMPLE / ".aider.chat.history.md").read_text(encoding="utf-8")
    assert "  \n" in text  # the example is as Aider wrote it
    (repo / ".aider.chat.history.md").write_text(trimmed(text) if trim else text, "utf-8")
    shutil.copyfile(EXAMPLE / ".aider.input.history", repo / ".aider.input.history")
    return home


def facts(session) -> dict:
    calls = [p for m in session.messages for p in m.parts if isinstance(p, ToolCallPart)]
    return {
        "title": session.title_from,
        "models": session.models,
        "command": session.command,
        "version": session.extra.get("aider_version"),
        "cost": session.cost,
        "usage": session.usage,
        "calls": [(c.name, c.input) for c in calls],
        "files": edited_files(session),
        "messages": session.messages,
    }


def test_a_trimmed_log_gives_the_notes_of_the_log_aider_wrote(tmp_path):
    """Trimmed, the example's banner was shown as Output with its ``> `` marks, its model
    was lost, and each edit's output held the ``> Commit …`` line after it."""
    written, _ = load(example_home(tmp_path / "a", trim=False))
    read, problems = load(example_home(tmp_path / "b", trim=True))
    assert not problems
    assert [facts(s) for s in read] == [facts(s) for s in written]
    assert read[0].models == ("claude-sonnet-4-5",)
    assert facts(read[0])["calls"] == [
        ("edit", {"path": "weather/cli.py"}),
        ("edit", {"path": "tests/test_cli.py"}),
    ]
    shown = [
        p.output
        for s in read
        for m in s.messages
        for p in m.parts
        if isinstance(p, CommandOutputPart | ToolResultPart)
    ]
    assert not any("Aider v" in text or "\n> " in text for text in shown)


def test_the_corpus_small_log_keeps_each_of_aiders_lines_apart(corpus, tmp_path):
    """The corpus's agentsview log has no trailing spaces: its second ``Applied edit`` and
    the file Aider created were lines of the first edit's output, ``> `` and all."""
    sessions, _ = load(corpus_home(corpus, SMALL, tmp_path / "home", "myrepo"))
    first = min(sessions, key=lambda s: s.started_at)  # "add a retry to the webhook"
    assert "src/retry.py" in edited_files(first)
    outputs = [p.output for m in first.messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert outputs and not any("> " in text for text in outputs)
    assert sum(text.startswith("Applied edit to src/webhook.py") for text in outputs) == 2


def test_a_trimmed_usage_line_split_before_its_cost_is_still_one_line(tmp_path):
    """Older Aider split its usage line before ``Cost:``; trimmed, the second half has no
    mark of its own to say it goes with the first, and is no reply."""
    log = AiderLog().run("2024-08-21 21:33:08").prompt("hi").reply("Hello.")
    log.lines += ["> Tokens: 11k sent, 182 received.", "Cost: $0.04 message, $0.04 session.", ""]
    log.prompt("bye").reply("Bye.")
    repo = tmp_path / "home" / "src" / "r"
    log.write(repo)
    path = repo / ".aider.chat.history.md"
    path.write_text(trimmed(path.read_text(encoding="utf-8")), encoding="utf-8")
    (session,), _ = load(tmp_path / "home")
    assert session.cost == 0.04 and session.usage.output_tokens == 182
    replies = [p.text for m in session.messages if m.role == "assistant" for p in m.parts]
    assert replies == ["Hello.", "Bye."]


def test_a_file_aider_created_after_a_reply_is_among_the_notes_files(tmp_path):
    log = AiderLog().run("2026-06-09 14:01:00").prompt("add a retry module").reply("Done.")
    log.aider("Creating empty file src/retry.py", "Applied edit to src/webhook.py")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert edited_files(session) == ["src/retry.py", "src/webhook.py"]
