"""No property a session fills becomes a link in Obsidian.

A text or list property holding ``[[x]]`` is a live link: Obsidian lists the note among the
backlinks of ``x`` and draws it in the graph. A title, project, path, branch or model comes
from the session (a person in an Obsidian vault types ``[[Meeting notes]]`` into a prompt),
so each ``[[`` in it is parted by a zero-width space; the links ccexport makes itself
(parent, subagents, day, parts) stay links. The notes are read back with a YAML parser.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import frontmatter
from claude_builder import ClaudeSession
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from exporter.export import ExportOptions, run_export
from exporter.markdown import ZERO_WIDTH_SPACE, unlinked
from exporter.model import Message, Session, TextPart, ToolCallPart
from exporter.notefile import compose
from exporter.notenames import session_title
from exporter.notes import NoteSettings, build_note, project_of

WIKILINK = re.compile(r"\[\[")  # Obsidian starts a link (or, after "!", an embed) here
OWN_LINKS = {"parent", "subagents", "forked_from", "day", "previous_part", "next_part"}
WHEN = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)

bracketish = st.lists(
    st.one_of(
        st.sampled_from(["[[", "]]", "![[", "[[[", "[", "]", "|", "#", "^", "Note", "a b"]),
        st.text(alphabet="ab[]!|# -_/.", max_size=5),
    ),
    min_size=1,
    max_size=8,
).map("".join)


def _session(title: str, project: str, cwd: str, branch: str, model: str, path: str) -> Session:
    messages = (
        Message("user", (TextPart("first prompt"),), "u1", WHEN),
        Message(
            "assistant",
            (TextPart("ok"), ToolCallPart("Write", {"file_path": path, "content": "x"}, "c1")),
            "a1",
            WHEN,
            model,
        ),
    )
    return Session(
        "claude-code", "s1", messages, Path("s1.jsonl"), title=title, project=project,
        cwd=cwd, git_branch=branch, models=(model,), started_at=WHEN, ended_at=WHEN,
    )  # fmt: skip


def _properties(session: Session, settings: NoteSettings | None = None) -> dict:
    note = build_note(session, "n.md", settings or NoteSettings(), lambda key: None)
    return _read(compose({**note.frontmatter, **note.seeded}, "", note.body, ""))


def _read(text: str) -> dict:
    """The note's properties, as Obsidian reads them: its frontmatter parsed as YAML."""
    return frontmatter.loads(text).metadata


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(bracketish, bracketish, bracketish, bracketish, bracketish, bracketish)
@example("[[Meeting notes]]", "[[app]]", "/w/[[app]]", "[[b]]", "[[m]]", "/w/![[x]].md")
def test_no_property_from_a_session_is_a_link_and_each_keeps_its_text(
    title, project, cwd, branch, model, path
):
    session = _session(title, project, cwd, branch, model, path)
    props = _properties(session)
    for key, value in props.items():
        if key in OWN_LINKS:
            continue
        for text in _strings(value):
            assert not WIKILINK.search(text), (key, text)
    # Only the zero-width spaces were added: the words are those the session holds.
    assert props["title"].replace(ZERO_WIDTH_SPACE, "") == session_title(session)
    assert props["aliases"] == [props["title"]]
    assert props["project"].replace(ZERO_WIDTH_SPACE, "") == project_of(session)
    assert props["cwd"].replace(ZERO_WIDTH_SPACE, "") == cwd
    assert props["git_branch"].replace(ZERO_WIDTH_SPACE, "") == branch
    assert [m.replace(ZERO_WIDTH_SPACE, "") for m in props["models"]] == [model]
    assert props["model"] == props["models"][0]


def test_a_zero_width_space_goes_only_between_two_brackets():
    assert unlinked("see [[Note]] and ![[img.png]]") == "see [\u200b[Note]] and ![\u200b[img.png]]"
    assert unlinked("[[[x]]]") == "[\u200b[\u200b[x]]]"
    assert unlinked("a [b] c ]] [ [") == "a [b] c ]] [ ["  # no link opens: unchanged
    assert unlinked(["[[a]]", 3, None]) == ["[\u200b[a]]", 3, None]
    assert unlinked(7) == 7


def test_an_added_property_from_the_session_is_no_link_but_the_configured_link_stays():
    session = _session("[[Plan]] it", "[[app]]", "/w", "main", "m", "/w/x.py")
    settings = NoteSettings(
        frontmatter_add={
            "topic": "{{ title }}",
            "where": "{{ session.cwd }} {{ session.title }}",
            "moc": "[[{{ project }}]]",
            "fixed": "[[My map]]",
        }
    )
    props = _properties(session, settings)
    assert props["topic"] == "[\u200b[Plan]] it"
    assert props["where"] == "/w [\u200b[Plan]] it"
    # The person asked for a link around the project: theirs stays, the session's does not.
    assert props["moc"] == "[[[\u200b[app]]]]"
    assert props["fixed"] == "[[My map]]"


def test_a_project_named_with_brackets_gets_an_index_note_without_links_or_hidden_characters(
    tmp_path,
):
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "-w-app"
    sid = "5e0c1a77-3f0e-4c52-9a0b-0d1f6b2c7a10"
    transcript = ClaudeSession(sid, cwd="/w/[[app]]")
    transcript.user("[[Project plan]] summarise it")
    transcript.assistant("Done.")
    transcript.write(folder / f"{sid}.jsonl")
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))

    names = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    assert "AI Sessions/Projects/--app--.md" in names
    assert not [n for n in names if ZERO_WIDTH_SPACE in n]
    for name in names:
        props = _read((vault / name).read_text())
        for key, value in props.items():
            if key not in OWN_LINKS:
                assert not any(WIKILINK.search(s) for s in _strings(value)), (name, key)
    listing = (vault / "AI Sessions" / "Projects.md").read_text()
    assert "[[AI Sessions/Projects/--app--|app]]" in listing  # the link to the index resolves
    project_note = (vault / "AI Sessions" / "Projects" / "--app--.md").read_text()
    assert "[[2026-11-20 --Project plan-- summarise it 5e0c1a77|Project plan summarise it]]" in (
        project_note
    )


def test_an_old_title_kept_as_an_alias_is_unlinked_when_the_note_is_updated(tmp_path):
    """A note written before this (its title and alias a live ``[[…]]``) loses the link on
    its next update; the person's own aliases stay as they were."""
    home = tmp_path / "home"
    sid = "5e0c1a77-3f0e-4c52-9a0b-0d1f6b2c7a10"
    transcript = ClaudeSession(sid)
    transcript.user("[[Project plan]] summarise it")
    transcript.assistant("Done.")
    transcript.write(home / ".claude" / "projects" / "-w-app" / f"{sid}.jsonl")
    vault = tmp_path / "vault"
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=1)
    run_export(options)
    [note] = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    text = note.read_text()
    ours = '- "[\u200b[Project plan]] summarise it"\n'
    assert ours in text
    note.write_text(text.replace(ours, "- '[[Project plan]] summarise it'\n- My own name\n"))

    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1, force=True))
    aliases = _read(note.read_text())["aliases"]
    assert aliases == ["[\u200b[Project plan]] summarise it", "My own name"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab :%[]|#^\u200b=$", max_size=30))
@example("Why does std::vector crash (owner:: bob) %% here")
def test_a_links_alias_holds_no_dataview_field_or_comment_and_reads_as_the_title(label):
    # A title goes into the alias of every link to its note (index notes, a parent's
    # subagents): Dataview reads a field in "[[a|std::vector]]" (from the second "[", a
    # key before "::") and "%%" may start a comment hiding the rest of the note.
    from obsidian_check import constructs

    from exporter.markdown import link_alias, wikilink

    link = wikilink("2026-11-20 target", label)
    assert "::" not in link and "%%" not in link
    kinds = {c.kind for c in constructs(f"- {link} · 2 messages\n")}
    assert not kinds & {"dataview field", "comment"}, (label, link)
    shown = link_alias(label).replace(ZERO_WIDTH_SPACE, "")
    assert shown == " ".join(re.sub(r"[\[\]|\u200b]", " ", label).split())  # ("#", "^" as typed)


def test_a_title_with_a_field_and_a_comment_mark_is_listed_in_its_index_as_text(tmp_path):
    home = tmp_path / "home"
    sid = "5e0c1a77-3f0e-4c52-9a0b-0d1f6b2c7a11"
    transcript = ClaudeSession(sid, cwd="/w/app")
    transcript.user("Why does std::vector crash %% here")
    transcript.assistant("Bounds.")
    transcript.write(home / ".claude" / "projects" / "-w-app" / f"{sid}.jsonl")
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))

    index = (vault / "AI Sessions" / "Projects" / "app.md").read_text()
    line = next(ln for ln in index.splitlines() if sid[:8] in ln)
    assert "::" not in line and "%%" not in line, line
    # The note's name keeps one "%" (Obsidian may not resolve a link to a name with "%%").
    (note,) = (vault / "AI Sessions" / "claude-code" / "app").glob("*.md")
    assert "%%" not in note.name and "%" in note.name, note.name
    assert f"[[{note.stem}|" in line
