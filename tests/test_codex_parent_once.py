"""A Codex parent thread's note is written once on a first run, its subagents' links in it.

Each Codex rollout is a unit of its own, and a subagent's rollout (read after its parent's)
is the only one that names the parent: the parent's note was written alone, then again
once its child was exported. The run now reads who spawned each rollout before the first
unit, so the parent's note links its children the first time it is written.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC
from pathlib import Path

import pytest
from codex_builder import CodexRollout
from conftest import note_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exporter import vaultbatch
from exporter.export import ExportOptions, run_export

PARENT = "019a0000-1111-7222-8333-444455556666"


def child_id(n: int) -> str:
    return f"019a0000-0000-7000-8000-{n:012x}"


def parent_rollout(home: Path) -> None:
    r = CodexRollout(PARENT)
    r.context()
    r.user("Add a health endpoint")
    r.assistant("Added `GET /health`.")
    r.write(home / ".codex")


def child_rollout(home: Path, n: int, parent: str = PARENT, *, talk: bool = True) -> str:
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}}
    r = CodexRollout(child_id(n), source=spawn, start=f"2026-03-10T08:{10 + n:02d}:00Z")
    if talk:
        r.user(f"Subtask {n}: check the tests", events=False)
        r.assistant(f"Subtask {n} done.")
    r.write(home / ".codex")
    return child_id(n)


def counting_writes(monkeypatch) -> Counter[str]:
    """Every note the vault hands to its safe writer, by path."""
    writes: Counter[str] = Counter()
    real = vaultbatch.WriteBatch.write

    def write(batch, relpath, data, before=None):
        writes[relpath] += 1
        return real(batch, relpath, data, before)

    monkeypatch.setattr(vaultbatch.WriteBatch, "write", write)
    return writes


def export(home: Path, vault: Path, workers: int = 1):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=workers))


def parent_note(vault: Path) -> str:
    return next(
        t.decode() for t in note_files(vault).values() if f"session_id: {PARENT}" in t.decode()
    )


@pytest.mark.parametrize("workers", [1, 2])
def test_a_parent_and_its_subagents_are_each_written_once(tmp_path, monkeypatch, workers):
    home, vault = tmp_path / "home", tmp_path / "v"
    parent_rollout(home)
    kids = [child_rollout(home, n) for n in (1, 2)]
    writes = counting_writes(monkeypatch)
    report = export(home, vault, workers)
    assert not report.failed and report.total("created") == 3
    assert writes and set(writes.values()) == {1}, writes
    text = parent_note(vault)
    stems = [Path(p).stem for p, t in note_files(vault).items() if b"parent: '[[" in t]
    assert len(stems) == 2 and all(any(k[-8:] in s for s in stems) for k in kids)
    assert "subagents:\n" + "".join(f"- '[[{s}]]'\n" for s in sorted(stems)) in text
    writes.clear()
    again = export(home, vault, workers)  # nothing left to redo
    assert writes == Counter() and again.total("skipped") == 3


def test_a_child_that_yields_no_note_leaves_no_link_in_its_parent(tmp_path, monkeypatch):
    # Its rollout names the parent but holds no conversation: the parent, written listing
    # it, is written again without it (the one case a parent is written twice).
    home, vault = tmp_path / "home", tmp_path / "v"
    parent_rollout(home)
    child_rollout(home, 1, talk=False)
    export(home, vault)
    assert "subagents" not in parent_note(vault) and len(note_files(vault)) == 1


def test_a_child_of_another_thread_is_not_listed_by_this_one(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    parent_rollout(home)
    child_rollout(home, 1, parent="019a0000-9999-7000-8000-000000000000")  # not on disk
    writes = counting_writes(monkeypatch)
    export(home, vault)
    assert "subagents" not in parent_note(vault) and set(writes.values()) == {1}


@settings(
    max_examples=8, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(shape=st.lists(st.sampled_from(["child", "grandchild"]), min_size=1, max_size=4))
def test_every_note_of_a_thread_tree_is_written_once(tmp_path_factory, shape):
    # Children, and children of a child (a subagent that spawned one), in the order they
    # started: each note once, and every one links its parent.
    home = tmp_path_factory.mktemp("home")
    vault = home / "v"
    parent_rollout(home)
    last_child = None
    for n, kind in enumerate(shape, start=1):
        parent = last_child if kind == "grandchild" and last_child else PARENT
        made = child_rollout(home, n, parent)
        if parent == PARENT:
            last_child = made
    writes: Counter[str] = Counter()
    real = vaultbatch.WriteBatch.write

    def write(batch, relpath, data, before=None):
        writes[relpath] += 1
        return real(batch, relpath, data, before)

    vaultbatch.WriteBatch.write = write
    try:
        report = export(home, vault)
    finally:
        vaultbatch.WriteBatch.write = real
    notes = note_files(vault)
    assert not report.failed and len(notes) == len(shape) + 1
    assert set(writes.values()) == {1}, writes
    assert sum(b"parent: '[[" in t for t in notes.values()) == len(shape)


def _dangling_links(vault: Path) -> list[tuple[str, str]]:
    """Wikilinks in the vault's notes to a note that is not there."""
    notes = {Path(rel).stem for rel in note_files(vault)}
    return [
        (rel, target)
        for rel, text in note_files(vault).items()
        for target in re.findall(r"\[\[([^\]|#]+)", text.decode())
        if Path(target).name not in notes
    ]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("why", ["no conversation", "load fails"])
def test_a_grandchild_whose_parent_makes_no_note_links_nothing_missing(
    tmp_path, monkeypatch, workers, why
):
    """A subagent that itself spawned one (a grandchild) and then gives no note: the
    grandchild, linked where its parent was expected to land, is redone without that link
    and stays listed in its project's index (review of the change: it kept a link to a
    note that never came, and left the index)."""
    from exporter.adapters import codex

    home, vault = tmp_path / "home", tmp_path / "v"
    parent_rollout(home)
    middle = child_rollout(home, 1, talk=why == "load fails")
    child_rollout(home, 2, parent=middle)
    if why == "load fails":
        real = codex.CodexAdapter.load

        def load(self, ref, keep=None):
            if middle in ref.main.path.name:
                raise OSError("moved away after its first line was read")
            return real(self, ref, keep)

        monkeypatch.setattr(codex.CodexAdapter, "load", load)
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=workers))
    assert _dangling_links(vault) == []
    index = (vault / "AI Sessions" / "Projects" / "api.md").read_text()
    assert child_id(2)[-8:] in index


def test_a_thread_on_disk_twice_without_a_conversation_leaves_no_wait_in_the_state(tmp_path):
    """The same subagent in sessions/ and archived_sessions/, with no conversation: no
    link is left waiting in the state for a note that never comes."""
    home, vault = tmp_path / "home", tmp_path / "v"
    parent_rollout(home)
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": PARENT, "depth": 1}}}
    for folder in ("sessions", "archived_sessions"):
        CodexRollout(child_id(1), source=spawn, start="2026-03-10T08:11:00Z").write(
            home / ".codex", folder
        )
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    state = json.loads((vault / ".ccexport" / "state.json").read_text())
    assert state["links"] == {}


def test_who_spawned_a_rollout_is_read_from_its_first_line_alone(tmp_path):
    """Only the first line is read (in small steps, not a whole read-ahead chunk), and a
    rollout that is no subagent's is not even parsed."""
    from types import SimpleNamespace

    from exporter.adapters import codex, codex_files

    def ref(path: Path):  # what spawned_by looks at of a discovered rollout
        return SimpleNamespace(main=SimpleNamespace(path=path), session_id=path.stem)

    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": PARENT.upper(), "depth": 1}}}
    r = CodexRollout(child_id(1), source=spawn, start="2026-03-10T08:11:00Z")
    r.user("Subtask", events=False)
    path = r.write(tmp_path / ".codex")
    first = path.read_bytes().split(b"\n", 1)[0]
    padded = first.replace(b"{", b'{"pad": "' + b"x" * 200_000 + b'", ', 1)
    path.write_bytes(padded + b"\n" + b"not json at all\n" * 100_000)
    assert codex.CodexAdapter().spawned_by(ref(path)) == (child_id(1), PARENT.lower())
    assert codex_files.first_line(path) == padded
    plain = CodexRollout(PARENT)
    plain.user("no subagent here")
    assert codex.CodexAdapter().spawned_by(ref(plain.write(tmp_path / "other"))) is None
