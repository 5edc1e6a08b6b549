"""No file in the vault's attachments folder that no note names (review39 L3).

A text attached to a message is shown in the note as code, and its file is copied only when
the note names it: a person's template that still embeds it (one copied before text was
shown inline), or the note of a file too long to show whole. Copies an earlier run made
stay in the vault (nothing the person may use is removed), and a run that changes nothing
writes nothing.
"""

from __future__ import annotations

import base64
import json
import shutil
from datetime import UTC
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME, ROOT
from corpus_home import (
    build_codex_home,
    build_copilot_cli_home,
    build_corpus_home,
    build_gemini_home,
)

from exporter.adapters.copilot_replay import replay
from exporter.export import ExportOptions, run_export

FOLDER = "attachments/ccexport"
CODE = "def greet(name):\n    return f'hello {name}'\n"


def unlinked(vault: Path) -> list[str]:
    """The files of the attachments folder that no note in the vault names."""
    notes = "".join(
        p.read_text(encoding="utf-8") for p in vault.rglob("*.md") if ".ccexport" not in p.parts
    )
    folder = vault / FOLDER
    files = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    return [name for name in files if name not in notes]


def export(vault: Path, home: Path, templates: Path | None = None, **options):
    report = run_export(
        ExportOptions(vault=vault, home=home, templates=templates, timezone=UTC, **options)
    )
    assert not report.failed, report.problems
    return report


def test_the_demo_home_leaves_no_attachment_no_note_names(tmp_path):
    vault = tmp_path / "v"
    export(vault, EXAMPLES_HOME)
    assert any((vault / FOLDER).glob("*.png"))  # the images the notes embed are there
    assert unlinked(vault) == []


def _claude_session_with_a_file(home: Path) -> None:
    """A Claude Code prompt with a text file attached (a base64 ``document`` block)."""
    project = home / ".claude" / "projects" / "-w-p"
    project.mkdir(parents=True)
    data = base64.b64encode(CODE.encode()).decode()
    doc = {"type": "document",
           "source": {"type": "base64", "media_type": "text/plain", "data": data}}  # fmt: skip
    lines = [
        {"type": "user", "uuid": "u1", "sessionId": "s1", "cwd": "/w/p",
         "timestamp": "2026-11-20T09:00:00Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "why?"}, doc]}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s1",
         "cwd": "/w/p", "timestamp": "2026-11-20T09:00:05Z",
         "message": {"role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": "It greets."}]}},
    ]  # fmt: skip
    (project / "s1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def _template_that_embeds_text_files(folder: Path) -> Path:
    """The shipped session template as a person copied it before text was shown in the
    note: every attachment, text or image, embedded by its path."""
    shipped = (ROOT / "templates" / "session.md.j2").read_text(encoding="utf-8").split("\n")
    at = next(
        i for i, line in enumerate(shipped) if line.startswith('{% elif item.kind == "attachment"')
    )
    folder.mkdir()
    (folder / "session.md.j2").write_text("\n".join(shipped[:at] + shipped[at + 2 :]))
    return folder


def _note_text(vault: Path) -> str:
    (note,) = (p for p in (vault / "AI Sessions").rglob("*.md") if "It greets." in p.read_text())
    return note.read_text(encoding="utf-8")


def test_a_text_file_is_copied_only_while_a_template_names_it_and_never_removed(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    _claude_session_with_a_file(home)
    export(vault, home)
    assert "> [!cite] Attached text\n> ```text\n> def greet" in _note_text(vault)  # as code
    assert not (vault / FOLDER).exists() or not any((vault / FOLDER).glob("*.txt"))
    # The person's template embeds it: the note is rendered again and the file copied.
    old = _template_that_embeds_text_files(tmp_path / "old")
    export(vault, home, templates=old)
    (copy,) = (vault / FOLDER).glob("*.txt")
    assert copy.read_text() == CODE and f"![[{FOLDER}/{copy.name}]]" in _note_text(vault)
    # Back to the shipped template: the note no longer names it, and the copy stays.
    export(vault, home)
    assert copy.read_text() == CODE and copy.name not in _note_text(vault)
    before = _files(vault)
    for again in ({}, {"force": True}):  # as it was; every note rendered again
        export(vault, home, **again)
        assert _files(vault) == before, again


def _files(vault: Path) -> dict[str, tuple[int, bytes]]:
    """Every file of the vault (not ccexport's own state), with its mtime and bytes."""
    return {
        p.relative_to(vault).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(vault.rglob("*"))
        if p.is_file() and ".ccexport" not in p.parts
    }


def test_a_text_file_the_person_deleted_is_not_copied_again_for_a_template_naming_it(tmp_path):
    """As for an image: the note says in its place that it was deleted."""
    home, vault = tmp_path / "home", tmp_path / "v"
    _claude_session_with_a_file(home)
    old = _template_that_embeds_text_files(tmp_path / "old")
    export(vault, home, templates=old)
    (copy,) = (vault / FOLDER).glob("*.txt")
    copy.unlink()
    export(vault, home, templates=old, force=True)
    assert not copy.exists()
    assert f"*`{copy.name}` was deleted from the vault, and is not copied again.*" in (
        _note_text(vault)
    )


def _place_other_sources(corpus: Path, home: Path) -> None:
    """The corpus files whose prompts carry attached text (Cline, Copilot in VS Code,
    Cursor, Gemini), with the Claude Code, Codex and Copilot CLI ones: where each tool keeps
    them, as their own corpus tests place them."""
    build_corpus_home(corpus, home)
    build_codex_home(corpus, home)
    build_copilot_cli_home(corpus, home)
    build_gemini_home(corpus, home)
    cline = json.loads((corpus / "cline" / CLINE).read_text())
    sessions = home / ".cline" / "data" / "sessions" / cline["sessionId"]
    sessions.mkdir(parents=True)
    shutil.copyfile(corpus / "cline" / CLINE, sessions / f"{cline['sessionId']}.messages.json")
    user = home / ".config" / "Code" / "User"
    for i, name in enumerate(COPILOT):
        source = corpus / "copilot" / name
        data = replay(source, []) if name.endswith(".jsonl") else json.loads(source.read_text())
        chats = user / "workspaceStorage" / f"ws{i}" / "chatSessions"
        chats.mkdir(parents=True)
        shutil.copyfile(source, chats / f"{data['sessionId']}{source.suffix}")
        (chats.parent / "workspace.json").write_text(json.dumps({"folder": f"file:///w/p{i}"}))
    cursor = home / ".config" / "Cursor" / "User"
    (cursor / "globalStorage").mkdir(parents=True)
    shutil.copyfile(corpus / "cursor" / CURSOR_GLOBAL, cursor / "globalStorage" / "state.vscdb")


CLINE = "cline__cline__sdk-fixtures__session__session.messages.json"
COPILOT = [
    "Piebald-AI__splitrail__copilot.json",
    "git-ai-project__git-ai__copilot_session_simple.json",
    "git-ai-project__git-ai__copilot_session_simple.jsonl",
    "git-ai-project__git-ai__copilot_session_multiline.jsonl",
]
CURSOR_GLOBAL = "git-ai-project__git-ai__cursor_test.vscdb"


@pytest.mark.corpus
def test_the_corpus_leaves_no_attachment_no_note_names(corpus, tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    _place_other_sources(corpus, home)
    export(vault, home)
    notes = "".join(p.read_text() for p in (vault / "AI Sessions").rglob("*.md"))
    assert notes.count("[!cite]") >= 5  # attached texts, shown in their notes
    assert any((vault / FOLDER).glob("*.txt"))  # the whole output a note names is there
    assert unlinked(vault) == []
