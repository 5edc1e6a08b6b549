"""A note the person deleted while its name and title held a secret the rules of its day
did not know (an older version of ccexport; here a run with redaction off stands in for
it). The upgraded run leaves it deleted, as it should, but its record in
.ccexport/state.json kept the old name and title, secret and all, run after run; notes
still in the vault are renamed and rewritten redacted. The state keeps no secret (README
"Secrets"): the record of a note left deleted is redacted too, and stays deleted. Found
by the upgrade audit (a note of 30 November's version whose first prompt held
``mysql -p<password>``)."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession

from exporter.export import ExportOptions, run_export

SECRET = "Xq7vRt93LmZpa2"


def export(vault: Path, home: Path, redact: bool = True):
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=1, redact=redact)
    report = run_export(options)
    assert not report.failed, report.problems
    return report


def test_a_deleted_notes_record_keeps_no_secret_the_rules_now_know(tmp_path: Path) -> None:
    home, vault = tmp_path / "home", tmp_path / "vault"
    for n in range(2):
        sid = f"e0e0e0e{n}-5555-4555-8555-00000000000{n}"
        s = ClaudeSession(sid, "/home/dev/work/db", start=f"2026-11-2{n}T10:00:00Z")
        s.user(f"why does mysql -u root -p{SECRET}{n} fail?")
        s.assistant("Check the socket.")
        s.write(home / ".claude/projects/-home-dev-work-db" / f"{sid}.jsonl")
    export(vault, home, redact=False)  # the rules of its day did not know this secret
    (note,) = vault.rglob("*e0e0e0e0.md")
    assert SECRET in note.name
    deleted = note.with_name(f"{note.stem} (read).md")  # renamed: the state keeps where it was
    note.rename(deleted)
    export(vault, home, redact=False)
    assert SECRET.encode() in (vault / ".ccexport/state.json").read_bytes()
    deleted.unlink()  # then deleted in Obsidian
    report = export(vault, home)
    assert [c.action.value for c in report.changes if "e0e0e0e0" in c.key] == ["deleted"]
    holding = [p for p in vault.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert holding == []
    again = export(vault, home)  # still left deleted, and the state settles
    assert not list(vault.rglob("*e0e0e0e0.md"))
    state = (vault / ".ccexport/state.json").read_bytes()
    assert export(vault, home) and (vault / ".ccexport/state.json").read_bytes() == state
    assert [c.action.value for c in again.changes if "e0e0e0e0" in c.key] in ([], ["deleted"])
