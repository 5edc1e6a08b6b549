"""Claude Code's ``entrypoint`` (the app a session was started in: ``cli``,
``claude-vscode``, ``sdk-py``, …) is the note's ``client``, in words, and is said in its
info line, "Claude Code (VS Code)", as Codex's client is. A name ccexport does not know is
given as written; a person's own ``client`` written before ccexport wrote one stays theirs
(``vaultmerge.CLAIMED_LATE``)."""

from __future__ import annotations

import pytest
from claude_builder import ClaudeSession
from vault_builder import SID, export, the_note

from exporter import notefile

CWD = "/home/dev/work/app"


def _write(home, prompts, entrypoint=None, *, first_without=False):
    """One session whose lines name ``entrypoint`` (all but the first, with
    ``first_without``: older lines of a session carry none)."""
    s = ClaudeSession(SID, CWD, start="2026-03-04T10:00:00Z")
    for i, prompt in enumerate(prompts):
        named = (
            {} if entrypoint is None or (first_without and i == 0) else {"entrypoint": entrypoint}
        )
        s.user(prompt, **named)
        s.assistant(f"reply to {prompt}", **named)
    folder = "-" + CWD.strip("/").replace("/", "-")
    return s.write(home / ".claude" / "projects" / folder / f"{SID}.jsonl")


def _note(tmp_path, entrypoint, **kw):
    home, vault = tmp_path / "home", tmp_path / "v"
    _write(home, ["q1", "q2"], entrypoint, **kw)
    export(vault, home)
    note = the_note(vault)
    text = note.read_text()
    return notefile.parse(text).metadata, text


@pytest.mark.parametrize(
    ("entrypoint", "words"),
    [
        ("cli", "CLI"),
        ("claude-vscode", "VS Code"),
        ("claude-desktop", "Claude Desktop"),
        ("sdk-ts", "Agent SDK (TypeScript)"),
        ("sdk-py", "Agent SDK (Python)"),
        ("sdk-cli", "claude -p"),
        ("some-new-app", "some-new-app"),  # (unknown: as written)
    ],
)
def test_the_entrypoint_is_the_client_in_words_and_in_the_info_line(tmp_path, entrypoint, words):
    props, text = _note(tmp_path, entrypoint)
    assert props["client"] == words
    assert f"> [!info] Claude Code ({words}) · app" in text


def test_a_session_whose_lines_name_no_entrypoint_has_no_client(tmp_path):
    props, text = _note(tmp_path, None)
    assert "client" not in props
    assert "> [!info] Claude Code · app" in text


def test_the_first_line_that_names_it_decides(tmp_path):
    props, _ = _note(tmp_path, "claude-vscode", first_without=True)
    assert props["client"] == "VS Code"


def test_a_persons_own_client_written_before_stays_theirs(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    _write(home, ["q1"])  # (an older Claude Code: no entrypoint, no client property)
    export(vault, home)
    note = the_note(vault)
    assert "client" not in notefile.parse(note.read_text()).metadata
    text = note.read_text()
    note.write_text(text.replace("\n---\n", "\nclient: Acme Corp\n---\n", 1))
    _write(home, ["q1", "q2"], "cli")  # (now its lines name where it ran)
    report = export(vault, home)
    assert report.total("updated") == 1, report.changes
    props = notefile.parse(note.read_text()).metadata
    assert props["client"] == "Acme Corp" and "reply to q2" in note.read_text()


def test_ccexports_own_client_follows_the_source(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    _write(home, ["q1"], "cli")
    export(vault, home)
    note = the_note(vault)
    assert notefile.parse(note.read_text()).metadata["client"] == "CLI"
    _write(home, ["q1", "q2"], "claude-vscode")
    export(vault, home)
    assert notefile.parse(note.read_text()).metadata["client"] == "VS Code"
