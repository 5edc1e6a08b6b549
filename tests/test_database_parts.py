"""A large Cursor user folder or OpenCode database is cut into parts that workers read side
by side (``parts``, ``ReadAhead.cut``): the parts read in order give the sessions of the
unit read whole, and the vault is the one a run in one process writes."""

from __future__ import annotations

from collections import Counter
from datetime import UTC
from pathlib import Path

import pytest
from opencode_builder import OpenCodeStore, text, tool
from vscode_builder import make_db, workspace

from exporter import readahead, workers
from exporter.adapters import opencode
from exporter.adapters.cursor import CursorAdapter, composer
from exporter.adapters.opencode import OpenCodeAdapter
from exporter.export import ExportOptions, run_export
from exporter.workers import PARALLEL_FROM

CURSOR = Path(".config") / "Cursor" / "User"
SECRET = "ghp_" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"  # a made-up GitHub token


def _composer(disk: dict, cid: str, title: str, turns: int, **fields) -> None:
    headers = []
    for t in range(turns):
        for kind, bid, body in (
            (
                1,
                f"u{t}",
                {"text": f"Why does step {t} of {title} fail? `a_b` {fields.get('ask', '')}"},
            ),
            (2, f"a{t}", {"text": f"Step {t} reads `a_b` <T> before it is set."}),
        ):
            headers.append({"bubbleId": bid, "type": kind})
            disk[f"bubbleId:{cid}:{bid}"] = {"_v": 3, "type": kind, "bubbleId": bid, **body}
    disk[f"composerData:{cid}"] = {
        "_v": 10, "composerId": cid, "name": title, "createdAt": 1759861723898,
        "lastUpdatedAt": 1759863763312, "fullConversationHeadersOnly": headers,
        "modelConfig": {"modelName": "gpt-5"},
    }  # fmt: skip


def _user_dir(home: Path, composers: int = 40) -> Path:
    """A global database of ``composers`` conversations (titles repeated, so their notes'
    names collide; one secret; one opened but never used; one whose data is not JSON), a
    workspace owning some, and a workspace keeping chats of its own: an inline composer,
    a copy of a global one (left to the global database) and a legacy chat tab."""
    user = home / CURSOR
    disk: dict = {}
    for n in range(composers):
        ask = f"the token is {SECRET}" if n == 7 else ""
        _composer(disk, f"{n:08x}-c0c0-4222-8333-444444444444", f"Retry logic {n % 5}", 2 + n % 4,
                  ask=ask)  # fmt: skip
    disk["composerData:ffffffff-0000-4000-8000-unused"] = {"_v": 10, "composerId": "unused",
                                                         "fullConversationHeadersOnly": []}  # fmt: skip
    disk["composerData:ffffffff-0000-4000-8000-broken"] = "{not json"
    make_db(user / "globalStorage" / "state.vscdb", {}, disk)
    owned = [{"composerId": f"{n:08x}-c0c0-4222-8333-444444444444"} for n in range(0, composers, 3)]
    workspace(user, "ws-api", "file:///home/dev/work/api",
              {"composer.composerData": {"allComposers": owned}})  # fmt: skip
    inline = {"allComposers": [
        {"composerId": "inline-1", "name": "Inline composer", "createdAt": 1731784818255,
         "conversation": [{"type": 1, "bubbleId": "x1", "text": "rename the module"},
                          {"type": 2, "bubbleId": "x2", "text": "Renamed."}]},
        {"composerId": "00000001-c0c0-4222-8333-444444444444",
         "conversation": [{"type": 1, "bubbleId": "old", "text": "an older copy"}]},
    ]}  # fmt: skip
    tabs = {"tabs": [{"tabId": "tab-1", "chatTitle": "Legacy chat", "lastSendTime": 1731818231743,
                      "bubbles": [{"type": "user", "id": "u1", "text": "center a div"},
                                  {"type": "ai", "id": "a1", "text": "Use flex."}]}]}  # fmt: skip
    workspace(user, "ws-app", "file:///home/dev/work/app", {
        "composer.composerData": inline, "workbench.panel.aichat.view.aichat.chatdata": tabs})  # fmt: skip
    return user


def _ref(home: Path):
    return next(iter(CursorAdapter().discover(_context(home))))


def _context(home: Path):
    from exporter.adapters import SourceContext

    return SourceContext.for_home(home)


def _sessions(results) -> list:
    return [(s.session_id, s.title, s.cwd, s.messages) for r in results for s in r.sessions]


def test_the_parts_read_in_order_are_the_folder_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(composer, "PART_BYTES", 6_000)
    _user_dir(tmp_path)
    adapter = CursorAdapter()
    ref = _ref(tmp_path)
    parts = adapter.parts(ref)
    assert parts is not None and len(parts) >= 5
    assert parts[-1].fact("part") == composer.WORKSPACES_PART
    whole = list(adapter.load_families(ref))
    pieces = [adapter.load(part) for part in parts]
    assert _sessions(pieces) == _sessions(whole)
    assert len(_sessions(whole)) == 40 + 2  # the inline composer and the tab; not the copy
    held = [adapter.held_size(part) for part in parts[:-1]]
    assert all(0 < size < 3 * composer.PART_BYTES for size in held), held


def test_a_folder_whose_global_database_cannot_be_read_is_not_cut(tmp_path):
    user = _user_dir(tmp_path)
    (user / "globalStorage" / "state.vscdb").write_bytes(b"not a database" * 100)
    assert CursorAdapter().parts(_ref(tmp_path)) is None


def _opencode_db(home: Path, families: int = 40) -> Path:
    """Families of a session and, for every sixth, a subagent's; titles repeated; a secret."""
    store = OpenCodeStore()
    for n in range(families):
        s = store.session(f"Fix the cart {n % 5}", f"/home/dev/work/p{n % 3}")
        ask = f" The token is {SECRET}." if n == 7 else ""
        store.user(s, text(f"Why is total {n} wrong? `a_b`{ask}"))
        store.assistant(
            s, text("Because `a_b` <T> is read first."), tool("bash", {"command": "ls"}, "a\nb")
        )
        if n % 6 == 0:
            child = store.session(f"List files {n}", s.directory, parent=s)
            store.user(child, text("List the files."))
            store.assistant(child, text("a, b"))
    return store.write_db(home / ".local" / "share" / "opencode" / "opencode.db")


def test_the_parts_of_a_database_read_in_order_are_its_families(tmp_path, monkeypatch):
    monkeypatch.setattr(opencode, "PART_BYTES", 6_000)
    _opencode_db(tmp_path)
    adapter = OpenCodeAdapter()
    ref = next(iter(adapter.discover(_context(tmp_path))))
    parts = adapter.parts(ref)
    assert parts is not None and len(parts) >= 4
    whole = list(adapter.load_families(ref))
    assert _sessions(adapter.load(part) for part in parts) == _sessions(whole)
    assert len(_sessions(whole)) == 40 + 7


def _export_both(tmp_path: Path, monkeypatch, room: int) -> tuple[Counter[str], dict]:
    """Export the home with one process and with two workers, the unit counted as large
    and its parts small; count the parts read ahead (and read here)."""
    monkeypatch.setattr(composer, "PART_BYTES", 6_000)
    monkeypatch.setattr(opencode, "PART_BYTES", 6_000)
    monkeypatch.setattr(readahead, "READ_AHEAD_BELOW", 60_000)  # the unit is large
    monkeypatch.setattr(workers, "PARALLEL_FROM_BYTES", 60_000)  # enough to start the pool
    monkeypatch.setattr(readahead, "READ_AHEAD_BYTES", 12_000 * room)  # parts wait for room
    taken: Counter[str] = Counter()
    take = readahead.ReadAhead.take

    def counting_take(self, unit, wanted=True):
        handed_over = unit in self._tickets
        read = take(self, unit, wanted)
        if "#" in unit:
            taken["parts read ahead" if read is not None else "read here"] += 1
            taken["failed there"] += handed_over and read is None
        return read

    monkeypatch.setattr(readahead.ReadAhead, "take", counting_take)
    runs = {}
    for jobs in (1, 2):
        vault = tmp_path / f"vault{jobs}"
        runs[jobs] = run_export(ExportOptions(vault=vault, home=tmp_path, timezone=UTC,
                                              workers=jobs))  # fmt: skip
    notes = [
        {p.relative_to(tmp_path / f"vault{j}").as_posix(): p.read_bytes()
         for p in sorted((tmp_path / f"vault{j}").rglob("*.md"))}
        for j in (1, 2)
    ]  # fmt: skip
    assert notes[0] == notes[1]
    assert runs[1].as_dict() == runs[2].as_dict()
    assert runs[1].redactions and runs[2].redactions == runs[1].redactions
    assert not taken["failed there"], taken
    return taken, notes[0]


@pytest.mark.parametrize("room", [1, 1000], ids=["two-parts-in-flight", "all-in-flight"])
def test_a_large_user_folder_is_read_ahead_in_parts_into_the_same_vault(
    tmp_path, monkeypatch, room
):
    _user_dir(tmp_path, composers=PARALLEL_FROM + 40)
    taken, notes = _export_both(tmp_path, monkeypatch, room)
    assert taken["parts read ahead"] >= 6, taken  # asked again as parts are taken (``more``)
    assert len(notes) > PARALLEL_FROM + 40
    assert sum(" (2)" in name or "2.md" in name for name in notes) > 0  # names that collided


@pytest.mark.parametrize("room", [1, 1000], ids=["two-parts-in-flight", "all-in-flight"])
def test_a_large_opencode_database_is_read_ahead_in_parts_into_the_same_vault(
    tmp_path, monkeypatch, room
):
    _opencode_db(tmp_path, families=PARALLEL_FROM + 40)
    taken, notes = _export_both(tmp_path, monkeypatch, room)
    assert taken["parts read ahead"] >= 4, taken
    linked = [b for name, b in notes.items() if "· agent" in name]
    assert linked and all(b"[[" in b for b in linked)  # subagents' notes link their parents
