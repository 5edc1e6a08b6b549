"""Edits are safe without the state folder, and across machines: the note itself carries
what edit detection needs, and index notes are built from the notes in the vault."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import note_files, stamps
from vault_builder import SID, export, the_note, write_session

from exporter import notefile
from exporter.notefile import BEGIN, END, read_identity

MARKER = "%% ccexport:end"


def forget_state(vault: Path) -> None:
    shutil.rmtree(vault / ".ccexport")


def test_an_edit_inside_the_generated_part_is_noticed_without_the_state(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    edited = note.read_text().replace("reply to q", "reply to q, corrected by me")
    note.write_text(edited)
    forget_state(vault)  # Obsidian Sync does not sync it; or the user deleted it
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("conflicts") == 1
    (copy,) = (vault / "AI Sessions" / "Conflicts").iterdir()
    assert notefile.parse(edited).owned in copy.read_text() and "q2" in note.read_text()


def test_an_unedited_note_without_the_state_is_updated_without_a_conflict(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    forget_state(vault)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("updated") == 1 and report.total("conflicts") == 0


@pytest.mark.parametrize("quoted", [END, "REAL"])
def test_text_after_a_quoted_end_marker_is_the_users(tmp_path, quoted):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    text = note.read_text()
    real = next(line for line in text.splitlines() if line.startswith(MARKER))
    mine = f"my notes\n{real if quoted == 'REAL' else quoted}\nmore of my notes\n"
    note.write_text(text + mine)
    forget_state(vault)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("updated") == 1 and report.total("conflicts") == 0
    new = note.read_text()
    assert new.endswith(mine) and new.count("more of my notes") == 1 and "q2" in new


def test_a_marker_inside_session_code_does_not_end_the_region_without_the_state(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    code = f"```\n{MARKER} 0123456789abcdef %%\n{END}\n```\nwhat do these lines do?"
    write_session(home, [code])
    export(vault, home)
    note = the_note(vault)
    note.write_text(note.read_text() + "user tail\n")
    forget_state(vault)
    write_session(home, [code, "next"])
    report = export(vault, home)
    text = note.read_text()
    assert report.total("conflicts") == 0 and report.total("updated") == 1
    assert text.endswith("user tail\n") and text.count("user tail") == 1 and "next" in text
    body = text.split(BEGIN)[1]
    assert body.count("reply to next") == 1 and body.count(f"{MARKER} 0123456789abcdef") == 1


# -- several machines, one synced vault ----------------------------------------------------

SHARED = "5a5a5a5a-0000-4000-8000-000000000000"  # a session both homes hold (a copied home)


def machine_homes(tmp_path: Path) -> dict[str, Path]:
    homes = {"a": tmp_path / "home-a", "b": tmp_path / "home-b"}
    for name, home in homes.items():
        for i, project in enumerate(("shop", "api" if name == "a" else "web")):
            sid = f"{ord(name):08x}-000{i}-4000-8000-000000000000"
            write_session(
                home, [f"{name}{i} question"], sid=sid, cwd=f"/home/dev/work/{project}",
                start=f"2026-04-0{i + 1}T1{ord(name) - 97}:00:00Z",
            )  # fmt: skip
        write_session(home, ["shared question"], sid=SHARED, cwd="/home/dev/work/shop")
    return homes


class Machines:
    """Two machines exporting into one vault; ``synced``: whether ``.ccexport`` is synced
    too (Syncthing) or stays on each machine (Obsidian Sync skips hidden folders)."""

    def __init__(self, tmp_path: Path, synced: bool) -> None:
        self.vault = tmp_path / "vault"
        self.homes = machine_homes(tmp_path)
        self.synced = synced
        self.local = {name: tmp_path / f"state-{name}" for name in self.homes}
        self.current: str | None = None

    def run(self, name: str):
        if not self.synced and self.current != name:
            if self.current and (self.vault / ".ccexport").exists():
                (self.vault / ".ccexport").rename(self.local[self.current])
            if self.local[name].exists():
                self.local[name].rename(self.vault / ".ccexport")
        self.current = name
        report = export(self.vault, self.homes[name])
        assert not report.failed, report.problems
        return report


def identities(vault: Path) -> Counter[str]:
    return Counter(read_identity(data.decode()) for data in note_files(vault, index=True).values())


@pytest.mark.parametrize("synced", [False, True], ids=["own-state", "synced-state"])
def test_two_machines_one_vault_lose_nothing_duplicate_nothing_and_settle(tmp_path, synced):
    m = Machines(tmp_path, synced)
    m.run("a")
    shared_note = next(
        m.vault / p for p, b in note_files(m.vault).items() if SHARED in read_identity(b.decode())
    )
    edited = shared_note.read_text().replace("reply to shared", "reply to shared, fixed by me")
    shared_note.write_text(edited + "written on machine b\n")
    # Machine b holds more of the shared session: it updates a's note, keeping the edit aside.
    write_session(m.homes["b"], ["shared question", "more"], sid=SHARED, cwd="/home/dev/work/shop")
    report = m.run("b")
    assert report.total("conflicts") == 1, report.changes
    text = shared_note.read_text()
    assert "more" in text and text.endswith("written on machine b\n")
    (copy,) = (m.vault / "AI Sessions" / "Conflicts").iterdir()
    assert "fixed by me" in copy.read_text()
    # Machine a, whose copy is now the shorter one, keeps the richer note.
    write_session(m.homes["a"], ["a1 question", "grown"], sid=f"{ord('a'):08x}-0001-4000-8000-000000000000",
                  cwd="/home/dev/work/api", start="2026-04-02T10:00:00Z")  # fmt: skip
    m.run("a")
    assert "more" in shared_note.read_text()

    ids = identities(m.vault)
    assert all(n == 1 for n in ids.values()), ids  # no session, no index twice
    assert len([k for k in ids if not k.startswith("index:")]) == 5
    shop = (m.vault / "AI Sessions" / "Projects" / "shop.md").read_text()
    for who in ("a0 question", "b0 question", "shared question"):
        assert who in shop, shop
    projects = (m.vault / "AI Sessions" / "Projects.md").read_text()
    assert all(p in projects for p in ("shop", "api", "web"))

    for name in ("b", "a"):  # each machine settles once (a's first run after b's changes)
        m.run(name)
    before, times = note_files(m.vault, index=True), stamps(m.vault)
    for name in ("a", "b", "a", "b"):
        m.run(name)
        assert note_files(m.vault, index=True) == before and stamps(m.vault) == times, name


def test_a_note_a_sync_tool_turned_to_crlf_is_not_an_edit(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    note.write_bytes(note.read_bytes().replace(b"\n", b"\r\n"))
    forget_state(vault)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("updated") == 1 and report.total("conflicts") == 0
    assert "q2" in note.read_text()


def test_a_note_turned_to_crlf_as_a_new_file_is_left_as_it_is(tmp_path):
    """A sync tool (or git with autocrlf) writes the CRLF note as a new file: the run took
    it for an older copy put back, rewrote it with its own parts in LF (mixed line ends),
    the tool turned it again, and so every run rewrote it."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    with note.open("a") as f:
        f.write("my own line\n")
    crlf = note.read_bytes().replace(b"\n", b"\r\n")
    copy = note.with_name(".synced.tmp")
    copy.write_bytes(crlf)
    copy.replace(note)  # a new inode, as a sync tool delivers a file
    report = export(vault, home)  # another file in its place: its generated part is the
    assert report.total("updated") == 0 and report.total("skipped") == 1  # one written
    report = export(vault, home)  # and its session is not read again
    assert report.total("skipped") == 1 and report.total("written") == 0
    assert note.read_bytes() == crlf
    write_session(home, ["q", "q2"])  # the session grows: the note is updated, text kept
    report = export(vault, home)
    assert report.total("updated") == 1 and report.total("conflicts") == 0
    assert "q2" in note.read_text() and "my own line" in note.read_text()


@pytest.mark.parametrize("emptied", [b"", b"\n\n"])
def test_a_note_emptied_is_written_again_in_its_place(tmp_path, emptied):
    """An app, or a crash while it was saved, left the note empty: it was counted as
    deleted in the vault (left deleted, out of the index) although it is there, and
    --restore wrote a second note beside it while links led to the empty one."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    note.write_bytes(emptied)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("updated") == 1 and report.total("deleted") == 0
    assert the_note(vault) == note and "q2" in note.read_text()
    assert "Projects" in "".join(note_files(vault, index=True))
    (said,) = [p for p in report.problems if p.path == note.relative_to(vault).as_posix()]
    assert (said.severity, said.message) == ("warning", "it was empty: written again")


def test_an_empty_file_is_not_taken_for_a_note_moved_or_deleted_before(tmp_path):
    """An empty file at a note's old path is the person's when the note was moved away (it
    is updated where it is) or deleted (Obsidian makes an empty note when a link to a
    missing one is clicked): filled, it made a second note of the session, or brought a
    deleted note back without --restore."""
    home, vault, moved, deleted = two_notes(tmp_path)
    elsewhere = vault / "Kept" / moved.name
    elsewhere.parent.mkdir()
    moved.rename(elsewhere)
    moved.write_bytes(b"")
    deleted.unlink()
    export(vault, home)  # notices the deletion
    deleted.write_bytes(b"")
    write_session(home, ["q", "q2"])
    write_session(home, ["gone", "more"], sid=OTHER)
    report = export(vault, home)
    assert moved.read_bytes() == b"" and deleted.read_bytes() == b""
    assert "q2" in elsewhere.read_text() and report.total("updated") == 1
    assert not any("empty" in p.message for p in report.problems)


def test_restore_fills_the_empty_file_at_a_deleted_note_s_name_and_a_sync_copy_is_no_move(
    tmp_path,
):
    """--restore wrote a second note beside the empty file Obsidian made at a deleted note's
    name; and an emptied note with a sync tool's copy of it beside it was taken for moved
    to the copy, which got the updates while the note itself stayed empty."""
    home, vault, emptied, deleted = two_notes(tmp_path)
    copy = emptied.with_name(emptied.stem + ".sync-conflict-20261204-101500-ABCDEF.md")
    copy.write_bytes(emptied.read_bytes())
    emptied.write_bytes(b"")
    deleted.unlink()
    export(vault, home)  # notices the deletion
    deleted.write_bytes(b"")
    write_session(home, ["q", "q2"])
    report = export(vault, home, restore=True)
    assert "q2" in emptied.read_text() and "q2" not in copy.read_text()
    assert "reply to gone" in deleted.read_text()
    assert not list(vault.rglob("* (2).md")) and report.total("failed") == 0


OTHER = "0b0b0b0b-0000-4000-8000-000000000000"


def two_notes(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A home of two sessions ("q" and "gone", ``OTHER``) exported: (home, vault, the note
    of "q", the note of "gone")."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    write_session(home, ["gone"], sid=OTHER)
    export(vault, home)
    notes = {p: p.read_text() for p in vault.rglob("*.md")}
    first = next(p for p, text in notes.items() if "reply to q" in text)
    second = next(p for p, text in notes.items() if "reply to gone" in text)
    return home, vault, first, second


@pytest.mark.parametrize("removed", ["session_id", "source", "session_id and source"])
def test_a_note_whose_identity_was_taken_out_is_updated_not_duplicated(tmp_path, removed):
    """One click in Obsidian's property panel removes ``session_id``; a machine without the
    state then found no note of the session and wrote a second one beside it, ` (2)`."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    keys = removed.split(" and ")
    lines = note.read_text().splitlines(keepends=True)
    kept = [line for line in lines if line.partition(":")[0] not in keys]
    note.write_text("".join(kept) + "\nmy own notes\n")
    forget_state(vault)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert (report.total("created"), report.total("updated")) == (0, 1)
    assert the_note(vault) == note  # the only note: no duplicate
    text = note.read_text()
    assert "reply to q2" in text and text.endswith("\nmy own notes\n")
    assert read_identity(text) == f"claude-code:{SID}"  # written back


def test_a_note_at_the_name_that_names_another_source_is_not_taken(tmp_path):
    """What is left of the identity must agree: a note there whose ``source`` is another
    tool's, its ``session_id`` gone, is not this session's."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    lines = note.read_text().splitlines(keepends=True)
    kept = [line.replace("source: claude-code", "source: codex") for line in lines
            if not line.startswith("session_id:")]  # fmt: skip
    note.write_text("".join(kept))
    forget_state(vault)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("created") == 1
    assert "source: codex" in note.read_text() and len(note_files(vault)) == 2


def test_the_persons_note_at_the_name_quoting_the_marker_is_not_taken(tmp_path):
    """A note of the person's own at the proposed name, which quotes ccexport's marker in a
    code block, has no region of ours: it is left alone and the session's note goes beside."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    mine = f"---\nsource: claude-code\n---\nMy own note.\n\n```\n{BEGIN}\n```\n"
    note.write_text(mine)
    forget_state(vault)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("created") == 1 and note.read_text() == mine


def test_an_index_note_whose_key_was_taken_out_is_updated_not_doubled(tmp_path):
    """``ccexport_index`` removed in the property panel, on a machine without the state:
    the index note at its name (with our region) is still the project's index."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    index = vault / "AI Sessions" / "Projects" / "app.md"
    lines = index.read_text().splitlines(keepends=True)
    index.write_text("".join(x for x in lines if not x.startswith("ccexport_index:")))
    forget_state(vault)
    write_session(home, ["q", "q2"])
    export(vault, home)
    assert "ccexport_index: project/app" in index.read_text()
    assert not (index.parent / "app (2).md").exists()
