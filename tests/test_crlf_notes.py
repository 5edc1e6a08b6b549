"""A note whose line ends are CRLF (a sync tool, git's ``core.autocrlf``, an editor on
Windows) is updated in CRLF throughout: the generated part, its markers and the properties
ccexport rewrites, the person's text byte for byte as they have it. An update wrote
ccexport's parts in LF beside the person's CRLF lines: a note of mixed line ends, which
editors and git complain about and a normalising sync tool rewrites. An LF note, and a
new note, stay LF."""

from __future__ import annotations

from pathlib import Path

from conftest import note_files, stamps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_frontmatter_read import texts
from test_frontmatter_splice import drops, values
from vault_builder import export, the_note, updated_note, write_session

from exporter import frontmatter_splice, lineends, notefile
from exporter.keytext import Keeper

INDEXES = ("AI Sessions/Projects/app.md", "AI Sessions/Projects.md")
MY_KEYS = "reviewed: yes  # by me\nmy_list:\n  - a\n  - b\n"
MY_TEXT = "my own line\n\n- [ ] a task\n"
OTHER = "0a1b2c3d-0000-4000-8000-00000000000b"


def crlf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def bare_lf(data: bytes) -> int:
    """How many line breaks of ``data`` are a lone LF."""
    return data.count(b"\n") - data.count(b"\r\n")


def persons(text: str) -> str:
    """The note with the person's keys first in its frontmatter, a tag of theirs and their
    text under ``## My notes``."""
    text = text.replace("---\n", f"---\n{MY_KEYS}", 1)
    text = text.replace("tags:\n- ", "tags:\n- mine\n- ", 1)
    assert text.endswith(notefile.NEW_NOTE_TAIL)
    return text + MY_TEXT


def unchanged_when_run_again(vault: Path, home: Path, **kw) -> None:
    before, times = note_files(vault, index=True), stamps(vault)
    report = export(vault, home, **kw)
    assert report.total("written") == 0 and report.total("conflicts") == 0
    assert note_files(vault, index=True) == before and stamps(vault) == times


def updated(tmp_path: Path, ends: str, edit=lambda data: data) -> tuple[bytes, Path, Path]:
    """The note the person wrote in, made ``ends`` (``edit`` after), once its session grew."""
    home, vault = tmp_path / ends / "home", tmp_path / ends / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    assert b"\r" not in note.read_bytes()  # a new note is LF
    data = persons(note.read_text()).encode()
    note.write_bytes(edit(crlf(data) if ends == "crlf" else data))
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("updated") == 1 and report.total("conflicts") == 0, report.changes
    assert not (vault / "AI Sessions" / "Conflicts").exists()
    return note.read_bytes(), home, vault


def test_a_crlf_note_is_updated_in_crlf_with_the_persons_bytes(tmp_path):
    lf, *_ = updated(tmp_path, "lf")
    data, home, vault = updated(tmp_path, "crlf")
    assert bare_lf(lf) == lf.count(b"\n") and b"q2" in lf  # an LF note stays LF
    assert bare_lf(data) == 0 and data == crlf(lf)  # as its LF twin, in CRLF throughout
    assert crlf(MY_KEYS.encode()) in data and b"- mine\r\n" in data
    assert data.endswith(crlf(f"{notefile.NEW_NOTE_TAIL}{MY_TEXT}".encode()))
    unchanged_when_run_again(vault, home)  # the session not read again
    unchanged_when_run_again(vault, home, force=True)  # read again: nothing to write
    note = the_note(vault)
    copy = note.with_name(".synced.tmp")
    copy.write_bytes(data)
    copy.replace(note)  # a sync tool delivers it as a new file: not an older copy put back
    unchanged_when_run_again(vault, home)
    assert note.read_bytes() == data


def test_index_notes_turned_to_crlf_are_updated_in_crlf(tmp_path):
    written = {}
    for ends in ("lf", "crlf"):
        home, vault = tmp_path / ends / "home", tmp_path / ends / "v"
        write_session(home, ["q"])
        export(vault, home)
        before = {}
        for rel in INDEXES:
            data = persons((vault / rel).read_text()).encode()
            before[rel] = crlf(data) if ends == "crlf" else data
            (vault / rel).write_bytes(before[rel])
        write_session(home, ["other"], sid=OTHER, start="2026-03-05T10:00:00Z")
        report = export(vault, home)
        assert report.total("conflicts") == 0 and not (vault / "AI Sessions/Conflicts").exists()
        written[ends] = {rel: (vault / rel).read_bytes() for rel in INDEXES}
        assert all(written[ends][rel] != before[rel] for rel in INDEXES)  # (a session more)
    for rel, data in written["crlf"].items():
        assert bare_lf(data) == 0 and data == crlf(written["lf"][rel]), rel
        assert crlf(MY_KEYS.encode()) in data and data.endswith(crlf(MY_TEXT.encode()))
    unchanged_when_run_again(vault, home)
    unchanged_when_run_again(vault, home, force=True)


def test_a_lone_line_end_of_the_persons_is_kept(tmp_path):
    """A CRLF note with a line of the person's ending in LF alone, an LF note with one in
    CRLF: each is kept as they have it, and ccexport writes the note's line ends."""
    mixed = crlf(MY_TEXT.encode()).replace(b"my own line\r\n", b"my own line\n")
    data, home, vault = updated(
        tmp_path, "crlf", lambda d: d.replace(crlf(MY_TEXT.encode()), mixed)
    )
    assert data.endswith(mixed) and bare_lf(data) == 1
    unchanged_when_run_again(vault, home, force=True)
    lf, home, vault = updated(
        tmp_path, "lf", lambda d: d.replace(b"my own line\n", b"my own line\r\n")
    )
    assert b"my own line\r\n- [ ]" not in lf and lf.count(b"\r\n") == 1
    assert lf.endswith(MY_TEXT.replace("line\n", "line\r\n").encode())
    unchanged_when_run_again(vault, home, force=True)


def test_a_note_an_earlier_version_left_mixed_is_made_crlf(tmp_path):
    """The person's lines CRLF, the generated part LF (as earlier versions updated a CRLF
    note): it starts CRLF, and its next update writes it in CRLF throughout."""

    def generated_part_lf(data: bytes) -> bytes:
        head, begin, rest = data.partition(notefile.END_PREFIX.replace("end", "begin").encode())
        region, end, tail = rest.partition(notefile.END_PREFIX.encode())
        return head + begin + region.replace(b"\r\n", b"\n") + end + tail

    lf, *_ = updated(tmp_path, "lf")
    data, home, vault = updated(tmp_path, "crlf", generated_part_lf)
    assert data == crlf(lf)
    unchanged_when_run_again(vault, home)


def test_an_edit_inside_a_crlf_notes_generated_part_is_still_a_conflict(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    edited = crlf(persons(note.read_text()).replace("reply to q", "reply to q, mine").encode())
    note.write_bytes(edited)
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("conflicts") == 1
    (copy,) = (vault / "AI Sessions" / "Conflicts").iterdir()
    data = note.read_bytes()
    part = lineends.without_cr(notefile.parse(edited.decode()).owned)  # (the part saved)
    assert part in copy.read_text() and bare_lf(data) == 0 and b"q2" in data
    assert data.endswith(crlf(MY_TEXT.encode()))
    unchanged_when_run_again(vault, home, force=True)


# The same through the merge alone, on what hypothesis makes of the person's text.

OURS = {"title": "q", "project": "app", "messages": 2, "tags": ["ai-session", "project/app"]}
GROWN = {**OURS, "messages": 4, "updated": "2026-03-04T10:30:00"}
BODY = "# q\n\nreply to q"
line = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"]), max_size=12)
mine = st.sampled_from(["", "mine: yes  # c\n", "mine:\n  - x\n  # between\n  - y\n", "- mine\n"])


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(line, max_size=6), st.sets(st.integers(0, 5)), mine)
def test_the_persons_text_is_kept_and_no_lf_is_left_alone(lines, lone, keys):
    """A CRLF note updates as its LF twin does, in CRLF; a line of the person's below the
    end marker that ends in a lone LF stays so, and a second update changes nothing."""
    front = notefile.yaml_of(OURS)
    front = front.replace("tags:\n", f"tags:\n{keys}") if keys.startswith("-") else front + keys
    head = f"---\n{front}---\n{notefile.BEGIN}\n{BODY}\n{notefile.end_marker(BODY)}\n"
    tail = "".join(f"{text}\n" for text in lines)
    theirs = "".join(f"{text}\n" if i in lone else f"{text}\r\n" for i, text in enumerate(lines))
    grown = f"{BODY}\n\nq2\n\nreply to q2"
    twin = updated_note(notefile.parse(head + tail), GROWN, grown, None, str)
    note = head.replace("\n", "\r\n") + theirs
    text = updated_note(notefile.parse(note), GROWN, grown, None, str)
    assert text == twin.removesuffix(tail).replace("\n", "\r\n") + theirs
    assert "\n" not in text.removesuffix(theirs).replace("\r\n", "")
    assert notefile.parse(text).edited is False
    assert updated_note(notefile.parse(text), GROWN, grown, None, str) == text


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(texts, values, drops, st.booleans())
def test_a_crlf_frontmatter_is_spliced_as_its_lf_twin(yaml_text, ours, drop, keeper):
    import yaml

    try:  # (as parse reads it: a note PyYAML refuses is never spliced)
        existing = yaml.load(yaml_text, Loader=notefile._loader()) or {}
    except (yaml.YAMLError, ValueError):  # (ValueError: a day the calendar lacks)
        return
    if not isinstance(existing, dict):
        return
    twin = yaml_text.replace("\n", "\r\n")
    keep = Keeper(ours, existing, yaml_text) if keeper else None
    lf = frontmatter_splice.splice(yaml_text, ours, drop, existing, keep)
    keep = Keeper(ours, existing, twin, lineends.CRLF) if keeper else None
    spliced = frontmatter_splice.splice(twin, ours, drop, existing, keep, lineends.CRLF)
    assert spliced == (lf and lf.replace("\n", "\r\n"))


def test_a_crlf_note_whose_properties_were_deleted_gets_them_back_in_crlf(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    text = note.read_text()
    body = text[text.index("---\n", 4) + 4 :]  # the properties deleted, the rest kept
    note.write_bytes(body.replace("\n", "\r\n").encode())
    write_session(home, ["q", "q2"])
    export(vault, home)
    data = note.read_bytes()
    assert data.startswith(b"---\r\n") and data.count(b"\n") == data.count(b"\r\n")
