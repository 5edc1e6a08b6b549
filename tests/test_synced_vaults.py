"""A vault kept in sync by another tool (Syncthing, Dropbox, iCloud, OneDrive, Obsidian Sync,
git), often between two machines that both export into it: conflict copies of a note, the
tools' own folders, and merge conflicts inside a note."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import note_files, stamps
from vault_builder import export, the_note, write_session

from exporter import notefile

INDEX = Path("AI Sessions/Projects/app.md")


def forget_state(vault: Path) -> None:
    shutil.rmtree(vault / ".ccexport")  # another machine's first run, or Obsidian Sync


def exported(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, vault = tmp_path / "home", tmp_path / "vault"
    write_session(home, ["q"])
    export(vault, home)
    return home, vault, the_note(vault)


def index_links(vault: Path) -> list[str]:
    return [line for line in (vault / INDEX).read_text().splitlines() if "[[" in line]


COPIES = {  # the names each tool gives the copy it makes when both sides changed a file
    "syncthing": "{}.sync-conflict-20261202-101010-ABCDEFG.md",
    "dropbox": "{} (conflicted copy 2026-12-02).md",
    "icloud": "{} 2.md",
    "obsidian": "{} 1.md",
    "onedrive": "{}-LAPTOP-7QK2.md",
}
FOLDER_COPIES = {  # or to a folder above it
    "icloud-folder": "AI Sessions 2",
    "dropbox-folder": "AI Sessions (Selective Sync Conflict)",
}


def copy_of(vault: Path, note: Path, tool: str) -> Path:
    if tool in COPIES:
        return note.with_name(COPIES[tool].format(note.stem))
    rel = note.relative_to(vault / "AI Sessions")
    copy = vault / FOLDER_COPIES[tool] / rel
    copy.parent.mkdir(parents=True)
    return copy


@pytest.mark.parametrize("tool", [*COPIES, *FOLDER_COPIES])
def test_a_conflict_copy_is_left_alone_and_said_while_the_note_is_updated(tmp_path, tool):
    home, vault, note = exported(tmp_path)
    copy = copy_of(vault, note, tool)
    copy.write_text(note.read_text() + "written on the other machine\n")
    kept = copy.read_bytes()
    forget_state(vault)  # nothing says which file this machine wrote: the vault decides
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert "reply to q2" in note.read_text() and copy.read_bytes() == kept
    (said,) = [p for p in report.problems if p.path == copy.relative_to(vault).as_posix()]
    assert note.name in said.message and "conflict copy" in said.message
    links = index_links(vault)
    assert len(links) == 1 and f"[[{note.stem}|" in links[0], links
    before = stamps(vault)
    export(vault, home)
    assert stamps(vault) == before


@pytest.mark.parametrize(("folder", "name"), [("Archive", None), ("A", "x.md"), ("A", "Cart.md")])
def test_a_copy_the_person_keeps_does_not_take_over(tmp_path, folder, name):
    # A name of the person's own is no sync tool's copy, also where it sorts before the note
    # (a shorter name, the folder "A" before "AI Sessions"): the note this machine wrote stays
    # the one it updates and the index lists.
    home, vault, note = exported(tmp_path)
    copy = vault / folder / (name or note.name)
    copy.parent.mkdir()
    shutil.copy2(note, copy)
    kept = copy.read_bytes()
    for prompts in (["q", "q2"], ["q", "q2", "q3"]):
        write_session(home, prompts)
        export(vault, home)
        assert f"reply to {prompts[-1]}" in note.read_text() and copy.read_bytes() == kept
    links = index_links(vault)
    assert len(links) == 1 and f"[[{note.stem}|" in links[0], links


def test_two_machines_settle_on_one_note_when_one_recorded_the_copy(tmp_path):
    """Machine b's state names the copy (it was the only file when b wrote it). Before, each
    machine went on writing its own file, and the index flipped between them."""
    home, vault, note = exported(tmp_path)
    states = {"a": tmp_path / "state-a", "b": tmp_path / "state-b"}
    (vault / ".ccexport").rename(states["a"])
    copy = note.with_name(COPIES["dropbox"].format(note.stem))
    shutil.copy2(note, copy)
    note.rename(tmp_path / "aside.md")
    prompts = ["q", "q2"]
    write_session(home, prompts)
    export(vault, home)  # machine b finds the copy only, and records it
    (vault / ".ccexport").rename(states["b"])
    (tmp_path / "aside.md").rename(note)  # the sync tool brings the note back

    def run(machine: str, grow: bool):
        states[machine].rename(vault / ".ccexport")
        if grow:
            prompts.append(f"{machine}{len(prompts)}")
            write_session(home, prompts)
        report = export(vault, home)
        (vault / ".ccexport").rename(states[machine])
        return report

    run("b", grow=True)  # b writes the copy once more, then takes the note every machine takes
    kept = copy.read_bytes()
    run("b", grow=False)  # and gives it what it gave the copy
    assert f"reply to {prompts[-1]}" in note.read_text() and copy.read_bytes() == kept
    for machine in ("a", "b", "a"):
        run(machine, grow=True)
        assert f"reply to {prompts[-1]}" in note.read_text()
        assert copy.read_bytes() == kept and f"[[{note.stem}|" in index_links(vault)[0]
    for machine in ("b", "a"):
        run(machine, grow=False)
    before, times = note_files(vault, index=True), stamps(vault)
    for machine in ("a", "b", "a", "b"):
        run(machine, grow=False)
        assert note_files(vault, index=True) == before and stamps(vault) == times, machine


ARCHIVES = [  # where sync tools and bins keep old or deleted files, under their own names
    ".stversions/{folder}/{stem}~20261201-020000.md",  # Syncthing's versions
    ".dropbox.cache/2026-12-01/{name}",
    ".sync/Archive/{folder}/{name}",  # Resilio Sync
    ".trash/{name}",  # Obsidian's own bin
    "#recycle/{folder}/{name}",  # a Synology share's bin
]


def archived(vault: Path, note: Path) -> dict[Path, bytes]:
    rel = note.relative_to(vault)
    fields = {"folder": rel.parent.as_posix(), "stem": note.stem, "name": note.name}
    copies = {}
    for pattern in ARCHIVES:
        path = vault / pattern.format(**fields)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note.read_text())
        copies[path] = path.read_bytes()
    return copies


def test_copies_in_sync_tools_folders_are_never_taken_for_the_note(tmp_path):
    home, vault, note = exported(tmp_path)
    copies = archived(vault, note)
    forget_state(vault)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert "reply to q2" in note.read_text(), report.changes
    assert all(path.read_bytes() == data for path, data in copies.items())
    assert not [p for p in report.problems if "conflict copy" in p.message]
    assert len(index_links(vault)) == 1 and f"[[{note.stem}|" in index_links(vault)[0]


def test_a_deleted_note_is_not_found_in_the_sync_tools_versions(tmp_path):
    """Syncthing keeps a file deleted on the other machine in ``.stversions``: the note
    stays deleted, not updated there."""
    home, vault, note = exported(tmp_path)
    copies = archived(vault, note)
    note.unlink()
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("deleted") == 1, report.changes
    assert all(path.read_bytes() == data for path, data in copies.items())
    assert not note.exists() and not index_links(vault)


def test_a_killed_runs_sweep_leaves_sync_tools_folders_alone(tmp_path):
    home, vault, note = exported(tmp_path)
    theirs = vault / ".stversions" / ".ccexport-0123456789abcdef.tmp"
    theirs.parent.mkdir()
    theirs.write_bytes(b"a sync tool's archive\n")
    ours = note.with_name(".ccexport-0123456789abcdef.tmp")
    ours.write_bytes(b"left by a killed run\n")
    (vault / ".ccexport" / "running").write_bytes(b"")
    export(vault, home)
    assert theirs.exists() and not ours.exists()


# -- merge conflicts inside a note (git) ----------------------------------------------------


def merged(ours: str, theirs: str) -> str:
    """What ``git merge`` leaves in a file both sides changed: one conflict between the
    lines they share at the start and at the end."""
    a, b = ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    start = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
    end = next(i for i in range(1, len(a)) if a[-i] != b[-i]) - 1
    return "".join(
        [*a[:start], "<<<<<<< HEAD\n", *a[start : len(a) - end], "=======\n",
         *b[start : len(b) - end], ">>>>>>> origin/main\n", *a[len(a) - end :]]
    )  # fmt: skip


def two_sides(tmp_path: Path, start: str) -> tuple[Path, Path, Path, str]:
    """A note each machine updated its own way, merged by git (``start``: when machine b's
    copy of the session began: another time makes the frontmatter conflict too)."""
    home, vault, note = exported(tmp_path)
    base = note.read_text()
    write_session(home, ["q", "q2 from a"])
    export(vault, home)
    ours = note.read_text() + "my note on a\n"
    note.write_text(base)
    forget_state(vault)
    write_session(home, ["q", "q3 from b"], start=start)
    export(vault, home)
    text = merged(ours, note.read_text() + "my note on b\n")
    note.write_text(text)
    return home, vault, note, text


@pytest.mark.parametrize("where", ["frontmatter", "generated part"])
@pytest.mark.parametrize("state", [True, False], ids=["state", "no-state"])
def test_a_note_with_a_merge_conflict_is_left_until_it_is_resolved(tmp_path, where, state):
    start = "2026-03-04T11:00:00Z" if where == "frontmatter" else "2026-03-04T10:00:00Z"
    home, vault, note, text = two_sides(tmp_path, start)
    assert ("<<<<<<<" in text.split("\n---\n", 1)[0]) == (where == "frontmatter")
    if not state:
        forget_state(vault)
    write_session(home, ["q", "q2 from a", "q4"])
    report = export(vault, home)
    assert note.read_text() == text  # both sides kept as the merge left them
    assert list(note_files(vault)) == [note.relative_to(vault).as_posix()]  # no second note
    (said,) = [p for p in report.problems if p.path.endswith(note.name)]
    assert "merge's conflict" in said.message and said.severity == "error"
    assert len(index_links(vault)) == 1  # still listed
    assert not (vault / ".ccexport" / "conflicts").exists()
    resolved = (
        text.split("<<<<<<< HEAD\n")[0]
        + text.split("<<<<<<< HEAD\n")[1].split("=======\n")[0]
        + text.split(">>>>>>> origin/main\n")[1]
    )  # the person keeps machine a's side
    note.write_text(resolved)
    report = export(vault, home)
    assert not report.problems and "reply to q4" in note.read_text()
    assert note.read_text().endswith("my note on a\n")


def test_a_merge_conflict_in_the_persons_text_alone_does_not_hold_the_note_back(tmp_path):
    home, vault, note = exported(tmp_path)
    text = note.read_text()
    mine = "<<<<<<< HEAD\nmy note on a\n=======\nmy note on b\n>>>>>>> origin/main\n"
    note.write_text(text + mine)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("updated") == 1 and not report.problems
    assert "reply to q2" in note.read_text() and note.read_text().endswith(mine)


def test_session_text_about_a_merge_conflict_is_no_merge_conflict(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    conflict = "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> main"
    write_session(home, [f"why this?\n{conflict}\nend", f"```\n{conflict}\n```"])
    export(vault, home)
    note = the_note(vault)
    assert "<<<<<<< HEAD" in note.read_text() and not notefile.merge_conflicted(note.read_text())
    note.write_text(note.read_text().replace("reply to why", "reply, edited, to why", 1))
    write_session(home, ["why this?\n" + conflict + "\nend", f"```\n{conflict}\n```", "more"])
    report = export(vault, home)  # an edit of the generated part: saved aside, as always
    assert report.total("conflicts") == 1 and "reply to more" in note.read_text()


# -- a note gone from this disk, and back ---------------------------------------------------


def test_a_note_icloud_keeps_in_the_cloud_only_is_not_deleted(tmp_path):
    """iCloud Drive (macOS before 14) swaps a note it moves off the disk for
    ``.<name>.icloud``: not a deletion; updated once it is downloaded again."""
    home, vault, note = exported(tmp_path)
    text, links = note.read_bytes(), index_links(vault)
    placeholder = note.with_name(f".{note.name}.icloud")
    placeholder.write_bytes(b"bplist00")
    note.unlink()
    assert not export(vault, home).problems  # unchanged source: nothing to say
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    (said,) = report.problems
    assert "iCloud" in said.message and report.total("deleted") == 0
    assert not note.exists() and index_links(vault) == links  # still listed
    placeholder.unlink()
    note.write_bytes(text)  # downloaded
    report = export(vault, home)
    assert not report.problems and "reply to q2" in note.read_text()


def test_a_deleted_note_taken_back_is_listed_and_updated_again(tmp_path):
    home, vault, note = exported(tmp_path)
    bin_ = vault / ".trash" / note.name
    bin_.parent.mkdir()
    note.rename(bin_)
    assert export(vault, home).total("deleted") == 1 and not index_links(vault)
    write_session(home, ["q", "q2"])
    export(vault, home)  # grown while deleted: left deleted
    assert not note.exists()
    bin_.rename(note)  # the person takes it back from Obsidian's bin
    export(vault, home)
    assert len(index_links(vault)) == 1  # listed again at once
    export(vault, home)
    assert "reply to q2" in note.read_text()  # and given what it missed
    before = stamps(vault)
    export(vault, home)
    assert stamps(vault) == before


def test_a_view_deleted_from_the_base_stays_deleted_on_a_machine_without_its_record(tmp_path):
    """Machine a wrote ``Sessions.base``; machine b has no ``.ccexport/`` of a's (Obsidian
    Sync): a view the person deletes must not come back from b's next run."""
    home, vault, note = exported(tmp_path)
    base = vault / "AI Sessions" / "Sessions.base"
    forget_state(vault)
    write_session(home, ["q", "q2"])
    export(vault, home)  # b's first run
    doc = yaml.safe_load(base.read_text())
    doc["views"] = [v for v in doc["views"] if v["name"] != "Claude Code"]
    base.write_text(yaml.safe_dump(doc, sort_keys=False))
    kept = base.read_bytes()
    write_session(home, ["q", "q2", "q3"])
    export(vault, home)
    assert base.read_bytes() == kept


def test_a_base_icloud_keeps_in_the_cloud_only_is_not_written_anew(tmp_path):
    home, vault, note = exported(tmp_path)
    base = vault / "AI Sessions" / "Sessions.base"
    base.rename(base.with_name(".Sessions.base.icloud"))
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert not base.exists() and "iCloud" in report.indexes[-1].message


def put_in_place(note: Path, data: bytes, mtime_ns: int) -> None:
    """What a sync tool's restore, a backup tool or ``git checkout`` does: a new file renamed
    over the note, with the mtime of the version it brings back."""
    spare = note.with_name(note.name + ".restoring")
    spare.write_bytes(data)
    os.utime(spare, ns=(mtime_ns, mtime_ns))
    os.replace(spare, note)


def test_an_older_copy_put_in_the_notes_place_is_brought_up_to_date(tmp_path):
    # The note was taken back from Syncthing's versions (or a backup) after the session grew:
    # its generated part is older than its source, which did not change since the last run.
    # It was left stale until the session grew again or --force; it is made again now, the
    # person's own text in it kept, and the run after that reads nothing again.
    home, vault, note = exported(tmp_path)
    older, older_mtime = note.read_bytes(), note.stat().st_mtime_ns
    write_session(home, ["q", "q2"])
    export(vault, home)
    assert "reply to q2" in note.read_text()
    put_in_place(note, older + b"kept from the old copy\n", older_mtime)
    report = export(vault, home)
    text = note.read_text()
    assert "reply to q2" in text and text.endswith("kept from the old copy\n")
    assert report.total("skipped") == 0
    before = stamps(vault)
    assert export(vault, home).total("skipped") == 1 and stamps(vault) == before


def test_an_edit_saved_in_place_or_new_inode_numbers_read_no_source_again(tmp_path):
    # The inode tells a file put in the note's place; an editor saving in place keeps it,
    # and a file system that numbers inodes anew at each mount (exFAT, some network shares)
    # keeps the mtime and size: neither costs a read of the unchanged source.
    home, vault, note = exported(tmp_path)
    from exporter.state import State

    state = State.load(vault)
    for record in state.notes.values():
        record.stat = [*record.stat[:2], record.stat[2] + 1]  # as after a remount
    (vault / ".ccexport" / "state.json").write_bytes(state.dumps())
    assert export(vault, home).total("skipped") == 1
    export(vault, home, force=True)  # the true inode recorded again
    with note.open("a", encoding="utf-8") as f:
        f.write("my own words\n")
    assert export(vault, home).total("skipped") == 1
    assert note.read_text().endswith("my own words\n")
