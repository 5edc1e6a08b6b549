"""Cline 4: a session the person starred carries ``starred: true``, as a starred task of
the older Cline does (adapters11). Cline 4 keeps the star in the session's metadata
(``isFavorited``), in ``sessions.db``'s ``metadata_json`` and in the manifest alike."""

from __future__ import annotations

import json

import cline_builder as cb
import pytest
import yaml
from conftest import load_sessions, the_exported_note

from exporter.adapters.cline import ClineAdapter


def frontmatter(note: str) -> dict:
    return yaml.safe_load(note.split("---\n")[1])


def conversation() -> list[dict]:
    return [cb.message("user", "Add a flag", n=0), cb.message("assistant", cb.text("Done."), n=1)]


@pytest.mark.parametrize(
    ("index", "manifest", "star"),
    [
        ({"title": "Flag", "isFavorited": True}, None, True),
        ({"title": "Flag", "is_favorited": True}, None, True),
        ({"title": "Flag", "isFavorited": False}, None, False),
        ({"title": "Flag", "isFavorited": "yes"}, None, False),  # (not a true boolean)
        ({"title": "Flag"}, None, False),
        # No index row (the database gone or locked): the manifest's metadata says it.
        (None, {"isFavorited": True}, True),
        (None, {"isFavorited": False}, False),
    ],
    ids=[
        "index",
        "snake-case",
        "not-starred",
        "not-a-boolean",
        "no-star",
        "manifest",
        "manifest-not-starred",
    ],  # fmt: skip
)
def test_a_starred_cline_4_session_is_starred_and_no_other_is(tmp_path, index, manifest, star):
    data = tmp_path / ".cline" / "data"
    cb.sdk_session(data, "s1", conversation(),
                   manifest={"cwd": "/w/app", "metadata": manifest} if manifest else None)  # fmt: skip
    if index is not None:
        cb.sessions_db(data, [{"session_id": "s1", "cwd": "/w/app",
                               "metadata_json": json.dumps(index)}])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), tmp_path)
    assert problems == []
    note = frontmatter(the_exported_note(tmp_path, "cline"))
    if star:
        assert session.extra == {"starred": True} and note["starred"] is True
    else:
        assert "starred" not in session.extra and "starred" not in note


def test_a_starred_sessions_subagents_are_not_starred(tmp_path):
    """The person starred the session, not its subagents' transcripts."""
    data = tmp_path / ".cline" / "data"
    agents = {"agent_1": [cb.message("user", "look", n=1), cb.message("assistant", "ok", n=2)]}
    cb.sdk_session(data, "s1", conversation(), agents=agents)
    cb.sessions_db(data, [{"session_id": "s1", "metadata_json": '{"isFavorited": true}'}])
    sessions, problems = load_sessions(ClineAdapter(), tmp_path)
    assert problems == []
    by_id = {s.session_id: s.extra for s in sessions}
    assert by_id == {"s1": {"starred": True}, "s1/agent-agent_1": {}}
