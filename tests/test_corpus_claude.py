"""Every real Claude Code file in ../shared/corpus exports without a crash, and nothing a
person or the model wrote is lost (every prompt and every reply text is in the notes),
while the text tools inject is gone."""

from __future__ import annotations

import json
import re
from datetime import UTC
from pathlib import Path

import pytest
from conftest import normalize, note_files, stamps
from corpus_home import build_corpus_home

from exporter.export import ExportOptions, run_export

pytestmark = pytest.mark.corpus

_WRAPPERS = re.compile(
    r"<(system-reminder|local-command-caveat|command-[a-z]+|local-command-std(?:out|err)|bash-[a-z]+|"
    r"ide_[a-z_]+|user-prompt-submit-hook|task-notification|bash-notification)>.*?</\1>",
    re.DOTALL,
)
_NOT_PROMPTS = (
    "[Request interrupted by user",
    "Caveat: The messages below",
    "This session is being continued",
)


def written_texts(path: Path) -> tuple[list[str], list[str]]:
    """(human prompts, assistant text blocks) as the session file holds them."""
    prompts, replies = [], []
    warmup = False
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        message = rec.get("message") if isinstance(rec, dict) else None
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            if (
                not isinstance(block, dict)
                or block.get("type") != "text"
                or not isinstance(block.get("text"), str)
            ):
                continue
            text = block["text"]
            if (
                rec.get("type") == "user"
                and not rec.get("isMeta")
                and not rec.get("isCompactSummary")
            ):
                if (
                    rec.get("parentUuid") is None
                    and rec.get("isSidechain")
                    and text.strip() == "Warmup"
                ):
                    warmup = True
                text = _WRAPPERS.sub("", text).strip()
                if text and not text.startswith(_NOT_PROMPTS):
                    prompts.append(text)
            elif (
                rec.get("type") == "assistant"
                and message.get("model") != "<synthetic>"
                and text.strip()
            ):
                replies.append(text)
    # A "Warmup" agent is Claude Code priming its cache, not a conversation: not exported.
    return ([], []) if warmup else (prompts, replies)


def test_every_corpus_file_exports_and_nothing_written_is_lost(corpus, tmp_path):
    home = tmp_path / "home"
    files = build_corpus_home(corpus, home)
    vault = tmp_path / "vault"
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert not report.failed, [str(p) for p in report.problems if p.severity == "error"]
    notes = note_files(vault)
    assert len(notes) >= 25
    everything = normalize("\n".join(b.decode() for b in notes.values()))
    missing = []
    checked = 0
    for path in files:
        prompts, replies = written_texts(path)
        # A prompt is shown as typed; a reply is Markdown, its own escapes meant as such.
        for text, markdown in [(t, False) for t in prompts] + [(t, True) for t in replies]:
            checked += 1
            if normalize(text, escaped=markdown) not in everything:
                missing.append((path.name, text[:120]))
    assert checked > 400
    assert missing == []
    raw = "\n".join(b.decode() for b in notes.values())
    # The caveat never shows as a message (a file the model read may quote it, in a callout).
    assert not re.search(r"(?m)^Caveat: The messages below were generated", raw)
    reminders = {r for path in files for r in injected_reminders(path)}
    assert len(reminders) >= 5
    # A reminder the model itself quoted in a reply or a file it wrote is the model's text.
    model_wrote = normalize("\n".join(s for path in files for s in assistant_strings(path)))
    leaked = [r for r in reminders if r in everything and r not in model_wrote]
    assert leaked == []


def assistant_strings(path: Path) -> list[str]:
    """Every string the model wrote: replies, tool inputs, compaction summaries."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)

    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        # Compaction summaries are written by the model too, though stored as user lines.
        if isinstance(rec, dict) and (
            rec.get("type") == "assistant" or rec.get("isCompactSummary")
        ):
            walk((rec.get("message") or {}).get("content"))
    return found


def injected_reminders(path: Path) -> list[str]:
    """The text of every <system-reminder> the harness injected: in a prompt, or appended
    to the end of a tool result (a reminder inside code the model wrote is its own text)."""
    found = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if "<system-reminder>" not in line:
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if (
            not isinstance(rec, dict)
            or rec.get("type") != "user"
            or not isinstance(rec.get("message"), dict)
        ):
            continue
        content = rec["message"].get("content")
        texts = [content] if isinstance(content, str) else []
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "text":
                texts.append(block.get("text") or "")
            elif isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                inner = (
                    inner
                    if isinstance(inner, str)
                    else " ".join(b.get("text", "") for b in inner or [] if isinstance(b, dict))
                )
                if inner.rstrip().endswith("</system-reminder>"):
                    texts.append(inner[inner.rindex("<system-reminder>") :])
        for text in texts:
            for body in re.findall(r"<system-reminder>(.*?)</system-reminder>", text, re.DOTALL):
                if len(normalize(body)) > 40:
                    found.append(normalize(body)[:100])
    return found


def test_a_second_run_over_the_corpus_writes_nothing(corpus, tmp_path):
    home = tmp_path / "home"
    build_corpus_home(corpus, home)
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    before, times = note_files(vault), stamps(vault)
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert report.total("written") == 0 and report.total("skipped") == report.total("found")
    assert note_files(vault) == before and stamps(vault) == times


def test_lines_that_share_one_uuid_keep_their_prompts(corpus, tmp_path):
    """The agent-sessions fixture was trimmed by hand: lines 42-89 all carry the uuid
    "[trimmed for fixture]". They were merged into line 42 (an attachment), and the prompts
    of lines 49, 60 and 62 were lost without a word; lines 63 and 87 repeat 60's and 62's
    message (only their parent and flags differ, as when Claude Code writes a line again)."""
    from conftest import load_sessions

    from exporter.adapters.claude_code import ClaudeCodeAdapter

    name = "jazzyalex__agent-sessions__stage0-claude-small.jsonl"
    folder = tmp_path / "home" / ".claude" / "projects" / "-tmp-repo"
    folder.mkdir(parents=True)
    path = folder / "ses_stage0_small.jsonl"
    path.write_bytes((corpus / "claude-code" / name).read_bytes())
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path / "home")
    main = next(s for s in sessions if s.session_id == "ses_stage0_small")
    # (One of them follows the image the fixture trimmed to "[trimmed for fixture]", which
    # the note names as undecodable; a steering message, marked queued, is no prompt here.)
    prompts = [m for m in main.messages if m.role == "user" and m.parts[0].kind != "notice"]
    assert len(prompts) == 3 and all(m.parts[-1].kind == "text" for m in prompts)
    assert [p.withheld is not None for m in prompts for p in m.parts if p.kind == "attachment"] == [
        True
    ]
    assert [(p.path, p.line) for p in problems if "uuid" in p.message] == [(str(path), 43)]
