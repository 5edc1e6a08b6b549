"""An index note of a nested vault that another vault's run wrote over (cli10 5): an
earlier version, exporting into an outer vault, took the nested vault's ``Projects.md`` for
its own and wrote its list there. The file stayed ccexport's, unedited (its end marker's
hash holds), yet it was not what the nested vault wrote, and ``--vault nested`` with
nothing new left it so: only deleting it and ``--restore`` repaired it. The normal run now
writes the index notes again; the person's text below the generated part stays."""

from __future__ import annotations

import os

from vault_builder import export, write_session

from exporter.change import Action

OTHER_SID = "0a1b2c3d-0000-4000-8000-00000000000b"


def _nested_with_projects_written_over(tmp_path, mine: str = ""):
    """An outer vault holding a nested one, each exported from its own home; then the
    nested one's Projects.md holding the outer's (with ``mine`` below it, the person's)."""
    outer = tmp_path / "outer"
    nested = outer / "nested"
    nested_home, outer_home = tmp_path / "nested-home", tmp_path / "outer-home"
    write_session(nested_home, ["nested question"], cwd="/home/dev/work/alpha")
    write_session(outer_home, ["outer question"], sid=OTHER_SID, cwd="/home/dev/work/beta")
    outer.mkdir()
    export(nested, nested_home)
    export(outer, outer_home)
    index = nested / "AI Sessions" / "Projects.md"
    own = index.read_text()
    index.write_text((outer / "AI Sessions" / "Projects.md").read_text() + mine)
    return nested, nested_home, index, own


def test_a_run_with_nothing_new_writes_the_index_note_again(tmp_path):
    nested, home, index, own = _nested_with_projects_written_over(tmp_path)
    assert "beta" in index.read_text() and "alpha" not in index.read_text()
    dry = export(nested, home, dry_run=True)
    assert [(c.action, c.relpath) for c in dry.indexes if c.relpath.endswith("Projects.md")] == [
        (Action.UPDATED, "AI Sessions/Projects.md")
    ]
    assert "beta" in index.read_text()  # (a dry run writes nothing)
    report = export(nested, home)
    assert report.total("found") == 1 and report.total("written") == 0
    assert index.read_text() == own
    again = export(nested, home)  # (repaired: the next run writes no index note)
    assert not again.indexes


def test_the_persons_text_below_the_generated_part_is_kept(tmp_path):
    mine = "\nMy own line about these projects.\n"
    nested, home, index, own = _nested_with_projects_written_over(tmp_path, mine)
    export(nested, home)
    text = index.read_text()
    assert "alpha" in text and "beta" not in text.replace(mine, "")
    assert text.endswith(mine)


def test_an_index_note_the_person_edited_inside_is_not_taken_for_written_over(tmp_path):
    nested, home, index, own = _nested_with_projects_written_over(tmp_path)
    index.write_text(own.replace("alpha", "alpha (my words)", 1))  # (its hash no longer holds)
    edited = index.read_text()
    report = export(nested, home)
    assert not report.indexes and index.read_text() == edited


def test_an_index_note_only_touched_is_not_read_again_as_written_over(tmp_path):
    nested, home, index, own = _nested_with_projects_written_over(tmp_path)
    index.write_text(own)  # (as this vault wrote it; its time changed)
    os.utime(index, ns=(1, 1))
    assert not export(nested, home).indexes


def test_where_the_listing_gives_each_files_time_and_size_it_is_found_so(tmp_path, monkeypatch):
    """(Windows: a stat costs a file opened, so the index notes' folders are listed)"""
    from exporter import vaultsurvey

    nested, home, index, own = _nested_with_projects_written_over(tmp_path)
    monkeypatch.setattr(vaultsurvey, "LISTING_GIVES_STAT", True)
    export(nested, home)
    assert index.read_text() == own
