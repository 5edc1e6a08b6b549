"""A state written by a newer ccexport (another machine of a synced vault) is said to be
one, with the version that wrote it where the file records it, and that upgrading
ccexport on this machine stops each run setting it aside (review36 4: the warning said
only "from another version", and every nightly run left one more copy aside)."""

from __future__ import annotations

import orjson
from vault_builder import export, write_session

from exporter.doctor import vault_checks
from exporter.render import notes_made_by

NEWER = "9.4.0 2031-05-06.2"  # what a newer ccexport records of itself (render.notes_made_by)


def _newer_state(raw: bytes) -> bytes:
    """The state as a newer ccexport of format 3 might write it: the version it records
    of itself where this one records its own."""
    return orjson.dumps({**orjson.loads(raw.replace(notes_made_by().encode(), NEWER.encode())),
                         "version": 3})  # fmt: skip


def _exported(tmp_path):
    """A home of one session, exported once: its home and vault."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    return home, vault


def test_a_state_from_a_newer_ccexport_names_it_and_says_upgrade(tmp_path):
    home, vault = _exported(tmp_path)
    state = vault / ".ccexport" / "state.json"
    assert notes_made_by().encode() in state.read_bytes()
    state.write_bytes(_newer_state(state.read_bytes()))
    said = "written by ccexport 9.4.0 of 2031-05-06.2, newer than this one"
    (check,) = [c for c in vault_checks(vault) if "state.json" in c.message]
    assert said in check.message and "upgrade ccexport on this machine" in check.message
    (problem,) = [p for p in export(vault, home).problems if p.path == ".ccexport/state.json"]
    assert said in problem.message, problem.message
    assert "upgrade ccexport on this machine" in problem.message
    assert "reads state formats up to 2, not 3" in problem.message


def test_a_newer_state_that_names_no_version_is_still_said_to_be_newer(tmp_path):
    home, vault = _exported(tmp_path)
    (vault / ".ccexport" / "state.json").write_bytes(b'{"version": 4, "notes": {}}')
    (problem,) = [p for p in export(vault, home).problems if p.path == ".ccexport/state.json"]
    assert "written by a newer ccexport than this one" in problem.message
    assert "upgrade ccexport on this machine" in problem.message


def test_an_older_or_odd_format_is_not_called_newer(tmp_path):
    home, vault = _exported(tmp_path)
    for version in (b"0", b'"3"', b"-1"):
        (vault / ".ccexport" / "state.json").write_bytes(b'{"version": %s}' % version)
        (problem,) = [p for p in export(vault, home).problems if p.path.endswith("state.json")]
        assert "from another version of ccexport" in problem.message
        assert "upgrade" not in problem.message
