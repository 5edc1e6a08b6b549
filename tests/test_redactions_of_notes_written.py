""" "N secrets redacted" counts the secrets of the notes the run wrote (review43 L3): a run
that rendered every note again (``--force``, or a new version's first run) and wrote none
printed "2 secrets redacted (generic-secret 1, uri-credentials 1)", as if the vault had
changed; ``--json``'s ``redactions`` say the same."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app
from exporter.redaction_tally import RedactionTally
from exporter.vault import Action, Change

runner = CliRunner()


def _export(vault: Path, *args: str):
    return runner.invoke(app, ["--vault", str(vault), "--home", str(EXAMPLES_HOME), *args])


def test_a_run_that_wrote_no_note_says_no_secret_redacted(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    first = _export(vault)
    assert first.exit_code == 0 and "secrets redacted (" in first.stdout
    again = _export(vault, "--force")  # every note rendered again, none changed
    assert again.exit_code == 0 and "0 updated" in again.stdout
    assert "redacted" not in again.stdout
    document = json.loads(_export(vault, "--force", "--json").stdout)
    assert document["totals"]["written"] == 0 and document["redactions"] == {}


def test_only_the_families_whose_notes_were_written_are_counted() -> None:
    tally = RedactionTally()
    tally.family(["s:a", "s:a-sub"], Counter({"generic-secret": 1}))
    tally.family(["s:b"], Counter({"uri-credentials": 2}))
    tally.of("s:c").update({"aws-key": 1})  # a streamed session's, counted as it is read
    unchanged = [Change(Action.UNCHANGED, key, "n.md") for key in ("s:a", "s:b", "s:c")]
    assert tally.in_written(unchanged) == {}
    # a subagent's note (or a later part's) written: its family's secrets were written
    written = [
        Change(Action.UPDATED, "s:a-sub", "n.md"),
        Change(Action.CREATED, "s:c#part2", "p.md"),
    ]
    assert tally.in_written([*unchanged, *written]) == {"generic-secret": 1, "aws-key": 1}
    assert tally.in_written([Change(Action.FAILED, "s:b", "n.md")]) == {}
