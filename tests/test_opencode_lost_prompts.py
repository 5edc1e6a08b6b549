"""OpenCode: a prompt whose message is stored but none of its parts (a part file lost or
never migrated in the legacy tree, a part row gone from the database) is still the person's
turn, at its time, saying its text is not in the session's files; OpenCode's own title for
it (``summary.title``) is given as OpenCode's. Synthetic stores (opencode_builder)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import load_sessions, note_files
from opencode_builder import Msg, OpenCodeStore, text

from exporter.adapters.opencode import OpenCodeAdapter
from exporter.export import ExportOptions, run_export

DATA = Path(".local") / "share" / "opencode"
LOST = "A prompt was sent here; its text is not in the session's files."


def store_with_a_lost_prompt() -> tuple[OpenCodeStore, Msg]:
    store = OpenCodeStore()
    s = store.session("Open the readme", "/home/me/src/shop")
    lost = store.user(s)  # (its part was never written)
    lost.data["summary"] = {"title": "Open README\n", "body": "Opened the README."}
    store.assistant(s, text("Here is the README."))
    store.user(s)  # (no summary either)
    store.user(s, text("thanks"))
    return store, lost


@pytest.mark.parametrize("where", ["tree", "database"])
def test_a_prompt_without_parts_is_the_persons_turn_saying_its_text_is_lost(tmp_path, where):
    store, lost = store_with_a_lost_prompt()
    home, vault = tmp_path / "home", tmp_path / "vault"
    if where == "tree":
        store.write_tree(home / DATA / "storage")
    else:
        store.write_db(home / DATA / "opencode.db")
    (session,), _ = load_sessions(OpenCodeAdapter(), home)
    first, reply, second, thanks = session.messages
    sent = datetime.fromtimestamp(lost.data["time"]["created"] / 1000, UTC)
    assert (first.role, first.source_id, first.timestamp) == ("user", lost.id, sent)
    assert [(p.kind, p.notice, p.text) for p in first.parts] == [
        ("notice", "warning", f"{LOST} OpenCode titled it: Open README")
    ]
    assert [(p.kind, p.notice, p.text) for p in second.parts] == [("notice", "warning", LOST)]
    assert (reply.role, thanks.role) == ("assistant", "user")
    # (the reply's summary, not the person's words, is nowhere)
    assert "Opened the README." not in str(session.messages)
    run_export(ExportOptions(vault=vault, home=home, sources=["opencode"], timezone=UTC))
    (note,) = note_files(vault).values()
    body = note.decode()
    assert body.count("### User") == 3
    assert f"> [!warning] Warning\n>\n> {LOST} OpenCode titled it: Open README\n" in body
