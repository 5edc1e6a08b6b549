"""Note paths made from session data hold on every file system a vault may live on or be
synced to: no two notes of a run differ by case alone, and long names keep what tells
them apart."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import note_files
from hypothesis import given, settings
from hypothesis import strategies as st
from vault_builder import export, write_session

from exporter.model import Session
from exporter.notenames import tag_slug
from exporter.notes import NoteSettings, default_relpath
from exporter.split import part_relpath
from exporter.vault import RENAMED_NEW
from exporter.vaultpaths import safe_relpath

SID2 = "0a1b2c3d-0000-4000-8000-00000000000b"


def test_notes_whose_paths_differ_by_case_alone_get_two_names(tmp_path: Path):
    """``C:\\w\\MyApp`` and ``C:\\w\\myapp`` (PowerShell keeps the case typed) are one
    folder on Windows, but two projects here: their index notes ``Projects/MyApp.md`` and
    ``Projects/myapp.md`` would be one file on macOS or Windows, the second overwriting the
    first. So would their session notes, of the same day, title and id prefix."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"], cwd="/w/MyApp")
    write_session(home, ["q"], sid=SID2, cwd="/w/myapp")
    report = export(vault, home)
    assert not report.failed
    paths = list(note_files(vault, index=True))
    folded = {p.casefold() for p in paths}
    assert len(folded) == len(paths)
    projects = [p for p in paths if "/Projects/" in p]
    assert len(projects) == 2
    texts = [(vault / p).read_text() for p in projects]
    assert any("project: MyApp" in t for t in texts) and any("project: myapp" in t for t in texts)


def test_a_file_whose_name_differs_from_a_notes_by_case_alone_is_not_written_beside(
    tmp_path: Path,
):
    """On Linux the person's ``… Question … .md`` and a note's ``… question … .md`` are two
    files; on the Mac or Windows machine the vault is synced to, they are one, and one of
    them is lost there. The note takes `` (2)``, and the run says so once, as for a file
    holding its very name."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    relpath = export(tmp_path / "probe", home, dry_run=True).changes[0].relpath
    folder, _, name = relpath.rpartition("/")
    theirs = vault / folder / name.upper().replace(".MD", ".md")
    theirs.parent.mkdir(parents=True)
    theirs.write_text("my own file\n")
    report = export(vault, home)
    written = report.changes[0].relpath
    assert written == relpath.replace(".md", " (2).md")
    said = [p.path for p in report.problems if p.message == RENAMED_NEW]
    assert len(said) == 1 and said[0].endswith(written), said
    assert theirs.read_text() == "my own file\n"
    assert not [p for p in export(vault, home).problems if p.message == RENAMED_NEW]


def test_a_project_index_differing_by_case_from_an_earlier_runs_is_a_second_note(
    tmp_path: Path,
):
    """The case of the first test above, across runs: ``Projects/MyApp.md`` was written
    last night and is unchanged tonight, when ``myapp``'s first session comes. Another
    note of ours holds the name, so the second one's `` (2)`` is no surprise and unsaid."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"], cwd="/w/MyApp")
    export(vault, home)
    write_session(home, ["q"], sid=SID2, cwd="/w/myapp")
    report = export(vault, home)
    assert not report.failed and not report.problems, report.problems
    paths = list(note_files(vault, index=True))
    assert len({p.casefold() for p in paths}) == len(paths)
    projects = sorted(p for p in paths if "/Projects/" in p)
    assert [p.rpartition("/")[2] for p in projects] == ["MyApp.md", "myapp (2).md"]


@settings(max_examples=200, deadline=None)
@given(title=st.text(min_size=1, max_size=120), char=st.sampled_from(["a", "é", "旅", "🎉", ":"]))
def test_a_long_title_is_cut_and_the_ids_stay_whole(title, char):
    """A title of 60 CJK characters or emoji is 180-240 bytes: cut to the file name limit
    as a whole name, it lost the session id at its end, and a subagent's note (its parent's
    name and `` · agent <id>``) became its parent's name, told apart only by a (2)."""
    session = Session(
        "claude-code", "0123abcd-0000-4000-8000-000000000000", (), Path(),
        title=title + char * 80, project="p", started_at=datetime(2025, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    path = safe_relpath(default_relpath(session, NoteSettings(), None))
    assert path.endswith(" 0123abcd.md") and len(path.rpartition("/")[2].encode()) <= 200
    agent = replace(session, session_id=f"{session.session_id}/agent-a1b2c3d4", parent_id="x")
    child = safe_relpath(default_relpath(agent, NoteSettings(), path))
    assert child.endswith(" · agent a1b2c3d4.md") and child.startswith(
        path.rpartition("/")[0] + "/2025-01-01 "
    )
    assert len(child.rpartition("/")[2].encode()) <= 200


def test_a_later_part_of_a_long_named_note_keeps_its_part_number():
    first = "AI Sessions/claude-code/p/2025-01-01 " + "旅" * 60 + "… 0123abcd.md"
    second = part_relpath(safe_relpath(first), 2)
    assert second.endswith("… (part 2).md") and safe_relpath(second) == second
    assert part_relpath("a/b c.md", 2) == "a/b c (part 2).md"


def test_a_project_named_decomposed_is_one_project_and_found_as_typed(tmp_path: Path):
    """macOS may give a folder's name decomposed (``Cafe`` and U+0301); typed, or from
    another source, it is composed. Both are one project (one index note, one tag), and
    ``--project café`` or ``CAFÉ`` finds it."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"], cwd="/Users/me/Cafe\u0301")
    write_session(home, ["q2"], sid=SID2, cwd="/Users/me/Caf\u00e9")
    export(vault, home, project="CAF\u00c9")
    notes = note_files(vault, index=True)
    assert sorted(p for p in notes if "/Projects/" in p) == ["AI Sessions/Projects/Caf\u00e9.md"]
    sessions = [t.decode() for p, t in notes.items() if "/claude-code/" in p]
    assert len(sessions) == 2
    assert all("project: Caf\u00e9\n" in t and "project/caf\u00e9" in t for t in sessions)


@pytest.mark.parametrize(
    ("project", "tag"),
    [
        ("PAI - TPOS", "pai-tpos"),
        ("my  app", "my-app"),
        ("a--b", "a-b"),
        ("snake_case", "snake_case"),
        ("Café au lait", "café-au-lait"),
        ("2024", "p2024"),
        ("- -", "unknown"),
    ],
)
def test_a_projects_tag_has_one_hyphen_for_a_run_of_separators(project, tag):
    """ "PAI - TPOS" was tagged project/pai---tpos: each of space, hyphen, space became one."""
    assert tag_slug(project) == tag


_DIRECTION = ["\u202e", "\u202d", "\u2066", "\u2067", "\u2069", "\u200f", "\u061c"]


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=60), st.lists(st.sampled_from(_DIRECTION), min_size=1))
def test_a_note_name_holds_no_mark_that_turns_the_text_around(title, marks):
    """A title holding U+202E made a file name shown back to front ("PWN ‮txt.exe" reads
    as "PWN exe.txt": the safety audit's Trojan-source name); the marks are taken out."""
    name = safe_relpath(f"AI Sessions/{marks[0]}{title}{''.join(marks)} ab12cd34.md")
    assert not any(mark in name for mark in _DIRECTION)
    assert name.endswith("ab12cd34.md")


def test_a_name_made_under_older_rules_is_not_moved_as_if_it_held_a_secret(tmp_path):
    """New redaction rules move a note whose name holds a secret; a name that only differs
    from today's naming (a direction mark, taken out of new names since) is no secret: it
    was moved and reported as "its file name held a secret" (the review)."""
    from types import SimpleNamespace

    from exporter.redact import redactor
    from exporter.redact_outputs import rename_secret_paths
    from exporter.state import NoteRecord

    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"
    names = {"a": "AI Sessions/app/fix the \u202etxt.exe bug 0a1b2c3d.md",
             "b": f"AI Sessions/app/push {token} 0a1b2c3e.md"}  # fmt: skip
    for name in names.values():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("note\n")
    notes = {key: NoteRecord(path, "", 1) for key, path in names.items()}
    vault = SimpleNamespace(root=tmp_path, dry_run=False, state=SimpleNamespace(notes=notes))
    moved = rename_secret_paths(vault, redactor())
    assert moved == ["AI Sessions/app/push -REDACTED -github-pat- 0a1b2c3e.md"]
    assert (tmp_path / names["a"]).is_file() and notes["a"].path == names["a"]


@pytest.mark.parametrize("title", ["a %% b", "a %%% b", "a %\u200e% b", "a %\u202e%% b"])
def test_a_name_never_holds_obsidians_comment_mark(title):
    # (A direction mark between the two signs is taken out too: the "%%" must not come back.)
    from exporter.vaultpaths import safe_component

    assert "%%" not in safe_component(title + ".md")


def test_a_long_path_after_the_first_words_keeps_its_last_segments_in_the_name():
    """A prompt whose second word is a long path: the note's name kept "can you update…",
    then the path's first segments ("@apps-examples-desktop-app-webview-…"), nothing of what
    was updated. It keeps the path's last segments, which fit."""
    prompt = (
        "can you update @apps/examples/desktop-app/webview/components/agent-sidebar.tsx to use it"
    )
    session = Session(
        "cline", "17840941-0000-4000-8000-000000000000", (), Path(),
        title=prompt, project="p", started_at=datetime(2025, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    name = default_relpath(session, NoteSettings(), None).rpartition("/")[2]
    assert name == (
        "2025-01-01 can you update …-webview-components-agent-sidebar.tsx to… 17840941.md"
    )
    dropped = replace(
        session,
        title="/drop ../../../../private/var/folders/49/kxrdwwbx0h9bchx99392sr4h0000gn/T/"
        "tmpab12cd/src/main.py",
    )
    name = default_relpath(dropped, NoteSettings(), None).rpartition("/")[2]
    assert name == "2025-01-01 -drop …-T-tmpab12cd-src-main.py 17840941.md"
    windows = replace(session, title="open C:\\Users\\dev\\projects\\a-long-project-name\\"
                      "src\\components\\Widget.tsx and fix it")  # fmt: skip
    name = default_relpath(windows, NoteSettings(), None).rpartition("/")[2]
    assert (
        name == "2025-01-01 open …-a-long-project-name-src-components-Widget.tsx and… 17840941.md"
    )
    wordy = replace(session, title="fix " + "the flaky test in the parser module " * 3)
    cut = default_relpath(wordy, NoteSettings(), None).rpartition("/")[2]
    assert (
        cut == "2025-01-01 fix the flaky test in the parser module the flaky test in… 17840941.md"
    )
    web = replace(session, title="read https://example.com/" + "segment/" * 12 + " please")
    assert default_relpath(web, NoteSettings(), None).rpartition("/")[2] == (
        "2025-01-01 read… 17840941.md"  # (never a piece of a web address)
    )


_WORDS = st.text(st.sampled_from("ab/\\.- "), max_size=120)


@given(_WORDS, st.sampled_from([60, 80]))
@settings(max_examples=400, deadline=None)
def test_a_cut_title_is_made_of_pieces_of_the_title(text, length):
    """Whatever the title, the cut one is at most one character longer than asked, marked
    "…" where something was left out, and each piece between the marks is in the title:
    nothing that was not in it; the first piece starts it."""
    from exporter.notenames import cut_keeping_path

    cut = cut_keeping_path(text, length)
    if len(text) <= length:
        assert cut == text
        return
    assert len(cut) <= length + 1 and "…" in cut
    pieces = cut.split("…")
    assert text.startswith(pieces[0])
    assert all(piece in text for piece in pieces)


def test_a_title_from_a_prompt_keeps_the_end_of_a_long_path():
    """A prompt whose second word is a long path: the title kept its first segments
    ("read /home/dev/a_very_long_segment/…"); it keeps its last ones and the words after."""
    from exporter.model import Message, TextPart
    from exporter.notenames import session_title

    path = "/home/dev/" + "a_very_long_segment/" * 5 + "notes.txt"
    asked = Message("user", (TextPart(f"read {path} and sum it up"),), "m1")
    session = Session("codex", "s1", (asked,), Path())
    title = session_title(session)
    assert title == (
        "read …/a_very_long_segment/a_very_long_segment/a_very_long_segment/notes.txt…"
    )
    assert len(title) <= 81


def test_a_name_made_from_a_prompt_keeps_the_file_a_long_path_names():
    """The name was cut from the title already cut to 80 characters: a path running past
    them lost its file name (review9 F1: '…-T-tmplac…', the file tmplacu1lv7.png)."""
    from exporter.model import Message, TextPart

    asked = (
        "/drop ../../../../private/var/folders/49/kxrdwwbx0h9bchx99397477c0000gn/T/tmplacu1lv7.png"
    )
    for prompt, ends in [
        (asked, "-49-kxrdwwbx0h9bchx99397477c0000gn-T-tmplacu1lv7.png 00000000.md"),
        (
            "please fix the test in /home/dev/projects/frontend/src/features/billing/components/"
            "InvoiceTable.tsx because it fails on CI with a timeout",
            "please fix the test in …-components-InvoiceTable.tsx… 00000000.md",
        ),
    ]:
        session = Session(
            "aider", "00000000-1111", (Message("user", (TextPart(prompt),), "m1"),), Path(),
            project="p", started_at=datetime(2025, 1, 1, tzinfo=UTC),
        )  # fmt: skip
        name = default_relpath(session, NoteSettings(), None).rpartition("/")[2]
        assert name.endswith(ends), name


def test_a_title_is_never_cut_inside_a_web_address_nor_a_drawn_character():
    """Cut inside a word, a URL kept its head in the note's heading, which Obsidian links
    ("…" and all); an emoji of several code points was split."""
    from exporter.model import Message, TextPart
    from exporter.notenames import session_title

    def title_of(prompt: str) -> str:
        return session_title(
            Session("codex", "s1", (Message("user", (TextPart(prompt),), "m"),), Path())
        )

    url = "https://example.com/" + "a_very_long_segment/" * 6
    assert title_of(f"read {url} and sum it up") == "read…"
    family = (
        "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one emoji, 7 code points
    )
    for start in range(70, 80):
        title = title_of("x" * start + family * 4 + " more words after it")
        assert "\u200d…" not in title and not title[:-1].endswith("\u200d")
        assert title[:-1].count("\U0001f468") == title[:-1].count("\U0001f466")  # whole emoji only
