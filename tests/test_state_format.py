"""The state file's compact layout (version 2, columns and shared tables), the upgrade of a
version 1 file, and what a no-op run reads: no note, no session, one stat or listing each."""

from __future__ import annotations

import builtins
import gc
import io
import os
import shutil
from pathlib import Path, PurePosixPath

import orjson
import pytest
from claude_builder import ClaudeSession
from vault_builder import export, write_session

from exporter import statefile
from exporter.adapters.claude_discovery import _child, discover_project
from exporter.collector import YOUNG_THRESHOLD
from exporter.state import STATE_DIR, STATE_FILE, NoteRecord, State

PROJECTS = ("/home/dev/work/shop", "/home/dev/work/blog")


def sid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-00000000000f"


def grown_home(home: Path, sessions: int, turns: int = 2) -> None:
    for n in range(sessions):
        write_session(home, [f"question {t} of {n}" for t in range(turns)], sid(n),
                      cwd=PROJECTS[n % 2], start=f"2026-03-{1 + n % 28:02d}T10:00:00Z")  # fmt: skip


def exported(tmp_path: Path, sessions: int) -> tuple[Path, Path]:
    """A home of ``sessions`` grown sessions, and a vault it was exported into once."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    grown_home(home, sessions)
    export(vault, home)
    return home, vault


def version_1(state: State) -> bytes:
    """The same state as version 1 wrote it: one object per note, every key spelled out."""
    notes = {
        key: {"path": r.path, "hash": r.hash, "lines": r.lines, "tags": r.tags, "keys": r.keys,
              "meta": r.meta, "stat": r.stat, **({"deleted": True} if r.deleted else {})}
        for key, r in state.notes.items()
    }  # fmt: skip
    data = {"version": 1, "sources": state.sources, "links": state.links,
            "children": state.children, "render": state.render, "notes": notes}  # fmt: skip
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def test_a_version_1_state_is_read_and_written_anew_by_a_run_that_changes_nothing(tmp_path):
    home, vault = exported(tmp_path, 4)
    state_file = vault / STATE_DIR / STATE_FILE
    current = State.load(vault)
    state_file.write_bytes(version_1(current))
    old = State.load(vault)
    for record in current.notes.values():
        record.run = 0  # (counted since version 2: a version 1 note was written before)
        record.render_key = ""  # (kept since 6 December)
        record.seeded = None  # (not known of a note an older version wrote: kept so)
    assert old.notes == current.notes and old.sources == current.sources
    report = export(vault, home)
    # Nothing was read again: the old file's sources and notes carried the skip over.
    assert report.total("skipped") == 4 and report.total("written") == 0
    assert orjson.loads(state_file.read_bytes())["version"] == 2
    upgraded = State.load(vault)
    assert upgraded.notes == current.notes and upgraded.sources == current.sources


def test_every_field_of_a_state_survives_the_compact_layout(tmp_path):
    unit = str(tmp_path / "projects" / "p" / "a.jsonl")
    state = State(
        sources={
            unit: {
                "fingerprint": [
                    ["render", "f" * 64],
                    [unit, 10, 20, 30],
                    [str(tmp_path / "agent-1.jsonl"), 1, 2, 3],
                    ["title=Hi"],
                ],
                "notes": ["claude-code:a", "claude-code:gone"],  # one with no record
            },
            "cursor:db": {"fingerprint": [["render", "f" * 64]], "notes": []},
        },  # fmt: skip
        notes={
            "claude-code:a": NoteRecord(
                "AI/p/a.md",
                "h1",
                12,
                ["ai-session"],
                ["title"],
                {"title": "A", "models": ["m"], "part": None},
                [1, 2, 3],
            ),
            "index:projects": NoteRecord("Top.md", "h2", 3, [], [], {}, [], deleted=True),
            "claude-code:b": NoteRecord(
                "AI/p/b.md",
                "h3",
                1,
                ["ai-session"],
                ["title"],
                {"created": "2026", "title": "B"},
                [4, 5, 6],
                read=[[7, 8, 9], [10, 11, 12]],  # files as last read: no older copy
                seeded=["status", "week"],  # the person's properties once given
                removed_tags=["project/b"],  # removed by the person, written no more
            ),
        },  # fmt: skip
        links={"claude-code:x": [unit]},
        children={"claude-code:a": ["claude-code:b"]},
        render="r",
    )
    (tmp_path / STATE_DIR).mkdir()
    (tmp_path / STATE_DIR / STATE_FILE).write_bytes(state.dumps())
    loaded = State.load(tmp_path)
    assert (loaded.sources, loaded.notes, loaded.links, loaded.children, loaded.render) == (
        state.sources, state.notes, state.links, state.children, state.render
    )  # fmt: skip
    assert loaded.dumps() == loaded.loaded  # read back, it writes the same bytes


def test_the_state_holds_each_repeated_value_once(tmp_path):
    home, vault = exported(tmp_path, 40)
    state = State.load(vault)
    size = (vault / STATE_DIR / STATE_FILE).stat().st_size
    # Version 1 wrote about 1,300 bytes a note (keys, tags and fingerprints spelled out).
    assert size / len(state.notes) < 700
    raw = (vault / STATE_DIR / STATE_FILE).read_bytes()
    assert raw.count(state.render.encode()) <= 2  # the run's and one table entry
    assert raw.count(b'"session_id"') == 1  # the property names, listed once


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d["notes"]["hash"].pop(),  # columns of different lengths
        lambda d: d["tables"].pop("dirs"),
        lambda d: d["notes"]["dir"].__setitem__(0, 99),  # a table index out of range
        lambda d: d["notes"]["lines"].__setitem__(0, "many"),
        lambda d: d["notes"]["read"].__setitem__("0", [[1, "2", 3]]),
    ],
)
def test_a_damaged_compact_state_costs_a_full_read_not_the_run(tmp_path, damage):
    home, vault = exported(tmp_path, 2)
    state_file = vault / STATE_DIR / STATE_FILE
    data = orjson.loads(state_file.read_bytes())
    damage(data)
    state_file.write_bytes(orjson.dumps(data))
    assert not State.load(vault).notes
    report = export(vault, home)
    assert not report.failed and report.total("skipped") == 0
    assert len(State.load(vault).notes) == len(State.load(vault).sources) + 3  # + indexes


class _Spy:
    """Every path opened, stat-ed or listed through os and builtins during a block."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.opened: list[str] = []
        self.stated: list[str] = []
        self.listed: list[str] = []
        for module, name, seen in ((builtins, "open", self.opened), (io, "open", self.opened),
                                   (os, "open", self.opened), (os, "lstat", self.stated),
                                   (os, "stat", self.stated), (os, "listdir", self.listed),
                                   (os, "scandir", self.listed)):  # fmt: skip
            monkeypatch.setattr(module, name, self._wrap(getattr(module, name), seen))

    @staticmethod
    def _wrap(real, seen):
        def spy(path, *args, **kw):
            done = real(path, *args, **kw)  # what was there: a file looked for and absent is not
            seen.append(os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else "")
            return done

        return spy


def test_a_no_op_run_opens_no_note_and_no_session_file(tmp_path, monkeypatch):
    home, vault = exported(tmp_path, 12)
    spy = _Spy(monkeypatch)
    report = export(vault, home)
    monkeypatch.undo()
    assert report.total("skipped") == 12 and report.total("written") == 0
    assert not [p for p in spy.opened if p.endswith((".md", ".jsonl"))]
    # Each note is found in its folder's listing, read once, and looked at by one lstat: its
    # time and size tell an older copy written into the note's own file (``cp -p``).
    indexes = {str(vault / "AI Sessions" / "Projects.md")}
    indexes |= {str(vault / "AI Sessions" / "Projects" / f"{p}.md") for p in ("shop", "blog")}
    stated = sorted(p for p in spy.stated if p.endswith(".md") and p not in indexes)
    assert len(stated) == len(set(stated)) == 12
    # An index note by one lstat too: whether another run wrote over it (``vaultindexes``)
    assert sorted(p for p in spy.stated if p in indexes) == sorted(indexes)
    notes_folders = {str(vault / "AI Sessions" / "claude-code" / p) for p in ("shop", "blog")}
    assert sorted(p for p in spy.listed if p in notes_folders) == sorted(notes_folders)


def test_on_windows_the_listing_gives_each_notes_time_and_size(tmp_path, monkeypatch):
    """Windows' folder listing holds each file's time and size: a no-op run there looks at
    no note by a stat of its own (each costs a file opened there)."""
    from exporter import vaultsurvey

    home, vault = exported(tmp_path, 12)
    monkeypatch.setattr(vaultsurvey, "LISTING_GIVES_STAT", True)
    spy = _Spy(monkeypatch)
    report = export(vault, home)
    assert report.total("skipped") == 12 and report.total("written") == 0
    assert not [p for p in spy.stated + spy.opened if p.endswith((".md", ".jsonl"))]


def test_a_note_deleted_since_is_still_noticed_by_the_listing(tmp_path):
    home, vault = exported(tmp_path, 3)
    key = f"claude-code:{sid(1)}"
    (vault / State.load(vault).notes[key].path).unlink()
    report = export(vault, home)
    assert report.total("deleted") == 1 and State.load(vault).notes[key].deleted


def test_a_planted_path_outside_the_vault_is_not_listed(tmp_path, monkeypatch):
    home, vault = exported(tmp_path, 1)
    state = State.load(vault)
    key = f"claude-code:{sid(0)}"
    state.notes[key].path = "../outside/precious.md"  # sources kept: the unit is skipped
    (vault / STATE_DIR / STATE_FILE).write_bytes(state.dumps())
    (tmp_path / "outside").mkdir()
    spy = _Spy(monkeypatch)
    report = export(vault, home)
    monkeypatch.undo()
    assert not [p for p in spy.listed if p.startswith(str(tmp_path / "outside"))]
    assert not report.failed


def test_one_grown_session_touches_its_note_and_the_index_notes_alone(tmp_path, monkeypatch):
    home, vault = exported(tmp_path, 10)
    before = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in vault.rglob("*.md")}
    write_session(home, ["question 0 of 3", "question 1 of 3", "and one more"], sid(3),
                  cwd=PROJECTS[1], start="2026-03-04T10:00:00Z")  # fmt: skip
    spy = _Spy(monkeypatch)
    report = export(vault, home)
    monkeypatch.undo()
    assert report.total("updated") == 1 and report.total("skipped") == 9
    note = vault / State.load(vault).notes[f"claude-code:{sid(3)}"].path
    changed = {p for p, st in before.items() if (p.stat().st_mtime_ns, p.stat().st_ino) != st}
    indexes = {
        vault / "AI Sessions" / "Projects" / "blog.md",
        vault / "AI Sessions" / "Projects.md",
    }
    assert note in changed and changed <= {note} | indexes
    notes_read = {Path(p).name for p in spy.opened if p.endswith(".md")}
    assert notes_read <= {note.name} | {p.name for p in indexes} | {"shop.md"}
    # Sessions of the other project are not opened (the adapter reads the heads of the grown
    # session's neighbours for summary titles).
    assert not [p for p in spy.opened if p.endswith(".jsonl") and "shop" in p]


def copied_vault(tmp_path: Path, sessions: int) -> tuple[Path, Path]:
    """A home of ``sessions`` exported, and a copy of its vault made with the files' times
    (``copy2``: to the nanosecond) and so new inodes: (home, copy)."""
    home, vault, copy = tmp_path / "home", tmp_path / "vault", tmp_path / "copy"
    grown_home(home, sessions)
    export(vault, home)
    shutil.copytree(vault, copy)
    return home, copy


def stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_mtime_ns, st.st_size, st.st_ino]


def test_a_vault_copied_with_its_times_is_known_by_a_stat_and_takes_the_new_inodes(
    tmp_path, monkeypatch
):
    # A vault copied or restored with its files' times (cp -a, rsync, a backup, a sync tool
    # on a new machine) has new inodes: its notes are still the ones this machine wrote,
    # and are not each read when the index notes are written (20,000 notes: 10 s a run).
    home, copy = copied_vault(tmp_path, 10)
    write_session(home, ["question 0 of 3", "question 1 of 3", "and one more"], sid(3),
                  cwd=PROJECTS[1], start="2026-03-04T10:00:00Z")  # fmt: skip
    spy = _Spy(monkeypatch)
    report = export(copy, home)
    monkeypatch.undo()
    assert report.total("updated") == 1 and report.total("skipped") == 9
    state = State.load(copy)
    note = copy / state.notes[f"claude-code:{sid(3)}"].path
    indexes = {"blog.md", "shop.md", "Projects.md"}
    assert {Path(p).name for p in spy.opened if p.endswith(".md")} <= {note.name} | indexes
    # Each record took its note's new inode: the next run needs no second look.
    for record in state.notes.values():
        assert record.stat == stamp(copy / record.path)
    assert export(copy, home).total("written") == 0


def test_a_note_edited_in_a_copied_vault_is_read_not_its_session(tmp_path):
    # A note whose time or size changed is read: its generated part is the one written (the
    # person wrote below it), so its session is not read again, nor the state written for
    # it (with .ccexport/ synced, two machines would each rewrite it); the text stays.
    home, copy = copied_vault(tmp_path, 2)
    note = copy / State.load(copy).notes[f"claude-code:{sid(1)}"].path
    note.write_text(note.read_text() + "\nMy own words.\n")
    state_file = copy / STATE_DIR / STATE_FILE
    before = state_file.read_bytes()
    report = export(copy, home)
    assert report.total("skipped") == 2 and not report.failed and not report.changes
    assert "My own words." in note.read_text()
    assert state_file.read_bytes() == before


def test_a_no_op_run_over_a_copied_vault_leaves_the_state_file_as_it_was(tmp_path):
    # The new inodes are taken when the state is next written, not written for themselves:
    # with .ccexport/ synced, two machines would each rewrite it on every run.
    home, copy = copied_vault(tmp_path, 3)
    state_file = copy / STATE_DIR / STATE_FILE
    before = (state_file.read_bytes(), state_file.stat().st_mtime_ns, state_file.stat().st_ino)
    assert export(copy, home).total("written") == 0
    after = (state_file.read_bytes(), state_file.stat().st_mtime_ns, state_file.stat().st_ino)
    assert after == before


def test_a_note_renamed_onto_another_notes_path_is_told_by_its_inode(tmp_path):
    # Two notes written in one tick of a coarse clock share a time, and these a size too;
    # the person deletes one and gives its name to the other, which keeps its inode.
    home, vault = tmp_path / "home", tmp_path / "vault"
    for n in (0, 2):
        write_session(home, [f"question {t} of {n}" for t in range(2)], sid(n),
                      cwd=PROJECTS[0], start=f"2026-03-0{1 + n}T10:00:00Z")  # fmt: skip
    export(vault, home)
    state = State.load(vault)
    a, b = state.notes[f"claude-code:{sid(0)}"], state.notes[f"claude-code:{sid(2)}"]
    note_a, note_b = vault / a.path, vault / b.path
    assert note_a.stat().st_size == note_b.stat().st_size
    tick = note_a.stat().st_mtime_ns
    os.utime(note_b, ns=(tick, tick))
    for record, note in ((a, note_a), (b, note_b)):
        record.stat = stamp(note)
    (vault / STATE_DIR / STATE_FILE).write_bytes(state.dumps())
    inode_b = note_b.stat().st_ino
    note_a.unlink()
    note_b.rename(note_a)
    report = export(vault, home)
    assert not report.failed
    after = State.load(vault)
    moved = after.notes[f"claude-code:{sid(2)}"]
    assert moved.path == a.path and not moved.deleted  # found where the person put it
    assert after.notes[f"claude-code:{sid(0)}"].stat[2:] != [inode_b]


def test_a_grown_session_without_a_parent_is_placed_without_searching_the_vault(
    tmp_path, monkeypatch
):
    # Each of its notes is where the state says: nothing needs looking for by identity, a
    # walk through every note of the vault (0.5 s of a run over 20,000 sessions).
    from exporter.vaultsurvey import NoteSurvey

    home, vault = exported(tmp_path, 4)
    write_session(home, ["question 0 of 1", "question 1 of 1", "and one more"], sid(1),
                  cwd=PROJECTS[1], start="2026-03-02T10:00:00Z")  # fmt: skip
    searched = []
    real = NoteSurvey._find_by_identity
    monkeypatch.setattr(NoteSurvey, "_find_by_identity",
                        lambda self, key: searched.append(key) or real(self, key))  # fmt: skip
    report = export(vault, home)
    assert report.total("updated") == 1 and not report.failed
    assert searched == []
    note = vault / State.load(vault).notes[f"claude-code:{sid(1)}"].path
    assert "and one more" in note.read_text()


def test_the_state_is_read_and_written_with_the_cycle_collector_paused(tmp_path, monkeypatch):
    home, vault = exported(tmp_path, 1)
    seen = []
    real = orjson.loads
    monkeypatch.setattr(orjson, "loads", lambda raw: seen.append(gc.isenabled()) or real(raw))
    monkeypatch.setattr(statefile, "encode", _noting(statefile.encode, seen))
    assert gc.isenabled()
    State.load(vault).dumps()
    assert seen == [False, False] and gc.isenabled()
    gc.disable()
    try:
        State.load(vault)
        assert not gc.isenabled()  # a caller that paused it keeps it paused
    finally:
        gc.enable()


def _noting(real, seen):
    def spy(*args):
        seen.append(gc.isenabled())
        return real(*args)

    return spy


def test_a_run_with_nothing_new_asks_once_per_unit_whether_it_changed(tmp_path, monkeypatch):
    from exporter import unchanged

    home, vault = exported(tmp_path, 3)
    asked = []
    real = unchanged.UnchangedUnits.skipped

    def spy(self, unit, ref):
        asked.append(unit)
        return real(self, unit, ref)

    monkeypatch.setattr(unchanged.UnchangedUnits, "skipped", spy)
    export(vault, home)
    assert len(asked) == len(set(asked)) == 3  # not again in its turn: nothing was read


def test_units_are_skipped_with_the_state_kept_out_of_collections_and_the_collector_eased(
    tmp_path, monkeypatch
):
    from exporter import export as export_module

    home, vault = exported(tmp_path, 2)
    frozen, thresholds = [], []
    real = export_module._Run._export_or_skip

    def spy(self, *args):
        frozen.append(gc.get_freeze_count())
        thresholds.append(gc.get_threshold())
        return real(self, *args)

    monkeypatch.setattr(export_module._Run, "_export_or_skip", spy)
    before = gc.get_threshold()
    export(vault, home)
    assert len(frozen) == 2 and all(count > 0 for count in frozen)
    assert gc.get_freeze_count() == 0  # released when the run ends
    # The collector wakes less often during the run, and as before after it.
    assert all(t == (max(before[0], YOUNG_THRESHOLD), *before[1:]) for t in thresholds)
    assert before[0] < YOUNG_THRESHOLD and gc.get_threshold() == before


def test_what_lives_all_run_is_built_with_the_collector_off_and_frozen_before_the_run(
    tmp_path, monkeypatch
):
    # The units found and the vault's state hold no cycle: a collection walking them while
    # they are built (20,000 of them: 0.08 s of a no-op run) finds nothing to free.
    from exporter import export as export_module
    from exporter import runstart

    home, vault = exported(tmp_path, 3)
    enabled, young = [], []
    real_discover, real_vault = export_module.discover, runstart.Vault
    real_skip = export_module._Run._export_or_skip

    def discover(*args):
        enabled.append(("discover", gc.isenabled()))
        return real_discover(*args)

    def vault_of(*args, **kwargs):
        enabled.append(("vault", gc.isenabled()))
        return real_vault(*args, **kwargs)

    def skip(self, adapter, ref, unit, known):
        enabled.append(("skip", gc.isenabled()))
        ids = {id(o) for generation in range(3) for o in gc.get_objects(generation)}
        young.append(id(ref) in ids or id(self.vault.state.notes) in ids)
        return real_skip(self, adapter, ref, unit, known)

    monkeypatch.setattr(export_module, "discover", discover)
    monkeypatch.setattr(runstart, "Vault", vault_of)
    monkeypatch.setattr(export_module._Run, "_export_or_skip", skip)
    export(vault, home)
    assert enabled == [("discover", False), ("vault", False)] + [("skip", True)] * 3
    assert young == [False] * 3  # frozen: no collection of the run walks them
    assert gc.isenabled() and gc.get_freeze_count() == 0  # as before, after


def test_a_listed_session_path_is_the_folder_joined_with_its_name(tmp_path):
    s = ClaudeSession(sid(7), "/home/dev/x")
    s.user("hi")
    s.assistant("hello")
    folder = tmp_path / "-home-dev-x"
    written = s.write(folder / f"{sid(7)}.jsonl")
    (ref,) = discover_project(folder)
    assert ref.main.path == written and str(ref.main.path) == os.path.join(folder, written.name)
    assert type(ref.main.path) is type(written)
    # Where pathlib has no shortcut (a pure path here), the plain join.
    assert _child(PurePosixPath("/a/b"), "c.jsonl") == PurePosixPath("/a/b/c.jsonl")


def test_the_state_file_lists_units_in_one_order_whichever_finished_first(tmp_path):
    # With the worker pool, units finish in another order than in one process (a family's
    # notes come later): the file must not change with it (a vault kept in git, say).
    units = [str(tmp_path / "projects" / "p" / f"{name}.jsonl") for name in "cab"]
    records = {u: {"fingerprint": [["render", "f"], [u, 1, 2, 3]], "notes": []} for u in units}
    one = State(sources=dict(records.items()))
    other = State(sources=dict(reversed(records.items())))
    assert one.dumps() == other.dumps()
    assert list(orjson.loads(one.dumps())["sources"]["name"]) == ["a.jsonl", "b.jsonl", "c.jsonl"]


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (b"<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> other\n", "not valid JSON"),  # a merge's conflict
        (b'{"version": 0, "notes": {}}', "from another version of ccexport (format 0)"),
        (b'{"version": 2, "notes": 5}', "damaged"),
    ],
)
def test_a_state_file_that_cannot_be_used_is_said_and_costs_only_a_full_read(
    tmp_path, damage, said
):
    from conftest import note_files
    from vault_builder import export, write_session

    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    assert not export(vault, home).problems  # a fresh vault: no state yet, nothing to say
    notes = note_files(vault)
    (vault / ".ccexport" / "state.json").write_bytes(damage)
    from exporter.doctor import vault_checks

    assert any(c.status == "attention" and said in c.message for c in vault_checks(vault))
    report = export(vault, home)
    (problem,) = [p for p in report.problems if p.path == ".ccexport/state.json"]
    assert said in problem.message and "no note or edit of yours is lost" in problem.message
    assert "delete them again" in problem.message and "kept as .ccexport/state.json.unr" in (
        problem.message
    )  # (moved aside, not written over: tests/test_state_set_aside.py)
    assert problem.severity == "warning" and note_files(vault) == notes  # no second note
    assert not export(vault, home).problems  # written anew: said once


def test_the_properties_given_to_notes_are_one_shared_list_and_older_layouts_still_load(tmp_path):
    """``given``: each note's ``[frontmatter] add`` properties as an index into the shared
    lists (most notes share one), -1 where not known; a state written between 01:02 and
    02:30 on 7 December kept them as a dict that a null could be in: still read, not taken
    for a damaged state (review25 F1, F4)."""
    home, vault = exported(tmp_path, 3)
    state = State.load(vault)
    first, second, third = list(state.notes.values())[:3]
    first.seeded, second.seeded, third.seeded = ["status"], ["status"], None
    data = orjson.loads(state.dumps())
    given = data["notes"]["given"]
    assert given[0] == given[1] != -1 and given[2] == -1
    assert data["tables"]["lists"][given[0]] == ["status"]
    (vault / STATE_DIR / STATE_FILE).write_bytes(state.dumps())
    loaded = list(State.load(vault).notes.values())[:3]
    assert [r.seeded for r in loaded] == [["status"], ["status"], None]
    interim = {**data["notes"], "seeded": {"0": ["status"], "1": None}}
    del interim["given"]
    (vault / STATE_DIR / STATE_FILE).write_bytes(orjson.dumps({**data, "notes": interim}))
    again = State.load(vault)
    assert again.unreadable is None
    assert [r.seeded for r in list(again.notes.values())[:3]] == [["status"], None, None]


def test_the_tags_a_person_removed_are_a_column_only_where_a_note_has_some(tmp_path):
    """``removed_tags`` (``NoteRecord.removed_tags``): a shared list per note that has one;
    a state where none has is written as before, and one written before is read so."""
    home, vault = exported(tmp_path, 3)
    state = State.load(vault)
    assert "removed_tags" not in orjson.loads(state.dumps())["notes"]
    first, second, third = list(state.notes.values())[:3]
    first.removed_tags = second.removed_tags = ["project/shop"]
    data = orjson.loads(state.dumps())
    column = data["notes"]["removed_tags"]
    assert list(column) == ["0", "1"] and column["0"] == column["1"]
    assert data["tables"]["lists"][column["0"]] == ["project/shop"]
    (vault / STATE_DIR / STATE_FILE).write_bytes(state.dumps())
    loaded = list(State.load(vault).notes.values())[:3]
    assert [r.removed_tags for r in loaded] == [["project/shop"], ["project/shop"], []]
