"""The short id in a note's file name tells sessions apart, also time-ordered ids."""

from __future__ import annotations

from exporter.notenames import short_id as _short


def test_time_ordered_ids_are_told_apart_by_their_random_end():
    # OpenCode: "ses_" + a time part two sessions of one minute share + a random part.
    parent, child = "ses_2a7f0e8d1ffeAbCdEfGhIjKlMn", "ses_2a7f0e8d2001QrStUvWxYz0123"
    assert _short(parent) != _short(child)
    assert (_short(parent), _short(child)) == ("GhIjKlMn", "WxYz0123")
    # Codex: UUIDv7, time first.
    assert _short("019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b") == "4e5f6a7b"


def test_other_ids_keep_their_first_eight_characters():
    assert _short("a3359d8f-b7c6-54bc-98db-2ca01fe16890") == "a3359d8f"
    assert _short("a3359d8f-b7c6-54bc-98db-2ca01fe16890/agent-a3f9c1e") == "a3f9c1e"
    assert _short("") == "session"
