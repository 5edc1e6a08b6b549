"""A state file a run cannot use is moved aside before the run writes a new one, and the
warning says where (review35 14): it told the person to put back a backup while the same
run wrote a new state over the damaged file. A dry run moves nothing."""

from __future__ import annotations

import time

from vault_builder import export, write_session

DAMAGED = b'{"broken'


def state_warning(report):
    (problem,) = [p for p in report.problems if p.path == ".ccexport/state.json"]
    return problem.message


def test_an_unreadable_state_is_kept_aside_never_over_an_earlier_one(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    folder = vault / ".ccexport"
    stamp = time.strftime("%Y-%m-%d")
    for n, name in enumerate(
        [f"state.json.unreadable-{stamp}", f"state.json.unreadable-{stamp}-2"]
    ):
        damage = DAMAGED + str(n).encode()
        (folder / "state.json").write_bytes(damage)
        said = state_warning(export(vault, home))
        assert f"the unreadable file is kept as .ccexport/{name}" in said
        assert (folder / name).read_bytes() == damage  # as it was, for the person to look at
        assert (folder / "state.json").read_bytes().startswith(b"{")  # written anew
        assert (folder / "state.json").read_bytes() != damage
    # the first one kept is still there, untouched by the second
    assert (folder / f"state.json.unreadable-{stamp}").read_bytes() == DAMAGED + b"0"


def test_a_dry_run_moves_nothing_and_still_offers_the_backup(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    (vault / ".ccexport" / "state.json").write_bytes(DAMAGED)
    said = state_warning(export(vault, home, dry_run=True))
    assert "first put back .ccexport/state.json from a backup" in said and "kept as" not in said
    assert (vault / ".ccexport" / "state.json").read_bytes() == DAMAGED
    assert not list((vault / ".ccexport").glob("state.json.unreadable-*"))
