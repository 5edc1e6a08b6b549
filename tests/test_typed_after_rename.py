"""A run never crashes on a note saved while it was written (found by a state machine).

The person renames a session's note in Obsidian (Obsidian rewrites the project index's
link to it), corrects a line of its generated part, and goes on typing in it; a run updates
the note (its session grew) and Obsidian saves the typing while the run's new version waits
to land. README: "A note you save while a run is updating it ... is left as you saved it
... the next run updates the note". The run crashed with a KeyError in
vaultlinks.LinkTargets.path_then while it writes the index notes: Vault.land dropped the
note's record from state.notes, but the LinkTargets built earlier in the run (for the
note's own edited part) still maps the link target to that key.
"""

from __future__ import annotations

import os
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession

from exporter import vaultbatch
from exporter.export import ExportOptions, run_export

SID = "000000a0-1111-4111-8111-000000000000"


def test_typing_saved_during_a_run_in_a_note_renamed_in_obsidian(tmp_path: Path) -> None:
    home, vault = tmp_path / "home", tmp_path / "vault"
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-01T10:00:00Z")
    s.user("why does the parser fail")
    s.assistant("because of the loop")
    source = home / ".claude/projects/-home-dev-work-app" / f"{SID}.jsonl"
    s.write(source)

    def export():
        return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))

    export()
    (note,) = [p for p in vault.rglob("*.md") if SID[:8] in p.name]
    # Renamed in Obsidian: the project index's link follows.
    renamed = note.parent / "Parser bug.md"
    os.rename(note, renamed)
    index = vault / "AI Sessions/Projects/app.md"
    text = index.read_text(encoding="utf-8")
    assert f"[[{note.stem}|" in text
    index.write_text(text.replace(f"[[{note.stem}|", f"[[{renamed.stem}|"), encoding="utf-8")
    # The person also corrects a line of the generated part (a conflict copy is due).
    text = renamed.read_text(encoding="utf-8")
    renamed.write_text(text.replace("because of the loop", "because of the loop (my fix)"))
    # The session grows; the run updates the note while Obsidian saves the person's typing.
    s.user("and the fix")
    s.assistant("a bound on the loop")
    s.write(source)
    rel = renamed.relative_to(vault).as_posix()
    original = vaultbatch.WriteBatch.write
    typed = []

    def write(batch, relpath, data, before=None):
        out = original(batch, relpath, data, before)
        if relpath == rel and before and not typed:
            typed.append(relpath)
            with renamed.open("a", encoding="utf-8") as f:  # Obsidian saves in place
                f.write("my line typed meanwhile\n")
        return out

    vaultbatch.WriteBatch.write = write
    try:
        report = export()  # (a KeyError ended the run, and would end `watch`)
    finally:
        vaultbatch.WriteBatch.write = original
    assert typed
    assert not report.failed, report.problems
    assert "my line typed meanwhile" in renamed.read_text(encoding="utf-8")
    again = export()  # the next run updates it, the person's line kept
    assert not again.failed, again.problems
    text = renamed.read_text(encoding="utf-8")
    assert "my line typed meanwhile" in text and "a bound on the loop" in text
    assert report.conflicts() or again.conflicts()
