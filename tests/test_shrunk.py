"""A source that shrank never erases a richer note: an older backup restored, a transcript
pruned by its tool, a partial copy. The note is kept and the run says so; ``force`` (the
``--force`` flag) overwrites it."""

from __future__ import annotations

from conftest import note_files
from vault_builder import export, run_cli, the_note, write_session

from exporter.vault import SHRUNK


def test_a_shrunk_source_keeps_the_note_and_says_so(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1", "q2", "q3"])
    export(vault, home)
    before = note_files(vault)
    write_session(home, ["q1"])  # a strict prefix: the older backup
    report = export(vault, home)
    assert note_files(vault) == before
    (change,) = report.changes
    assert change.action.value == "kept" and change.message.startswith(SHRUNK)
    assert not report.failed and any(SHRUNK in p.message for p in report.problems)
    assert report.as_dict()["warnings"] and report.total("unchanged") == 1


def test_fewer_messages_of_other_content_also_keeps_the_note(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1", "q2"])
    export(vault, home)
    before = note_files(vault)
    write_session(home, ["something else"])
    assert export(vault, home).changes[0].action.value == "kept"
    assert note_files(vault) == before


def test_force_overwrites_the_richer_note(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1", "q2", "q3"])
    export(vault, home)
    write_session(home, ["q1"])
    export(vault, home)  # kept, and the unit is remembered as read
    report = export(vault, home, force=True)  # read again even though it is unchanged
    assert report.total("updated") == 1
    text = the_note(vault).read_text()
    assert "q1" in text and "reply to q3" not in text


def test_a_grown_source_still_updates_and_a_dry_run_lists_the_kept_note(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1", "q2"])
    export(vault, home)
    write_session(home, ["q1"])
    assert export(vault, home, dry_run=True).changes[0].action.value == "kept"
    write_session(home, ["q1", "q2", "q3"])
    assert export(vault, home).total("updated") == 1


def test_the_command_line_keeps_then_forces(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1", "q2", "q3"])
    run_cli("--vault", str(vault), "--home", str(home))
    write_session(home, ["q1"])
    kept = run_cli("--vault", str(vault), "--home", str(home))
    assert kept.returncode == 0 and SHRUNK in kept.stderr, kept.stderr
    assert "reply to q3" in the_note(vault).read_text()
    forced = run_cli("--vault", str(vault), "--home", str(home), "--force")
    assert forced.returncode == 0 and "1 updated" in forced.stdout, forced.stdout
    assert "reply to q3" not in the_note(vault).read_text()
