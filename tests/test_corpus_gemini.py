"""Every Gemini CLI and Antigravity sample in ../shared/corpus exports end to end: each
prompt and each reply of each file is in the notes, every tool call is counted, the
malformed sample is reported without failing the run, and a second run reads nothing."""

from __future__ import annotations

import json
import shutil
from datetime import UTC
from pathlib import Path

import pytest
from conftest import normalize, note_files
from corpus_home import build_gemini_home as gemini_home

from exporter.export import ExportOptions, run_export

pytestmark = pytest.mark.corpus
REFERENCES = "--- Content from referenced files ---"


def antigravity_home(corpus: Path, home: Path) -> list[Path]:
    copies = []
    for f in sorted((corpus / "antigravity").glob("*.jsonl")):
        logs = home / ".gemini" / "antigravity-cli" / "brain" / f.stem.split("__")[-1]
        dest = logs / ".system_generated" / "logs" / "transcript.jsonl"
        dest.parent.mkdir(parents=True)
        shutil.copyfile(f, dest)
        copies.append(dest)
    return copies


def gemini_records(path: Path) -> list[dict] | None:
    """The message records of a sample as the file has them (None: not a chat)."""
    if path.suffix == ".json":
        doc = json.loads(path.read_text(encoding="utf-8"))
        return doc.get("messages")
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return [x for x in lines if isinstance(x.get("id"), str)]


def text_of(content) -> str:
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content] if content else []
    return "".join(p.get("text", "") for p in parts if isinstance(p, dict))


def test_every_gemini_sample_exports_with_its_prompts_replies_and_calls(corpus, tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    files = gemini_home(corpus, home)
    options = ExportOptions(vault=vault, home=home, sources=["gemini"], timezone=UTC)
    report = run_export(options)
    assert not report.failed, [str(p) for p in report.problems if p.severity == "error"]
    rejected = [p for p in report.problems if "no messages list" in p.message]
    assert len(rejected) == 1 and "c0000005" in rejected[0].path  # the schema-drift sample
    notes = {rel: b.decode() for rel, b in note_files(vault).items()}
    assert len(files) == 7 and len(notes) == 6
    everything = normalize("\n".join(notes.values()))
    checked = 0
    for path in files:
        records = gemini_records(path)
        if records is None:
            continue
        calls = 0
        for rec in records:
            kind = rec.get("type")
            text = text_of(rec.get("content") if "content" in rec else rec.get("parts"))
            if kind == "user":
                text, markdown = text.split(REFERENCES)[0].strip(), False
            elif kind in ("gemini", "model"):
                markdown = True
                calls += len(rec.get("toolCalls") or [])
            else:
                continue
            if text.strip():
                checked += 1
                assert normalize(text, escaped=markdown) in everything, (path.name, text[:80])
        note = next(t for t in notes.values() if f"session_id: {session_id(path)}\n" in t)
        assert f"tool_calls: {calls}\n" in note
    assert checked >= 30
    again = run_export(options)
    assert again.total("skipped") == report.total("found") and again.total("written") == 0


def session_id(path: Path) -> str:
    """The id a sample's note carries: its ``sessionId``, else the 8 characters of its name."""
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text.splitlines()[0] if path.suffix == ".jsonl" else text)
    return doc.get("sessionId") or path.stem.rsplit("-", 1)[-1]


def test_every_antigravity_transcript_exports_with_its_prompts_and_replies(corpus, tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    files = antigravity_home(corpus, home)
    report = run_export(
        ExportOptions(vault=vault, home=home, sources=["antigravity"], timezone=UTC)
    )
    assert not report.failed
    # The trimmed fixture's times were replaced by '[trimmed for fixture]': reported, once.
    assert [p.message for p in report.problems] == [
        "7 timestamps could not be read and were left out (the first here: '[trimmed for fixture]')"
    ]
    notes = note_files(vault)
    assert len(files) == len(notes) == 2
    everything = normalize("\n".join(b.decode() for b in notes.values()))
    checked = 0
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            s = json.loads(line)
            content = s.get("content") or ""
            if s["type"] == "USER_INPUT" and "<USER_REQUEST>" in content:
                text = content.split("<USER_REQUEST>")[1].split("</USER_REQUEST>")[0].strip()
                assert normalize(text, escaped=False) in everything
                checked += 1
            elif s["type"] == "PLANNER_RESPONSE" and content:
                assert normalize(content) in everything
                checked += 1
            elif s["type"] in ("SYSTEM_MESSAGE",) and "<SYSTEM_MESSAGE>" in content:
                assert "not actually sent by the user" not in everything
    assert checked == 3


def test_shell_output_and_subagent_report_read_as_text(corpus, tmp_path):
    """The real v0.40 session's ``ls -F`` shows what it printed, not the lines the CLI
    wrote around it for the model (``Output:``, ``Process Group PGID: 12345``); the
    codemie session's subagent report shows its Markdown findings line by line, not as
    one JSON string of ``\\n`` escapes."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    gemini_home(corpus, home)
    run_export(ExportOptions(vault=vault, home=home, sources=["gemini"], timezone=UTC))
    notes = {rel: b.decode() for rel, b in note_files(vault).items()}
    listed = next(t for t in notes.values() if "session_id: gemini_stage0_jsonl\n" in t)
    assert "> ```text\n> AgentSessions/\n> README.md\n> ```\n" in listed
    assert "PGID" not in listed and "Output:" not in listed and "errors: 0\n" in listed
    report = next(t for k, t in notes.items() if "37b7abef" in k)
    assert "> SummaryOfFindings:\n> My investigation was interrupted" in report
    assert "> **Potential Security Weaknesses:**\n" in report
    assert '"SummaryOfFindings":' not in report and "\\n\\n**Adaptability**" not in report


def test_a_referenced_file_is_shown_as_the_cli_read_it(corpus, tmp_path):
    """``add another hello bob console log to @index.ts``: the file the CLI appended for
    the model is an attachment of the prompt, named by its path; the prompt is as typed."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    gemini_home(corpus, home)
    run_export(ExportOptions(vault=vault, home=home, sources=["gemini"], timezone=UTC))
    note = next(b.decode() for k, b in note_files(vault).items() if "18f475c0" in k)
    prompt = "### User · 18:25\n\nadd another hello bob console log to @index.ts\n\n"
    attached = "> [!cite] Attached `index.ts`\n> ```typescript\n> console.log('Bonjour');\n"
    assert prompt + attached in note
    assert REFERENCES not in note
