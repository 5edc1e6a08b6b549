"""`ccexport doctor` names the files ccexport wrote that still hold a secret the current
redaction rules find and that no run writes again: a note whose source is gone, a conflict
copy, a text attachment, the person's own text in a note. Never the secret itself.

The vault is made by a real export of a small synthetic home; the secrets are planted
afterwards, as an older version of the rules (which did not know them) would have left
them. Every token here is invented."""

from __future__ import annotations

import base64
import json
import os
import string
from pathlib import Path

import pytest
from claude_builder import ClaudeSession
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from exporter import notefile
from exporter.cli import app
from exporter.redact import redactor
from exporter.turns import MAX_TOOL_OUTPUT
from exporter.vault_secrets import (
    ATTACHMENT,
    CONFLICT,
    LOG,
    LOG_WHY,
    MARKERS_GONE,
    NOT_EXPORTED,
    NOTE,
    SOURCE_GONE,
    YOURS_WHY,
    scan_vault,
)

runner = CliRunner()
# Invented tokens of a shape the built-in rules know (github-pat, slack-token).
GITHUB = "ghp_Zq7Xw2Vb9Nm4Lk8Jh3Gf6Ds1Ap5Ou0Iy2Tr7"
SLACK = "xoxb-210987654321-9876543210987-QwErTyUiOpAsDfGhJkLzXcVb"
# Long enough to be shown cut to its first and last lines: the note names the whole copy,
# so it is copied into the vault (a text shown whole is not, its note naming no file).
ATTACHED = b"DEBUG=1\nLOG_LEVEL=info\n" + b"# a default\n" * (MAX_TOOL_OUTPUT // 12 + 1)


def _session(home: Path, sid: str, prompt: str, attach: bytes | None = None) -> Path:
    s = ClaudeSession(sid, "/home/dev/work/shop")
    content: str | list = prompt
    if attach is not None:
        data = base64.b64encode(attach).decode()
        source = {"type": "base64", "media_type": "text/plain", "data": data}
        content = [{"type": "text", "text": prompt}, {"type": "document", "source": source}]
    s.user(content)
    s.assistant("Done: the checkout works again.")
    return s.write(home / ".claude" / "projects" / "-home-dev-work-shop" / f"{sid}.jsonl")


@pytest.fixture
def exported(tmp_path: Path) -> tuple[Path, Path, dict[str, Path]]:
    """(home, vault, {name: source file}) after one export of three sessions, one of them
    with a text file attached."""
    home, vault = tmp_path / "h", tmp_path / "v"
    files = {
        "gone": _session(home, "5d0c7a31-0000-4000-8000-00000000000a", "Fix the checkout"),
        "kept": _session(home, "5d0c7a31-0000-4000-8000-00000000000b", "Add a cart badge"),
        "attached": _session(
            home, "5d0c7a31-0000-4000-8000-00000000000c", "Read this config", ATTACHED
        ),
    }
    result = runner.invoke(app, ["--vault", str(vault), "--home", str(home)])
    assert result.exit_code == 0, result.output
    return home, vault, files


def _note(vault: Path, sid: str) -> Path:
    (found,) = [p for p in (vault / "AI Sessions").rglob("*.md") if sid[-12:] in p.read_text()]
    return found


def _doctor(vault: Path, home: Path, *extra: str):
    return runner.invoke(app, ["doctor", "--vault", str(vault), "--home", str(home), *extra])


def _secret_check(result) -> dict:
    checks = json.loads(result.stdout)["checks"]
    (check,) = [c for c in checks if "the current rules find" in c["message"]
                or "the current redaction rules find" in c["message"]]  # fmt: skip
    return check


def _plant_in_generated_part(note: Path, line: str) -> None:
    """A line in the note's generated part, its end marker's hash made to match: the note
    as a version whose rules did not know the secret would have written it."""
    parsed = notefile.parse(note.read_text())
    assert parsed.owned is not None
    note.write_text(notefile.recompose(parsed, parsed.yaml, f"{parsed.owned}\n\n{line}"))
    assert notefile.parse(note.read_text()).edited is False


def _everything(vault: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(vault)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(vault.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def test_a_clean_vault_is_ok(exported):
    home, vault, _ = exported
    result = _doctor(vault, home, "--json")
    check = _secret_check(result)
    assert check["status"] == "ok" and "no secret the current rules find" in check["message"]


def test_each_file_no_run_rewrites_is_named_never_its_secret(exported):
    home, vault, files = exported
    # (a) a note whose source is gone: its generated part holds a secret
    gone = _note(vault, "00000000000a")
    _plant_in_generated_part(gone, f"the new one is {GITHUB}")
    files["gone"].unlink()
    # (b) a conflict copy, its very name holding a secret
    conflicts = vault / ".ccexport" / "conflicts"
    conflicts.mkdir()
    (conflicts / f"2026-11-20 093000 {SLACK}.md").write_text(f"old text\ntoken {GITHUB}\n")
    # (c) the person's own text below the generated part of a note whose source is there
    kept = _note(vault, "00000000000b")
    kept.write_text(kept.read_text() + f"\nmy bot token: {SLACK}\n")
    # (d) a text attachment, as an earlier version copied it unscanned
    (attachment,) = (vault / "attachments" / "ccexport").glob("*.txt")
    attachment.write_bytes(ATTACHED + f"GH={GITHUB}\n".encode())
    before = _everything(vault)

    text = _doctor(vault, home)
    as_json = _doctor(vault, home, "--json")
    assert text.exit_code == 1 and as_json.exit_code == 1
    for output in (text.stdout, as_json.stdout):
        assert GITHUB not in output and SLACK not in output
        assert GITHUB[4:20] not in output and SLACK[15:40] not in output  # (not even a piece)
    assert _everything(vault) == before  # doctor wrote nothing, not even a time

    check = _secret_check(as_json)
    assert check["status"] == "attention"
    by_path = {f["path"]: f for f in check["files"]}
    rel = str(gone.relative_to(vault))
    assert by_path[rel]["kind"] == NOTE
    assert by_path[rel]["in_ccexport_text"] == {"github-pat": 1}
    assert by_path[rel]["why"] == SOURCE_GONE
    copy = ".ccexport/conflicts/2026-11-20 093000 [REDACTED:slack-token].md"
    assert by_path[copy]["kind"] == CONFLICT
    assert by_path[copy]["rules"] == {"github-pat": 1, "slack-token": 1}
    mine = by_path[str(kept.relative_to(vault))]
    assert mine["in_your_text"] == {"slack-token": 1} and mine["in_ccexport_text"] == {}
    assert mine["why"] == YOURS_WHY
    attached = by_path[str(attachment.relative_to(vault))]
    assert attached["kind"] == ATTACHMENT and attached["rules"] == {"github-pat": 1}
    assert len(by_path) == 4  # the other notes are clean

    shown = text.stdout
    assert "4 files ccexport wrote still hold a secret" in shown
    assert f"{rel}: github-pat in ccexport's part ({SOURCE_GONE})" in shown
    assert "slack-token in your own text: take it out of your text" in shown
    assert "delete the copy once you have kept what you want of it" in shown
    assert "run once with --restore --force" in shown


def test_the_advice_for_an_attachment_holding_a_secret_holds(exported):
    """Deleted as doctor says, the file stays deleted, also by ``--force``, and no secret
    is left; ``--restore --force`` copies back what the session holds."""
    home, vault, _ = exported
    (attachment,) = (vault / "attachments" / "ccexport").glob("*.txt")
    attachment.write_bytes(ATTACHED + f"GH={GITHUB}\n".encode())
    assert "run once with --restore --force" in _doctor(vault, home).stdout
    attachment.unlink()
    for extra in ((), ("--force",)):
        result = runner.invoke(app, ["--vault", str(vault), "--home", str(home), *extra])
        assert result.exit_code == 0, result.output
        assert not attachment.exists()
    result = runner.invoke(app, ["--vault", str(vault), "--home", str(home), "--restore",
                                 "--force"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert attachment.read_bytes() == ATTACHED
    assert _secret_check(_doctor(vault, home, "--json"))["status"] == "ok"


def test_an_edit_copy_in_the_visible_conflicts_folder_is_searched(exported):
    """Copies of the person's edits now go to <notes folder>/Conflicts, which Obsidian
    shows and a sync tool carries: one a --no-redact run left holding a token is named
    (never the token); a file of the person's own there is theirs, not searched."""
    home, vault, _ = exported
    visible = vault / "AI Sessions" / "Conflicts"
    visible.mkdir()
    (visible / "2026-11-20 093000 Fix the checkout.md").write_text(f"my edit\n{GITHUB}\n")
    (visible / "my own notes.md").write_text(f"not ccexport's: {SLACK}\n")
    as_json = _doctor(vault, home, "--json")
    assert GITHUB not in as_json.stdout and SLACK not in as_json.stdout
    by_path = {f["path"]: f for f in _secret_check(as_json)["files"]}
    copy = by_path["AI Sessions/Conflicts/2026-11-20 093000 Fix the checkout.md"]
    assert copy["kind"] == CONFLICT and copy["rules"] == {"github-pat": 1}
    assert "AI Sessions/Conflicts/my own notes.md" not in by_path


def test_a_placeholder_is_no_secret(exported):
    home, vault, _ = exported
    kept = _note(vault, "00000000000b")
    kept.write_text(kept.read_text() + "\nthe token was [REDACTED:github-pat], rotated\n")
    _plant_in_generated_part(_note(vault, "00000000000a"), "key: [REDACTED:slack-token]")
    check = _secret_check(_doctor(vault, home, "--json"))
    assert check["status"] == "ok" and "files" not in check


def test_a_note_the_next_run_renders_again_is_left_to_it(exported):
    """A note whose source is there, written with other settings or rules: the next run
    renders it again with the current rules, so what ccexport wrote in it is not named
    (the render check counts it); the person's text in it still is."""
    home, vault, _ = exported
    note = _note(vault, "00000000000b")
    _plant_in_generated_part(note, f"token {GITHUB}")
    assert _secret_check(_doctor(vault, home, "--json"))["status"] == "attention"
    (vault / ".ccexport" / "config.toml").write_text('tools = "summary"\n')  # another render
    check = _secret_check(_doctor(vault, home, "--json"))
    assert check["status"] == "ok"
    note.write_text(note.read_text() + f"\nmine: {SLACK}\n")
    (found,) = _secret_check(_doctor(vault, home, "--json"))["files"]
    assert found["in_ccexport_text"] == {} and found["in_your_text"] == {"slack-token": 1}


def test_redaction_off_searches_nothing(exported, monkeypatch):
    home, vault, _ = exported
    kept = _note(vault, "00000000000b")
    kept.write_text(kept.read_text() + f"\n{GITHUB}\n")
    (vault / ".ccexport" / "config.toml").write_text("redact = false\n")
    import exporter.vault_secrets as module

    def never(*args, **kwargs):
        raise AssertionError("the vault was searched with redaction off")

    monkeypatch.setattr(module, "scan_vault", never)
    result = _doctor(vault, home, "--json")
    said = [c["message"] for c in json.loads(result.stdout)["checks"]]
    assert any("redaction is off" in m and "nor are its files searched" in m for m in said)
    assert GITHUB not in result.stdout


def test_links_and_fifos_are_not_followed_and_said(exported, tmp_path):
    """A link planted in the conflicts folder to a file outside the vault is not read
    (its secret is not the vault's); a FIFO is never opened. Both are named as unread."""
    home, vault, _ = exported
    outside = tmp_path / "outside.md"
    outside.write_text(f"token {GITHUB}\n")
    conflicts = vault / ".ccexport" / "conflicts"
    conflicts.mkdir()
    (conflicts / "linked.md").symlink_to(outside)
    if hasattr(os, "mkfifo"):
        os.mkfifo(conflicts / "pipe.md")
    scan = scan_vault(vault, redactor())
    assert scan.files == []
    unread = dict(scan.unreadable)
    assert "symbolic link" in unread[".ccexport/conflicts/linked.md"]
    if hasattr(os, "mkfifo"):
        assert "not a regular file" in unread[".ccexport/conflicts/pipe.md"]
    said = _doctor(vault, home).stdout
    assert "not searched for secrets" in said and GITHUB not in said


def test_a_linked_conflicts_folder_is_not_followed(exported, tmp_path):
    home, vault, _ = exported
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "copy.md").write_text(f"token {GITHUB}\n")
    (vault / ".ccexport" / "conflicts").symlink_to(elsewhere)
    scan = scan_vault(vault, redactor())
    assert scan.files == [] and ".ccexport/conflicts" in dict(scan.unreadable)


_FILLER = st.text(alphabet=string.ascii_letters + string.digits + " .,:;-\n", max_size=300)
_TOKEN = st.text(alphabet=string.ascii_letters + string.digits, min_size=36, max_size=36)


@pytest.fixture(scope="module")
def one_vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    home, vault = tmp_path_factory.mktemp("h"), tmp_path_factory.mktemp("v")
    _session(home, "5d0c7a31-0000-4000-8000-00000000000d", "Tidy the styles")
    result = runner.invoke(app, ["--vault", str(vault), "--home", str(home)])
    assert result.exit_code == 0, result.output
    note = _note(vault, "00000000000d")
    return note, vault


@settings(max_examples=40, deadline=None)
@given(before=_FILLER, after=_FILLER, token=_TOKEN)
def test_a_planted_key_is_found_and_never_shown(one_vault, before, after, token):
    from exporter.doctor_render import _secret_line

    note, vault = one_vault
    key = f"ghp_{token}"
    original = note.read_text()
    try:
        note.write_text(f"{original}\n{before}\n{key}\n{after}\n")
        scan = scan_vault(vault, redactor())
    finally:
        note.write_text(original)
    (found,) = scan.files
    assert found.yours.get("github-pat", 0) >= 1
    shown = _secret_line(found) + json.dumps(found.as_dict())
    assert key not in shown and token not in shown


def test_a_note_no_run_updates_says_why(exported):
    """A note of a source the settings leave out, and one whose markers are gone: no run
    writes either again, whatever the rules."""
    home, vault, _ = exported
    left_out = _note(vault, "00000000000b")
    _plant_in_generated_part(left_out, f"the new one is {GITHUB}")
    unmarked = _note(vault, "00000000000a")
    _plant_in_generated_part(unmarked, f"and {SLACK}")
    unmarked.write_text(
        "".join(line for line in unmarked.read_text().splitlines(keepends=True)
                if not line.startswith("%% ccexport:begin"))
    )  # fmt: skip
    (vault / ".ccexport" / "config.toml").write_text('sources = ["codex"]\n')
    check = _secret_check(_doctor(vault, home, "--json"))
    by_path = {f["path"]: f for f in check["files"]}
    assert by_path[str(left_out.relative_to(vault))]["why"] == NOT_EXPORTED.format("claude-code")
    gone = by_path[str(unmarked.relative_to(vault))]
    assert gone["why"] == MARKERS_GONE and gone["in_ccexport_text"] == {"slack-token": 1}
    shown = _doctor(vault, home).stdout
    assert "put its markers back" in shown and SLACK not in shown and GITHUB not in shown


def test_the_nightly_log_is_named(exported):
    """The log is only added to: a line an older version wrote keeps its secret."""
    home, vault, _ = exported
    log = vault / ".ccexport" / "nightly.log"
    log.write_text(f"2026-11-20 02:30 exit 1\n  note.md: could not be read: {SLACK}\n")
    check = _secret_check(_doctor(vault, home, "--json"))
    (found,) = check["files"]
    assert found["path"] == ".ccexport/nightly.log" and found["kind"] == LOG
    assert found["rules"] == {"slack-token": 1} and found["why"] == LOG_WHY
    assert SLACK not in _doctor(vault, home).stdout


def test_doctors_own_source_filter_is_not_what_a_run_exports(exported):
    """``doctor --source X`` only narrows what it looks at: another source's note that the
    next run renders again is not said to keep its secret for good (found by the review)."""
    home, vault, _ = exported
    note = _note(vault, "00000000000b")
    _plant_in_generated_part(note, f"token {GITHUB}")
    (vault / ".ccexport" / "config.toml").write_text('tools = "summary"\n')  # another render
    for extra in ((), ("--source", "codex")):
        assert _secret_check(_doctor(vault, home, "--json", *extra))["status"] == "ok", extra
    # The configuration's own sources do say which notes no run writes again.
    (vault / ".ccexport" / "config.toml").write_text('tools = "summary"\nsources = ["codex"]\n')
    (found,) = _secret_check(_doctor(vault, home, "--json"))["files"]
    assert "not among the sources" in found["why"]


def test_the_persons_own_files_beside_the_attachments_are_not_named(exported):
    """An attachments folder may be shared with the person's own files: only those ccexport
    names (its content's hash) are its own to look at."""
    home, vault, _ = exported
    folder = vault / "attachments" / "ccexport"
    (folder / "Tax return 2025.txt").write_text(f"my own note: {GITHUB}\n")
    assert _secret_check(_doctor(vault, home, "--json"))["status"] == "ok"
    (ours,) = folder.glob("[0-9a-f]*.txt")
    ours.write_bytes(ATTACHED + f"GH={GITHUB}\n".encode())
    result = _doctor(vault, home)
    assert "1 file ccexport wrote still holds a secret" in result.stdout
    assert "no run writes it again" in result.stdout and "Tax return" not in result.stdout


def test_files_not_searched_for_one_reason_say_it_once(exported, tmp_path):
    """A notes folder that is a link leaves every note below it unread: the reason, three
    lines long, was said after each file named (review35 16)."""
    home, vault, _ = exported
    real = tmp_path / "elsewhere"
    (vault / "AI Sessions").rename(real)
    (vault / "AI Sessions").symlink_to(real, target_is_directory=True)
    said = next(
        line for line in _doctor(vault, home).stdout.splitlines() if "not searched for" in line
    )
    assert said.count("is a symbolic link") == 1, said
    assert said.count("AI Sessions/") >= 3 and " more (" in said  # (three named, then a count)


def test_a_linked_folder_not_searched_is_counted_as_a_folder(exported, tmp_path):
    """A folder left unread is not called a file: "1 folder not searched", and a folder
    beside a file counts each."""
    home, vault, _ = exported
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (vault / ".ccexport" / "conflicts").symlink_to(elsewhere)
    said = _doctor(vault, home).stdout
    assert "1 folder not searched for secrets" in said and "1 file not" not in said
    from exporter.doctor_render import _unread_count

    both = [("a.md", "a symbolic link"), ("notes", "is not a folder (a link is never followed)")]
    assert _unread_count(both) == "1 file and 1 folder"
