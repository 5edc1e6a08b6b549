"""The Cursor corpus (../shared/corpus/cursor and cursor-agent) exports without a crash, and
every prompt and reply in it is in the notes: both real state.vscdb databases, and each Agent
transcript sample placed where Cursor keeps it."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
from datetime import UTC
from pathlib import Path

import pytest
from conftest import CORPUS, normalize, note_files

from exporter.adapters.cursor import lexical_text
from exporter.export import ExportOptions, run_export

pytestmark = pytest.mark.corpus


def corpus_texts(db) -> tuple[list[str], list[str]]:
    """(user texts, assistant texts) of every generation a database holds."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    users, replies = [], []

    def add(kind, text):
        if isinstance(text, str) and text.strip():
            (users if kind in (1, "user") else replies).append(text)

    if "cursorDiskKV" in tables:
        for (value,) in conn.execute("SELECT value FROM cursorDiskKV WHERE key LIKE 'bubbleId:%'"):
            b = json.loads(value)
            add(b.get("type"), b.get("text") or lexical_text(b.get("richText")))
    for key, value in conn.execute("SELECT key, value FROM ItemTable"):
        if key == "workbench.panel.aichat.view.aichat.chatdata":
            for tab in json.loads(value).get("tabs", []):
                for b in tab.get("bubbles", []):
                    add(b.get("type"), b.get("text") or lexical_text(b.get("initText")))
        elif key == "composer.composerData":
            for c in json.loads(value).get("allComposers", []):
                for b in c.get("conversation") or []:
                    add(b.get("type"), b.get("text"))
    conn.close()
    return users, replies


def _both_databases(corpus: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The real databases as a user folder: one global, one a workspace's."""
    user = tmp_path / "home" / ".config" / "Cursor" / "User"
    (user / "globalStorage").mkdir(parents=True)
    shutil.copyfile(
        corpus / "cursor" / "git-ai-project__git-ai__cursor_test.vscdb",
        user / "globalStorage" / "state.vscdb",
    )
    ws = user / "workspaceStorage" / "f87f6e0b2cf1ae8645cc0c5ffaa99529"
    ws.mkdir(parents=True)
    shutil.copyfile(corpus / "cursor" / "slevin48__cursor-history__state.vscdb", ws / "state.vscdb")
    (ws / "workspace.json").write_text(json.dumps({"folder": "file:///c%3A/Users/dev/mobilechat"}))
    return user, ws


def test_the_real_databases_cut_into_parts_read_as_the_folder_read_whole(corpus, tmp_path):
    """Every global composer a part of its own, then the workspace's chats
    (``CursorAdapter.parts``, as workers read a large folder): in order, the same sessions
    as the folder read whole."""
    from exporter.adapters import SourceContext
    from exporter.adapters.cursor import CursorAdapter, composer

    _both_databases(corpus, tmp_path)
    adapter = CursorAdapter()
    (ref,) = [r for r in adapter.discover(SourceContext.for_home(tmp_path / "home"))
              if r.fact("user_dir")]  # fmt: skip
    whole = [s for r in adapter.load_families(ref) for s in r.sessions]
    real = composer.PART_BYTES
    try:
        composer.PART_BYTES = 1  # one composer per part
        parts = adapter.parts(ref)
    finally:
        composer.PART_BYTES = real
    assert parts and len(parts) >= 2 and parts[-1].fact("part") == composer.WORKSPACES_PART
    pieces = [s for part in parts for s in adapter.load(part).sessions]
    assert [(s.session_id, s.title, s.cwd, s.messages) for s in pieces] == [
        (s.session_id, s.title, s.cwd, s.messages) for s in whole
    ]
    assert len(whole) >= 30


def test_both_cursor_databases_export_and_nothing_is_lost(corpus, tmp_path):
    user, ws = _both_databases(corpus, tmp_path)
    report = run_export(
        ExportOptions(
            vault=tmp_path / "v", home=tmp_path / "home", sources=["cursor"], timezone=UTC
        )
    )
    assert not report.failed, report.problems
    notes = note_files(tmp_path / "v")
    assert len(notes) >= 30
    everything = normalize("\n".join(b.decode() for b in notes.values()))
    checked, missing = 0, []
    for db in (user / "globalStorage" / "state.vscdb", ws / "state.vscdb"):
        users, replies = corpus_texts(db)
        for text, markdown in [(t, False) for t in users] + [(t, True) for t in replies]:
            checked += 1
            if normalize(text, escaped=markdown) not in everything:
                missing.append(text[:100])
    assert checked > 100 and missing == []


def test_the_real_composer_keeps_its_project_branch_and_the_selected_code(corpus, tmp_path):
    """The global database's composer: no workspace claims it, so its folder and branch
    come from the context of its requests; its second prompt ('For the code present…')
    carries the selection it is about."""
    from exporter.adapters import SourceContext
    from exporter.adapters.cursor import CursorAdapter

    _both_databases(corpus, tmp_path)
    adapter = CursorAdapter()
    sessions = [
        s
        for r in adapter.discover(SourceContext.for_home(tmp_path / "home"))
        for s in adapter.load(r).sessions
    ]
    (real,) = [s for s in sessions if s.session_id.startswith("00812842")]
    assert (real.project, real.cwd) == ("git-ai", "/Users/svarlamov/projects/git-ai")
    assert real.git_branch == "feat/track-time-waiting-for-ai"
    second = [m for m in real.messages if m.role == "user"][1]
    (selection,) = [p for p in second.parts if p.kind == "attachment" and p.data]
    assert selection.name.endswith("agent_preset.rs:412-415")
    assert b"bubble_created_at," in selection.data


def test_the_real_pasted_screenshot_is_embedded_where_cursor_keeps_its_copy(corpus, tmp_path):
    """Composer 484448da and legacy tab 2aa483d1 name a pasted image by its Windows path in
    Cursor's User folder (``c:\\Users\\ydebray\\…\\workspaceStorage\\images\\0.74…-image.png``):
    with a (synthetic) copy there under --home, both notes embed it and the vault holds its
    bytes (the composer's two prompts both carry it); the screenshots picked from OneDrive
    stay named only."""
    from claude_builder import tiny_png

    user, _ws = _both_databases(corpus, tmp_path)
    shot = tiny_png((30, 60, 90))
    images = user / "workspaceStorage" / "images"
    images.mkdir()
    (images / "0.7449537880301038-image.png").write_bytes(shot)
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", sources=["cursor"],
                             timezone=UTC))  # fmt: skip
    notes = note_files(tmp_path / "v")
    pasted = [n.decode() for n in notes.values() if b"0.7449537880301038-image.png" in n]
    assert len(pasted) == 2
    for note in pasted:
        embeds = [line[3:-2] for line in note.splitlines() if line.startswith("![[")]
        assert embeds and {(tmp_path / "v" / e).read_bytes() for e in embeds} == {shot}
        assert "-image.png`, not stored" not in note
    assert any(b"matlabmobile.jpg`, not stored in the session" in n for n in notes.values())


AGENT = "cursor-agent"
REAL_TRANSCRIPT = Path("cursor") / "git-ai-project__git-ai__cursor-session-simple.jsonl"
STORE = "jazzyalex__agent-sessions__Cursor__test-store.db"
# Where each sample goes: the project folder's slug, and the store that describes it.
SAMPLES = sorted(p.name for p in (CORPUS / AGENT).glob("*.jsonl")) + [str(REAL_TRANSCRIPT)]
SLUGS = {str(REAL_TRANSCRIPT): "Users-aidancunniffe-Desktop-testing-gitflows-git-ai"}
SUBAGENT_PAIR = "jazzyalex__agent-sessions__stage0-cursor-subagent"


def agent_texts(path: Path) -> tuple[list[str], list[str]]:
    """(prompts, replies) of a transcript, read here without the adapter."""
    prompts, replies = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        content = (record.get("message") or {}).get("content") or []
        for block in content if isinstance(content, list) else [{"text": content}]:
            text = block.get("text") if isinstance(block, dict) else None
            if not isinstance(text, str):
                continue
            if record.get("role") == "user":
                queries = re.findall(r"<user_query>(.*?)</user_query>", text, re.DOTALL)
                prompts += [q.strip() for q in queries] or [text.strip()]
            elif record.get("role") == "assistant":
                text = text.strip().removesuffix("[REDACTED]").strip()
                if text:
                    replies.append(text)
    return prompts, replies


def place(corpus: Path, sample: str, home: Path) -> tuple[Path, str]:
    """Copy one sample into ``home/.cursor`` as Cursor lays it out; return it and its id."""
    source = corpus / sample if "/" in sample else corpus / AGENT / sample
    cid = str(uuid_of(sample))
    folder = (
        home / ".cursor" / "projects" / SLUGS.get(sample, "home-dev-corpus") / "agent-transcripts"
    )
    dest = folder / cid / f"{cid}.jsonl"
    dest.parent.mkdir(parents=True)
    shutil.copyfile(source, dest)
    return dest, cid


def uuid_of(sample: str) -> str:
    digest = hashlib.sha256(sample.encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-8{digest[17:20]}-{digest[20:32]}"


def export_home(home: Path, vault: Path):
    report = run_export(ExportOptions(vault=vault, home=home, sources=["cursor"], timezone=UTC))
    assert not report.failed, report.problems
    return report, normalize("\n".join(b.decode() for b in note_files(vault).values()))


@pytest.mark.parametrize("sample", SAMPLES)
def test_each_agent_transcript_exports_with_its_prompts_and_replies(corpus, tmp_path, sample):
    path, _ = place(corpus, sample, tmp_path / "home")
    report, everything = export_home(tmp_path / "home", tmp_path / "v")
    assert report.total("created") == 1
    prompts, replies = agent_texts(path)
    assert prompts and replies
    for text in prompts:
        assert normalize(text, escaped=False) in everything, text
    for text in replies:
        assert normalize(text) in everything, text
    assert "[REDACTED]" not in everything and "<user_query>" not in everything


def test_the_real_transcript_finds_its_project_from_the_tool_paths(corpus, tmp_path):
    place(corpus, str(REAL_TRANSCRIPT), tmp_path / "home")
    export_home(tmp_path / "home", tmp_path / "v")
    (name,) = note_files(tmp_path / "v")
    assert name.split("/")[-2] == "testing-gitflows-git-ai"


def test_the_subagent_pair_becomes_two_linked_notes(corpus, tmp_path):
    pair = corpus / AGENT / SUBAGENT_PAIR
    folder = tmp_path / "home" / ".cursor" / "projects" / "w-app" / "agent-transcripts" / "p-1"
    (folder / "subagents").mkdir(parents=True)
    shutil.copyfile(pair / "parent.jsonl", folder / "p-1.jsonl")
    shutil.copyfile(pair / "subagents" / "child.jsonl", folder / "subagents" / "c-1.jsonl")
    report, everything = export_home(tmp_path / "home", tmp_path / "v")
    notes = {p.rsplit("/", 1)[-1][:-3]: b.decode() for p, b in note_files(tmp_path / "v").items()}
    (parent,) = [n for n in notes if "· agent" not in n]
    (child,) = [n for n in notes if "· agent" in n]
    assert f"[[{child}]]" in notes[parent] and f"[[{parent}]]" in notes[child]
    assert "List files" in everything and "file1.txt file2.txt" in everything


def test_the_store_gives_the_title_and_model_of_its_transcript(corpus, tmp_path):
    home = tmp_path / "home"
    meta = sqlite3.connect(f"file:{corpus / AGENT / STORE}?mode=ro", uri=True)
    (value,) = meta.execute("SELECT value FROM meta WHERE key = '0'").fetchone()
    meta.close()
    agent = json.loads(bytes.fromhex(value))
    folder = (
        home / ".cursor" / "projects" / "home-dev-corpus" / "agent-transcripts" / agent["agentId"]
    )
    folder.mkdir(parents=True)
    shutil.copyfile(
        corpus / AGENT / "jazzyalex__agent-sessions__Cursor__test-session.jsonl",
        folder / f"{agent['agentId']}.jsonl",
    )
    chat = (
        home / ".cursor" / "chats" / hashlib.md5(b"/home/dev/corpus").hexdigest() / agent["agentId"]
    )
    chat.mkdir(parents=True)
    shutil.copyfile(corpus / AGENT / STORE, chat / "store.db")
    export_home(home, tmp_path / "v")
    (body,) = note_files(tmp_path / "v").values()
    text = body.decode()
    assert f"title: {agent['name']}" in text and agent["lastUsedModel"] in text
    assert "project: corpus" in text  # the chat folder's MD5 names /home/dev/corpus
