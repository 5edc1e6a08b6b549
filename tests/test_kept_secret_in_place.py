"""A note kept because its source now gives fewer turns (compacted, or a shorter copy
synced in) must keep every turn when a redaction rule starts to match it (review43 H1: a
rule of the person's added under ``[redact] extra``, or an upgrade's new rule). It was
written again from the shorter source: 18 messages became 6, the rest only in a hidden
copy; with an edit of the person's in it, the run spoke only of the edit. Now the secret
is redacted where it stands, in the generated part and in ccexport's properties; the
person's text and their edit stay, and the edit is still known as theirs."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter import notefile, notehash
from exporter.export import ExportOptions, run_export
from exporter.redact_rules import Rule

SID = "7e5e7e5e-4444-4444-8444-000000000043"
ZEBRA = (Rule("zoo-id", ("zebra",), r"zebra-[0-9]+"),)  # the person's own rule


def export(vault: Path, home: Path, rules: tuple[Rule, ...] = ()):
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=1, redact_extra=rules)
    report = run_export(options)
    assert not report.failed, report.problems
    return report


def write_session(home: Path, turns: range) -> None:
    s = ClaudeSession(SID, "/home/dev/work/zoo", start="2026-03-01T09:00:00Z", branch="zebra-42")
    for t in turns:
        s.user(f"Question {t}: how does stage {t} work? (zebra-{t}07)")
        s.assistant(f"Answer {t}: stage {t} reads the input.")
    path = home / ".claude/projects/-home-dev-work-zoo" / f"{SID}.jsonl"
    path.unlink(missing_ok=True)
    s.write(path)


def shrunk_note(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A note of 9 turns whose source now holds its last 3: kept, as the guarantee says."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    write_session(home, range(9))
    export(vault, home)
    write_session(home, range(6, 9))
    (change,) = export(vault, home).changes
    assert change.action.value == "kept"
    (note,) = vault.rglob(f"*{SID[:8]}.md")
    return home, vault, note


def test_a_rule_added_redacts_a_kept_note_where_it_stands(tmp_path: Path) -> None:
    home, vault, note = shrunk_note(tmp_path)
    before = note.read_text(encoding="utf-8")
    report = export(vault, home, ZEBRA)
    (note,) = vault.rglob(f"*{SID[:8]}.md")  # (renamed: its file name held the match)
    assert "zebra-" not in note.name
    text = note.read_text(encoding="utf-8")
    assert all(f"Question {t}: how does stage {t} work?" in text for t in range(9))
    assert all(f"Answer {t}" in text for t in range(9))  # every turn still there
    assert "zebra-" not in text and "[REDACTED:zoo-id]" in text
    assert "git_branch: '[REDACTED:zoo-id]'" in text  # ccexport's property too
    assert notefile.parse(text).metadata["messages"] == notefile.parse(before).metadata["messages"]
    assert not (vault / ".ccexport/conflicts").exists()
    (change,) = report.changes
    assert change.action.value == "kept" and "was redacted in it, every turn kept" in change.message
    assert notefile.parse(text).edited is False  # ccexport's generated part, hash and all
    written = note.read_bytes()
    again = export(vault, home, ZEBRA)  # settled: nothing more to redact, nothing written
    assert all("redacted" not in c.message for c in again.changes)
    assert note.read_bytes() == written


def test_a_kept_note_the_person_edited_keeps_their_edit_and_every_turn(tmp_path: Path) -> None:
    home, vault, note = shrunk_note(tmp_path)
    text = note.read_text(encoding="utf-8")
    edited = text.replace("Answer 1: stage 1 reads the input.", "Answer 1: MY CORRECTION.", 1)
    note.write_text(edited + "PERSON: checked with the team.\n", encoding="utf-8")
    report = export(vault, home, ZEBRA)
    (note,) = vault.rglob(f"*{SID[:8]}.md")
    text = note.read_text(encoding="utf-8")
    assert "Answer 1: MY CORRECTION." in text and text.endswith("PERSON: checked with the team.\n")
    assert all(f"Answer {t}" in text for t in range(9)) and "zebra-" not in text
    (change,) = report.changes
    assert change.action.value == "kept" and "every turn kept" in change.message
    assert notefile.parse(text).edited is True  # the edit is still the person's
    # When the source grows past the note, it is written from its source and the edit is
    # saved aside, as any edit inside the generated part is.
    write_session(home, range(12))
    (change,) = export(vault, home, ZEBRA).changes
    assert change.action.value == "conflict"
    (copy,) = (vault / "AI Sessions/Conflicts").glob("*.md")
    assert "MY CORRECTION" in copy.read_text(encoding="utf-8")
    assert "PERSON: checked with the team." in note.read_text(encoding="utf-8")


def test_a_kept_note_without_a_match_stays_byte_for_byte(tmp_path: Path) -> None:
    home, vault, note = shrunk_note(tmp_path)
    before = note.read_bytes()
    unmatched = (Rule("okapi-code", ("okapi",), r"okapi-[0-9]+"),)
    (change,) = export(vault, home, unmatched).changes
    assert change.action.value == "kept" and "redacted" not in change.message
    assert note.read_bytes() == before


def test_a_dry_run_says_the_secret_would_be_redacted_and_writes_nothing(tmp_path: Path) -> None:
    home, vault, note = shrunk_note(tmp_path)
    before = note.read_bytes()
    options = ExportOptions(
        vault=vault, home=home, timezone=UTC, workers=1, redact_extra=ZEBRA, dry_run=True
    )
    (change,) = run_export(options).changes
    assert change.action.value == "kept"
    assert change.message.endswith(
        "a secret the current rules redact would be redacted in it, every turn kept"
    )
    assert note.read_bytes() == before


_LINE = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=30)


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(st.one_of(_LINE, st.integers(0, 999).map(lambda n: f"zebra-{n}")), max_size=8),
    mine=_LINE,
    edited=st.booleans(),
)
def test_redacting_in_place_changes_only_what_the_rule_matches(lines, mine, edited) -> None:
    """Any generated part: only the matches change, the person's text below the end marker
    is byte for byte, and an edited part keeps the hash of what ccexport wrote."""
    from exporter.vaultkept import redacted_note

    owned = "\n".join(["### User · 09:00", *lines]).strip("\n")
    text = notefile.compose({"title": "t", "git_branch": "zebra-1"}, "", owned, f"\n{mine}\n")
    written = notefile.parse(text)
    if edited:  # the person changed a line: the marker still says what ccexport wrote
        text = text.replace("### User · 09:00", "### User · 09:00 (mine)", 1)
    parsed = notefile.parse(text)
    assert parsed.edited is edited

    def scrub(t: str) -> str:
        return re.sub(r"zebra-[0-9]+", "[REDACTED:zoo-id]", t)

    new, region, was_edited = redacted_note(parsed, None, ["title", "git_branch"], scrub)
    again = notefile.parse(new)
    assert was_edited is edited
    assert again.owned.strip("\n") == scrub(parsed.owned).strip("\n") == region
    assert again.after == parsed.after and again.before == parsed.before  # the person's
    assert again.metadata["git_branch"] == "[REDACTED:zoo-id]"
    assert again.metadata["title"] == "t"
    assert again.written_hash == (written.written_hash if edited else notehash.owned_hash(region))
