"""A full disk is said once, with how many notes were written, and no note is tried after
the first write it refused: not an error line for each note (review29 F7)."""

from __future__ import annotations

import errno

from vault_builder import export, write_session

from exporter import vaultbatch

SIDS = [f"0a1b2c3d-0000-4000-8000-00000000000{n}" for n in range(5)]


def disk_full_after_two_writes(monkeypatch) -> list[str]:
    """The vault's writes refused for want of space from the third on; the notes tried."""
    real, tried = vaultbatch.WriteBatch.write, []

    def fills_up(self, relpath, data, before):
        tried.append(relpath)
        if len(tried) > 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, relpath, data, before)

    monkeypatch.setattr(vaultbatch.WriteBatch, "write", fills_up)
    return tried


def test_a_full_disk_is_one_line_saying_how_many_notes_were_written(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    for n, sid in enumerate(SIDS):
        write_session(home, [f"q{n}"], sid=sid)
    tried = disk_full_after_two_writes(monkeypatch)
    report = export(vault, home, workers=1)
    errors = [p for p in report.problems if p.severity == "error"]
    full = [p for p in errors if "the disk is full" in p.message]
    assert len(full) == 1, errors
    assert "2 notes were written before it filled, 1 not" in full[0].message
    assert "2 session files were then not read" in full[0].message  # (test_disk_full_reads_no_more)
    assert "free some space and run again" in full[0].message
    assert not [p for p in errors if p.path.endswith(".md") and "No space" in p.message], errors
    assert len([t for t in tried if "0a1b2c3d" in t]) == 3  # none tried after the first refused
    assert report.total("failed") == 3 and report.total("created") == 2
