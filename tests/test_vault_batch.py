"""Notes are written as a batch: their fsyncs overlap, and they land in order, whole.

One fsync at a time cost a run about 3 ms per note (a minute for 20,000 notes); the batch
runs them side by side. What must still hold: every note is fsynced before its rename, a
note is never read before it lands, an fsync or rename that fails late fails that note
alone (and the next run writes it again), and Ctrl-C during a commit leaves whole notes.
"""

from __future__ import annotations

import errno
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from conftest import note_files
from vault_builder import export, write_session

from exporter import vaultio


def _sessions(home, n: int) -> None:
    for i in range(n):
        write_session(home, [f"question {i}"], sid=f"{i:08x}-0000-4000-8000-000000000000")


def test_the_fsyncs_of_many_notes_run_side_by_side(tmp_path, monkeypatch):
    real, lock = os.fsync, threading.Lock()
    running = [0, 0]  # now, most at once

    def slow_fsync(fd):
        with lock:
            running[0] += 1
            running[1] = max(running)
        time.sleep(0.02)  # a disk's journal commit
        with lock:
            running[0] -= 1
        return real(fd)

    _sessions(tmp_path / "home", 12)
    monkeypatch.setattr(os, "fsync", slow_fsync)
    report = export(tmp_path / "v", tmp_path / "home")
    monkeypatch.undo()
    assert not report.failed and report.total("created") == 12
    assert running[1] > 1, "every fsync ran alone"


def test_a_note_written_twice_lands_in_order_and_is_read_only_once_landed(tmp_path):
    batch = vaultio.WriteBatch(tmp_path, limit=10)
    batch.write("a/n.md", b"first")
    assert not (tmp_path / "a" / "n.md").exists()  # pending: still a temp file
    written = batch.write("a/n.md", b"second")  # the first lands before the second
    assert (tmp_path / "a" / "n.md").read_bytes() == b"first"
    batch.settle("a/n.md")
    assert (tmp_path / "a" / "n.md").read_bytes() == b"second"
    assert os.stat(tmp_path / "a" / "n.md").st_ino == written.st_ino
    assert not batch.failed and [p.name for p in (tmp_path / "a").iterdir()] == ["n.md"]


def test_a_late_fsync_failure_fails_that_note_alone_and_the_next_run_writes_it(
    tmp_path, monkeypatch
):
    home, vault = tmp_path / "home", tmp_path / "v"
    _sessions(home, 4)
    real = os.fsync

    def failing_fsync(fd):
        written = Path(os.readlink(f"/proc/self/fd/{fd}"))  # that session's note (Linux)
        if written.is_file() and b"question 1" in written.read_bytes():
            raise OSError(errno.EIO, "injected: the disk went away")
        return real(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    report = export(vault, home)
    monkeypatch.undo()
    assert report.failed and "injected" in str(report.problems)
    assert report.total("failed") == 1 and report.total("created") == 3
    assert len([p for p in note_files(vault) if "Projects" not in p]) >= 3
    assert not list(vault.rglob(".ccexport-*.tmp"))
    assert (vault / ".ccexport" / "state.json").is_file()  # the run itself finished

    again = export(vault, home)  # the failed note's source is not skipped as unchanged
    assert not again.failed and again.total("created") == 1
    fresh = tmp_path / "fresh"
    export(fresh, home)
    assert note_files(fresh) == note_files(vault)


def test_ctrl_c_during_a_commit_still_lands_every_written_note_whole(tmp_path):
    real, vault = os.fsync, tmp_path / "v"
    batch = vaultio.WriteBatch(vault, limit=10)
    for i in range(3):
        batch.write(f"n{i}.md", f"note {i}".encode())

    def interrupted(fd):
        raise KeyboardInterrupt

    os.fsync = interrupted
    try:
        try:
            batch.commit()
        except KeyboardInterrupt:
            pass
    finally:
        os.fsync = real
    assert sorted(p.name for p in vault.iterdir()) == ["n0.md", "n1.md", "n2.md"]
    assert (vault / "n2.md").read_bytes() == b"note 2"


def test_ctrl_c_while_a_batch_is_renamed_lands_the_whole_batch_first(tmp_path, monkeypatch):
    """A real SIGINT arriving at the first rename: held back until the batch has landed,
    then raised, so no note counted as written is left behind as a temp file."""
    vault = tmp_path / "v"
    batch = vaultio.WriteBatch(vault, limit=10)
    for i in range(5):
        batch.write(f"n{i}.md", f"note {i}".encode())
    real, sent = vaultio._rename, []

    def rename_after_ctrl_c(folder, tmp, name):
        if not sent:
            sent.append(os.kill(os.getpid(), signal.SIGINT))
        real(folder, tmp, name)

    monkeypatch.setattr(vaultio, "_rename", rename_after_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        batch.commit()
    assert sorted(p.name for p in vault.iterdir()) == [f"n{i}.md" for i in range(5)]


def test_a_batch_opens_each_folder_once_and_lets_them_go_at_its_commit(tmp_path, monkeypatch):
    """A note's folder was walked from the vault's root three times (is the name free,
    what is there, write it): 24 folders opened for each note. A batch now holds each
    folder it touches open until its commit, and holds none after it."""
    opened: list[str] = []
    child = vaultio._child

    def counting(root, fd, parts, i, create):
        fd = child(root, fd, parts, i, create)
        opened.append("/".join(parts[: i + 1]))  # opened (a missing one raised above)
        return fd

    monkeypatch.setattr(vaultio, "_child", counting)
    root = tmp_path / "vault"
    batch = vaultio.WriteBatch(root, limit=64)
    for i in range(40):
        relpath = f"AI Sessions/claude-code/{('web', 'api')[i % 2]}/note {i}.md"
        assert vaultio.kind(root, relpath, batch.folders) == "missing"
        batch.write(relpath, f"note {i}\n".encode())
        found = vaultio.read_file(root, relpath, cache=batch.folders)
        assert found is None  # not landed yet: a reader settles first
    assert sorted(opened) == [
        "AI Sessions", "AI Sessions/claude-code", "AI Sessions/claude-code/api",
        "AI Sessions/claude-code/web",
    ]  # fmt: skip
    batch.commit()
    assert not batch.folders.opened and not batch.failed
    assert len(list(root.rglob("*.md"))) == 40
    batch.write("AI Sessions/claude-code/web/one more.md", b"x\n")
    assert opened.count("AI Sessions/claude-code/web") == 2  # opened afresh after a commit
    batch.commit()


def test_a_folder_deleted_while_its_batch_holds_it_is_made_again(tmp_path):
    """The batch held the folder open; it was deleted (its pending note with it, which
    fails and is written again by the next run). The next note makes the folder again."""
    root = tmp_path / "vault"
    batch = vaultio.WriteBatch(root)
    batch.write("AI Sessions/web/first.md", b"first\n")
    for leftover in (root / "AI Sessions" / "web").iterdir():
        leftover.unlink()
    (root / "AI Sessions" / "web").rmdir()
    batch.write("AI Sessions/web/second.md", b"second\n")
    batch.commit()
    assert (root / "AI Sessions" / "web" / "second.md").read_bytes() == b"second\n"
    assert [relpath for relpath, _exc in batch.failed] == ["AI Sessions/web/first.md"]


def test_a_folder_replaced_by_a_link_after_a_commit_is_refused(tmp_path):
    """Folders are held only until the commit: one replaced by a link afterwards is seen
    by the next write, which refuses it and writes nothing through it."""
    root, outside = tmp_path / "vault", tmp_path / "outside"
    outside.mkdir()
    batch = vaultio.WriteBatch(root)
    batch.write("AI Sessions/web/first.md", b"first\n")
    batch.commit()
    (root / "AI Sessions" / "web").rename(tmp_path / "moved")
    (root / "AI Sessions" / "web").symlink_to(outside)
    with pytest.raises(vaultio.UnsafePathError):
        batch.write("AI Sessions/web/second.md", b"second\n")
    batch.commit()
    assert list(outside.iterdir()) == []
