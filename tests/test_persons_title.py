"""A title the person types in a note's properties stays theirs; ccexport's own title goes
to the note's aliases. A title ccexport wrote before is among those aliases, so a session
retitled by its tool still gets its new title: the note alone tells the two apart, on
every machine, with or without the state."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from vault_builder import export, run_cli, the_note, write_session

from exporter.notefile import read_frontmatter

MINE = 'title: "Flaky login test: root cause"  # my name for it\n'


def _retitled(note: Path, line: str = MINE) -> None:
    lines = note.read_text().splitlines(keepends=True)
    note.write_text("".join(line if x.startswith("title:") else x for x in lines))


def _exported_with_title(tmp_path: Path, title: str) -> tuple[Path, Path, Path]:
    """A session exported by the command with ``[frontmatter] add = { title = … }``."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["why does login fail"])
    config = vault / ".ccexport" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f"[frontmatter]\nadd = {{ title = '{title}' }}\n")
    assert run_cli("--vault", str(vault), "--home", str(home)).returncode == 0
    return home, vault, config


def _exported(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A session exported into a vault: its home, the vault and the note."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["why does login fail"])
    export(vault, home)
    return home, vault, the_note(vault)


def _aliases_replaced(note: Path, lines: str) -> None:
    text = note.read_text()
    note.write_text(text[: text.index("aliases:")] + lines + text[text.index("source:") :])


def _index_titles(vault: Path) -> str:
    return (vault / "AI Sessions" / "Projects" / "app.md").read_text()


@pytest.mark.parametrize("state", ["kept", "lost"])
def test_the_persons_title_stays_and_ccexports_goes_to_the_aliases(tmp_path, state):
    home, vault, note = _exported(tmp_path)
    _retitled(note)
    if state == "lost":
        shutil.rmtree(vault / ".ccexport")
    write_session(home, ["why does login fail", "and now?"])
    assert export(vault, home).total("updated") == 1
    text = note.read_text()
    assert MINE in text and "reply to and now?" in text  # their line, byte for byte
    fm = read_frontmatter(text)
    assert fm["title"] == "Flaky login test: root cause"
    assert fm["aliases"] == ["why does login fail"]
    assert "Flaky login test: root cause" in _index_titles(vault)
    before = text
    report = export(vault, home, force=True)  # read again: still theirs, nothing to write
    assert report.total("updated") == 0 and note.read_text() == before


def test_a_session_retitled_by_its_tool_gets_the_new_title(tmp_path):
    """Guard: the title ccexport wrote is among the aliases, so it is not the person's."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["why does login fail"])
    export(vault, home)
    write_session(home, ["why does login fail", "and now?"], ai_title="Login test fix")
    export(vault, home)
    fm = read_frontmatter(the_note(vault).read_text())
    assert fm["title"] == "Login test fix"
    assert fm["aliases"] == ["why does login fail", "Login test fix"]


def test_without_aliases_the_title_cannot_be_told_and_is_ccexports(tmp_path):
    """The person (or the configuration) removed the aliases, and the state is lost: a
    title that differs from ccexport's may be one it wrote before, so it is rewritten, as
    it always was. (With the state, it is told: the test below.)"""
    home, vault, note = _exported(tmp_path)
    _retitled(note)
    _aliases_replaced(note, "")
    shutil.rmtree(vault / ".ccexport")
    write_session(home, ["why does login fail", "and now?"])
    export(vault, home)
    assert yaml.safe_load(note.read_text().split("---")[1])["title"] == "why does login fail"


def test_a_configured_title_is_an_alias_too_and_a_new_setting_rewrites_it(tmp_path):
    """``[frontmatter] add = { title = … }``: the title written is ccexport's, so it goes
    to the aliases as well, and a later setting's title replaces it (it was not taken for
    one the person typed)."""
    home, vault, config = _exported_with_title(tmp_path, "App: {{ title }}")
    note = the_note(vault)
    fm = read_frontmatter(note.read_text())
    assert fm["title"] == "App: why does login fail"
    assert fm["aliases"] == ["why does login fail", "App: why does login fail"]
    config.write_text("[frontmatter]\nadd = { title = 'Login: {{ title }}' }\n")
    assert run_cli("--vault", str(vault), "--home", str(home)).returncode == 0
    assert read_frontmatter(note.read_text())["title"] == "Login: why does login fail"


@pytest.mark.parametrize("by", ["person", "tool"])
def test_a_retitled_note_renamed_in_obsidian_and_moved_is_no_edit_of_the_index(tmp_path, by):
    """The index links the note by its title: a link Obsidian rewrote to a name the note
    no longer has (renamed in Obsidian, then moved by hand) is told by that title, which the
    run changes before it reads the index. (Found by the state machine.)"""
    import os
    import re

    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["parser"])
    export(vault, home)
    note = the_note(vault)
    renamed = note.with_name("Renamed 1.md")  # in Obsidian: every link to it follows
    os.rename(note, renamed)
    link = re.compile(r"\[\[" + re.escape(note.stem) + r"(?=[|#\]])")
    for path in vault.rglob("*.md"):
        if ".ccexport" not in path.parts and link.search(path.read_text()):
            path.write_text(link.sub("[[Renamed 1", path.read_text()))
    moved = note.with_name("Renamed 2.md")  # by hand: no link follows
    os.rename(renamed, moved)
    write_session(home, ["parser", "more"], ai_title="Parser work" if by == "tool" else None)
    if by == "person":
        _retitled(moved)
    report = export(vault, home)
    assert report.total("conflicts") == 0, report.conflicts()
    assert not (vault / ".ccexport" / "conflicts").exists()
    assert "Renamed 2" in _index_titles(vault)


@pytest.mark.parametrize("emptied", ["aliases: []\n", "aliases:\n"])
def test_with_empty_aliases_a_tool_retitle_still_takes_the_title(tmp_path, emptied):
    """No alias to tell by: the title is ccexport's (a review found an old title kept)."""
    home, vault, note = _exported(tmp_path)
    _aliases_replaced(note, emptied)
    write_session(home, ["why does login fail", "and now?"], ai_title="Login test fix")
    export(vault, home)
    assert read_frontmatter(note.read_text())["title"] == "Login test fix"


@pytest.mark.parametrize("emptied", ["aliases: []\n", "aliases:\n"])
def test_with_empty_aliases_a_typed_title_stays_the_persons(tmp_path, emptied):
    """Obsidian's property panel empties the aliases: the state still says which title
    ccexport wrote last, so one the person typed is theirs, update after update (review43
    M1: it was replaced without a word). Without the state it cannot be told (above)."""
    home, vault, note = _exported(tmp_path)
    _aliases_replaced(note, emptied)
    _retitled(note)
    write_session(home, ["why does login fail", "and now?"])
    export(vault, home)
    text = note.read_text()
    assert MINE in text and "reply to and now?" in text
    assert "Flaky login test: root cause" in _index_titles(vault)
    write_session(home, ["why does login fail", "and now?", "and then?"])
    export(vault, home)
    assert MINE in note.read_text() and "reply to and then?" in note.read_text()


def test_a_configured_title_that_links_adds_its_alias_unlinked_and_once(tmp_path):
    home, vault, config = _exported_with_title(tmp_path, "[[{{ project }}]] {{ title }}")
    note = the_note(vault)
    aliases = read_frontmatter(note.read_text())["aliases"]
    assert len(aliases) == 2 and not any("[[" in a for a in aliases)  # (an alias: no link)
    write_session(home, ["why does login fail", "and now?"])
    assert run_cli("--vault", str(vault), "--home", str(home)).returncode == 0
    assert read_frontmatter(note.read_text())["aliases"] == aliases  # no near-copy added
    config.write_text("[frontmatter]\nadd = { title = 'Login: {{ title }}' }\n")
    assert run_cli("--vault", str(vault), "--home", str(home)).returncode == 0
    assert read_frontmatter(note.read_text())["title"] == "Login: why does login fail"


def test_an_alias_the_person_edited_leaves_the_title_ccexports(tmp_path):
    """A typo fixed in the alias takes ccexport's title out of the aliases: the state says
    that title is the one ccexport wrote, so a tool's retitle still takes it."""
    home, vault, note = _exported(tmp_path)
    _aliases_replaced(note, "aliases:\n- why does login fail?\n")
    write_session(home, ["why does login fail", "and now?"], ai_title="Login test fix")
    export(vault, home)
    assert read_frontmatter(note.read_text())["title"] == "Login test fix"


def test_a_title_the_person_typed_is_how_a_rewritten_link_in_the_index_is_known(tmp_path):
    """The person retitles a note, renames it twice in Obsidian (a run between: the index
    lists it by their title, the state keeps ccexport's: the session was not read again)
    and once by hand. The index's link to the second name leads nowhere, and its alias is
    the person's title: by it the link is known, and the index is no edit of theirs.
    (Found by the state machine.)"""
    import os
    import re

    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["parser"])
    export(vault, home)
    _retitled(the_note(vault))
    export(vault, home)

    def rename_in_obsidian(name: str) -> None:
        note = the_note(vault)
        os.rename(note, note.with_name(f"{name}.md"))
        link = re.compile(r"\[\[" + re.escape(note.stem) + r"(?=[|#\]])")
        for path in vault.rglob("*.md"):
            if ".ccexport" not in path.parts and link.search(path.read_text()):
                path.write_text(link.sub("[[" + name, path.read_text()))

    rename_in_obsidian("Renamed 1")
    export(vault, home)
    assert "[[Renamed 1|Flaky login test: root cause]]" in _index_titles(vault)
    rename_in_obsidian("Renamed 2")
    note = the_note(vault)
    os.rename(note, note.with_name("Renamed 3.md"))  # by hand: no link follows
    report = export(vault, home)
    assert report.total("conflicts") == 0, report.conflicts()
    assert not (vault / ".ccexport" / "conflicts").exists()
    assert "[[Renamed 3|Flaky login test: root cause]]" in _index_titles(vault)


def test_a_link_is_known_by_the_persons_title_it_was_written_with_after_a_second_retitle(
    tmp_path,
):
    """The index listed the note by the person's first title; they rename it in Obsidian,
    retitle it again and move it by hand before the next run: the index's link, leading
    nowhere, still says the first title, which the state keeps. (Found by the state
    machine.)"""
    import os
    import re

    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["parser"])
    export(vault, home)
    _retitled(the_note(vault))
    note = the_note(vault)
    os.rename(note, note.with_name("Moved 1.md"))  # the index lists it again, by their title
    export(vault, home)
    assert "[[Moved 1|Flaky login test: root cause]]" in _index_titles(vault)
    note = the_note(vault)
    os.rename(note, note.with_name("Renamed 2.md"))  # in Obsidian: its links follow
    index = vault / "AI Sessions" / "Projects" / "app.md"
    index.write_text(re.sub(r"\[\[Moved 1(?=\|)", "[[Renamed 2", index.read_text()))
    _retitled(the_note(vault), 'title: "Second thoughts"\n')
    note = the_note(vault)
    os.rename(note, note.with_name("Renamed 3.md"))  # by hand: no link follows
    report = export(vault, home)
    assert report.total("conflicts") == 0, report.conflicts()
    assert "[[Renamed 3|Second thoughts]]" in _index_titles(vault)


def test_a_note_retitled_in_the_run_that_first_reads_a_link_is_still_known_by_its_title(
    tmp_path,
):
    """The session grew and the person edited inside its note, renamed it in Obsidian,
    retitled it and moved it back by hand: the run reads the note's links first (its edit),
    then retitles it, then reads the index, whose link leads nowhere and says the title
    before. The link targets kept a copy of the run's (then empty) map of earlier titles,
    so the index was copied aside. (Found by the state machine.)"""
    import os
    import re

    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["parser"])
    export(vault, home)
    write_session(home, ["parser", "parser again"])
    note = the_note(vault)
    lines = note.read_text().split("\n")
    begin = next(i for i, line in enumerate(lines) if line.startswith("%% ccexport:begin"))
    lines.insert(begin + 2, "my edit")
    note.write_text("\n".join(lines))
    renamed = note.with_name("Renamed 1.md")  # in Obsidian: its links follow
    os.rename(note, renamed)
    index = vault / "AI Sessions" / "Projects" / "app.md"
    index.write_text(
        re.sub(r"\[\[" + re.escape(note.stem) + r"(?=\|)", "[[Renamed 1", index.read_text())
    )
    _retitled(renamed)
    os.rename(renamed, note)  # by hand, back to its name
    report = export(vault, home)
    keys = [c.key for c in report.conflicts()]
    assert len(keys) == 1 and keys[0].startswith("claude-code:"), keys  # its own edit, only
