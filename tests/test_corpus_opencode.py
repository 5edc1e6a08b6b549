"""OpenCode samples from the shared corpus: a real 1.18.5 database (an SQL dump, loaded into
a database here) and two synthetic legacy JSON trees read where they lie (read-only)."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC
from pathlib import Path

import pytest
from conftest import normalize, note_files, texts

from exporter.adapters import SourceContext
from exporter.adapters.opencode import OpenCodeAdapter
from exporter.export import ExportOptions, run_export

DUMP = "opencode/gowtham-sai-yadav__claude-teleport__demo-opencode.sql"
TREE = "opencode/jazzyalex__agent-sessions__storage_v2"
LEGACY = "opencode/jazzyalex__agent-sessions__storage_legacy"


@pytest.fixture
def data_dir(corpus: Path, tmp_path: Path) -> Path:
    """``~/.local/share/opencode`` holding the real database rebuilt from its dump."""
    folder = tmp_path / "home" / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    conn = sqlite3.connect(folder / "opencode.db")
    conn.executescript((corpus / DUMP).read_text(encoding="utf-8"))
    conn.close()
    return folder


def load(paths: list[Path]) -> dict[str, object]:
    adapter = OpenCodeAdapter()
    sessions = {}
    for ref in adapter.discover(
        SourceContext(Path("/nonexistent"), {}, False, {"opencode": tuple(paths)})
    ):
        result = adapter.load(ref)
        assert not result.problems, result.problems
        sessions.update({s.session_id: s for s in result.sessions})
    return sessions


def test_the_real_database(data_dir):
    (session,) = load([data_dir]).values()
    assert (session.session_id, session.title) == (
        "ses_05bb63252ffepU44GCZjI1svbM", "rework the pricing table component"
    )  # fmt: skip
    assert (session.project, session.cwd) == ("storefront", "/private/tmp/demo-projects/storefront")
    assert session.models == ("anthropic/claude-sonnet-5",)
    assert len(texts(session, "user")) == len(texts(session, "assistant")) == 5
    # five steps summed give the session row's own totals
    conn = sqlite3.connect(data_dir / "opencode.db")
    row = conn.execute("SELECT cost, tokens_input, tokens_output, tokens_cache_read,"
                       " tokens_cache_write FROM session").fetchone()  # fmt: skip
    conn.close()
    usage = session.usage
    assert session.cost == pytest.approx(row[0])
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens,
            usage.cache_write_tokens) == row[1:]  # fmt: skip


def test_the_real_database_cut_into_parts_reads_as_it_whole(data_dir):
    """Its rows weighed by SQLite, its one family a part (as workers read a large one)."""
    adapter = OpenCodeAdapter()
    (ref,) = adapter.discover(SourceContext(Path("/nonexistent"), {}, False,
                                            {"opencode": (data_dir,)}))  # fmt: skip
    parts = adapter.parts(ref)
    assert parts and len(parts) == 1 and adapter.held_size(parts[0]) > 0
    whole = adapter.load(ref)
    piece = adapter.load(parts[0])
    assert [(s.session_id, s.messages) for s in piece.sessions] == [
        (s.session_id, s.messages) for s in whole.sessions
    ]
    assert piece.sessions and not piece.problems


def test_the_real_database_exports_its_prompts_and_replies(data_dir, tmp_path):
    conn = sqlite3.connect(data_dir / "opencode.db")
    spoken = [
        r[0]
        for r in conn.execute(
            "SELECT json_extract(data, '$.text') FROM part"
            " WHERE json_extract(data, '$.type') = 'text' ORDER BY id"
        )
    ]
    conn.close()
    before = hashlib.sha256((data_dir / "opencode.db").read_bytes()).hexdigest()
    report = run_export(
        ExportOptions(
            vault=tmp_path / "v", home=data_dir.parents[2], sources=["opencode"], timezone=UTC
        )
    )
    assert not report.problems and report.total("created") == 1
    (note,) = note_files(tmp_path / "v").values()
    visible = normalize(note.decode())
    assert len(spoken) == 10 and all(text in visible for text in spoken)
    assert "cost: 0.070649" in note.decode()
    assert hashlib.sha256((data_dir / "opencode.db").read_bytes()).hexdigest() == before


def test_the_json_trees(corpus):
    sessions = load([corpus / TREE, corpus / LEGACY])
    assert set(sessions) == {"s_stage0_small", "s_stage0_large", "s_stage0_drift"}
    small = sessions["s_stage0_small"]
    assert texts(small) == ["Hello", "Found 2 files."]  # parts without a messageID: by folder
    call, result = small.messages[1].parts[:2]
    assert (call.name, call.input["command"], result.output, result.exit_code) == (
        "bash", "ls", "a.txt\nb.txt\n", 0
    )  # fmt: skip
    large = sessions["s_stage0_large"]
    # ``ls /non-existent-directory``: ``completed``, ``metadata.exit`` 1: a failed command
    failed = large.messages[1].parts[1]
    assert (failed.output, failed.exit_code, failed.is_error) == (
        "ls: /non-existent-directory: No such file or directory\n", 1, True
    )  # fmt: skip
    kinds = [p.kind for p in large.messages[1].parts]
    assert kinds == ["tool_call", "tool_result", "notice", "attachment", "thinking", "summary",
                     "notice", "notice"]  # fmt: skip
    # OpenCode's own "Command failed with exit code 1." (synthetic): no words of the model's
    assert large.messages[1].parts[2].text == "Command failed with exit code 1."
    assert large.messages[1].parts[-1].notice == "interrupted"  # MessageAbortedError
    # ``cost`` as an object is not the schema: no cost rather than a guess; tokens are counted
    assert (large.cost, large.usage.input_tokens, large.usage.output_tokens) == (None, 120, 16)
    assert large.models == ("openai/gpt-4o-mini",)
    drift = sessions["s_stage0_drift"]  # early layout: parts flat under part/, status "success"
    assert texts(drift) == ["Read README and extracted the title."]
    assert drift.messages[-1].parts[1].output == "# Title\n\nBody\n"
    assert drift.models == ("openai/gpt-4o-mini",) and drift.project == "drift"


def test_the_json_trees_export_without_a_change(corpus, tmp_path):
    trees = [corpus / TREE, corpus / LEGACY]
    before = {p: p.stat().st_mtime_ns for t in trees for p in t.rglob("*")}
    report = run_export(
        ExportOptions(
            vault=tmp_path / "v",
            home=tmp_path / "empty",
            sources=["opencode"],
            paths={"opencode": trees},
            timezone=UTC,
        )  # fmt: skip
    )
    assert report.total("created") == 3 and not report.problems
    body = b"".join(note_files(tmp_path / "v").values()).decode()
    assert "Found 2 files." in body and "Read README and extracted the title." in body
    large = next(v.decode() for k, v in note_files(tmp_path / "v").items() if "Large" in k)
    assert "errors: 1\n" in large  # the command that exited 1
    assert before == {p: p.stat().st_mtime_ns for t in trees for p in t.rglob("*")}
