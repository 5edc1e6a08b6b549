"""A unit that met an error is read again by the next run, whatever its files.

A run that reads a unit and meets an error does not record it as done; before, the record
of an earlier run stayed, and when the unit's files had not changed since (a ``--force``
run meeting a locked database, a note not written) the next run took it as unchanged and
skipped it, though the error had said "try again later": a note another unit had written
meanwhile stayed as that unit left it (review22 F1: OpenCode's legacy tree).
"""

from __future__ import annotations

from vault_builder import export, write_session

from exporter.adapters.claude_code import ClaudeCodeAdapter


def test_a_unit_that_failed_is_read_by_the_next_run(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "vault"
    write_session(home, ["q"])
    assert export(vault, home).total("created") == 1
    reads = []
    real_load = ClaudeCodeAdapter.load

    def load(self, ref):
        reads.append(ref.session_id)
        if failing:
            raise OSError("database is locked")
        return real_load(self, ref)

    monkeypatch.setattr(ClaudeCodeAdapter, "load", load)
    failing = True
    failed = export(vault, home, force=True)
    assert failed.total("failed") == 1 and len(reads) == 1
    failing = False
    again = export(vault, home)  # the files are as the first run recorded them
    assert len(reads) == 2 and again.total("failed") == 0
    assert again.total("unchanged") == 1  # (read again; its note had nothing new)
    assert export(vault, home).total("skipped") == 1  # done: skipped unread
    assert len(reads) == 2
