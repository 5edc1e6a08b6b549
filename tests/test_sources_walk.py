"""The walk for unreadable folders inside a source: run by every export, so each folder is
opened once and nothing is stat-ed; as deep as before, no link followed, no node_modules."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME, note_files

from exporter.adapters.claude_discovery import subagent_files
from exporter.export import ExportOptions, run_export
from exporter.sources import WALK_DEPTH, unreadable_below


def nested(root: Path, depth: int) -> Path:
    folder = root.joinpath(*(f"d{n}" for n in range(1, depth + 1)))
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def opened(monkeypatch):
    """The folders listed, and a way to make some of them refuse (tests run as any user)."""
    seen: list[str] = []
    locked: set[str] = set()
    real = os.scandir

    def scandir(path="."):
        seen.append(os.fspath(path))
        if os.fspath(path) in locked:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    return seen, locked


def test_an_unreadable_folder_is_reported_down_to_the_walk_depth(tmp_path, opened):
    seen, locked = opened
    deepest = nested(tmp_path, WALK_DEPTH + 2)
    locked.add(str(deepest.parents[1]))  # at WALK_DEPTH: listed, so its refusal is seen
    locked.add(str(deepest))  # below: never opened
    problems = unreadable_below(tmp_path, "claude-code")
    assert [p.path for p in problems] == [str(deepest.parents[1])]
    assert problems[0].severity == "error" and problems[0].source == "claude-code"
    assert "cannot be read (Permission denied)" in problems[0].message
    assert str(deepest) not in seen


def test_each_folder_is_opened_once_and_nothing_is_stat_ed(tmp_path, opened, monkeypatch):
    seen, _locked = opened
    for project in ("-p1", "-p2"):
        for session in ("a", "b"):
            (tmp_path / project / session / "subagents").mkdir(parents=True)
            (tmp_path / project / f"{session}.jsonl").write_text("{}\n")
    stats: list[str] = []
    for name in ("stat", "lstat"):
        real = getattr(os, name)
        monkeypatch.setattr(
            os, name, lambda p, *a, _real=real, **k: stats.append(p) or _real(p, *a, **k)
        )
    assert unreadable_below(tmp_path, "claude-code") == []
    monkeypatch.undo()
    assert sorted(seen) == sorted(
        {str(tmp_path), *(str(p) for p in tmp_path.rglob("*") if p.is_dir())}
    )
    assert stats == []


def test_links_and_tool_folders_are_not_entered(tmp_path, opened):
    seen, locked = opened
    elsewhere = nested(tmp_path / "elsewhere", 1)
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "link").symlink_to(elsewhere, target_is_directory=True)
    (tmp_path / "source" / "node_modules" / "pkg").mkdir(parents=True)
    locked.add(str(elsewhere))
    assert unreadable_below(tmp_path / "source", "codex") == []
    assert seen == [str(tmp_path / "source")]


def _walked(session_dir: Path) -> list[tuple[str, int, int, int]]:
    """What subagent files were before: ``os.walk`` of ``subagents``, names sorted."""
    found = []
    for dirpath, dirnames, filenames in os.walk(session_dir / "subagents"):
        dirnames.sort()
        for name in sorted(filenames):
            if name.startswith("agent-") and name.endswith((".jsonl", ".meta.json")):
                st = (Path(dirpath) / name).stat()
                found.append((str(Path(dirpath) / name), st.st_size, st.st_mtime_ns, st.st_ino))
    return found


def test_subagent_files_come_in_the_order_and_with_the_paths_fingerprints_had(tmp_path):
    session = tmp_path / "-home-dev-x" / "5b1c"
    base = session / "subagents"
    for rel in ("agent-b.jsonl", "agent-a.jsonl", "agent-a.meta.json", "notes.txt",
                "z/agent-z.jsonl", "a/agent-y.jsonl", "a/deeper/agent-x.jsonl"):  # fmt: skip
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(rel)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "agent-out.jsonl").write_text("{}")
    (base / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (base / "agent-link.jsonl").symlink_to(base / "agent-a.jsonl")
    stamps = subagent_files(session)
    assert [(str(s.path), s.size, s.mtime_ns, s.inode) for s in stamps] == _walked(session)
    assert len(stamps) == 7 and all(type(s.path) is type(session) for s in stamps)
    assert subagent_files(tmp_path / "none") == ()


_LOOP_FOLDERS = [
    ".claude/projects/-home-dev-work-rust-parser",
    ".codex/sessions/2026/03/10",
    ".gemini/tmp/notes-app/chats",
    ".copilot/session-state",
    ".cline/data/sessions",
    ".cursor/projects/c-Users-dev-source-win-app/agent-transcripts",
    ".gemini/antigravity-cli/brain",
    "src/weather-cli",
]


def test_a_link_to_itself_in_a_source_folder_is_reported_and_costs_nothing_else(tmp_path):
    """Asking a looping link what it is raises: in discovery it ended the whole run."""
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    paths = {"aider": [home / "src"]}
    clean = run_export(ExportOptions(vault=tmp_path / "clean", home=home, paths=paths))
    for i, folder in enumerate(_LOOP_FOLDERS):
        for name in (f"loop{i}.jsonl", f"loop{i}.json", f"loop{i}", ".aider.chat.history.md"):
            if not (home / folder / name).exists():
                (home / folder / name).symlink_to(name)
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home, paths=paths))
    assert note_files(tmp_path / "v") == note_files(tmp_path / "clean")
    assert report.total("found") == clean.total("found") and not report.failed
    looped = {p.path for p in report.problems if "leads back to itself" in p.message}
    assert {str(Path(p).parent.relative_to(home)) for p in looped} >= set(_LOOP_FOLDERS) - {
        "src/weather-cli"  # searched for Aider logs, the user's code: not walked
    }


def test_a_source_below_a_folder_this_user_cannot_search_is_reported_and_the_rest_exported(
    tmp_path, monkeypatch
):
    # chmod 000 on ~/.claude (root ignores it, so it is simulated): asking whether
    # ~/.claude/projects is a folder raises, which stopped the whole run with advice about
    # the vault.
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    hidden = str(home / ".claude")
    real_stat, real_scandir = os.stat, os.scandir

    def stat(path, *args, **kwargs):
        if os.fspath(path).startswith(hidden + os.sep):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_stat(path, *args, **kwargs)

    def scandir(path="."):
        if os.fspath(path).startswith(hidden):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "scandir", scandir)
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home))
    assert [p.path for p in report.problems if p.severity == "error"] == [
        str(home / ".claude" / "projects")
    ]
    assert report.per_source["codex"].created > 0 and "claude-code" not in {
        s for s, c in report.per_source.items() if c.created
    }


_SIDE_FILES = [
    ".codex/session_index.jsonl",
    ".gemini/projects.json",
    ".gemini/antigravity-cli/cache/last_conversations.json",
    ".config/Cursor/User/workspaceStorage/ws-web/workspace.json",
    ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1764059100000/task_metadata.json",
    ".claude/projects/-home-dev-work-rust-parser/a3359d8f-b7c6-54bc-98db-2ca01fe16890/subagents/agent-a3f9c1e.meta.json",
    "src/weather-cli/.aider.input.history",
]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_where_a_source_file_belongs_is_never_opened_for_reading(tmp_path):
    """Opening a FIFO for reading waits for a writer: the run hung forever, holding the
    vault's lock, so every later nightly run failed as well."""
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    rollout = next((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    for relpath in [*_SIDE_FILES, str(rollout.relative_to(home))]:
        (home / relpath).unlink()
        os.mkfifo(home / relpath)
    result = subprocess.run(
        [sys.executable, "-m", "exporter", "--vault", str(tmp_path / "v"), "--home", str(home),
         "--quiet"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "Traceback" not in result.stderr and len(note_files(tmp_path / "v")) > 30
    assert f"{rollout}: " in result.stderr and "a named pipe, not a file" in result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_subagent_file_that_cannot_be_read_costs_its_own_note_not_its_parents(tmp_path):
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    clean = note_files_of(tmp_path / "clean", home)
    children = [
        next((home / ".claude" / "projects").rglob("subagents/agent-*.jsonl")),
        next((home / ".cursor" / "projects").rglob("subagents/*.jsonl")),
    ]
    for child in children:
        child.unlink()
        os.mkfifo(child)
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home))
    errors = sorted(p.path for p in report.problems if p.severity == "error")
    assert errors == sorted(str(c) for c in children)
    lost = set(clean) - set(note_files(tmp_path / "v"))
    assert len(lost) == 2 and all(" · " in p for p in lost), lost  # the subagents' notes


def note_files_of(vault: Path, home: Path) -> dict[str, bytes]:
    run_export(ExportOptions(vault=vault, home=home))
    return note_files(vault)


def test_a_link_that_cannot_be_followed_is_reported_for_what_it_is(tmp_path):
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "through-a-file").symlink_to(tmp_path / "a-file" / "sub")
    (tmp_path / "to-nothing").symlink_to(tmp_path / "missing")  # skipped quietly
    said = {Path(p.path).name: p.message for p in unreadable_below(tmp_path, "claude-code")}
    assert said == {
        "loop": "a link that leads back to itself (a loop): skipped",
        "through-a-file": "a link that cannot be followed (Not a directory): skipped",
    }


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_named_as_a_claude_code_transcript_is_reported_not_opened(tmp_path):
    """A FIFO where a transcript belongs was skipped without a word (a Codex rollout's was
    reported): it is named, never opened; a link to nothing stays skipped as nothing."""
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    project = next((home / ".claude" / "projects").iterdir())
    fifo = project / "dddddddd-0000-4000-8000-000000000001.jsonl"
    os.mkfifo(fifo)
    (project / "dddddddd-0000-4000-8000-000000000004.jsonl").symlink_to(project / "gone.jsonl")
    result = subprocess.run(
        [sys.executable, "-m", "exporter", "--vault", str(tmp_path / "v"), "--home", str(home),
         "--quiet"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert f"{fifo}: could not be read: a named pipe, not a file;" in result.stderr
    assert "000000000004" not in result.stderr and "Traceback" not in result.stderr
