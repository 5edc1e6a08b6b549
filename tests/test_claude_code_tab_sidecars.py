"""Claude Desktop's Code tab keeps the title it shows for a session in a sidecar,
``<D>/claude-code-sessions/**/local_*.json`` (FORMATS.md §1.1). One that could not be read
(not JSON, not an object, a title or session id that is not text) was read as absent in
silence: the session it titled lost its title, and its note was renamed after its first
prompt (and back once the sidecar was mended, an alias more each time). Which session a
damaged sidecar titles is inside it, so now one warning names the first damaged sidecar
and how many there are, and every session the Code tab gives no title keeps the title
its note was last made from."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from claude_builder import ClaudeSession
from conftest import note_files
from fuzz_oracle import checked_export

SID = "c7c7c7c7-2222-4333-8444-555555555555"
OTHER = "c7c7c7c7-2222-4333-8444-666666666666"
NEW = "c7c7c7c7-2222-4333-8444-777777777777"
THEN = "until it can be read, the Code tab titles it gives are kept from the last run"


def session(home: Path, session_id: str, prompt: str) -> None:
    s = ClaudeSession(session_id, "/home/dev/app")
    s.user(prompt)
    s.assistant("Done.")
    s.write(home / ".claude" / "projects" / "-home-dev-app" / f"{session_id}.jsonl")


def sidecars(home: Path) -> Path:
    return home / ".config" / "Claude" / "claude-code-sessions"


def sidecar(home: Path, name: str, content: dict[str, Any] | bytes, mtime: int = 2_000) -> Path:
    path = sidecars(home) / "acct" / "ws" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    os.utime(path, (mtime, mtime))
    return path


def home_with_titled_session(home: Path) -> Path:
    """A session the Code tab titles "Flaky test fix", and another it does not title."""
    session(home, SID, "fix the flaky test")
    session(home, OTHER, "bump the version")
    return sidecar(home, "local_1.json", {"cliSessionId": SID, "title": "Flaky test fix",
                                          "isArchived": False})  # fmt: skip


def titles(vault: Path) -> list[str]:
    """The notes' titles (their frontmatter's: a note keeps its path when retitled)."""
    return sorted(
        next(line[7:] for line in text.decode().splitlines() if line.startswith("title: "))
        for text in note_files(vault).values()
    )


DAMAGE = [
    (b"", "is empty"),
    (b'{"cliSessionId": "c7c7c7c7-2222', "is not valid JSON (damaged or cut short)"),
    (b"[1, 2]", "is a list, not a JSON object"),
    ({"cliSessionId": 7, "title": "Flaky test fix"}, "its cliSessionId is a number, not text"),
    ({"cliSessionId": SID, "title": {"text": "x"}}, "its title is an object, not text"),
    ({"cliSessionId": SID, "title": ["Flaky"]}, "its title is a list, not text"),
]


@pytest.mark.parametrize(("damage", "why"), DAMAGE, ids=[d[1] for d in DAMAGE])
def test_a_damaged_sidecar_is_said_once_and_the_title_kept(tmp_path, damage, why):
    home, vault = tmp_path / "home", tmp_path / "v"
    path = home_with_titled_session(home)
    _, problems = checked_export(home, vault, "claude-code", failed=0)
    before = note_files(vault)
    assert problems == [] and titles(vault) == ["Flaky test fix", "bump the version"]
    sidecar(home, "local_1.json", damage)
    _, problems = checked_export(home, vault, "claude-code", failed=0)
    assert problems == [f"{path}: {why}; {THEN}"]
    assert note_files(vault) == before  # the same title, path and text
    sidecar(home, "local_1.json", {"cliSessionId": SID, "title": "Flaky test fix"})
    _, problems = checked_export(home, vault, "claude-code", failed=0)
    assert problems == [] and note_files(vault) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_sidecar_that_cannot_be_opened_is_said(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    path = home_with_titled_session(home)
    checked_export(home, vault, "claude-code", failed=0)
    path.unlink()
    os.mkfifo(path)
    _, problems = checked_export(home, vault, "claude-code", failed=0)
    assert problems == [f"{path}: could not be read (a named pipe, not a file); {THEN}"]
    assert titles(vault) == ["Flaky test fix", "bump the version"]


def test_several_damaged_sidecars_are_one_warning_naming_the_first(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    home_with_titled_session(home)
    first = sidecar(home, "local_0.json", b"{")
    sidecar(home, "local_9.json", b"")
    (sidecars(home) / "acct" / "ws2").mkdir()  # (walked after ws)
    sidecar(home, "../ws2/local_5.json", {"cliSessionId": None, "title": 3})
    _, problems = checked_export(home, vault, "claude-code", failed=0)
    more = "(and 2 more of the Code tab's sidecars cannot be read)"
    assert problems == [f"{first}: is not valid JSON (damaged or cut short) {more}; {THEN}"]
    assert titles(vault) == ["Flaky test fix", "bump the version"]


def test_a_session_first_seen_with_a_damaged_sidecar_takes_its_first_prompt(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    home_with_titled_session(home)
    checked_export(home, vault, "claude-code", failed=0)
    session(home, NEW, "add a changelog")
    sidecar(home, "local_2.json", b"{cut")
    _, problems = checked_export(home, vault, "claude-code", failed=0)
    assert len(problems) == 1
    assert titles(vault) == ["Flaky test fix", "add a changelog", "bump the version"]


def test_a_newest_sidecar_whose_title_is_damaged_does_not_bring_back_an_older_title(tmp_path):
    """The newest sidecar of a session wins: with its title damaged, an older sidecar's
    title took its place (the note renamed to a title the app no longer shows)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    session(home, SID, "fix the flaky test")
    sidecar(home, "local_1.json", {"cliSessionId": SID, "title": "Old title"}, mtime=1_000)
    newest = sidecar(home, "local_2.json", {"cliSessionId": SID, "title": "Flaky test fix"})
    checked_export(home, vault, "claude-code", failed=0)
    assert titles(vault) == ["Flaky test fix"]
    sidecar(home, "local_2.json", {"cliSessionId": SID, "title": 12})
    _, problems = checked_export(home, vault, "claude-code", failed=0)
    assert problems == [f"{newest}: its title is a number, not text; {THEN}"]
    assert titles(vault) == ["Flaky test fix"]


def test_valid_sidecars_raise_no_warning(tmp_path):
    """What the app writes is no damage: a sidecar with no title yet, or a null or blank
    one, one that names no session (null, blank or none), one naming a session not on
    this machine, other files beside them, and sidecars nested deeper."""
    home, vault = tmp_path / "home", tmp_path / "v"
    session(home, SID, "fix the flaky test")
    session(home, OTHER, "bump the version")
    for n, content in enumerate([
        {"cliSessionId": OTHER},
        {"cliSessionId": OTHER, "title": None, "isArchived": True},
        {"cliSessionId": OTHER, "title": "  "},
        {"title": "a session not started yet"},
        {"cliSessionId": None, "title": "x"},
        {"cliSessionId": "", "title": "x"},
        {"cliSessionId": NEW, "title": "elsewhere", "model": "claude-opus-4", "cwd": "/x"},
    ]):  # fmt: skip
        sidecar(home, f"local_{n}.json", content)
    (sidecars(home) / "acct" / "ws" / "settings.json").write_text("not JSON")
    deep = sidecars(home) / "acct" / "ws" / "a" / "b" / "local_deep.json"
    deep.parent.mkdir(parents=True)
    deep.write_text(json.dumps({"cliSessionId": SID, "title": "Flaky test fix"}))
    _, problems = checked_export(home, vault, "claude-code", failed=0)
    assert problems == []
    assert titles(vault) == ["Flaky test fix", "bump the version"]
