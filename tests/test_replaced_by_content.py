"""A note whose file is not what this machine recorded (another inode, time or size) is told
apart by its generated part: the one recorded (the person wrote around it, or it is another
machine's or a copied vault's file of the same note), an older intact one (an older copy put
in its place: made again from its session), or the person's edit inside it (left to wait).
Found by the state-machine hunt (faults 2-4 of its report)."""

from __future__ import annotations

import shutil
from datetime import UTC
from pathlib import Path

import pytest
import yaml
from claude_builder import ClaudeSession

from exporter import vaultsurvey
from exporter.export import ExportOptions, run_export
from exporter.state import State

SID = "000000a0-1111-4111-8111-000000000000"
RUN_FILES = {".ccexport/lock", ".ccexport/running"}


def session() -> ClaudeSession:
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-01T10:00:00Z")
    s.user("why does the parser fail")
    s.assistant("because of the loop")
    return s


def source(home: Path) -> Path:
    return home / ".claude/projects/-home-dev-work-app" / f"{SID}.jsonl"


def export(vault: Path, home: Path):
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    assert not report.failed, report.problems
    return report


def files(vault: Path) -> dict[str, Path]:
    return {
        p.relative_to(vault).as_posix(): p
        for p in vault.rglob("*")
        if p.is_file() and p.relative_to(vault).as_posix() not in RUN_FILES
    }


def snapshot(vault: Path) -> dict[str, tuple[bytes, int]]:
    return {rel: (p.read_bytes(), p.stat().st_mtime_ns) for rel, p in files(vault).items()}


def changed(before: dict, after: dict) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def the_note(vault: Path) -> Path:
    (note,) = [p for p in vault.rglob("*.md") if SID[:8] in p.name]
    return note


def messages(note: Path) -> int:
    return yaml.safe_load(note.read_text(encoding="utf-8").split("---\n")[1])["messages"]


def sync(src: Path, dst: Path) -> None:
    """A sync tool carries ``src``'s changed files to ``dst``: each a new file, times kept."""
    there = files(dst)
    for rel, path in files(src).items():
        if rel not in there or there[rel].read_bytes() != path.read_bytes():
            target = dst / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.unlink(missing_ok=True)
            shutil.copy2(path, target)


def test_a_synced_state_settles_between_two_machines(tmp_path: Path) -> None:
    """Both machines write the same note; only the state differs, and the sync carries it.
    Each run took the other machine's file details for an older copy, read the session
    again and wrote the state with its own, forever."""
    s = session()
    for m in "AB":
        s.write(source(tmp_path / f"home-{m}"))
        (tmp_path / f"vault-{m}").mkdir()
    home = {m: tmp_path / f"home-{m}" for m in "AB"}
    vault = {m: tmp_path / f"vault-{m}" for m in "AB"}
    export(vault["B"], home["B"])
    export(vault["A"], home["A"])
    sync(vault["A"], vault["B"])  # A's state (the notes are the same bytes) goes to B
    for m in "ABAB":
        export(vault[m], home[m])
        sync(vault[m], vault["B" if m == "A" else "A"])
    for m in "AB":
        before = snapshot(vault[m])
        report = export(vault[m], home[m])
        assert not changed(before, snapshot(vault[m])), m
        assert not report.changes, m  # and its session was not read again


@pytest.fixture(params=["unix", "windows"])
def listing(request, monkeypatch) -> str:
    """Folder listings as each system gives them: Windows' give each file's time and size
    (and no inode: every older copy went unseen there)."""
    monkeypatch.setattr(vaultsurvey, "LISTING_GIVES_STAT", request.param == "windows")
    return request.param


@pytest.mark.parametrize("put_back", ["into the note", "as a new file"])
def test_an_older_copy_put_in_the_notes_place_is_made_again(
    tmp_path: Path, listing: str, put_back: str
) -> None:
    """``cp -p backup.md note.md`` writes into the note's own file (its inode kept): that
    was taken for the person's edit in place, and the note stayed behind its session. A
    sync tool or a file manager restoring the backup makes a new file, the backup's times."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    s = session()
    s.write(source(home))
    export(vault, home)
    note = the_note(vault)
    backup = tmp_path / "backup.md"
    shutil.copy2(note, backup)
    s.user("and the fix")
    s.assistant("a bound on the loop")
    s.write(source(home))
    export(vault, home)
    assert messages(note) == 4
    inode = note.stat().st_ino
    if put_back == "into the note":
        shutil.copyfile(backup, note)  # into the same file...
        shutil.copystat(backup, note)  # ...with the backup's times
        assert note.stat().st_ino == inode
    else:
        note.unlink()
        shutil.copy2(backup, note)
    assert messages(note) == 2
    report = export(vault, home)
    assert messages(note) == 4
    assert [c.action for c in report.changes if c.key.endswith(SID)] == ["updated"]
    before = snapshot(vault)
    assert not export(vault, home).changes and not changed(before, snapshot(vault))


@pytest.mark.parametrize("edit", ["my notes", "crlf"])
def test_a_vault_copied_with_its_times_needs_no_write(tmp_path: Path, edit: str) -> None:
    """The person wrote in the note (or a sync tool made its line ends CRLF) after it was
    written: in a copy of the vault (new inodes), its time and size are not the recorded
    ones, and the first run there read the session again and rewrote the state."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    session().write(source(home))
    export(vault, home)
    note = the_note(vault)
    data = note.read_bytes()
    note.write_bytes(data + b"my line\n" if edit == "my notes" else data.replace(b"\n", b"\r\n"))
    export(vault, home)
    before = snapshot(vault)
    export(vault, home)
    assert snapshot(vault) == before  # quiet where it is
    copy = tmp_path / "vault copy"
    shutil.copytree(vault, copy, symlinks=True)  # cp -a: new inodes, times kept
    report = export(copy, home)
    assert not changed(before, snapshot(copy))
    assert not report.changes


def test_an_edit_inside_the_generated_part_of_a_copied_vault_waits(tmp_path: Path) -> None:
    """The person's edit inside the generated part waits for its session to change, in a
    copy of the vault as where it was written (no conflict copy on the copy's first run)."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    s = session()
    s.write(source(home))
    export(vault, home)
    note = the_note(vault)
    note.write_text(note.read_text().replace("because of the loop", "because of the LOOP"))
    edited = snapshot(vault)
    export(vault, home)
    assert snapshot(vault) == edited
    copy = tmp_path / "vault copy"
    shutil.copytree(vault, copy, symlinks=True)
    export(copy, home)
    assert not changed(edited, snapshot(copy))
    assert "because of the LOOP" in the_note(copy).read_text()
    s.user("and the fix")
    s.write(source(home))
    report = export(copy, home)  # the session changed: the edit is saved, the note updated
    assert [c.action for c in report.changes if c.key.endswith(SID)] == ["conflict"]


def test_a_note_the_person_wrote_in_is_read_until_the_state_is_next_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note whose time or size changed is read to tell an older copy; the file found to
    be none is kept in the state when it is next written, so it is not read on every run
    (nor is the state written for that alone)."""
    from exporter.vaultsurvey import NoteSurvey

    home, vault = tmp_path / "home", tmp_path / "vault"
    session().write(source(home))
    export(vault, home)
    note = the_note(vault)
    note.write_text(note.read_text() + "my line\n")
    reads: list[str] = []
    real = NoteSurvey._read_note

    def counted(self, record):
        reads.append(record.path)
        return real(self, record)

    monkeypatch.setattr(NoteSurvey, "_read_note", counted)
    state = vault / ".ccexport/state.json"
    for _ in range(2):
        before = state.read_bytes()
        export(vault, home)
        assert len(reads) == 1 and state.read_bytes() == before
        reads.clear()
    other = ClaudeSession(SID[:-1] + "1", "/home/dev/work/app", start="2026-03-02T10:00:00Z")
    other.user("another question")
    other.write(source(home).with_name(f"{SID[:-1]}1.jsonl"))
    export(vault, home)  # the state is written (a new note): with the file as read
    reads.clear()
    export(vault, home)
    assert reads == [], reads
    assert note.read_text().endswith("my line\n")


def test_two_machines_sharing_the_state_each_read_a_note_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``.ccexport/`` synced, each machine holds its own file of a note the person
    wrote in: each run reads it, and the state each writes remembers both files (not only
    the last machine's, which the other would then read again, on every run after)."""
    from exporter.vaultsurvey import NoteSurvey

    s = session()
    home = {m: tmp_path / f"home-{m}" for m in "AB"}
    vault = {m: tmp_path / f"vault-{m}" for m in "AB"}
    for m in "AB":
        s.write(source(home[m]))
        vault[m].mkdir()
    for m in "ABAB":  # each run, then the sync carries what it wrote to the other
        export(vault[m], home[m])
        sync(vault[m], vault["B" if m == "A" else "A"])
    note = the_note(vault["A"])
    note.write_text(note.read_text() + "my line\n")  # on A; the sync brings it to B
    sync(vault["A"], vault["B"])
    reads: list[str] = []
    real = NoteSurvey._read_note

    def counted(self, record):
        reads.append(str(self.root))
        return real(self, record)

    monkeypatch.setattr(NoteSurvey, "_read_note", counted)
    for n, m in enumerate("AB"):  # a new session on each, so each writes the state once
        other = ClaudeSession(
            f"{SID[:-1]}{n + 1}", "/home/dev/work/app", start="2026-03-02T10:00:00Z"
        )
        other.user(f"another question on {m}")
        other.write(source(home[m]).with_name(f"{SID[:-1]}{n + 1}.jsonl"))
        export(vault[m], home[m])
        sync(vault[m], vault["B" if m == "A" else "A"])
    reads.clear()
    for m in "ABAB":
        before = snapshot(vault[m])
        export(vault[m], home[m])
        assert not changed(before, snapshot(vault[m])), m
    assert reads == [], reads


@pytest.mark.parametrize("second", ["moved", "deleted"])
def test_a_note_moved_onto_another_notes_name_is_not_taken_for_it(tmp_path: Path, second) -> None:
    """The person moves B's note away (or deletes it) and A's note, edited inside, onto B's
    old name. B's file there is now A's: B is followed to where it went (or written again:
    its unit is read), never recorded at A's file, so the run after changes nothing."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    sids = [SID, SID.replace("a0", "b0", 1)]
    for n, sid in enumerate(sids):
        s = ClaudeSession(sid, "/home/dev/work/app", start=f"2026-03-0{n + 1}T10:00:00Z")
        s.user(f"question {n}")
        s.assistant(f"answer {n}")
        s.write(home / ".claude/projects/-home-dev-work-app" / f"{sid}.jsonl")
    export(vault, home)
    a, b = (next(p for p in vault.rglob("*.md") if sid[:8] in p.name) for sid in sids)
    a.write_text(a.read_text().replace("answer 0", "answer 0, as I read it"))
    if second == "moved":
        b.rename(b.with_name("B moved.md"))
    else:
        b.unlink()
    b_name = b.relative_to(vault).as_posix()
    a.rename(b)
    export(vault, home)
    records = State.load(vault).notes
    assert records[f"claude-code:{sids[0]}"].path == b_name  # A's note, where it now is
    b_now = records[f"claude-code:{sids[1]}"]
    if second == "moved":
        assert (b_now.path, b_now.deleted) == ("AI Sessions/claude-code/app/B moved.md", False)
    else:
        assert b_now.deleted  # left deleted, not taken for A's note at its name
    before = snapshot(vault)
    export(vault, home)
    assert not changed(before, snapshot(vault))
    assert "answer 0, as I read it" in b.read_text()
