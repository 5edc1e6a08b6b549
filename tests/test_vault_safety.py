"""Nothing is written outside the vault, even through links, FIFOs or temp names someone
planted in a shared or synced vault; a failed write leaves nothing behind."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from claude_builder import ClaudeSession, image_block, tiny_png
from conftest import note_files
from vault_builder import SID, export, run_cli, the_note, write_session

from exporter import vaultio
from exporter.errors import ExporterError
from exporter.render import init_templates
from exporter.report import append_log
from exporter.state import State
from exporter.vault import safe_relpath

PRECIOUS = b"precious, outside the vault\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the vault with one file nobody may touch."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "precious.txt").write_bytes(PRECIOUS)
    return folder


def untouched(outside: Path) -> bool:
    return sorted(p.name for p in outside.iterdir()) == ["precious.txt"] and (
        (outside / "precious.txt").read_bytes() == PRECIOUS
    )


def test_planted_temp_name_links_are_never_written_through(tmp_path, outside):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    relpath = export(tmp_path / "probe", home, dry_run=True).changes[0].relpath
    folder = (vault / relpath).parent
    folder.mkdir(parents=True)
    (vault / ".ccexport").mkdir()
    # The names the old writer used (pid and file name) for this process and the next ones.
    for pid in range(os.getpid(), os.getpid() + 10):
        for where, name in ((folder, Path(relpath).name), (vault / ".ccexport", "state.json")):
            (where / f".ccexport-{pid}-{name}.tmp").symlink_to(outside / "precious.txt")
    report = export(vault, home)
    assert not report.failed and report.total("created") == 1
    assert untouched(outside)


@pytest.mark.parametrize("name", ["lock", "running"])
def test_a_linked_lock_or_run_marker_stops_the_run_and_is_not_written(tmp_path, outside, name):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / name).symlink_to(outside / "precious.txt")
    result = run_cli("--vault", str(vault), "--home", str(home))
    assert result.returncode == 1, result.stderr
    assert f".ccexport/{name} is a symbolic link" in result.stderr
    assert untouched(outside)


@pytest.mark.parametrize("folder", [".ccexport", "AI Sessions", "AI Sessions/claude-code"])
def test_a_linked_folder_in_the_vault_is_never_written_through(tmp_path, outside, folder):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    link = vault / folder
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)
    result = run_cli("--vault", str(vault), "--home", str(home))
    assert result.returncode == 1 and "is a symbolic link" in result.stderr, result.stderr
    assert untouched(outside)


def test_a_hard_linked_lock_is_refused_and_a_hard_linked_note_is_replaced_not_written(
    tmp_path, outside
):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    note.unlink()
    os.link(outside / "precious.txt", note)  # same file system: a hard link is possible
    write_session(home, ["q", "q2"])
    report = export(vault, home)  # not our note any more: as if deleted, left alone
    assert "left deleted" in report.problems[-1].message
    (vault / ".ccexport" / "lock").unlink()
    os.link(outside / "precious.txt", vault / ".ccexport" / "lock")
    with pytest.raises(ExporterError, match="has other hard links"):
        export(vault, home)
    assert untouched(outside)


def test_a_linked_state_file_is_neither_read_nor_written(tmp_path, outside):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "state.json").symlink_to(outside / "precious.txt")
    with pytest.raises(ExporterError, match="state.json is a symbolic link"):
        export(vault, home)
    assert untouched(outside)


def test_a_linked_conflicts_folder_fails_the_note_and_keeps_the_edit(tmp_path, outside):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    edited = note.read_text().replace("reply to q", "reply to q, corrected by me")
    note.write_text(edited)
    (vault / "AI Sessions" / "Conflicts").symlink_to(outside, target_is_directory=True)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    (linked,) = [p for p in report.problems if p.path.endswith("Conflicts")]
    assert report.failed and "is a symbolic link" in linked.message
    assert note.read_text() == edited and untouched(outside)


def test_a_note_that_is_a_link_is_reported_and_left_alone(tmp_path, outside):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    shutil.copy(note, outside / "precious.txt")  # a planted copy: it even has our identity
    planted = (outside / "precious.txt").read_bytes()
    note.unlink()
    note.symlink_to(outside / "precious.txt")
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    (change,) = [c for c in report.changes if c.relpath == note.relative_to(vault).as_posix()]
    assert change.action.value == "failed" and "is a symbolic link" in change.message
    assert (
        change.message
        == f"left alone: {note} is a symbolic link; ccexport never writes through a link"
    )
    assert note.is_symlink() and (outside / "precious.txt").read_bytes() == planted


def test_a_link_at_a_new_notes_path_is_not_ours_so_the_note_takes_another_name(tmp_path, outside):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    relpath = export(tmp_path / "probe", home, dry_run=True).changes[0].relpath
    (vault / relpath).parent.mkdir(parents=True)
    (vault / relpath).symlink_to(outside / "precious.txt")
    report = export(vault, home)
    assert report.changes[0].relpath.endswith(" (2).md") and untouched(outside)


def test_attachments_are_never_written_through_a_linked_folder(tmp_path, outside):
    home, vault = tmp_path / "home", tmp_path / "v"
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-04T10:00:00Z")
    s.user([{"type": "text", "text": "what is this?"}, image_block(tiny_png())])
    s.assistant("a red square")
    s.write(home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID}.jsonl")
    (vault / "attachments").mkdir(parents=True)
    (vault / "attachments" / "ccexport").symlink_to(outside, target_is_directory=True)
    report = export(vault, home)
    assert report.failed and "is a symbolic link" in str(report.problems)
    assert untouched(outside)


def test_a_fifo_in_the_vault_is_never_opened(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    relpath = export(tmp_path / "probe", home, dry_run=True).changes[0].relpath
    (vault / relpath).parent.mkdir(parents=True)
    os.mkfifo(vault / "x.md")  # read by the search for moved notes
    os.mkfifo(vault / relpath)  # where the note would go
    os.mkfifo(vault / "AI Sessions" / "Projects.md")  # where an index note would go
    (vault / ".ccexport" / "templates").mkdir(parents=True)
    os.mkfifo(vault / ".ccexport" / "templates" / "x.j2")  # read for the render fingerprint
    result = run_cli("--vault", str(vault), "--home", str(home), timeout=60)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.lstat(vault / "x.md").st_mode)
    assert stat.S_ISFIFO(os.lstat(vault / relpath).st_mode)
    renamed = sorted(p for p in note_files_safe(vault) if p.endswith(" (2).md"))
    assert renamed == sorted([relpath.replace(".md", " (2).md"), "AI Sessions/Projects (2).md"])
    # Each is said, once: a note written under another name than its own was said nowhere.
    for path in renamed:
        assert f"warning: {path}: another file already had the name" in result.stderr
    again = run_cli("--vault", str(vault), "--home", str(home), timeout=60)
    assert again.returncode == 0 and "already had the name" not in again.stderr


def note_files_safe(vault: Path) -> list[str]:
    return [
        p.relative_to(vault).as_posix()
        for p in vault.rglob("*.md")
        if p.is_file() and not stat.S_ISFIFO(os.lstat(p).st_mode)
    ]


def test_an_updated_note_keeps_its_permission_bits(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    assert stat.S_IMODE(note.stat().st_mode) == 0o666 & ~_umask()
    note.chmod(0o600)
    write_session(home, ["q", "q2"])
    assert export(vault, home).total("updated") == 1
    assert "q2" in note.read_text() and stat.S_IMODE(note.stat().st_mode) == 0o600


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_every_rename_is_made_durable_by_a_folder_fsync_before_the_state_records_it(
    tmp_path, monkeypatch
):
    events: list[tuple[str, int, str]] = []
    real_rename, real_fsync = os.rename, os.fsync

    def rename(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        moved = os.stat(src, dir_fd=src_dir_fd, follow_symlinks=False).st_ino
        events.append(("rename", os.fstat(dst_dir_fd).st_ino, dst, moved))
        return real_rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

    def fsync(fd):
        st = os.fstat(fd)
        events.append(("dir" if stat.S_ISDIR(st.st_mode) else "file", st.st_ino, ""))
        return real_fsync(fd)

    monkeypatch.setattr(os, "rename", rename)
    monkeypatch.setattr(os, "fsync", fsync)
    for i in range(3):
        write_session(tmp_path / "home", [f"q{i}"], sid=f"{i:08x}-0000-4000-8000-000000000000")
    export(tmp_path / "v", tmp_path / "home")
    monkeypatch.undo()
    renames = [i for i, e in enumerate(events) if e[0] == "rename"]
    assert len(renames) >= 6  # three notes, two index notes, the state
    # The data first: every renamed file was fsynced before its rename (notes in a batch).
    for i in renames:
        assert ("file", events[i][3], "") in events[:i], events[i]
    state = next(i for i in renames if events[i][2] == "state.json")
    for i in renames:
        later = events[i + 1 : state if i < state else None]
        assert ("dir", events[i][1], "") in later, events[i]  # before the state says so


def test_a_failed_rename_leaves_no_temp_file_and_fails_only_that_note(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    real_rename = os.rename

    def rename(src, dst, **kw):
        if str(dst).endswith(".md") and "Projects" not in str(dst):
            raise OSError(errno.EIO, "injected: the disk went away")
        return real_rename(src, dst, **kw)

    monkeypatch.setattr(os, "rename", rename)
    report = export(vault, home)
    monkeypatch.undo()
    assert report.failed and "injected" in str(report.problems)
    assert not list(vault.rglob(".ccexport-*")) and not note_files(vault)
    assert (vault / ".ccexport" / "state.json").is_file()  # the run itself finished


def test_a_full_disk_leaves_the_old_note_whole_and_no_temp_file(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    before = note_files(vault)
    real = vaultio._write_all

    def half_then_full(fd, data):  # ENOSPC after half the note, as a full disk does
        if data.startswith(b"---"):
            real(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    monkeypatch.setattr(vaultio, "_write_all", half_then_full)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    monkeypatch.undo()
    assert report.failed and "the disk is full" in str(report.problems)
    assert note_files(vault) == before and not list(vault.rglob(".ccexport-*"))


def test_a_real_full_file_system_leaves_no_partial_note(tmp_path):
    """ENOSPC from a real 64 KB tmpfs under the notes' folder (needs mount rights)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    mount = vault / "AI Sessions"
    mount.mkdir(parents=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"no rights to mount a small file system here: {done.stderr!r}")
    try:
        for i in range(12):
            sid = f"{i:08x}-0000-4000-8000-000000000000"
            write_session(home, [f"question {i} " + "lorem ipsum " * 600], sid=sid)
        report = export(vault, home)
        assert report.failed and "the disk is full" in str(report.problems)
        notes = note_files(vault)
        assert 0 < len(notes) < 12 and all(b"%% ccexport:end" in b for b in notes.values())
        assert not list(vault.rglob(".ccexport-*"))
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_the_nightly_log_is_never_appended_through_a_link(tmp_path, outside):
    vault = tmp_path / "v"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "nightly.log").symlink_to(outside / "precious.txt")
    with pytest.raises(ExporterError, match="is a symbolic link"):
        append_log(vault / ".ccexport" / "nightly.log", None, 1, "some error")
    (vault / ".ccexport" / "nightly.log").unlink()
    (vault / ".ccexport").rmdir()
    (vault / ".ccexport").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ExporterError, match="is a symbolic link"):
        append_log(vault / ".ccexport" / "nightly.log", None, 1, "some error")
    assert untouched(outside)


def test_templates_are_never_copied_through_a_linked_state_folder(tmp_path, outside):
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / ".ccexport").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ExporterError, match="is a symbolic link"):
        init_templates(vault / ".ccexport" / "templates")
    assert untouched(outside)
    copied, _ = init_templates(tmp_path / "mine")  # a folder the user names is theirs
    assert copied and (tmp_path / "mine" / copied[0]).is_file()


def test_a_note_renamed_to_a_very_long_name_is_still_updated(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    long = note.with_name("é" * 118 + ".md")  # 239 bytes: the file system's limit is 255
    note.rename(long)
    long.write_text(long.read_text().replace("reply to q", "reply to q, my edit"))
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert not report.failed and report.total("conflicts") == 1, report.problems
    assert "q2" in long.read_text() and list(note_files(vault)) == [
        long.relative_to(vault).as_posix()
    ]


@pytest.mark.parametrize("project", ["..", ".", "...", " . "])
def test_a_degenerate_project_name_gets_a_safe_index_file(tmp_path, project):
    assert safe_relpath(f"AI Sessions/Projects/{project}.md") == "AI Sessions/Projects/_.md"


def test_a_project_named_dot_dot_gets_an_index_note_named_underscore(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"], cwd="/home/dev/..")
    report = export(vault, home)
    assert not report.failed
    assert (vault / "AI Sessions" / "Projects" / "_.md").is_file()
    assert not (vault / "AI Sessions" / "Projects" / "md").exists()


@pytest.mark.parametrize("dir_fd", [True, False], ids=["dir_fd", "lstat-fallback"])
def test_the_safe_writer_refuses_links_with_and_without_dir_fd(tmp_path, outside, monkeypatch,
                                                               dir_fd):  # fmt: skip
    monkeypatch.setattr(vaultio, "_DIRFD", dir_fd)  # False: how it runs on Windows
    root = tmp_path / "v"
    vaultio.write_file(root, "a/b/note.md", b"mine")
    assert vaultio.read_file(root, "a/b/note.md")[0] == b"mine"
    (root / "a" / "link.md").symlink_to(outside / "precious.txt")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    attempts = [
        lambda: vaultio.read_file(root, "a/link.md"),
        lambda: vaultio.write_file(root, "a/link.md", b"x"),
        lambda: vaultio.append_file(root, "a/link.md", b"x"),
        lambda: vaultio.open_lock_file(root, "a/link.md"),
        lambda: vaultio.write_file(root, "linked/new.md", b"x"),
        lambda: vaultio.append_file(root, "linked/new.log", b"x"),
    ]
    for attempt in attempts:
        with pytest.raises(vaultio.UnsafePathError):
            attempt()
    assert vaultio.kind(root, "linked/new.md") == "blocked"
    assert vaultio.kind(root, "a/link.md") == "link" and untouched(outside)


def test_a_planted_state_cannot_send_a_note_outside_the_vault(tmp_path, outside):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    state = State.load(vault)
    (key,) = [k for k in state.notes if not k.startswith("index:")]
    state.notes[key].path = "../outside/precious.txt"  # a synced state, tampered with
    state.sources = {}
    (vault / ".ccexport" / "state.json").write_bytes(state.dumps())
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert not report.failed and "q2" in the_note(vault).read_text() and untouched(outside)


@pytest.mark.parametrize("failing", ["open", "rename"])
def test_a_failed_write_is_said_of_the_file_not_of_its_temp_file(tmp_path, monkeypatch, failing):
    from typer.testing import CliRunner

    from exporter.cli import app

    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    real = getattr(os, failing)

    def refuse(name, *args, **kw):  # as an immutable folder answers
        if vaultio.is_temp_name(os.path.basename(str(name))):
            raise PermissionError(errno.EACCES, "Permission denied", name)
        return real(name, *args, **kw)

    monkeypatch.setattr(os, failing, refuse)
    result = CliRunner().invoke(app, ["--vault", str(vault), "--home", str(home)])
    monkeypatch.undo()
    assert result.exit_code == 2 and "permission denied" in result.output.lower()
    assert f"{vault / '.ccexport' / 'running'}: permission denied" in result.output  # the file
    assert ".ccexport-" not in result.output and not list(vault.rglob(".ccexport-*.tmp"))


def test_a_note_that_cannot_be_renamed_into_place_is_named_not_its_temp_file(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    real_rename = os.rename

    def rename(src, dst, **kw):
        if str(dst).endswith(".md") and "Projects" not in str(dst):
            raise PermissionError(errno.EACCES, "Permission denied", src, dst)
        return real_rename(src, dst, **kw)

    monkeypatch.setattr(os, "rename", rename)
    report = export(vault, home)
    monkeypatch.undo()
    (problem,) = [p for p in report.problems if p.severity == "error"]
    assert "Permission denied" in str(problem) and ".ccexport-" not in str(problem)
    assert str(problem).count(".md") >= 1


@pytest.mark.parametrize(
    "planted",
    ["C:/Users/me/outside.md", "C:outside.md", "notes/D:x.md", "a/.. /b.md", "a/.../b.md"],
)
def test_a_planted_windows_path_is_not_a_path_inside_the_vault(tmp_path, planted):
    """On Windows ``C:`` joined to the vault's path replaces it (the write would land on
    drive C:), and ``.. `` is ``..``; a state naming one is not followed."""
    from pathlib import PureWindowsPath

    from exporter.vaultpaths import inside

    if planted[1:2] == ":":  # (the escape itself, as Windows would join it)
        assert not str(PureWindowsPath("D:/vault") / planted).startswith("D:")
    assert not inside(planted)
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    state = State.load(vault)
    (key,) = [k for k in state.notes if not k.startswith("index:")]
    state.notes[key].path = planted
    state.sources = {}
    (vault / ".ccexport" / "state.json").write_bytes(state.dumps())
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert not report.failed and "q2" in the_note(vault).read_text()
    assert not (vault / planted.split("/")[0]).exists()  # nothing written where it says


def test_a_file_where_a_folder_goes_is_named_as_such(tmp_path):
    """A file named like the conflicts folder (or a project's) is refused as what it is;
    the message said "has other hard links", which sent the person looking for links."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["one"])
    export(vault, home)
    note = the_note(vault)
    note.write_text(note.read_text().replace("reply to one", "reply to one, edited"))
    (vault / "AI Sessions" / "Conflicts").write_text("mine")
    write_session(home, ["one", "two"])  # grown: the edit goes to a conflict copy
    (problem,) = export(vault, home).problems
    assert problem.severity == "error"
    assert problem.message.endswith(
        f"{vault / 'AI Sessions' / 'Conflicts'} is a file, not a folder; ccexport does not "
        "replace it: move it away"
    )
    assert (vault / "AI Sessions" / "Conflicts").read_text() == "mine"


def test_two_sessions_whose_notes_share_a_name_are_not_warned_about(tmp_path):
    """Two sessions of one title and day whose ids begin alike share a note name: the
    second takes ``(2)`` quietly, as it always has; only a name another file holds is said."""
    home, vault = tmp_path / "home", tmp_path / "v"
    for sid in ("5b5b5b5b-0000-4000-8000-000000000001", "5b5b5b5b-0000-4000-8000-000000000002"):
        write_session(home, ["the same question"], sid=sid)
    report = export(vault, home)
    assert sorted(c.action.value for c in report.changes) == ["created", "renamed"]
    assert not report.problems, report.problems
