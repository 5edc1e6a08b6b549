"""Vault sync: safe paths, atomic writes, and every user edit surviving a re-export."""

from __future__ import annotations

import os
import re
from datetime import UTC
from pathlib import Path

import pytest
import yaml
from claude_builder import ClaudeSession
from conftest import EXAMPLES_HOME, note_files, stamps

from exporter import notefile, vaultbatch
from exporter.export import ExportOptions, run_export
from exporter.notefile import BEGIN, END
from exporter.vault import safe_component, safe_relpath

SID = "0a1b2c3d-0000-4000-8000-00000000000a"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("CON.md", "_CON.md"),
        ("nul", "_nul"),
        ("lpt³.notes.md", "_lpt³.notes.md"),  # Windows reads superscript 1-3 as digits here
        ("COM10.md", "COM10.md"),
        ("a:b?c*d.md", "a -b-c-d.md"),
        ("  trailing dots...  ", "trailing dots"),
        ("..", "_"),
        ("[[link]] #tag ^id|x.md", "--link-- -tag -id-x.md"),
        (".hidden.md", "hidden.md"),
        ("COM¹", "_COM¹"),
        ("lpt³.md", "_lpt³.md"),
        ("CONIN$", "_CONIN$"),
        ("conout$.md", "_conout$.md"),
        ("nul .txt", "_nul .txt"),
        ("aux  .md", "_aux.md"),
        ("auxiliary.md", "auxiliary.md"),
        ("com10", "com10"),
    ],
)
def test_safe_component(name, expected):
    assert safe_component(name) == expected


def test_safe_relpath_never_leaves_the_vault():
    assert safe_relpath("../../etc/passwd") == "_/_/etc/passwd"
    assert safe_relpath("/abs/path.md") == "abs/path.md"
    assert safe_relpath("a\\b\\c.md") == "a/b/c.md"
    long = safe_component("x" * 400 + ".md")
    assert long.endswith(".md") and len(long.encode()) <= 200
    accented = safe_component("é" * 300 + ".md")
    assert len(accented.encode()) <= 200 and accented.endswith(".md")


def make_home(tmp_path: Path, prompts: list[str], title: str | None = None) -> Path:
    home = tmp_path / "home"
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-04T10:00:00Z")
    for prompt in prompts:
        s.user(prompt)
        s.assistant(f"reply to {prompt}")
    if title:
        s.meta("custom-title", customTitle=title, sessionId=SID)
    s.write(home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID}.jsonl")
    return home


def export(vault: Path, home: Path, **kw):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, **kw))


def the_note(vault: Path) -> Path:
    (path,) = [vault / rel for rel in note_files(vault)]
    return path


def test_writes_are_atomic_through_an_unpredictable_dot_temp_file_in_the_same_folder(
    tmp_path, monkeypatch
):
    seen = []
    real_rename = os.rename

    def spy(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        seen.append((src, dst, src_dir_fd, dst_dir_fd))
        assert os.stat(src, dir_fd=src_dir_fd, follow_symlinks=False).st_size >= 0
        return real_rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

    monkeypatch.setattr(os, "rename", spy)
    export(tmp_path / "v", make_home(tmp_path, ["hello"]))
    monkeypatch.undo()
    assert seen and all(s == d and s is not None for _, _, s, d in seen)  # one folder
    temps = [src for src, *_ in seen]
    assert all(re.fullmatch(r"\.ccexport-[0-9a-f]{16}\.tmp", t) for t in temps)
    assert len(set(temps)) == len(temps)  # never the same name twice, never the pid
    # Not made from the pid: random hex may hold its digits by chance (a 3-digit pid, one
    # name in 300), so it is asked of many names, which would all hold a pid they came from.
    from exporter.vaultio import temp_name

    assert not all(str(os.getpid()) in t for t in temps + [temp_name() for _ in range(40)])
    assert not list((tmp_path / "v").rglob(".ccexport-*"))


def test_identical_bytes_are_never_rewritten(tmp_path):
    vault, home = tmp_path / "v", make_home(tmp_path, ["hello"])
    export(vault, home)
    times = stamps(vault)
    # Force a re-read (the source looks changed) that yields the same note.
    os.utime(next(home.rglob("*.jsonl")), ns=(1, 1))
    report = export(vault, home)
    assert report.total("unchanged") == 1 and stamps(vault) == times


def test_user_edits_survive_an_update(tmp_path):
    vault, home = tmp_path / "v", make_home(tmp_path, ["first question"])
    export(vault, home)
    path = the_note(vault)
    text = path.read_text()
    text = text.replace("tags:\n", "rating: 5\ntags:\n- mine/important\n", 1)
    text = text.replace("---\n" + BEGIN, "---\nWritten above the region.\n" + BEGIN)
    text += "My own thoughts about [[another note]].\n"
    path.write_text(text)

    make_home(tmp_path, ["first question", "second question"])
    report = export(vault, home)
    assert report.total("updated") == 1
    new = path.read_text()
    meta = yaml.safe_load(new.split("---\n")[1])
    assert meta["rating"] == 5
    assert "mine/important" in meta["tags"] and "ai-session" in meta["tags"]
    assert "Written above the region.\n" + BEGIN in new
    assert new.endswith("My own thoughts about [[another note]].\n")
    assert "second question" in new and meta["messages"] == 4


def test_user_keys_keep_their_place(tmp_path):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    path = the_note(vault)
    path.write_text(path.read_text().replace("source:", "status: draft\nsource:", 1))
    make_home(tmp_path, ["q", "q2"])
    export(vault, home)
    keys = list(yaml.safe_load(path.read_text().split("---\n")[1]))
    assert keys.index("status") == keys.index("source") - 1


def test_retitled_session_keeps_its_file_and_gains_an_alias(tmp_path):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"], title="Old title")
    export(vault, home)
    path = the_note(vault)
    make_home(tmp_path, ["q"], title="New title")
    export(vault, home)
    assert the_note(vault) == path
    meta = yaml.safe_load(path.read_text().split("---\n")[1])
    assert meta["title"] == "New title" and meta["aliases"] == ["Old title", "New title"]


def test_edit_inside_the_owned_region_is_saved_as_a_conflict(tmp_path):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    path = the_note(vault)
    edited = path.read_text().replace("reply to q", "reply to q — corrected by me")
    path.write_text(edited)
    make_home(tmp_path, ["q", "q2"])
    report = export(vault, home)
    assert report.total("conflicts") == 1
    (copy,) = (vault / "AI Sessions" / "Conflicts").iterdir()
    assert notefile.parse(edited).owned in copy.read_text()  # the part as the person had it
    assert "corrected by me" not in path.read_text() and "q2" in path.read_text()
    assert report.as_dict()["conflicts"][0]["path"] == path.relative_to(vault).as_posix()


@pytest.mark.parametrize("read_again", ["touched", "force", "new property"])
def test_an_edit_inside_waits_while_its_session_is_read_again_unchanged(tmp_path, read_again):
    """A session read again with nothing new (its file touched, ``--force``, a setting that
    changes only the properties) has nothing new for the generated part: the person's edit
    of it stays where they made it, no conflict copy, until the session changes."""
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    path = the_note(vault)
    edited = path.read_text().replace("reply to q", "reply to q — corrected by me")
    path.write_text(edited)
    (source,) = home.rglob("*.jsonl")
    options = {}
    if read_again == "touched":
        os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10**9))
    elif read_again == "force":
        options = {"force": True}
    else:
        options = {"frontmatter_add": {"reviewed": "no"}}
    report = export(vault, home, **options)
    assert not report.failed and not report.conflicts(), report.changes
    now = path.read_text()
    if read_again == "new property":
        assert now.replace("reviewed: 'no'\n", "") == edited and "reviewed: 'no'\n" in now
    else:
        assert now == edited
        assert [c.action.value for c in report.changes] in ([], ["unchanged"])
    again = export(vault, home, **options)
    assert not again.conflicts() and path.read_text() == now
    make_home(tmp_path, ["q", "q2"])
    report = export(vault, home, **options)  # something new: the edit is saved aside
    assert report.total("conflicts") == 1
    (copy,) = (vault / "AI Sessions" / "Conflicts").iterdir()
    assert notefile.parse(now).owned in copy.read_text()
    assert "corrected by me" not in path.read_text() and "q2" in path.read_text()


def test_foreign_file_at_the_target_path_is_never_overwritten(tmp_path):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, tmp_path / "nothing", dry_run=False)
    report = export(tmp_path / "probe", home, dry_run=True)
    target = vault / report.changes[0].relpath
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("my own note that happens to have this name\n")
    report = export(vault, home)
    assert target.read_text() == "my own note that happens to have this name\n"
    assert report.changes[0].action.value == "renamed"
    assert report.changes[0].relpath.endswith(" (2).md")


def test_a_vanished_source_leaves_the_note_byte_identical(tmp_path):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    before, times = note_files(vault), stamps(vault)
    for f in home.rglob("*.jsonl"):
        f.unlink()
    export(vault, home)
    assert note_files(vault) == before and stamps(vault) == times


def test_a_moved_note_is_found_by_identity_and_updated_there(tmp_path):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    moved = vault / "Somewhere else" / "renamed by me.md"
    moved.parent.mkdir()
    the_note(vault).rename(moved)
    make_home(tmp_path, ["q", "q2"])
    export(vault, home)
    assert list(note_files(vault)) == ["Somewhere else/renamed by me.md"]
    assert "q2" in moved.read_text()


SID2 = "0a1b2c3d-0000-4000-8000-00000000000b"


def two_sessions(tmp_path: Path, first: list[str]) -> Path:
    """``make_home``'s session (its prompts ``first``) and a second one, in one project."""
    home = make_home(tmp_path, first)
    other = ClaudeSession(SID2, "/home/dev/work/app", start="2026-03-05T10:00:00Z")
    other.user("the other session")
    other.assistant("its reply")
    other.write(home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID2}.jsonl")
    return home


def note_of(vault: Path, sid: str) -> Path:
    (path,) = [
        vault / r for r in note_files(vault) if f"session_id: {sid}" in (vault / r).read_text()
    ]
    return path


def test_another_sessions_note_put_at_a_notes_old_path_is_not_overwritten(tmp_path):
    # The person deletes note A and gives note B A's name (B's links follow in Obsidian):
    # the file at A's recorded path is now B, and A, deleted, stays deleted.
    vault, home = tmp_path / "v", two_sessions(tmp_path, ["q"])
    export(vault, home)
    a, b = note_of(vault, SID), note_of(vault, SID2)
    a.unlink()
    b.rename(a)
    with a.open("a") as f:
        f.write("my notes about the other session\n")
    mine = a.read_text()
    two_sessions(tmp_path, ["q", "q2"])
    report = export(vault, home)
    assert a.read_text() == mine and list(note_files(vault)) == [a.relative_to(vault).as_posix()]
    assert not report.failed and "left deleted" in report.problems[-1].message


def test_a_file_of_the_persons_own_at_a_notes_old_path_is_left_and_the_moved_note_updated(
    tmp_path,
):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    old = the_note(vault)
    moved = vault / "Moved.md"
    old.rename(moved)
    old.write_text("My own unrelated note.\n")
    make_home(tmp_path, ["q", "q2"])
    report = export(vault, home)
    assert old.read_text() == "My own unrelated note.\n" and "q2" in moved.read_text()
    assert not report.failed


@pytest.mark.parametrize("state", ["kept", "lost"])
def test_a_note_saved_with_a_byte_order_mark_is_still_the_note(tmp_path, state):
    # Some Windows editors save UTF-8 with a BOM: the frontmatter must still be read (not
    # a second one written on top, nor a duplicate note made), and the BOM kept.
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    path = the_note(vault)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"title:", b"mine: 1\ntitle:", 1))
    if state == "lost":
        (vault / ".ccexport" / "state.json").unlink()
    make_home(tmp_path, ["q", "q2"])
    report = export(vault, home)
    text = path.read_bytes().decode()
    assert not report.failed and list(note_files(vault)) == [path.relative_to(vault).as_posix()]
    assert text.startswith("\ufeff---\n") and text.count("---\n") == 2 and "q2" in text
    assert "\nmine: 1\n" in text


def test_a_dry_run_into_an_empty_vault_reports_no_note_as_deleted(tmp_path):
    # A note rendered twice in a run (a parent, once its subagent's link is known) found no
    # file the second time in a dry run, and was reported as deleted by the person.
    report = export(tmp_path / "v", EXAMPLES_HOME, dry_run=True)
    assert [p.message for p in report.problems if "deleted" in p.message] == []
    assert not (tmp_path / "v").exists()


def test_a_save_made_while_a_run_updates_the_note_is_kept_and_merged_next_run(
    tmp_path, monkeypatch
):
    # Obsidian saves the person's typing after the run read the note and before its new
    # text lands: the save is kept (not renamed over), and the next run merges both.
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    path = the_note(vault)
    saving_before_landing(monkeypatch, path, path.relative_to(vault).as_posix())
    make_home(tmp_path, ["q", "q2"])
    report = export(vault, home)
    assert "typed during the run" in path.read_text() and "q2" not in path.read_text()
    assert not report.failed and "saved by someone else" in report.problems[-1].message
    monkeypatch.undo()
    export(vault, home)
    text = path.read_text()
    assert (
        "typed during the run" in text
        and "q2" in text
        and list(note_files(vault)) == [path.relative_to(vault).as_posix()]
    )


def saving_before_landing(monkeypatch, path: Path, relpath: str) -> None:
    """The next commits append to ``path`` (as Obsidian saves typing) before the batch holding
    ``relpath`` lands."""
    real_commit = vaultbatch.WriteBatch.commit

    def save_first(batch):
        if relpath in batch._pending and path.exists():
            with path.open("a") as f:
                f.write("typed during the run\n")
        real_commit(batch)

    monkeypatch.setattr(vaultbatch.WriteBatch, "commit", save_first)


def test_a_save_during_a_run_to_a_note_given_another_notes_old_name_redoes_that_note(
    tmp_path, monkeypatch
):
    # Two records then name one path (A's, deleted; B's, moved there): the save must drop
    # B's record, so that B is merged next run, and leave A deleted.
    vault, home = tmp_path / "v", two_sessions(tmp_path, ["q"])
    export(vault, home)
    a, b = note_of(vault, SID), note_of(vault, SID2)
    a.unlink()
    b.rename(a)
    grown = ClaudeSession(SID2, "/home/dev/work/app", start="2026-03-05T10:00:00Z")
    for prompt in ("the other session", "beta2"):
        grown.user(prompt)
        grown.assistant("its reply")
    grown.write(home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID2}.jsonl")
    saving_before_landing(monkeypatch, a, a.relative_to(vault).as_posix())
    report = export(vault, home)
    assert "saved by someone else" in " ".join(p.message for p in report.problems)
    monkeypatch.undo()
    export(vault, home)
    text = a.read_text()
    assert "beta2" in text and "typed during the run" in text
    assert list(note_files(vault)) == [a.relative_to(vault).as_posix()]  # A stays deleted


def test_a_note_deleted_while_a_run_updates_it_stays_deleted(tmp_path, monkeypatch):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    path = the_note(vault)
    relpath = path.relative_to(vault).as_posix()
    real_commit = vaultbatch.WriteBatch.commit

    def delete_first(batch):
        if relpath in batch._pending and path.exists():
            path.unlink()
        real_commit(batch)

    monkeypatch.setattr(vaultbatch.WriteBatch, "commit", delete_first)
    make_home(tmp_path, ["q", "q2"])
    report = export(vault, home)
    assert not path.exists() and "left deleted" in report.problems[-1].message
    monkeypatch.undo()
    make_home(tmp_path, ["q", "q2", "q3"])
    export(vault, home)
    assert not path.exists() and note_files(vault) == {}


def test_an_index_note_saved_during_a_run_is_rewritten_by_the_next(tmp_path, monkeypatch):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    index = vault / "AI Sessions" / "Projects" / "app.md"
    saving_before_landing(monkeypatch, index, "AI Sessions/Projects/app.md")
    two_sessions(tmp_path, ["q"])  # a second session in the project
    report = export(vault, home)
    assert [c.action.value for c in report.indexes if c.relpath.endswith("app.md")] == [
        "saved meanwhile"
    ]
    assert "index" not in report.per_source  # (no source of that name)
    monkeypatch.undo()
    export(vault, home)
    text = index.read_text()
    assert text.count("[[") == 2 and "typed during the run" in text


def test_lost_state_finds_existing_notes_instead_of_duplicating(tmp_path):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    (vault / ".ccexport" / "state.json").unlink()
    make_home(tmp_path, ["q", "q2"])
    export(vault, home)
    assert len(note_files(vault)) == 1 and "q2" in the_note(vault).read_text()


def test_removed_markers_leave_the_note_alone_and_report_it(tmp_path):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    path = the_note(vault)
    path.write_text(re.sub(r"(?m)^%% ccexport:end .*\n", "", path.read_text()))
    mine = path.read_text()
    make_home(tmp_path, ["q", "q2"])
    report = export(vault, home)
    assert path.read_text() == mine and report.failed
    said = report.problems[-1].message
    assert "markers are missing or changed" in said and "put them back" in said
    assert "move your own text out of the note, delete it" in said  # before deleting it
    path.unlink()  # what the message says to do
    assert export(vault, home, restore=True).failed is False and "q2" in the_note(vault).read_text()


def test_broken_frontmatter_is_reported_not_overwritten(tmp_path):
    vault, home = tmp_path / "v", make_home(tmp_path, ["q"])
    export(vault, home)
    path = the_note(vault)
    path.write_text(path.read_text().replace("title:", "title: [unclosed", 1))
    mine = path.read_text()
    make_home(tmp_path, ["q", "q2"])
    report = export(vault, home)
    assert (
        path.read_text() == mine and "frontmatter is not valid YAML" in report.problems[-1].message
    )


def test_marker_text_inside_session_code_does_not_confuse_the_region(tmp_path):
    vault, home = (
        tmp_path / "v",
        make_home(tmp_path, [f"```\n{END}\n```\nwhat does this marker do?"]),
    )
    export(vault, home)
    path = the_note(vault)
    path.write_text(path.read_text() + "user tail\n")
    make_home(tmp_path, [f"```\n{END}\n```\nwhat does this marker do?", "next"])
    export(vault, home)
    text = path.read_text()
    assert text.endswith("user tail\n") and text.count("user tail") == 1 and "next" in text
