"""A note an older ccexport wrote, holding a secret its rules did not know, was kept as it
was by the upgraded version whenever that version counts fewer messages in the session
(it reads the source more exactly: a slash command no longer a turn of its own): "source
has fewer turns than the note; kept", the secret left in the vault, though the run counted
it as redacted. The secret must go (README "Secrets"), and so must no turn: the note is
kept, the secret redacted where it stands (``vaultkept``; until 7 December the note was
written again from its shorter source and the richer one copied to .ccexport/conflicts/,
review43 H1). A kept note with no secret is kept byte for byte, as before.
Found by the upgrade audit (30 November's version, then this one, on the corpus)."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession

from exporter import notefile
from exporter.export import ExportOptions, run_export

SID = "d0d0d0d0-4444-4444-8444-000000000001"
SECRET = "Xq7vRt93LmZpa2"


def export(vault: Path, home: Path):
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    assert not report.failed, report.problems
    return report


def as_an_older_version_wrote_it(vault: Path, secret: bool) -> Path:
    """The session's note as the older version wrote it: one turn more (a command it
    counted as a turn), holding ``mysql -p<password>`` unredacted when ``secret``; its end
    marker's hash made from that text (an intact note); the person's text below it. The
    state is gone (written by another version: a full read)."""
    (note,) = vault.rglob(f"*{SID[:8]}.md")
    parsed = notefile.parse(note.read_text(encoding="utf-8"))
    typed = f"mysql -u root -p{SECRET} shop_db" if secret else "make deploy"
    owned = parsed.owned.strip("\n") + f"\n\n### User · 10:05\n\n`/deploy {typed}`"
    messages = int(re.search(r"^messages: (\d+)$", parsed.yaml, re.M).group(1))
    yaml_text = parsed.yaml.replace(f"messages: {messages}\n", f"messages: {messages + 1}\n")
    text = notefile.recompose(parsed, yaml_text, owned) + "PERSON: deployed on Friday.\n"
    note.write_text(text, encoding="utf-8")
    (vault / ".ccexport/state.json").unlink()
    return note


def session(home: Path) -> None:
    s = ClaudeSession(SID, "/home/dev/work/shop", start="2026-03-01T10:00:00Z")
    s.user("Deploy the shop, please.")
    s.assistant("Deployed.")
    s.write(home / ".claude/projects/-home-dev-work-shop" / f"{SID}.jsonl")


def test_a_note_kept_for_its_fewer_messages_keeps_no_secret(tmp_path: Path) -> None:
    home, vault = tmp_path / "home", tmp_path / "vault"
    session(home)
    export(vault, home)
    note = as_an_older_version_wrote_it(vault, secret=True)
    report = export(vault, home)
    in_vault = [p for p in vault.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert in_vault == []
    text = note.read_text(encoding="utf-8")
    assert text.endswith("## My notes\n\nPERSON: deployed on Friday.\n")  # the person's text
    assert "`/deploy mysql -u root -p[REDACTED:" in text  # the turn kept, its secret not
    assert not (vault / ".ccexport/conflicts").exists()  # nothing to keep aside
    assert notefile.parse(text).edited is False  # the generated part is ccexport's still
    (change,) = [c for c in report.changes if c.relpath == str(note.relative_to(vault))]
    assert change.action.value == "kept" and "secret" in change.message
    assert change.message.startswith("source has fewer turns than the note; kept")
    written = note.read_bytes()
    again = export(vault, home)  # and the next run settles
    assert [c for c in again.changes if c.action.value not in ("unchanged", "kept")] == []
    assert all("secret" not in c.message for c in again.changes)
    assert note.read_bytes() == written


def test_a_note_kept_for_its_fewer_messages_without_a_secret_stays(tmp_path: Path) -> None:
    home, vault = tmp_path / "home", tmp_path / "vault"
    session(home)
    export(vault, home)
    note = as_an_older_version_wrote_it(vault, secret=False)
    before = note.read_bytes()
    (change,) = export(vault, home).changes
    assert change.action.value == "kept" and note.read_bytes() == before
    assert not (vault / ".ccexport/conflicts").exists()
