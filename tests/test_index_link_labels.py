"""Session titles and project names holding Markdown or Obsidian markup, as the index notes
(a project's, ``Projects.md``) show them: each as the alias of the link to its note. In
Obsidian a wikilink runs from ``[[`` to the first ``]]`` and its alias is shown as text,
literally (no Markdown in it acts; a backslash escape in it is shown, so escaping cannot
help there): the alias cannot hold ``|`` or ``]]`` (nor, to be read back, a bracket), and
must read as the title was typed otherwise (``#`` and ``^`` too: they were spaces). Read through the repository's checker (``obsidian_check``), with its links read
as Obsidian reads them: nothing of a title is live."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st
from obsidian_check import ZERO_WIDTH_SPACE, links, parse

from exporter.index import note_stem, project_entry, session_entry
from exporter.index_body import project_index_body, projects_index_body
from exporter.markdown import unlinked

# What a person or a model types in a title: Markdown, Obsidian's marks, HTML, backslashes.
MARKS = ["*", "_", "`", "[", "]", "|", "#", "^", "$", "=", "<b>", "</b>", "%", ":", "\\", "~"]
TITLE = st.lists(st.sampled_from([*MARKS, "a", "b", " ", "é", "字"]), min_size=1, max_size=20).map(
    "".join
)
TITLES = [
    "*bold* and _it_",
    "a `code` b",
    "x [[link]] y",
    "a | b",
    "x ^block",
    "$x$ maths",
    "==high== light",
    "<b>bold</b>",
    "tag #foo",
    "ends with \\",
    "x\\",
    "a]",
    "key:: value",
    "%% comment",
]


def _shown(text: str) -> str:
    """Text as a reader sees it: no zero-width space, runs of spaces as one."""
    return " ".join(text.replace(ZERO_WIDTH_SPACE, "").split())


def _bodies(titles: list[str], project: str) -> list[str]:
    """A project's index note listing a session of each title, and the index of projects."""
    sessions = []
    for n, title in enumerate(titles):
        meta = {"title": unlinked(title), "source": "claude-code", "created": "2026-11-20",
                "models": [], "messages": 2}  # fmt: skip
        sessions.append(session_entry(f"AI Sessions/claude-code/p/2026-11-20 s{n}.md", meta))
    project_note = project_index_body(
        {"project": project, "folder": "AI Sessions", "dataview": False, "sessions": sessions}
    )
    entry = project_entry(project, "AI Sessions/Projects/p", sessions, None)
    projects_note = projects_index_body(
        {"projects": [entry], "folder": "AI Sessions", "dataview": False}
    )
    assert project_note is not None and projects_note is not None
    return [project_note, projects_note]


def _check(titles: list[str], project: str) -> None:
    project_note, projects_note = _bodies(titles, project)
    stems = {note_stem(f"AI Sessions/claude-code/p/2026-11-20 s{n}.md") for n in range(len(titles))}
    for body, named in ((project_note, titles), (projects_note, [project])):
        found, _ = parse(body, read_links=True)
        live = [c for c in found if c.kind not in ("wikilink", "heading")]
        assert live == [], (body, live)
        assert [c.detail for c in found if c.kind == "heading"] == ["h1"], body
        read = links(body)
        assert len(read) == len(named), body  # one link a session (a project), no more
        for (target, alias), title in zip(read, named, strict=True):
            assert target in stems or target == "AI Sessions/Projects/p", (body, target)
            assert "|" not in alias and "]]" not in alias and "[[" not in alias, alias
            # shown as typed, but for what an alias cannot hold: "|", and "[" and "]" (Obsidian
            # reads "[[" to the first "]]", ``vaultlinks`` no bracket in an alias), each a
            # space (a title of nothing else is linked with no alias: its note's name shown)
            typed = _shown(re.sub(r"[\[\]|]", " ", title))
            assert _shown(alias) == (typed or _shown(target)), (alias, title)


@settings(max_examples=200)
@given(st.lists(TITLE, min_size=1, max_size=4), TITLE)
def test_titles_with_markup_are_shown_as_typed_and_make_nothing_live(titles, project):
    _check(titles, project)


@example(TITLES)
@given(st.just(TITLES))
def test_the_marks_of_the_task_one_by_one(titles):
    _check(titles, "my *proj* ==x== $y$ <b>")


@settings(max_examples=300, deadline=None)
@given(TITLE)
@example("Fix #42 ^b")
def test_an_alias_written_before_keeps_naming_its_note(title):
    """Aliases written before 8 December held ``#`` and ``^`` as spaces: a link of an index
    written then still names its note by its title (``vaultlinks``; else an index whose
    note was renamed in Obsidian and then deleted was taken for the person's edit)."""
    from exporter.vaultlinks import _title_key

    written_before = title.replace("#", " ").replace("^", " ")
    assert _title_key(written_before) == _title_key(title)
