"""A text file attached to a message (a code selection, a pasted or attached file) is shown
in the note as a code block, where it was asked about: an embed of a ``.txt`` file shows
nothing in Obsidian and search skips it, so the reader saw the question without the code it
was about. Its file is copied into the vault only when the note names it: a template of the
person's that embeds it (one written before), or the note of a file too long to show whole;
else it would sit in the attachments folder unlinked (review39 L3)."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from datetime import UTC

import pytest
from conftest import CORPUS, note_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from message_builder import msg, session
from obsidian_check import constructs
from test_note_safety import ADVERSARIAL, markdownish

from exporter.model import AttachmentPart, TextPart
from exporter.notes import NoteSettings, build_note
from exporter.turns import MAX_TOOL_OUTPUT

_MD = MarkdownIt("commonmark")


def _note(*parts, reference: bool = False, monkeypatch=None):
    if reference:
        monkeypatch.setenv("CCEXPORT_REFERENCE_RENDER", "1")
    s = session(msg("user", TextPart("Why does this fail?"), *parts), msg("assistant"))
    return build_note(s, "n.md", NoteSettings(), lambda key: None)


def _fences(body: str) -> list[tuple[str, str]]:
    """(info, content) of every code block, as a CommonMark parser reads the note."""
    return [(t.info, t.content) for t in _MD.parse(body) if t.type == "fence"]


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "template"])
def test_a_selection_is_shown_as_code_in_its_language_and_no_file_is_copied(monkeypatch, reference):
    code = "let when = bubble_created_at;\nlet moved = bubble_created_at,\n"
    selection = AttachmentPart("text/plain", code.encode(), "/home/dev/src/agent_preset.rs:412-415")
    note = _note(selection, reference=reference, monkeypatch=monkeypatch)
    assert "![[" not in note.body
    assert "> [!cite] Attached `/home/dev/src/agent_preset.rs:412-415`\n> ```rust\n" in note.body
    assert ("rust", code) in _fences(note.body)
    assert note.attachments == []  # no note names its file: it would be in the vault unlinked


def _with_template(tmp_path, text: str, *parts):
    folder = tmp_path / "mine"
    folder.mkdir(parents=True)
    (folder / "session.md.j2").write_text(text)
    s = session(msg("user", TextPart("Why does this fail?"), *parts), msg("assistant"))
    return build_note(s, "n.md", NoteSettings(templates=folder), lambda key: None)


_EACH_ATTACHMENT = (
    '{% for turn in turns %}{% for item in turn["items"] %}'
    '{% if item.kind == "attachment" %}{0}\n{% endif %}'
    "{% endfor %}{% endfor %}"
)


@pytest.mark.parametrize(
    "named",
    ["![[{{ item.path }}]]", '[[{{ item.path.rpartition("/")[2] }}]]'],
    ids=["embedded by path", "linked by name"],
)
def test_a_template_that_names_the_file_gets_it_copied(tmp_path, named):
    """A person's template that embeds a text file (as one written before text was shown
    in the note did) or links it by its name: the file is copied, the one it names."""
    code = AttachmentPart("text/plain", b"fn main() {}\n", "src/main.rs")
    other = AttachmentPart("text/plain", b"fn other() {}\n", "src/other.rs")
    note = _with_template(tmp_path, _EACH_ATTACHMENT.replace("{0}", named), code)
    (copy,) = note.attachments
    assert copy.data == b"fn main() {}\n" and copy.relpath.rpartition("/")[2] in note.body
    # One naming only the first of two: only that one.
    first = '{{ (turns[0]["items"] | selectattr("kind", "eq", "attachment") | first).path }}'
    note = _with_template(tmp_path / "b", first, code, other)
    assert [a.data for a in note.attachments] == [b"fn main() {}\n"]


def test_a_template_naming_no_file_gets_none_copied_not_even_an_image(tmp_path):
    png = AttachmentPart("image/png", b"\x89PNG\r\n", "shot.png")
    text = AttachmentPart("text/plain", b"x = 1\n", "a.py")
    note = _with_template(tmp_path, "{{ title }}\n", png, text)
    assert note.attachments == []


@pytest.mark.parametrize(
    ("name", "media", "lang"),
    [
        ("src/app.ts", "text/plain", "typescript"),
        ("app.routes.ts#L21-L24", "text/plain", "typescript"),
        ("C:\\work\\tool.py:3", "text/plain", "python"),
        (None, "application/json", "json"),
        ("changes", "text/x-diff", "diff"),
        ("notes", "text/plain", "text"),
    ],
)
def test_the_code_block_language_comes_from_the_name_else_the_media_type(name, media, lang):
    note = _note(AttachmentPart(media, b'{"a": 1}', name))
    assert _fences(note.body) == [(lang, '{"a": 1}\n')]


def test_a_long_file_is_folded_a_short_one_open():
    short = _note(AttachmentPart("text/plain", b"\n".join([b"x"] * 20), "a.txt"))
    long = _note(AttachmentPart("text/plain", b"\n".join([b"x"] * 21), "a.txt"))
    assert "> [!cite] Attached `a.txt`\n" in short.body
    assert "> [!cite]- Attached `a.txt`\n" in long.body


def test_a_file_too_long_for_a_note_shows_head_and_tail_and_names_the_whole_copy():
    data = ("a" * MAX_TOOL_OUTPUT + "\n" + "z" * 50).encode()
    note = _note(AttachmentPart("text/plain", data, "big.log"))
    ((_, shown),) = _fences(note.body)
    assert shown.startswith("a" * 100) and shown.rstrip("\n").endswith("z" * 50)
    assert "characters omitted by ccexport" in shown
    (copy,) = note.attachments
    assert copy.data == data  # the whole file, in the vault
    assert f"the whole file is `{copy.relpath}`" in note.body


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "template"])
def test_a_copy_the_assistant_shortened_is_shown_and_says_so(monkeypatch, reference):
    """Copilot sends a file too long for its prompt shortened (``isSummarized``): the session
    holds that copy, not the file. It is shown, and the note says parts of it are left out
    (fast body and shipped template alike)."""
    short = "class A {\n\t…\n}"
    part = AttachmentPart("text/plain", short.encode(), "/w/big.ts", shortened=True)
    note = _note(part, reference=reference, monkeypatch=monkeypatch)
    assert ("typescript", short + "\n") in _fences(note.body)
    said = "> *Only a shortened copy is in the session: the assistant left parts of it out"
    assert said in note.body
    whole = _note(AttachmentPart("text/plain", short.encode(), "/w/big.ts"),
                  reference=reference, monkeypatch=monkeypatch)  # fmt: skip
    assert "shortened" not in whole.body


@pytest.mark.parametrize(
    "data",
    [
        "naïve café\n".encode("utf-16"),  # with its byte order mark
        "naïve café\n".encode("latin-1"),  # not UTF-8: every byte a character
        "naïve café\n".encode(),
    ],
)
def test_utf16_and_8_bit_files_read_as_the_text_they_hold(data):
    note = _note(AttachmentPart("text/plain", data, "notes.txt"))
    assert ("text", "naïve café\n") in _fences(note.body)


def test_an_image_even_an_svg_is_still_embedded():
    svg = AttachmentPart("image/svg+xml", b"<svg xmlns='http://www.w3.org/2000/svg'/>", "logo.svg")
    png = AttachmentPart("image/png", b"\x89PNG\r\n", "shot.png")
    note = _note(svg, png)
    assert note.body.count("![[attachments/ccexport/") == 2
    assert _fences(note.body) == []
    assert sorted(a.relpath.rpartition(".")[2] for a in note.attachments) == ["png", "svg"]


def test_a_secret_in_an_attached_file_never_reaches_the_note(tmp_path):
    """The text shown is the redacted file's, as the copy is."""
    from exporter.export import ExportOptions, run_export

    key = "sk-ant-api03-" + "Q" * 93 + "AA"
    project = tmp_path / "home" / ".claude" / "projects" / "-w-p"
    project.mkdir(parents=True)
    doc = {"type": "document", "title": "settings.env",
           "source": {"type": "text", "media_type": "text/plain", "data": f"KEY={key}\n"}}  # fmt: skip
    lines = [
        {"type": "user", "uuid": "u1", "sessionId": "s1", "cwd": "/w/p",
         "timestamp": "2026-11-20T09:00:00Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "why?"}, doc]}},
    ]  # fmt: skip
    (project / "s1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", timezone=UTC))
    assert not report.failed, report.problems
    everything = b"".join(p.read_bytes() for p in (tmp_path / "v").rglob("*") if p.is_file())
    assert key.encode() not in everything
    body = "".join(d.decode() for d in note_files(tmp_path / "v").values())
    assert "KEY=[REDACTED:" in body


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.one_of(markdownish, st.sampled_from(ADVERSARIAL)).filter(lambda t: t.strip("\n")),
    st.one_of(st.none(), markdownish.filter(str.strip)),
)
def test_an_attached_file_shows_exactly_its_text_and_nothing_in_it_is_live(text, name):
    """A real CommonMark parse finds the file's text, whole, in one code block, and no
    construct beyond those of a plain file's note (its name is inline code in the title)."""
    note = _note(AttachmentPart("text/plain", text.encode(), name))
    shown = text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    # (As many lines: a file of more than 20 is folded, which is no construct of its text.)
    plain_text = "\n".join(["plain"] * (shown.count("\n") + 1)).encode()
    plain = _note(AttachmentPart("text/plain", plain_text, name and "a.txt"))
    # (A plugin's command in it, Templater's or Meta Bind's, is parted by a zero-width space.)
    found = [content.replace("\u200b", "") for _, content in _fences(note.body)]
    assert found == [shown + "\n"]
    assert Counter(constructs(note.body)) == Counter(constructs(plain.body))


def test_the_jinja_template_writes_the_same_note(monkeypatch):
    """The shipped template through Jinja, and its Python mirror, agree (both branches)."""
    parts = (
        AttachmentPart("text/plain", b"fn main() {}\n", "src/main.rs:1"),
        AttachmentPart("text/plain", ("b" * (MAX_TOOL_OUTPUT + 9)).encode()),
        AttachmentPart("image/png", b"\x89PNG", "a.png"),
    )
    fast = _note(*parts).body
    assert fast == _note(*parts, reference=True, monkeypatch=monkeypatch).body


@pytest.mark.corpus
def test_the_real_cursor_selection_is_in_the_note_as_code(tmp_path):
    """The Cursor composer whose second prompt asks about a moved value: the 4 selected
    lines it is about are in the note, in a code block, and no ``.txt`` is embedded."""
    if not (CORPUS / "cursor").is_dir():
        pytest.skip(f"the corpus is not beside this clone ({CORPUS})")
    from exporter.export import ExportOptions, run_export

    storage = tmp_path / "home" / ".config" / "Cursor" / "User" / "globalStorage"
    storage.mkdir(parents=True)
    shutil.copyfile(
        CORPUS / "cursor" / "git-ai-project__git-ai__cursor_test.vscdb", storage / "state.vscdb"
    )
    report = run_export(
        ExportOptions(
            vault=tmp_path / "v", home=tmp_path / "home", sources=["cursor"], timezone=UTC
        )
    )
    assert not report.failed, report.problems
    (body,) = [
        d.decode()
        for d in note_files(tmp_path / "v").values()
        if b"use of moved value" in d and b"00812842" in d
    ]
    assert ".txt]]" not in body
    assert any("bubble_created_at," in content for _, content in _fences(body))


_PART = st.one_of(
    st.builds(
        lambda text, long: AttachmentPart(
            "text/plain", (text * (MAX_TOOL_OUTPUT // len(text) + 1) if long else text).encode()
        ),
        st.text(min_size=1, max_size=40).filter(str.strip),
        st.booleans(),
    ),
    st.builds(lambda data: AttachmentPart("image/png", b"\x89PNG" + data), st.binary(max_size=8)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_PART, min_size=1, max_size=4), st.booleans())
def test_the_files_copied_are_those_the_note_names(parts, reference):
    """Every file copied is named in its note (the attachments folder holds none that no
    note names), and every file the note names is copied (no embed of a missing file):
    for text files shown whole or cut, and images, through either body."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        note = _note(*parts, reference=reference, monkeypatch=monkeypatch)
    copied = {a.relpath for a in note.attachments}
    assert all(path.rpartition("/")[2] in note.body for path in copied)
    named = set(re.findall(r"attachments/ccexport/[0-9a-f]{16}\.\w+", note.body))
    assert named == copied
