"""A large Cursor user folder or OpenCode database is cut into parts that workers read side
by side (``parts``, ``ReadAhead.cut``): the parts read in order give the sessions of the
unit read whole, and the vault is the one a run in one process writes."""

from __future__ import annotations

from collections import Counter
from datetime import UTC
from pathlib import Path

import pytest
from copilot_cli_builder import CopilotCliSession
from opencode_builder import OpenCodeStore, text, tool
from test_readahead import _Pool, _Reading, _units
from vscode_builder import make_db, workspace

from exporter import readahead, workers
from exporter.adapters import opencode
from exporter.adapters.base import FileStamp, SessionRef
from exporter.adapters.cursor import CursorAdapter, composer
from exporter.adapters.opencode import OpenCodeAdapter
from exporter.errors import SourceError
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
        elif "copilot" in unit and read is not None:
            taken["units after, read ahead"] += 1
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
    return taken, notes[0]


@pytest.mark.parametrize("room", [1, 1000], ids=["two-parts-in-flight", "all-in-flight"])
def test_a_large_user_folder_is_read_ahead_in_parts_into_the_same_vault(
    tmp_path, monkeypatch, room
):
    _user_dir(tmp_path, composers=PARALLEL_FROM + 40)
    taken, notes = _export_both(tmp_path, monkeypatch, room)
    assert not taken["failed there"], taken
    assert taken["parts read ahead"] >= 6, taken  # asked again as parts are taken (``more``)
    assert len(notes) > PARALLEL_FROM + 40
    assert sum(" (2)" in name or "2.md" in name for name in notes) > 0  # names that collided


@pytest.mark.parametrize("room", [1, 1000], ids=["two-parts-in-flight", "all-in-flight"])
def test_a_large_opencode_database_is_read_ahead_in_parts_into_the_same_vault(
    tmp_path, monkeypatch, room
):
    _opencode_db(tmp_path, families=PARALLEL_FROM + 40)
    taken, notes = _export_both(tmp_path, monkeypatch, room)
    assert not taken["failed there"], taken
    assert taken["parts read ahead"] >= 4, taken
    linked = [b for name, b in notes.items() if "· agent" in name]
    assert linked and all(b"[[" in b for b in linked)  # subagents' notes link their parents


def test_a_part_that_cannot_be_read_fails_its_unit_as_in_one_process(tmp_path, monkeypatch):
    """A composer whose reading raises (in a worker, then here): the sessions before it are
    written and the unit fails at it, as in one process; the parts not taken are let go, so
    the units after it are still read ahead."""
    _user_dir(tmp_path, composers=60)
    for n in range(PARALLEL_FROM + 8):
        s = CopilotCliSession(f"{n:08x}-0c11-4000-8000-000000000000", "/home/dev/work/cli")
        s.user(f"Why does step {n} fail?")
        s.assistant(f"Step {n} reads `a_b` before it is set.")
        s.write(tmp_path / ".copilot")
    bad = "0000000c-c0c0-4222-8333-444444444444"  # in the third part or so
    real = composer._composer_session

    def failing(data, cid, *args):
        if cid == bad:
            raise RuntimeError("a composer the parser cannot read")
        return real(data, cid, *args)

    monkeypatch.setattr(composer, "_composer_session", failing)  # in the workers too (forked)
    taken, notes = _export_both(tmp_path, monkeypatch, room=1)
    assert taken["read here"] >= 1, taken  # the failing part, and the parts let go
    cursor = [name for name in notes if "/cursor/" in name]
    assert 0 < len(cursor) < 60
    assert sum("/copilot-cli/" in name for name in notes) == PARALLEL_FROM + 8
    assert taken["units after, read ahead"] >= PARALLEL_FROM, taken


class _Cutting(_Reading):
    """A unit of many sessions its adapter cuts into parts of 4 MB each."""

    def parts(self, ref):
        return [
            SessionRef(
                "x",
                f"{ref.session_id}#{n}",
                FileStamp(Path(f"{ref.main.path}#{n}"), 4 * 1024 * 1024, 0),
            )  # fmt: skip
            for n in range(ref.main.size // (4 * 1024 * 1024))
        ]


def _parts_asked(renderer: _Pool) -> list[int]:
    return [int(u.rpartition("#")[2]) for u in renderer.asked if "#" in u]


def test_parts_are_sent_in_order_as_room_frees_up_and_never_after_the_main_process_took_them():
    units = _units([1000] * 40)
    units[5] = (_Cutting(), SessionRef("x", "db", FileStamp(Path("/h/db"), 40 * 1024 * 1024, 0)))
    renderer = _Pool()
    ahead = readahead.ReadAhead(renderer)
    ahead.ask(units, 0, lambda unit, ref: False)
    room = (readahead.READ_AHEAD_BYTES - 5 * 1000) // (4 * 1024 * 1024)  # after units 0-4
    assert _parts_asked(renderer) == list(range(room))  # then no unit after it, yet
    assert "/h/s6.jsonl" not in renderer.asked
    for n in range(3):  # its turn: the main process takes its first parts
        ahead.passed("/h/db", n)
        ahead.take(f"/h/db#{n}")
        ahead.more()
    assert _parts_asked(renderer) == list(range(room + 3))
    # A unit cut only in its turn (it looked unchanged when the window passed it): the
    # parts the main process has come to are not sent any more.
    late = readahead.ReadAhead(_Pool())
    late.ask(units, 0, lambda unit, ref: unit == "/h/db")
    assert not _parts_asked(late.renderer) and "/h/s6.jsonl" in late.renderer.asked
    parts = late.cut(*units[5])
    assert parts and len(parts) == 10
    late.passed("/h/db", 0)
    late.take("/h/db#0")
    late.more()
    assert _parts_asked(late.renderer)[0] == 1


def test_an_error_each_part_meets_counts_once_for_its_unit(tmp_path, monkeypatch):
    """The global database's conversations cannot be listed in the parts' turn (locked, say):
    each part meets the error, and the unit counts one failure, as in one process."""
    _user_dir(tmp_path, composers=PARALLEL_FROM + 40)

    def locked(db):
        raise SourceError(db.path, "database is locked")

    counts = {}
    for jobs in (1, 2):
        monkeypatch.setattr(composer, "PART_BYTES", 6_000)
        monkeypatch.setattr(readahead, "READ_AHEAD_BELOW", 60_000)
        monkeypatch.setattr(workers, "PARALLEL_FROM_BYTES", 60_000)
        monkeypatch.setattr(composer, "_composer_headers", locked)  # after the cut
        report = run_export(ExportOptions(vault=tmp_path / f"v{jobs}", home=tmp_path,
                                          timezone=UTC, workers=jobs))  # fmt: skip
        counts[jobs] = report.per_source["cursor"].failed
        assert sum("locked" in p.message for p in report.problems) == 1
    assert counts[1] == counts[2] == 1
