"""A large Cursor family (a composer and the composers it started) is read once and not
held whole: once its bubble rows take ``PACK_FROM`` bytes, each composer's messages are
kept packed as soon as it is read, and made again where its note is made; the notes are
those of a family held whole. A family is read in one read transaction. Synthetic
databases."""

from __future__ import annotations

import random
import sqlite3
import string
import tracemalloc
from datetime import UTC
from pathlib import Path

from conftest import note_files
from vscode_builder import cursor_composer, cursor_task, make_db

from exporter.adapters import SourceContext
from exporter.adapters.cursor import CursorAdapter, chats, composer, packing
from exporter.export import ExportOptions, run_export

CURSOR = Path(".config") / "Cursor" / "User"
PARENT = "b0000000-0000-4000-8000-000000000001"
KIDS = [f"c{n:07d}-0000-4000-8000-000000000000" for n in range(12)]
CHUNK = "word " * 20_000  # 100 KB of a reply


_composer, _task = cursor_composer, cursor_task


def _home(tmp_path: Path, replies: int = 10, chunk=lambda: CHUNK) -> Path:
    """A parent and 12 subagents of about ``replies`` × 100 KB each (``chunk``)."""
    disk: dict = {}
    calls = [(2, _task(f"call_{n}")) for n in range(len(KIDS))]
    _composer(disk, PARENT, [(1, {"text": "Look everywhere"}), *calls, (2, {"text": "Done"})],
              workspaceIdentifier={"id": "w1", "uri": {"fsPath": "/home/dev/work/app"}},
              subagentComposerIds=KIDS)  # fmt: skip
    for n, cid in enumerate(KIDS):
        said = [(2, {"text": f"{chunk()}{n}.{i}"}) for i in range(replies)]
        _composer(disk, cid, [(1, {"text": "Look inside"}), *said],
                  subagentInfo={"parentComposerId": PARENT, "toolCallId": f"call_{n}",
                                "subagentTypeName": "explore"})  # fmt: skip
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    return tmp_path


def _peak_of_reading(home: Path) -> tuple[list[bool], int]:
    """Whether each session read is streamed, and the peak of the reading."""
    adapter = CursorAdapter()
    (ref,) = adapter.discover(SourceContext.for_home(home))
    tracemalloc.start()
    try:
        streamed = []
        for result in adapter.load_families(ref):
            streamed += [session.is_streamed for session in result.sessions]
            del result
        return streamed, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _export(home: Path, vault: Path, workers: int = 1) -> dict[str, bytes]:
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=workers))
    assert not report.failed and report.problems == []
    return note_files(vault)


def test_a_large_family_is_not_held_whole(tmp_path, monkeypatch):
    """12 MB of subagents: held whole, reading them took more than 12 MB; from 2 MB on,
    each is packed once read, and one is held at a time."""
    home = _home(tmp_path)
    monkeypatch.setattr(packing, "PACK_FROM", 2 * 1024 * 1024)
    streamed, peak = _peak_of_reading(home)
    assert streamed == [True] * (1 + len(KIDS))  # the parent too, its calls linked
    assert peak < 6 * 1024 * 1024, f"{peak / 2**20:.1f} MiB held"


def test_a_packed_familys_messages_are_kept_on_disk_not_in_memory(tmp_path, monkeypatch):
    """Its members' packed bytes are in a temporary file, read back where each note is
    made: 12 MB of replies (words drawn at random, which compress to about 40%) held
    nothing of them."""
    draw = random.Random(17)
    words = ["".join(draw.choices(string.ascii_lowercase, k=draw.randint(2, 9)))
             for _ in range(2000)]  # fmt: skip
    home = _home(tmp_path, replies=10, chunk=lambda: " ".join(draw.choices(words, k=17_000)))
    monkeypatch.setattr(packing, "PACK_FROM", 1)
    adapter = CursorAdapter()
    (ref,) = adapter.discover(SourceContext.for_home(home))
    tracemalloc.start()
    try:
        sessions = [s for result in adapter.load_families(ref) for s in result.sessions]
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(sessions) == 1 + len(KIDS)
    assert held < 2 * 1024 * 1024, f"{held / 2**20:.1f} MiB held"
    kid = next(s for s in sessions if s.session_id == KIDS[3])
    assert len(list(kid.messages)) == 11  # (read back: a prompt and 10 replies)


def test_each_composer_of_a_packed_family_is_parsed_once(tmp_path, monkeypatch):
    """Its notes are made from what the one reading parsed, not from its rows read again."""
    home = _home(tmp_path, replies=2)
    monkeypatch.setattr(packing, "PACK_FROM", 1)
    parsed: list[str] = []
    listed = chats._listed_bubbles

    def counted(headers, cid, db, times):
        parsed.append(cid)
        return listed(headers, cid, db, times)

    monkeypatch.setattr(chats, "_listed_bubbles", counted)
    assert len(_export(home, tmp_path / "vault")) == 1 + len(KIDS)
    assert sorted(parsed) == sorted([PARENT, *KIDS])


def test_a_packed_family_makes_the_notes_of_one_held_whole(tmp_path, monkeypatch):
    """Guard: the same notes (each call linked to its subagent's), with 1 and 2 workers."""
    home = _home(tmp_path, replies=2)
    held = _export(home, tmp_path / "held")
    monkeypatch.setattr(packing, "PACK_FROM", 1)
    assert _export(home, tmp_path / "packed") == held and len(held) == 1 + len(KIDS)
    parent = next(body.decode() for body in held.values() if "Look everywhere" in body.decode())
    assert parent.count("· agent") > len(KIDS)  # listed, and each call linked to its note
    assert _export(home, tmp_path / "two", workers=2) == held


def test_a_family_is_read_in_one_state_of_the_database(tmp_path, monkeypatch):
    """Cursor writes while the family is read (WAL: a reader does not stop it): a subagent
    read after the write is read as it was when the family's reading began, as its parent."""
    home = _home(tmp_path, replies=1)
    db = home / CURSOR / "globalStorage" / "state.vscdb"
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("INSERT INTO ItemTable (key, value) VALUES ('open', '1')")
    writer.commit()  # (the log is there, as while Cursor runs)
    reading = composer._composer_session

    def written_meanwhile(data, cid, *args, **kwargs):
        session = reading(data, cid, *args, **kwargs)
        if cid == PARENT:  # Cursor rewrites a subagent's reply after its parent was read
            key = f"bubbleId:{KIDS[0]}:{KIDS[0][:8]}-1"
            value = '{"_v": 3, "type": 2, "bubbleId": "x", "text": "Rewritten later"}'
            writer.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (value, key))
            writer.commit()
        return session

    monkeypatch.setattr(composer, "_composer_session", written_meanwhile)
    try:
        notes = _export(home, tmp_path / "vault")
    finally:
        writer.close()
    text = b"".join(notes.values()).decode()
    assert "Rewritten later" not in text
    assert f"{CHUNK}0.0" in text


def test_the_snapshot_ends_the_read_without_writing(tmp_path):
    """A read transaction is ended (rolled back: nothing was written), and one already
    open is left to its opener."""
    home = _home(tmp_path, replies=1)
    with composer.Database(home / CURSOR / "globalStorage" / "state.vscdb") as db:
        with packing.snapshot(db):
            assert db.conn.in_transaction
            with packing.snapshot(db):
                pass
            assert db.conn.in_transaction
        assert not db.conn.in_transaction


def test_a_secret_found_in_a_subagent_of_a_packed_family_is_redacted_in_its_parent(
    tmp_path, monkeypatch
):
    """A packed member is a streamed session, which was redacted on its own: a secret a rule
    finds in one member by what stands around it (``api_token="…"``) stayed whole in the
    others (the parent's prompt named it bare)."""
    token = "".join(random.Random(17).choices(string.ascii_letters + string.digits, k=32))
    disk: dict = {}
    _composer(disk, PARENT, [(1, {"text": f"Call the API with {token} and report."}),
                             (2, _task("call_0")), (2, {"text": "Done"})],
              workspaceIdentifier={"id": "w1", "uri": {"fsPath": "/home/dev/work/app"}},
              subagentComposerIds=KIDS[:1])  # fmt: skip
    _composer(disk, KIDS[0], [(1, {"text": "Look"}), (2, {"text": f'Api(api_token="{token}")'})],
              subagentInfo={"parentComposerId": PARENT, "toolCallId": "call_0"})  # fmt: skip
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    monkeypatch.setattr(packing, "PACK_FROM", 1)
    notes = _export(tmp_path, tmp_path / "vault")
    assert len(notes) == 2
    assert all(token.encode() not in body for body in notes.values())
