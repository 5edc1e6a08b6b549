"""A full disk stops the reading too: once a write is refused for want of space, the
sources left are not read (a run on a big home read every one of them, for minutes, to
write nothing: review29), and the report names the session files not read and says the
next run exports them; it does."""

from __future__ import annotations

from test_disk_full import disk_full_after_two_writes
from vault_builder import export, write_session

from exporter import vaultbatch
from exporter.unitreader import UnitReader

SIDS = [f"0a1b2c3d-0000-4000-8000-00000000001{n}" for n in range(6)]


def test_after_a_full_disk_no_more_source_is_read(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    files = [write_session(home, [f"q{n}"], sid=sid) for n, sid in enumerate(SIDS)]
    real_write = vaultbatch.WriteBatch.write
    real_families, read = UnitReader.families, []

    def reads(self, adapter, ref):
        read.append(ref.main.path.name)
        yield from real_families(self, adapter, ref)

    monkeypatch.setattr(UnitReader, "families", reads)
    disk_full_after_two_writes(monkeypatch)
    report = export(vault, home, workers=1)
    assert len(read) == 3, read  # two written, the third refused: the three after unread
    errors = [p.message for p in report.problems if p.severity == "error"]
    (unread,) = [m for m in errors if "the disk is full" in m]  # (one line, as before)
    assert "2 notes were written before it filled, 1 not" in unread
    assert "3 session files were then not read, their sessions not exported" in unread
    assert all(f.name in unread for f in files if f.name not in read)
    assert "the next run exports them" in unread
    assert report.total("failed") == 4 and report.total("created") == 2
    monkeypatch.setattr(vaultbatch.WriteBatch, "write", real_write)
    again = export(vault, home, workers=1)
    assert again.total("created") == 4 and not again.failed
