"""A unit read again renders only the sessions whose render key changed (``renderkey``).

Cursor keeps every composer of a user folder in one database and writes its interface's
state there all day: the folder is read again on nearly every run, and each of its
composers was rendered again although its note came out the same. A note whose render key
is the one it was last written with is left as it is, as a skipped unit's is; but never
one moved, deleted or replaced meanwhile, nor with --force or other settings.
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import ClaudeSession, image_block, tiny_png, tool_use
from conftest import note_files
from test_readahead import _family
from vscode_builder import make_db, workspace

from exporter import notes, readahead, workers
from exporter.adapters.cursor import composer as cursor_composer
from exporter.export import ExportOptions, run_export
from exporter.notefile import INDEX_PREFIX
from exporter.state import State

USER = Path(".config") / "Cursor" / "User"
GLOBAL = USER / "globalStorage" / "state.vscdb"


def composer(n: int, replies: int = 1) -> dict[str, object]:
    cid = f"c{n:07d}-1111-4222-8333-444444444444"
    bubbles = {f"bubbleId:{cid}:u": {"_v": 3, "type": 1, "bubbleId": "u",
                                     "text": f"question {n}", "createdAt": "2025-10-07T18:28:55Z"}}  # fmt: skip
    for r in range(replies):
        bubbles[f"bubbleId:{cid}:a{r}"] = {"_v": 3, "type": 2, "bubbleId": f"a{r}",
                                            "text": f"answer {n}.{r}"}  # fmt: skip
    headers = [{"bubbleId": k.rpartition(":")[2], "type": v["type"]} for k, v in bubbles.items()]
    data = {"_v": 10, "composerId": cid, "name": f"Chat {n}", "createdAt": 1759861723898 + n,
            "lastUpdatedAt": 1759863763312 + n, "fullConversationHeadersOnly": headers}  # fmt: skip
    return {f"composerData:{cid}": data, **bubbles}


def cursor_home(home: Path, count: int = 4) -> Path:
    disk: dict[str, object] = {}
    for n in range(count):
        disk.update(composer(n))
    make_db(home / GLOBAL, {}, disk)
    cids = [k.removeprefix("composerData:") for k in disk if k.startswith("composerData:")]
    listed = {"composer.composerData": {"allComposers": [{"composerId": c} for c in cids]}}
    workspace(home / USER, "ws1", "file:///home/dev/work/app", listed)
    return home


def cursor_writes(home: Path, key: str = "ui.state", value: object = 1) -> None:
    """Cursor at work: a row written to the database (its interface's state, or a chat)."""
    with closing(sqlite3.connect(home / GLOBAL)) as db:
        table = "cursorDiskKV" if key.startswith(("composerData:", "bubbleId:")) else "ItemTable"
        db.execute(f"INSERT INTO {table} VALUES (?, ?)", (key, json.dumps(value)))
        db.commit()


@pytest.fixture
def rendered(tmp_path, monkeypatch) -> Path:
    """A file each note rendered adds a line to (its session's id), in this process or in
    a worker forked from it."""
    log = tmp_path / "rendered.txt"
    log.touch()
    real = notes.build_note

    def build_note(session, *args):
        with log.open("a") as out:
            out.write(f"{session.session_id}@{os.getpid()}\n")
        return real(session, *args)

    monkeypatch.setattr(notes, "build_note", build_note)
    return log


def export(vault: Path, home: Path, jobs: int | None = 1, **kw):
    kw = {"sources": ["cursor"], **kw}
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=jobs, **kw)
    report = run_export(options)
    assert not report.failed, report.problems
    return report


def renders(log: Path, where: set[int] | None = None) -> list[str]:
    """The sessions rendered since last asked (``where``: gets the processes that did)."""
    found = log.read_text().split()
    log.write_text("")
    if where is not None:
        where.update(int(line.partition("@")[2]) for line in found)
    return [line.partition("@")[0] for line in found]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_database_written_to_renders_only_the_composer_that_changed(tmp_path, rendered, jobs):
    home, vault = cursor_home(tmp_path / "home", 30), tmp_path / "v"
    export(vault, home, jobs)
    assert len(renders(rendered)) == 30
    cursor_writes(home)  # the interface's state: no chat changed
    report = export(vault, home, jobs)
    # A first export makes no key (it costs time, and may be all there is): the first run
    # that reads the unit again, knowing it holds several, renders every note and keys it.
    assert len(renders(rendered)) == 30 and report.total("unchanged") == 30
    cursor_writes(home, value=2)
    report = export(vault, home, jobs)
    assert renders(rendered) == [] and report.total("unchanged") == 30
    changed = composer(7, replies=2)
    for key, value in changed.items():
        cursor_writes(home, key, value)
    report = export(vault, home, jobs)
    assert renders(rendered) == [f"c{7:07d}-1111-4222-8333-444444444444"]
    assert report.total("updated") == 1 and report.total("unchanged") == 29
    export(tmp_path / "fresh", home, jobs)
    assert note_files(vault) == note_files(tmp_path / "fresh")


def test_a_render_key_is_kept_in_the_state_file(tmp_path, rendered):
    """Each note of a unit of several sessions, from the first run that reads the unit
    again (a first export makes none: the state did not say the unit holds several)."""
    home, vault = cursor_home(tmp_path / "home", 2), tmp_path / "v"
    export(vault, home)
    state = State.load(vault)
    keys = {k: r.render_key for k, r in state.notes.items() if not k.startswith(INDEX_PREFIX)}
    assert list(keys.values()) == ["", ""]
    for round_ in (1, 2):
        cursor_writes(home, value=round_)
        export(vault, home)
        again = State.load(vault)
        assert all(len(again.notes[k].render_key) == 32 for k in keys)
        if round_ == 1:
            first = {k: again.notes[k].render_key for k in keys}
    assert {k: again.notes[k].render_key for k in keys} == first  # (the same inputs, the same)


def test_a_unit_of_one_session_has_no_render_key(tmp_path, rendered):
    """(Its key would change whenever its file does: computing it would only cost time.)"""
    home, vault = tmp_path / "home", tmp_path / "v"
    _family(home, 1)
    (next(home.rglob("subagents")) / "agent-a1.jsonl").unlink()
    export(vault, home, sources=None)
    state = State.load(vault)
    assert [r.render_key for k, r in state.notes.items() if not k.startswith(INDEX_PREFIX)] == [""]


def test_with_force_or_other_settings_every_note_is_rendered(tmp_path, rendered):
    home, vault = cursor_home(tmp_path / "home", 3), tmp_path / "v"
    export(vault, home)
    renders(rendered)
    cursor_writes(home)
    export(vault, home, force=True)
    assert len(renders(rendered)) == 3
    cursor_writes(home, value=2)
    export(vault, home, frontmatter_drop=["models"])
    assert len(renders(rendered)) == 3


def test_a_note_deleted_moved_or_put_back_is_not_taken_for_as_written(tmp_path, rendered):
    """Each as when its unit is skipped: one the person deleted stays deleted (said); one
    they moved is found where it is and left there; an older copy put back is made again."""
    home, vault = cursor_home(tmp_path / "home", 3), tmp_path / "v"
    export(vault, home)
    paths = sorted(p for p in note_files(vault) if "/cursor/" in p)
    first, second, third = (vault / p for p in paths)
    older = first.read_text()
    for key, value in composer(0, replies=2).items():
        cursor_writes(home, key, value)
    export(vault, home)
    newer = first.read_text()
    assert newer != older
    renders(rendered)
    first.unlink()
    first.write_text(older)  # a backup put back
    second.unlink()
    moved = vault / "Elsewhere" / third.name
    moved.parent.mkdir()
    third.rename(moved)
    cursor_writes(home)
    report = export(vault, home)
    assert first.read_text() == newer and report.total("updated") == 1
    assert renders(rendered) == [f"c{0:07d}-1111-4222-8333-444444444444"]
    assert not second.exists() and report.total("deleted") == 1
    assert moved.exists() and not third.exists() and report.total("unchanged") == 1


def test_a_note_read_ahead_and_found_changed_is_rendered_whole_here(
    tmp_path, rendered, monkeypatch
):
    """Workers read the folder ahead in parts and find each note's key unchanged (``Same``);
    the note the person wrote in is then rendered here from the whole session, never from
    the stub a note rendered ahead travels with, and keeps what they wrote."""
    monkeypatch.setattr(cursor_composer, "PART_BYTES", 2_000)
    monkeypatch.setattr(readahead, "READ_AHEAD_BELOW", 10_000)  # the folder counts as large
    monkeypatch.setattr(workers, "PARALLEL_FROM_BYTES", 10_000)  # the pool starts at once
    home, vault = cursor_home(tmp_path / "home", 30), tmp_path / "v"
    export(vault, home, jobs=2)
    cursor_writes(home, value="again")
    export(vault, home, jobs=2)  # (the keys made)
    where: set[int] = set()
    assert len(renders(rendered, where)) == 60 and os.getpid() not in where  # (in workers)
    note = vault / sorted(p for p in note_files(vault) if "/cursor/" in p)[4]
    whole = note.read_text()
    note.write_text(whole + "mine, below\n")
    cursor_writes(home)
    report = export(vault, home, jobs=2)
    where.clear()
    assert report.total("unchanged") == 30 and len(renders(rendered, where)) == 1
    assert where == {os.getpid()}  # (rendered here, after the worker found it unchanged)
    assert note.read_text() == whole + "mine, below\n"
    cursor_writes(home, value=2)
    report = export(vault, home, jobs=2)  # (found as the last run left it: not rendered)
    assert report.total("unchanged") == 30 and renders(rendered) == []


def touch_all(home: Path) -> None:
    """Every transcript touched, not changed: each unit read again (ahead, in workers)."""
    for transcript in home.rglob("f*.jsonl"):
        later = transcript.stat().st_mtime_ns + 10**9
        os.utime(transcript, ns=(later, later))


def test_a_family_note_found_changed_keeps_its_links_when_rendered_here(tmp_path, rendered):
    """A session and its subagent read ahead as a family, both found unchanged; the parent
    note the person wrote in is rendered here with the links the family's check resolved
    (its subagent's note), as a worker rendered it."""
    home, vault = tmp_path / "home", tmp_path / "v"
    for number in range(workers.PARALLEL_FROM + 4):
        _family(home, number)
    export(vault, home, jobs=2, sources=None)
    touch_all(home)
    export(vault, home, jobs=2, sources=None)  # (the keys made)
    parent = next(vault.rglob("*f0000003*.md"))
    child = next(p for p in vault.rglob("*f0000003*.md") if "agent" in p.name and p != parent)
    parent = next(p for p in vault.rglob("*f0000003*.md") if p != child)
    whole = parent.read_text()
    assert f"[[{child.stem}" in whole
    parent.write_text(whole + "mine, below\n")
    touch_all(home)
    renders(rendered)
    report = export(vault, home, jobs=2, sources=None)
    assert report.total("unchanged") == 2 * (workers.PARALLEL_FROM + 4), report.as_dict()
    where: set[int] = set()
    assert renders(rendered, where) == ["f0000003-0000-4000-8000-000000000000"]
    assert where == {os.getpid()}  # (found unchanged by a worker, rendered here)
    assert parent.read_text() == whole + "mine, below\n"


def test_a_note_with_attachments_is_rendered_when_its_unit_is_read_again(tmp_path, rendered):
    """Its attachments are in no render key: one the person deleted (or renamed outside
    Obsidian) is noticed whenever the unit is read again, as before render keys (review14
    F1): the note says it was deleted (it is not copied again, review29 F12), or embeds
    it by its new name."""
    home, vault = tmp_path / "home", tmp_path / "v"
    sid = "f0000009-0000-4000-8000-000000000000"
    folder = home / ".claude" / "projects" / "-family"
    s = ClaudeSession(sid, "/home/dev/work/family", start="2026-06-01T10:00:00Z")
    s.user([image_block(tiny_png()), {"type": "text", "text": "look at this"}])
    s.assistant([tool_use("Task", {"description": "Look", "prompt": "Look."}, "toolu_1")])
    s.tool_result("toolu_1", "Seen.", rich={"status": "completed", "agentId": "a1"})
    s.assistant("A red square.")
    transcript = s.write(folder / f"{sid}.jsonl")
    agent = ClaudeSession(sid, sidechain=True, agent_id="a1")
    agent.user("Look.", parent=None)
    agent.assistant("Seen.")
    agent.write(folder / sid / "subagents" / "agent-a1.jsonl")  # (a unit of two sessions)
    export(vault, home, sources=None)
    (picture,) = (p for p in vault.rglob("*.png"))
    for round_ in (1, 2, 3):  # (the first makes the keys; then, they are there to use)
        picture.rename(picture.with_name(f"mine {round_}.png"))
        later = transcript.stat().st_mtime_ns + 10**9
        os.utime(transcript, ns=(later, later))  # touched: the unit is read again
        export(vault, home, sources=None)
        (note,) = (p for p in vault.rglob("*.md") if "A red square." in p.read_text())
        assert f"![[attachments/ccexport/mine {round_}.png]]" in note.read_text(), round_
        picture = picture.with_name(f"mine {round_}.png")
    picture.unlink()
    os.utime(transcript, ns=(later + 10**9, later + 10**9))
    export(vault, home, sources=None)
    assert not picture.exists() and "was deleted from the vault" in note.read_text()
