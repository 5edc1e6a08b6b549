"""What a dry run says is what a run would do: it writes nothing, so none of its messages
says something was saved, renamed or written. A conflict said "your edit inside the
generated part was saved to AI Sessions/Conflicts/…" (and so did ``--json``), an unreadable
state "this run writes it anew", while nothing was written; a note whose file name holds a
secret was renamed by a run and not mentioned by a dry run; an index note in conflict was
counted in the summary but not listed."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession
from conftest import stamps
from typer.testing import CliRunner

from exporter.cli import app
from exporter.export import ExportOptions, run_export
from exporter.notefile import END_PREFIX

runner = CliRunner()
SID = "d1a7e000-0000-4000-8000-000000000001"
TOKEN = "gh" + "p_" + "Q" * 7 + "wErTyUiOpAsDfGhJkLzXcVbNm1234"  # made up, shaped like a PAT


def claude_home(home: Path, first_prompt: str = "how do I parse dates?", turns: int = 1) -> Path:
    s = ClaudeSession(SID, "/home/dev/work/shop", start="2026-05-01T10:00:00Z")
    for turn in range(turns):
        s.user(first_prompt if turn == 0 else f"and then {turn}?")
        s.assistant(f"Use datetime.fromisoformat, step {turn}.")
    return s.write(home / ".claude" / "projects" / "-home-dev-work-shop" / f"{SID}.jsonl")


def export(vault: Path, home: Path, **kw):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, **kw))


def cli(vault: Path, home: Path, *more: str):
    args = ["--vault", str(vault), "--home", str(home), "--timezone", "UTC", *more]
    return runner.invoke(app, args)


def edit_inside(note: Path, line: str) -> None:
    text = note.read_text()
    note.write_text(text.replace(END_PREFIX, f"{line}\n{END_PREFIX}", 1))


def everything(vault: Path) -> dict[str, bytes]:
    return {str(p.relative_to(vault)): p.read_bytes() for p in vault.rglob("*") if p.is_file()}


def test_a_dry_run_says_where_a_conflict_copy_would_be_saved_and_saves_none(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    claude_home(home)
    export(vault, home)
    (note,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    (index,) = (vault / "AI Sessions" / "Projects").glob("shop.md")
    edit_inside(note, "my correction inside the note")
    edit_inside(index, "my line inside the index note")
    claude_home(home, turns=2)  # the session went on: both notes are to be updated
    before, times = everything(vault), stamps(vault)

    dry = cli(vault, home, "--dry-run")
    assert dry.exit_code == 0, dry.output
    conflicts = [line for line in dry.stderr.splitlines() if line.startswith("conflict: ")]
    assert conflicts == [
        f"conflict: {rel}: your edit inside the generated part would be saved in "
        "AI Sessions/Conflicts/"
        for rel in (note.relative_to(vault).as_posix(), "AI Sessions/Projects/shop.md")
    ]
    assert "was saved" not in dry.output + dry.stderr
    # both notes in conflict are listed (the index note's was only counted)
    assert f"would update (conflict): {note.relative_to(vault).as_posix()}" in dry.stdout
    assert "would update (conflict): AI Sessions/Projects/shop.md" in dry.stdout
    assert "2 conflicts" in dry.stdout
    doc = json.loads(cli(vault, home, "--dry-run", "--json").stdout)
    assert [c["message"] for c in doc["conflicts"]] == [
        "your edit inside the generated part would be saved in AI Sessions/Conflicts/"
    ] * 2
    assert everything(vault) == before and stamps(vault) == times
    assert not (vault / "AI Sessions" / "Conflicts").exists()

    real = cli(vault, home)  # the run itself says where it saved them, and did
    saved = sorted((vault / "AI Sessions" / "Conflicts").iterdir())
    assert len(saved) == 2
    for copy in saved:
        assert f"was saved to AI Sessions/Conflicts/{copy.name}" in real.stderr


def test_a_dry_run_over_an_unreadable_state_does_not_say_it_writes_it(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    claude_home(home)
    export(vault, home)
    state = vault / ".ccexport" / "state.json"
    state.write_text("{broken")
    dry = cli(vault, home, "--dry-run")
    assert "(a run without --dry-run writes it anew)" in dry.stderr
    assert "this run writes it anew" not in dry.stderr
    assert state.read_text() == "{broken"
    assert "(this run writes it anew; the unreadable file is kept as" in cli(vault, home).stderr
    assert state.read_text() != "{broken"


def test_a_dry_run_says_a_note_named_with_a_secret_would_be_renamed_and_moves_nothing(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    claude_home(home, f"push with {TOKEN} please")  # the title, so the file name
    export(vault, home, redact=False)
    (old,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    assert TOKEN in old.name
    before = everything(vault)

    dry = cli(vault, home, "--dry-run", "--json")
    (warning,) = [w for w in json.loads(dry.stdout)["warnings"] if "renamed" in w["message"]]
    assert warning["message"] == (
        "would be renamed: its file name holds a secret (update links to the old name)"
    )
    assert TOKEN not in warning["path"] and "REDACTED" in warning["path"]
    assert TOKEN not in dry.stdout + dry.stderr
    assert everything(vault) == before  # nothing moved, nothing written

    real = json.loads(cli(vault, home, "--json").stdout)
    (moved,) = [w for w in real["warnings"] if "renamed" in w["message"]]
    assert moved["message"].startswith("renamed: its file name held a secret")
    assert moved["path"] == warning["path"]  # where the dry run said it would go
    assert not old.exists() and (vault / moved["path"]).is_file()


def test_a_dry_run_lists_what_the_run_does_to_index_notes_and_a_deleted_note_once(tmp_path):
    """A dry run built the index notes from the notes on disk, which it does not write: a
    grown session's index update and a new project's index note were missing from its
    list. A note deleted in the vault was listed both as left deleted and as left alone."""
    home, vault = tmp_path / "home", tmp_path / "v"
    claude_home(home, turns=1)
    project(home, "d1a7e000-0000-4000-8000-000000000002", "cart", "hello")
    export(vault, home)
    next(vault.rglob("*hello*.md")).unlink()
    claude_home(home, turns=2)  # grows: its note and the shop index change
    project(home, "d1a7e000-0000-4000-8000-000000000003", "newproj", "new project")
    dry = cli(vault, home, "--dry-run", "--verbose")
    real = cli(vault, home, "--verbose")
    assert dry.exit_code == real.exit_code == 0, dry.output
    said = [line for line in dry.output.splitlines() if line.startswith("would ")]
    done = [
        line for line in real.output.splitlines() if line.split(":")[0] in ("created", "updated")
    ]
    for line in done:  # every note the run writes, index notes included
        assert f"would {line.replace('created:', 'create:').replace('updated:', 'update:')}" in said
    assert any("Projects/newproj.md" in line for line in done)
    deleted = [line for line in said if "hello" in line]
    assert len(deleted) == 1 and deleted[0].startswith("would leave deleted"), deleted


def project(home: Path, sid: str, name: str, prompt: str) -> None:
    s = ClaudeSession(sid, f"/home/dev/work/{name}")
    s.user(prompt)
    s.assistant("ok")
    s.write(home / ".claude" / "projects" / f"-home-dev-work-{name}" / f"{sid}.jsonl")
