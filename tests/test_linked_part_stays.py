"""A part note a session no longer needs (its layout changed: a larger ``note_max_bytes``)
is kept while a note of the person's links to it: their link would otherwise lead nowhere
(review29). The run says so, and what to do; a part nobody links to still goes, and the
links between ccexport's own notes (a part's links to the next) do not count."""

from __future__ import annotations

import sys
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession
from test_part_notes import LIMIT, _numbered, export, exported, grow

from exporter import vaultio
from exporter.export import ExportOptions, run_export


def _fewer_parts(vault: Path, home: Path, **kw):
    fewer = ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=3 * LIMIT, **kw)
    return run_export(fewer)


def test_a_part_the_persons_notes_link_to_stays(tmp_path):
    home, vault, _ = exported(tmp_path, 60)
    before = _numbered(vault)
    assert len(before) >= 5
    linked, by_path = Path(before[4]).stem, Path(before[5])
    markdown = by_path.as_posix().replace(" ", "%20")  # (as Obsidian writes the link)
    (vault / "Journal.md").write_text(f"See [[{linked}|the fix]] and [the tests]({markdown}).\n")
    report = _fewer_parts(vault, home)
    after = _numbered(vault)
    assert sorted(after) == [1, 2, 4, 5] and after[4] == before[4] and after[5] == before[5]
    assert not (vault / before[3]).exists()  # (no note of the person's links to it)
    (said,) = [p.message for p in report.problems if "now ends in this note" in p.message]
    assert f"{Path(before[3]).name}" in said and "were removed" in said
    assert "are left in place as notes of yours link to them" in said
    assert Path(before[4]).name in said and Path(before[5]).name in said
    # The person changes their links: the next run that writes the session's end removes them
    (vault / "Journal.md").write_text("See the session's note.\n")
    again = _fewer_parts(vault, home, force=True)  # (the session read again: its end written)
    assert sorted(_numbered(vault)) == [1, 2], again.problems


def test_the_persons_notes_are_read_once_a_run_however_many_sessions_lose_parts(
    tmp_path, monkeypatch
):
    """A change of settings that drops parts of many sessions reads the person's notes for
    their links once in the run, not once a session (hours on a big vault), and not
    ccexport's own notes."""
    home, vault = tmp_path / "home", tmp_path / "v"
    for n in range(3):
        s = ClaudeSession(f"0000abc{n}-0000-4000-8000-000000000000", "/home/dev/work/big")
        grow(s, 0, 40)
        s.write(home / ".claude" / "projects" / "-w-big" / f"{s.session_id}.jsonl")
    export(vault, home)
    (vault / "Journal.md").write_text("Nothing linked.\n")
    reads = []
    real = vaultio.read_file

    def read_file(root, relpath, *args, **kwargs):
        # (read for its links: by the backlinks' module, not by the vault's other walks)
        if "backlinks" in sys._getframe(1).f_code.co_filename:
            reads.append(relpath)
        return real(root, relpath, *args, **kwargs)

    monkeypatch.setattr(vaultio, "read_file", read_file)
    report = _fewer_parts(vault, home)
    gone = [p.message for p in report.problems if "were removed" in p.message]
    # Once, and only the person's note: ccexport's own (the state lists them) are not read
    assert len(gone) == 3 and reads == ["Journal.md"], (gone, reads)
