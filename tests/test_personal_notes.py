"""A vault that is the person's own (``--vault ~/Notes``) holds thousands of their notes.
The index notes list every session note in the vault, another machine's too, so a run that
writes them walks the vault; the person's notes are then passed over without parsing
their frontmatter, while any note naming a session, however its YAML is written, is
still found."""

from __future__ import annotations

import shutil

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from vault_builder import export, write_session

from exporter import notefile

OTHER = "bbbbbbbb-0000-4000-8000-000000000000"


def test_the_persons_notes_are_not_parsed_and_another_machines_note_is_listed(
    tmp_path, monkeypatch
):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    write_session(tmp_path / "other", ["from the laptop"], sid=OTHER)
    export(tmp_path / "laptop", tmp_path / "other")  # another machine's vault
    laptop_note = next((tmp_path / "laptop" / "AI Sessions" / "claude-code").rglob("*.md"))
    export(vault, home)
    project = laptop_note.relative_to(tmp_path / "laptop").parent
    shutil.copy(laptop_note, vault / project / laptop_note.name)  # synced over
    for i in range(30):
        folder = vault / "Journal"
        folder.mkdir(exist_ok=True)
        (folder / f"day {i}.md").write_text(
            f"---\ntitle: day {i}\ntags: [journal]\nsource: my diary\n---\nsession notes\n"
        )
    parsed: list[str] = []
    real = notefile.read_frontmatter
    monkeypatch.setattr(notefile, "read_frontmatter", lambda h: parsed.append(h) or real(h))
    write_session(home, ["q", "more"])  # the session grows: the index note is written
    report = export(vault, home)
    assert report.total("updated") == 1
    assert not [h for h in parsed if "my diary" in h]  # none of the person's notes
    index = (vault / "AI Sessions" / "Projects" / "app.md").read_text()
    assert laptop_note.stem in index  # the other machine's note is listed


_SCALARS = st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none())


@settings(max_examples=300)
@given(
    source=st.text(min_size=1, max_size=10),
    session_id=st.one_of(st.text(max_size=12), st.integers()),
    index=st.one_of(st.none(), st.text(max_size=10)),
    part=st.one_of(st.none(), st.integers(-1, 5)),
    extra=st.dictionaries(st.text(max_size=8), _SCALARS, max_size=4),
    flow=st.sampled_from([False, True, None]),
    style=st.sampled_from([None, '"', "'"]),
)
def test_a_note_that_names_a_session_holds_a_key_the_scan_looks_for(
    source, session_id, index, part, extra, flow, style
):
    """Whatever YAML a tool or person writes the frontmatter in (flow or block, keys and
    values quoted or not), a note ``identity`` names holds one of ``IDENTITY_KEYS``."""
    metadata = {**extra, "source": source, "session_id": session_id}
    if index is not None:
        metadata["ccexport_index"] = index
    if part is not None:
        metadata["part"] = part
    text = yaml.safe_dump(metadata, default_flow_style=flow, default_style=style,
                          allow_unicode=True)  # fmt: skip
    head = f"---\n{text}---\nbody\n"
    found = notefile.read_frontmatter(head)
    if found is not None and notefile.identity(found):
        assert any(k in head.encode() for k in notefile.IDENTITY_KEYS)


def test_a_first_export_reads_each_of_the_persons_notes_once(tmp_path, monkeypatch):
    """A first export surveys the vault twice (notes another machine wrote for these
    sessions, then every session note for the index notes): a note found to name nothing
    is not read again while it stays as it was."""
    from exporter import vaultio

    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    (vault / "Journal").mkdir(parents=True)
    for i in range(5):
        (vault / "Journal" / f"day {i}.md").write_text(f"---\ntitle: day {i}\n---\ntext\n")
    reads: list[str] = []
    real = vaultio.read_file
    monkeypatch.setattr(
        vaultio, "read_file", lambda r, p, *a, **k: reads.append(p) or real(r, p, *a, **k)
    )
    assert export(vault, home).total("created") == 1
    journal = [p for p in reads if p.startswith("Journal/")]
    assert sorted(journal) == [f"Journal/day {i}.md" for i in range(5)]


def test_a_later_run_in_the_process_reads_only_the_notes_that_changed(tmp_path, monkeypatch):
    """``watch`` exports again in the same process each round: a note of the person's read
    in an earlier round is read again only once changed (a session id written into it makes
    it a session note, listed)."""
    from exporter import vaultio

    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    (vault / "Journal").mkdir(parents=True)
    for i in range(3):
        (vault / "Journal" / f"day {i}.md").write_text(f"---\ntitle: day {i}\n---\ntext\n")
    export(vault, home)
    reads: list[str] = []
    real = vaultio.read_file
    monkeypatch.setattr(
        vaultio, "read_file", lambda r, p, *a, **k: reads.append(p) or real(r, p, *a, **k)
    )
    (vault / "Journal" / "day 1.md").unlink()
    laptop = tmp_path / "laptop"
    write_session(tmp_path / "other", ["from the laptop"], sid=OTHER)
    export(laptop, tmp_path / "other")
    other_note = next((laptop / "AI Sessions" / "claude-code").rglob("*.md"))
    (vault / "Journal" / "day 2.md").write_text(other_note.read_text())  # now names a session
    write_session(home, ["q", "more"])
    export(vault, home)
    assert [p for p in reads if p.startswith("Journal/")] == ["Journal/day 2.md"]
    index = (vault / "AI Sessions" / "Projects" / "app.md").read_text()
    assert "day 2" in index
