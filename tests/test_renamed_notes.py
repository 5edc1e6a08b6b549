"""A note renamed or moved in Obsidian: Obsidian rewrites the links to it inside other
notes' generated parts (a project's index, a parent's link to its subagent). That is not
the person's edit: the next update of those notes makes no conflict copy."""

from __future__ import annotations

import json
import os
import posixpath
import re
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import note_files
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from vault_builder import SID, export, write_session

from exporter import notefile
from exporter.export import ExportOptions, run_export
from exporter.notefile import owned_hash
from exporter.state import State
from exporter.statefile import NoteRecord
from exporter.vaultlinks import LinkTargets, links_followed

OTHER = "bbbbbbbb-0000-4000-8000-000000000000"
THIRD = "cccccccc-0000-4000-8000-000000000000"


def obsidian_rename(vault: Path, note: Path, new_path: Path, form: str = "name") -> None:
    """What Obsidian does when a note is renamed or moved: the file moves, and every link
    to it in the vault is rewritten in the form its "New link format" setting names."""
    old = note.stem
    old_full = note.relative_to(vault).with_suffix("").as_posix()
    new_path.parent.mkdir(parents=True, exist_ok=True)
    note.rename(new_path)
    for other in vault.rglob("*.md"):
        if ".ccexport" in other.parts:
            continue
        full = new_path.relative_to(vault).with_suffix("").as_posix()
        folder = other.parent.relative_to(vault).as_posix()
        target = {
            "name": new_path.stem,
            "vault path": full,
            "relative": posixpath.relpath(full, folder),
        }[form]
        text = other.read_text()
        was = f"(?:{re.escape(old_full)}|{re.escape(old)})"
        changed = re.sub(rf"\[\[{was}(?=[|\]#])", f"[[{target}", text)
        if changed != text:
            other.write_text(changed)


def conflict_copies(vault: Path) -> list[Path]:
    folder = vault / "AI Sessions" / "Conflicts"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def two_sessions(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """(home, vault, the note of "q", the project's index note), exported."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    write_session(home, ["gone"], sid=OTHER)
    export(vault, home)
    index = next(vault.rglob("Projects/*.md"))
    note = next(p for p in vault.rglob("*.md") if p != index and "reply to q" in p.read_text())
    return home, vault, note, index


@pytest.mark.parametrize("form", ["name", "vault path", "relative"])
@pytest.mark.parametrize("run_between", [False, True])
def test_renaming_a_note_makes_no_conflict_copy_of_its_index(tmp_path, form, run_between):
    home, vault, note, index = two_sessions(tmp_path)
    renamed = note.parent / "Sub" / "My own name.md" if form != "name" else (
        note.with_name("My own name.md"))  # fmt: skip
    obsidian_rename(vault, note, renamed, form)
    assert "My own name" in index.read_text()
    if run_between:  # the rename is found by a run with nothing else to do
        assert export(vault, home).total("conflicts") == 0
    write_session(home, ["third"], sid=THIRD)  # the index changes
    report = export(vault, home)
    assert report.total("conflicts") == 0 and conflict_copies(vault) == []
    text = index.read_text()
    assert "[[My own name|q]]" in text and "third" in text
    assert "reply to q" in renamed.read_text()


def test_an_edit_of_the_index_beside_a_rename_is_still_kept_as_a_conflict_copy(tmp_path):
    home, vault, note, index = two_sessions(tmp_path)
    obsidian_rename(vault, note, note.with_name("My own name.md"))
    edited = index.read_text().replace("Sessions of this project", "Sessions, my words,")
    index.write_text(edited)
    write_session(home, ["third"], sid=THIRD)
    report = export(vault, home)
    assert report.total("conflicts") == 1
    (copy,) = conflict_copies(vault)
    assert notefile.parse(edited).owned in copy.read_text()  # the part as the person had it


def test_a_link_retargeted_to_a_note_that_did_not_move_is_an_edit(tmp_path):
    """Only a link to a note that moved, and only back to a name it had, is undone."""
    home, vault, note, index = two_sessions(tmp_path)
    gone = next(p for p in vault.rglob("*.md") if "reply to gone" in p.read_text())
    obsidian_rename(vault, note, note.with_name("My own name.md"))
    text = index.read_text()
    edited = text.replace("[[My own name|q]]", f"[[{gone.stem}|q]]")
    assert edited != text
    index.write_text(edited)
    write_session(home, ["third"], sid=THIRD)
    assert export(vault, home).total("conflicts") == 1


def _parent_and_subagent(home: Path, n: int = 1) -> tuple[ClaudeSession, Path]:
    folder = home / ".claude" / "projects" / "-home-dev-work-app"
    sid = f"5e0c1a77-0000-4000-8000-{n:012d}"
    s = ClaudeSession(sid, "/home/dev/work/app")
    s.user(f"survey the tests {n}")
    task = {"description": "Survey", "prompt": "List tests.", "subagent_type": "Explore"}
    s.assistant([tool_use("Task", task, "toolu_1")])
    s.tool_result("toolu_1", "Found 3.")
    s.write(folder / f"{sid}.jsonl")
    agent = ClaudeSession(sid, "/home/dev/work/app", sidechain=True, agent_id="a1b2c3d")
    agent.user("List tests.", parent=None)
    agent.assistant("Found 3.")
    sub = folder / sid / "subagents"
    agent.write(sub / "agent-a1b2c3d.jsonl")
    (sub / "agent-a1b2c3d.meta.json").write_text(json.dumps({"toolUseId": "toolu_1"}))
    return s, folder / f"{sid}.jsonl"


def test_renaming_a_subagent_s_note_makes_no_conflict_copy_of_its_parent(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    session, path = _parent_and_subagent(home)
    options = ExportOptions(vault=vault, home=home, timezone=UTC)
    run_export(options)
    child = next(vault / k for k in note_files(vault) if "· agent" in k)
    parent = next(vault / k for k in note_files(vault) if "· agent" not in k and "Proj" not in k)
    obsidian_rename(vault, child, child.with_name("Test survey.md"))
    assert "Full transcript: [[Test survey]]" in parent.read_text()
    session.user("And the slow ones?")
    session.assistant("Two are slow.")
    session.write(path)
    report = run_export(options)
    assert report.total("conflicts") == 0 and conflict_copies(vault) == []
    text = parent.read_text()
    assert "Two are slow." in text and "Full transcript: [[Test survey]]" in text


def test_the_paths_a_note_had_are_kept_in_the_state_with_the_run_that_found_each(tmp_path):
    home, vault, note, _index = two_sessions(tmp_path)
    first = note.relative_to(vault).as_posix()
    obsidian_rename(vault, note, note.with_name("Second name.md"))
    export(vault, home)
    obsidian_rename(vault, note.with_name("Second name.md"), note.with_name("Third name.md"))
    export(vault, home)
    state = State.load(vault)
    (record,) = [r for r in state.notes.values() if r.was]
    assert record.path.endswith("Third name.md")
    second = first.replace(note.name, "Second name.md")
    assert record.was == [[first, 2], [second, 3]] and state.run == 3


def test_a_session_moved_to_another_folder_under_its_name_is_not_remembered(tmp_path):
    """Its links, by name, are the same: nothing to undo, and the state does not grow (a
    whole folder moved would add every note)."""
    home, vault, note, _index = two_sessions(tmp_path)
    (vault / "Elsewhere").mkdir()
    note.rename(vault / "Elsewhere" / note.name)
    export(vault, home)
    assert all(not r.was for r in State.load(vault).notes.values())


def test_a_state_file_without_earlier_names_still_loads(tmp_path):
    home, vault, _note, _index = two_sessions(tmp_path)
    path = vault / ".ccexport" / "state.json"
    data = json.loads(path.read_text())
    data["notes"].pop("was", None)  # as written before 4 December
    path.write_text(json.dumps(data))
    os.utime(path)
    data["notes"].pop("run", None)
    data.pop("run", None)
    path.write_text(json.dumps(data))
    state = State.load(vault)
    assert not state.unreadable and state.run == 0
    assert state.notes and all(r.was == [] and r.run == 0 for r in state.notes.values())


def test_renaming_a_project_s_index_or_moving_the_whole_folder_makes_no_conflict_copy(
    tmp_path,
):
    """The list of projects links each project's index by its path in the vault, with the
    project as alias, which Obsidian renames with the note."""
    home, vault, note, index = two_sessions(tmp_path)
    projects = vault / "AI Sessions" / "Projects.md"
    obsidian_rename(vault, index, index.with_name("App (mine).md"), "vault path")
    text = projects.read_text()
    assert "[[AI Sessions/Projects/App (mine)|app]]" in text
    projects.write_text(text.replace("|app]]", "|App (mine)]]"))  # Obsidian 1.2.1 and later
    write_session(home, ["third"], sid=THIRD)
    report = export(vault, home)
    assert report.total("conflicts") == 0 and conflict_copies(vault) == []
    # The whole folder moved: every link by path in the vault is rewritten.
    (vault / "Archive").mkdir()
    (vault / "AI Sessions").rename(vault / "Archive" / "AI Sessions")
    moved = vault / "Archive" / "AI Sessions" / "Projects.md"
    moved.write_text(moved.read_text().replace("[[AI Sessions/", "[[Archive/AI Sessions/"))
    write_session(home, ["fourth"], sid="dddddddd-0000-4000-8000-000000000000")
    report = export(vault, home)
    assert report.total("conflicts") == 0 and conflict_copies(vault) == []
    assert "[[Archive/AI Sessions/Projects/App (mine)|" in moved.read_text()


def test_many_notes_renamed_before_their_index_changes_make_no_conflict_copy(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    ids = [f"{n:08x}-0000-4000-8000-000000000000" for n in range(1, 13)]
    for n, sid in enumerate(ids):
        write_session(home, [f"q{n}"], sid=sid)
    export(vault, home)
    index = next(vault.rglob("Projects/*.md"))
    notes = sorted(p for p in vault.rglob("*.md") if "reply to q" in p.read_text())
    for n, note in enumerate(notes):  # twelve renames, each found by a quiet run or not
        obsidian_rename(vault, note, note.with_name(f"Renamed {n}.md"))
        if n % 4 == 0:
            export(vault, home)
    write_session(home, ["new"], sid=THIRD)
    report = export(vault, home)
    assert report.total("conflicts") == 0 and conflict_copies(vault) == []
    assert all(f"[[Renamed {n}|" in index.read_text() for n in range(len(notes)))


def test_a_link_pointed_at_a_note_given_an_old_name_of_another_is_an_edit(tmp_path):
    """Note q was renamed, then note gone took q's old name: the person's change of q's
    link in the index to that name points it at another note. It is theirs: copied."""
    home, vault, note, index = two_sessions(tmp_path)
    gone = next(p for p in vault.rglob("*.md") if "reply to gone" in p.read_text())
    old = note.stem
    obsidian_rename(vault, note, note.with_name("New q.md"))
    export(vault, home)
    obsidian_rename(vault, gone, gone.with_name(f"{old}.md"))
    export(vault, home)
    text = index.read_text()
    index.write_text(text.replace("[[New q|q]]", f"[[{old}|q]]"))
    write_session(home, ["third"], sid=THIRD)
    assert export(vault, home).total("conflicts") == 1


def test_an_earlier_path_holding_a_secret_is_not_kept(tmp_path):
    """A note written before redaction with a secret in its name, moved by the person:
    the redaction then renames it, and the state keeps neither name."""
    home, vault = tmp_path / "home", tmp_path / "v"
    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"
    write_session(home, [f"deploy with {token}"])
    export(vault, home, redact=False)
    note = next(p for p in vault.rglob("*.md") if "Projects" not in p.parts and token in p.name)
    obsidian_rename(vault, note, note.with_name(f"moved {token}.md"))
    export(vault, home, redact=False)
    assert token in (vault / ".ccexport" / "state.json").read_text()  # (as before redaction)
    export(vault, home)
    assert token not in (vault / ".ccexport" / "state.json").read_text()


def test_a_note_whose_transcript_is_gone_is_followed_when_renamed(tmp_path):
    """Claude Code deletes old transcripts; their notes stay. No unit of a run looks at
    such a note, but the index notes list it: its record follows it there."""
    home, vault, note, index = two_sessions(tmp_path)
    (home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID}.jsonl").unlink()
    obsidian_rename(vault, note, note.with_name("Kept after cleanup.md"))
    write_session(home, ["third"], sid=THIRD)
    report = export(vault, home)
    assert report.total("conflicts") == 0 and conflict_copies(vault) == []
    assert "[[Kept after cleanup|q]]" in index.read_text()


def test_a_note_whose_transcript_is_gone_renamed_by_adding_to_its_name_is_followed(tmp_path):
    """ "X (done).md" looks like a sync tool's copy of X, but no other file names the
    session: it is the note, renamed."""
    home, vault, note, index = two_sessions(tmp_path)
    (home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID}.jsonl").unlink()
    obsidian_rename(vault, note, note.with_name(f"{note.stem} (done).md"))
    write_session(home, ["third"], sid=THIRD)
    report = export(vault, home)
    assert report.total("conflicts") == 0 and conflict_copies(vault) == []
    assert f"[[{note.stem} (done)|q]]" in index.read_text()


def test_a_note_left_as_it_was_after_a_move_is_stamped_with_the_names_it_says(tmp_path):
    """The index was written (by another machine, or a run killed before it saved the
    state) with a moved note's new name: a run that finds it as it would write it stamps
    it now, so a second rename is put back to the name it says, not the first one."""
    home, vault, note, index = two_sessions(tmp_path)
    obsidian_rename(vault, note, note.with_name("Second.md"))
    export(vault, home)  # found moved; the index written again with the name "Second"
    path = vault / ".ccexport" / "state.json"
    data = json.loads(path.read_text())
    at = data["notes"]["key"].index("index:project/app")
    data["notes"]["run"][at] = 1  # as if this state never saw that write
    path.write_text(json.dumps(data))
    other = "eeeeeeee-0000-4000-8000-000000000000"
    write_session(home, ["elsewhere"], sid=other, cwd="/home/dev/work/other")
    export(vault, home)  # the index notes written again: this one as it is
    assert json.loads(path.read_text())["notes"]["run"][at] == 3
    obsidian_rename(vault, note.with_name("Second.md"), note.with_name("Third.md"))
    write_session(home, ["third"], sid=THIRD)
    report = export(vault, home)
    assert report.total("conflicts") == 0 and conflict_copies(vault) == []


def test_many_parents_of_renamed_subagents_build_the_link_map_once(tmp_path, monkeypatch):
    from exporter import vaultlinks

    home, vault = tmp_path / "home", tmp_path / "v"
    sessions = [_parent_and_subagent(home, n) for n in range(1, 5)]
    options = ExportOptions(vault=vault, home=home, timezone=UTC)
    run_export(options)
    for n, child in enumerate(sorted(k for k in note_files(vault) if "· agent" in k)):
        obsidian_rename(vault, vault / child, (vault / child).with_name(f"Survey {n}.md"))
    for session, path in sessions:
        session.user("And the slow ones?")
        session.assistant("Two are slow.")
        session.write(path)
    built = []
    real = vaultlinks.LinkTargets.__init__
    monkeypatch.setattr(
        vaultlinks.LinkTargets,
        "__init__",
        lambda self, *args: built.append(1) or real(self, *args),
    )
    report = run_export(options)
    assert report.total("conflicts") == 0 and report.total("updated") >= 4
    assert len(built) == 1


def test_a_name_with_a_secret_the_person_gave_a_note_is_not_kept_once_it_moves_on(tmp_path):
    token = "ghp_" + "Zy3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kQ7"
    home, vault, note, _index = two_sessions(tmp_path)
    obsidian_rename(vault, note, note.with_name(f"token {token}.md"))
    export(vault, home)
    obsidian_rename(vault, note.with_name(f"token {token}.md"), note.with_name("Tidy.md"))
    export(vault, home)
    assert token not in (vault / ".ccexport" / "state.json").read_text()


# --- the undoing itself, for any text and any rename ---------------------------------

_NAME = st.text(st.sampled_from("abcXYZ 0-·é"), min_size=1, max_size=8).map(str.strip).filter(bool)
_PROSE = st.text(st.sampled_from("abc [] |#\n`*"), max_size=12)


@settings(max_examples=300, deadline=None)
@given(
    old=_NAME,
    new=_NAME,
    other=_NAME,
    pieces=st.lists(st.tuples(_PROSE, st.sampled_from(["moved", "other", "alias"])), max_size=6),
    edit=st.one_of(st.none(), st.tuples(st.integers(0, 200), st.sampled_from("qZ!"))),
)
def test_only_obsidian_s_rewrite_of_links_to_a_moved_note_is_undone(old, new, other, pieces, edit):
    """A part whose only difference is Obsidian's rewrite of links to the moved note is
    recognised; any other change to it (a character added anywhere) is not."""
    assume(len({old, new, other}) == 3)
    link = {"moved": f"[[{old}]]", "other": f"[[{other}]]", "alias": f"[[{old}|title]]"}
    written = "".join(prose + link[kind] for prose, kind in pieces)
    assume(f"[[{new}" not in written)  # (a link to the new name before the rename: ambiguous)
    # (Obsidian rewrites links, not a "[[a]" that is none)
    rewritten = re.sub(rf"\[\[{re.escape(old)}(?=(?:\|[^\[\]\n]*)?\]\])", f"[[{new}", written)
    assume(rewritten != written)  # nothing rewritten: the hash matches, nothing is asked
    notes = {
        "claude-code:x": NoteRecord(
            f"AI Sessions/p/{new}.md", "", 1, was=[[f"AI Sessions/p/{old}.md", 2]]
        ),
        "claude-code:y": NoteRecord(f"AI Sessions/p/{other}.md", "", 1),
        "index:project/p": NoteRecord("AI Sessions/Projects/p.md", "", 1, run=1),
    }
    if edit is not None:
        at = min(edit[0], len(rewritten))
        rewritten = rewritten[:at] + edit[1] + rewritten[at:]
    targets = LinkTargets(notes)
    found = links_followed(rewritten, owned_hash(written), notes["index:project/p"], targets)
    assert found is (edit is None)
