"""The fast scan finds exactly the code the CommonMark parser finds, or steps aside.

``markdown_scan.scan`` reads plain texts without the parser. Wherever it answers,
its blocks and spans must be the parser's, the layout read from where it found them must
be the one found by looking for the parser's code in the text, and the Markdown built from
them must be the bytes the parser's path builds: checked on random Markdown made of the characters that
open and close code, containers, links, HTML and strikethrough, and on every text of the
corpus sessions. It must also answer for most texts, or it speeds nothing up.
"""

from __future__ import annotations

import os
import time
from collections import Counter

import pytest
from conftest import CORPUS
from corpus_home import corpus_texts
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exporter import markdown, markdown_code, markdown_parsed, markdown_scan, markdown_text
from exporter.markdown_scan import scan


def scanned_code(text: str) -> tuple | None:
    """What the scan finds, in the parser's shape (blocks, spans); None where it steps aside."""
    found = scan(text)
    return None if found is None else found[:2]


def _shape(found: tuple) -> tuple:
    """What the layout uses of a parse: each block's raw text, style, marker and info, and
    each span's code with its white space folded."""
    blocks, spans = found
    return (
        [
            (b["raw"], b.get("style"), b.get("marker"), (b.get("attrs") or {}).get("info"))
            for b in blocks
        ],
        [" ".join(s.split()) for s in spans],
    )


def _reference(function, text: str):
    os.environ[markdown_code.REFERENCE_ENV] = "1"
    markdown_code.read_reference_switch()
    try:
        return function(text)
    finally:
        del os.environ[markdown_code.REFERENCE_ENV]
        markdown_code.read_reference_switch()


def _check(text: str) -> bool:
    """Assert the scan agrees with the parser on ``text``; True when the scan answered."""
    scanned = scanned_code(text)
    if scanned is None:
        return False
    assert _shape(scanned) == _shape(markdown_parsed._parser_code(text)), text
    _blocks, _spans, fences, places = scan(text)
    lines = text.split("\n")
    located = markdown_parsed.located_layout(text, lines)
    assert markdown_code._scanned_layout(lines, fences, places) == located, text
    for function in (markdown.escape_prose, markdown.code_ranges):
        assert function(text) == _reference(function, text), text
    return True


_PIECES = st.sampled_from(
    ["`", "``", "```", "````", "~~", "~~~", "~", "\\", "\\`", "*", "_", "[", "]", "(", ")",
     "](x)", "]: ", "<", ">", "<a>", "<b ", "</a>", "<!--", "<http://x>", "|", "---", "#",
     "\n", "\n\n", "\n ", "\n  ", "\n   ", "\n    ", "\n     ", "\n      ", "\n\t", "\t",
     "\n> ", "\n- ", "\n1. ", "\n2) ", "\n* ", "\n```", "\n```py", "\n~~~", "\n````",
     "\n```\n", "\n ```", "\n  ```", "\n   ~~~", " ", "a", "b c", "x_y", "&amp;", "&#96;", "\r", "\u2028", "=", "$",
     "<system-reminder>", "</a-b>", "<a-b c='", "'>", "\"", "<div>", "<pre>", "\n<x-y>",
     "<!-- ", " -->", "<?", "<a\n", "- [ ] ", "[x]", "\n[a]: ", "===", "\n# "]
)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_random_markdown_scans_as_the_parser_reads_it(text):
    _check(text)


_PLAIN = st.sampled_from(
    ["`", "``", "```", "a", "b c", "x_y", " ", "\n", "\n\n", "\n```\n", "\n```py\n", "\n- ",
     "\n1. ", "#", "*", "<", "]", "|"]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(_PLAIN, max_size=30).map("".join))
def test_plain_markdown_scans_as_the_parser_reads_it(text):
    _check(text)


# What the line-start patterns look for, after a first letter (ASCII letters most often:
# a pattern that let one through would most likely let "a" through).
_AFTER_LETTER = st.sampled_from(
    [" ", "    ", "\t", "-", "*", "+", "1.", "2)", ">", "`", "```", "~~~", "<", "<div>",
     "<!--", "[", "]", "]:", "[!", "#", "##", "=", "a", "b", "z"]
)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(
    st.one_of(st.sampled_from("azAZ"), st.characters(categories=("Lu", "Ll", "Lt", "Lm", "Lo"))),
    st.lists(_AFTER_LETTER, max_size=8).map("".join),
)
def test_a_line_opening_with_a_letter_opens_no_block(first, rest):
    """The scan, the layout and the escaping pass over such a line without their
    line-start patterns (most lines of prose): none of those patterns can take it."""
    line = first + rest
    assert line[:1].isalpha()
    for pattern in (markdown_scan._FENCE_OPEN, markdown_scan._CONTAINER_OR_HTML,
                    markdown_scan._LABEL, markdown_scan._DEEP):  # fmt: skip
        assert pattern.match(line) is None, (pattern.pattern, line)
    assert markdown_code._CONTAINER.match(line).end() == 0
    assert line[0] not in markdown_code._BLANK
    marked: list[int] = []
    heading: dict = {}
    markdown_text._line_start(line, 0, False, marked.append, heading, len(line))
    assert marked == [] and heading == {}


def test_the_scan_answers_for_prose_with_spans_and_fences():
    text = (
        "Look at `src/main.rs` and `Vec<Item>`:\n\n1. Change `a < b`.\n- keep `x`\n\n"
        "```rust\nfn main() {}\n```\nAfter ``a ` b``.\n~~~\n```\n~~~\n"
    )
    assert _check(text)
    assert _check("<system-reminder>ctx</system-reminder>Why does `<T>` fail?")
    blocks, spans = scanned_code(text)
    assert [b["raw"] for b in blocks] == ["fn main() {}\n", "```\n"]
    assert spans == ["src/main.rs", "Vec<Item>", "a < b", "x", "a ` b"]


def test_the_scan_answers_for_nested_lists_task_lists_and_links():
    text = (
        "1. **Step** with `a_b`\n    - nested `c`\n      more `d`\n2. [x] done `e`\n"
        "- [ ] open `f`\n- [link] and `g`\n"
    )
    assert _check(text)
    assert scanned_code(text)[1] == ["a_b", "c", "d", "e", "f", "g"]
    assert _check("A `a|b` pipe.\n\n---\n\nNo table: the rule is below an empty line.")


def test_the_scan_answers_beside_links_that_close_where_they_open():
    """A link whose destination closes right after it (no title, no space, no backtick in
    it) claims no backtick, on its line or the next: most links in a reply."""
    text = (
        "Set `timeout_ms` as the [docs](https://example.com/a_b#c-d) say.\n\n"
        "- [Latency guide](https://example.com/latency) for `stream=True`\n"
        "- [`Session`](https://example.com/api/session) and [empty]()\n"
    )
    assert _check(text)
    assert scanned_code(text)[1] == ["timeout_ms", "stream=True", "Session"]


def test_the_scan_answers_for_block_quotes_of_plain_text():
    """A quote's lines of text (opening with a letter, a quotation mark or a code span)
    hold the code spans the line holds; a blank quoted line ends the paragraph in it."""
    text = (
        'He asked:\n> "Should `load_core` stay?"\n> \n> Or try `ping` first?\n'
        "> > nested `x`\n\nthen `y`\n"
    )
    assert _check(text)
    assert scanned_code(text)[1] == ["load_core", "ping", "x", "y"]


def test_a_table_makes_only_its_own_lines_unsure():
    """A table's cells end at pipes, inside code spans too; but a table is the run of
    non-blank lines around its delimiter row, so a span with a pipe after a blank line, in
    a paragraph or a list item of the same reply, is read by the scan."""
    text = (
        "| option | meaning |\n|---|---|\n| `-v` | more output |\n\n"
        "Pass `--level=debug|info` to choose.\n\n- or set `LOG=warn|error`\n"
    )
    assert _check(text)
    assert scanned_code(text)[1] == ["-v", "--level=debug|info", "LOG=warn|error"]
    # Indented lines after a blank line: code, as the table ended there.
    assert _check("| a |\n|---|\n| b |\n\nText `x|y`\n    more text `z`\n")


@pytest.mark.parametrize(
    "text",
    [
        "| a |\n|---|\n| `x|y` |",  # a row below the delimiter row
        "| a |\n|---|\nrow `x|y` without pipes",  # a row needs no pipe of its own
        "text above\n| a |\n|---|\n",  # a header interrupting a paragraph...
        "`x|y` above\n| a |\n|---|\n",  # ...is unsure with the lines above it
        "| a |\n|---|\n \t \n\u00a0`x|y`",  # a no-break space is no blank line
    ],
)
def test_a_span_with_a_pipe_in_a_tables_run_of_lines_is_left_to_the_parser(text):
    found = scan(text)
    assert found is None or not any("|" in s for s in found[1]), text


def test_a_span_whose_pipes_are_escaped_stays_whole_in_a_table():
    """GFM ends a cell at a pipe unless a backslash escapes it, in code spans too: a span
    whose every pipe is escaped is one span in the row, and the scan reads it."""
    text = "| type | returns |\n|---|---|\n| `find()` | `string \\| null` |\n"
    assert _check(text)
    assert scanned_code(text)[1] == ["find()", "string \\| null"]
    assert scanned_code("| a |\n|---|\n| `x \\\\| y` |") is None  # the backslash is escaped


_TABLE_PIECES = st.sampled_from(
    ["| a |\n|---|", "| b | c |\n|-|-|", "\n| ", " |", "|", "-", ":-", "`x|y`", "`z`",
     "`p \\| q`", "a", " ", "\n", "\n\n", "\n \n", "\n- ", "\n    ", "\n1. ", "\u00a0"]
)  # fmt: skip


def _gfm_inline(text: str) -> tuple[list[str], str]:
    """The code spans markdown-it with GitHub tables reads in ``text`` (as Obsidian does),
    and all the plain text it reads, joined."""
    from obsidian_check import _MD

    children = [c for t in _MD.parse(text) if t.type == "inline" for c in t.children or ()]
    codes = [" ".join(c.content.split()) for c in children if c.type == "code_inline"]
    return codes, " ".join(c.content for c in children if c.type == "text")


@settings(max_examples=1500, deadline=None)
@given(st.lists(_TABLE_PIECES, max_size=30).map("".join))
def test_no_span_the_scan_keeps_whole_is_cut_by_a_table(text):
    """Wherever the scan answers, no code span holding a pipe that it keeps whole is cut
    by a table cell in a renderer with GitHub tables: it is a code span there too (in a
    row, GFM reads an escaped pipe as a pipe, in code too: ``p \\| q`` shows ``p | q``),
    or in a cell past the header's count, which GFM drops: none of it is read as text."""
    if not _check(text):
        return
    codes, plain = _gfm_inline(text)
    spans = Counter(codes)
    for code in scanned_code(text)[1]:
        if "|" in code:
            code = " ".join(code.split())
            if not (spans[code] or spans[code.replace("\\|", "|")]):
                pieces = [p.strip(" \\") for p in code.split("|")]
                assert not any(p and p in plain for p in pieces), (text, code)


def test_the_scan_answers_for_fences_indented_in_list_items():
    """A fence indented by up to three spaces (in a list item or not) whose lines all keep
    its indentation, closed at that indentation: each line loses the indentation."""
    text = (
        "1. Add the type:\n   ```ts\n   let a: `T` = 1;\n     nested\n\n   ```\n"
        "2. Then `b`:\n  ~~~json\n  {}\n  ~~~\n- and\n ```\n x\n ```\n"
    )
    assert _check(text)
    blocks, spans = scanned_code(text)
    assert [b["raw"] for b in blocks] == ["let a: `T` = 1;\n  nested\n\n", "{}\n", "x\n"]
    assert [b.get("attrs", {}).get("info") for b in blocks] == ["ts", "json", None]
    # A blank line of spaces no wider than the fence's indentation: an empty line of it.
    text = "- [ ] Commit with:\n  ```\n  feat: add `x`\n  \n  body\n \n  ```\nthen `push`"
    assert _check(text)
    assert [b["raw"] for b in scanned_code(text)[0]] == ["feat: add `x`\n\nbody\n\n"]
    assert spans == ["b"]


def test_the_scan_answers_for_fences_in_nested_list_items():
    """A fence indented four spaces or more opens in the list item whose text starts up to
    three columns left of it (a deeper item ends there), as in a reply's nested lists."""
    text = (
        "  - `config/voice.json`\n    - Jarvis voice\n     ```json\n     {\n"
        '       "enabled": true\n     }\n     ```\n  - next `x`\n'
    )
    assert _check(text)
    blocks, spans = scanned_code(text)
    assert [b["raw"] for b in blocks] == ['{\n  "enabled": true\n}\n']
    assert spans == ["config/voice.json", "x"]


_LIST_PIECES = st.sampled_from(
    ["- a", "* b", "1. c", "2. d", "-    e", "  - f", "   - g", "    - h", "     - i",
     "      ```", "     ```", "    ```", "   ```", "  ```", "```", "    ~~~", "     x",
     "      y", "    z", "  w", "text `t`", "", " ", "     ", "\t```", "> q", "---", "- - -"]
)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(_LIST_PIECES, min_size=1, max_size=14).map("\n".join))
@example(text="- a\n-    e\n   ```\n     - i\n   ```")  # found: the parser's reading differs
# found: the parser reads a line of five spaces as no blank line, so "2." continues "w"
@example(text="  w\n     \n2. d\n      ```\n      ```")
def test_fences_in_list_items_scan_as_the_parser_reads_them(text):
    _check(text)


def test_a_long_line_of_dashes_or_markers_is_scanned_in_linear_time():
    """A guard against a pattern that backtracks quadratically (one did, on a line of
    dashes: 16,000 took 1.3 s, 200,000 would take minutes); linear, each takes milliseconds."""
    started = time.perf_counter()
    for line in ("-" * 200_000 + "x", "- " * 100_000 + "x", "|" * 200_000 + "x"):
        scanned_code(f"A `span`\n{line}\nand `more`")
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize(
    "text",
    [
        "    indented code",
        "<div>\n`x`\n</div>",
        "> ```\n> `x`",  # a fence in a quote
        "> - item `x`",  # a list in a quote
        "> | `a|b` |\n> |---|",  # a table in a quote
        ">\tcode `x`",  # a tab after the marker
        "> a\n> \n     `code`",  # indented code after the quote's blank line
        "<x-y>\n`x`\n",
        "<a title='`'>`x`",
        "<!-- `a` -->",
        "a `open\nclose` b",
        "~~a `b~~ c`",
        "[a `b]: c` d",
        "[a](`b`)",  # the destination holds the backticks
        "[a](b(c)`d`)",
        '[a](b "t\n`c`")',  # a title runs on to the next line
        "[a](b\n`c`)",
        "[label\nmore]: /url `x`",
        "- [\\]]: /url `x`",
        "a\n\n    `indented after a blank line`",
        "# heading\n    `indented after it`",
        "a\n---\n    `indented after an underline`",
        "- \n      `indented in an empty item`",
        "a\n\t`after a tab`",
        "| a |\n|---|\n    `x`",
        "| a |\n|---|\n     ",  # a blank line of spaces after a table: code to the parser
        "| `a|b` |\n|---|",
        "`a|b`\n|",
        "x | y\n`a|b`\n|",
        "foo\n-     bar\n",
        "- foo\n1)     bar `x`\n",
        "- a\n  - b\n    -     c\n",
        "`x|y`\n\u00a0|\u00a0\n",
        "|a|\n|\u3000|\n    code\n",
        "- ```\n  code\n  ```",
        "- a\n  ```\n  x\n ```\n  y",  # closed less indented: it may end the item first
        "- a\n  ```\n  x\n   ```",  # closed more indented than opened
        "- a\n   ```\n   x\n     \n   y\n   ```",  # a blank line of spaces
        "- a\n   ```\n   x\n   \t y\n   ```",  # a tab in the indentation
        "- a\n   ```\n   x\n  y\n   ```",  # a line less indented: the item may end
        "- a\n   ```\n   x",  # never closed
        "x\n2. a\n     ```\n     x\n     ```",  # "2." in a paragraph: text, not an item
        "- a\n      ```\n      x\n      ```",  # four past the item's text: the paragraph's
        "- a\n  - b\n     ```\n     x\n    ```",  # closed at the outer item's own column
        "- a\n   ```\n     ```\n   ```",  # a closer indented more: closes it in the item
        "a\r\n`b`",
        "\\`a`",
        "```c\\+\\+\nx\n```",
    ],
)
def test_the_scan_steps_aside_where_the_parser_must_decide(text):
    assert scanned_code(text) is None


@pytest.mark.corpus
def test_the_corpus_texts_scan_as_the_parser_reads_them(tmp_path, corpus):
    prose, outputs = corpus_texts(CORPUS, tmp_path / "home")
    for texts in (prose, outputs):
        with_code = [t for t in texts if markdown_code._HAS_CODE.search(t)]
        assert len(with_code) > 100
        answered = sum(_check(t) for t in with_code)
    # Most prose with code (prompts, replies, thinking: what is escaped) is plain enough,
    # or the scan saves nothing. Tool output is shown fenced; it is checked all the same.
    with_code = [t for t in prose if markdown_code._HAS_CODE.search(t)]
    answered = sum(scanned_code(t) is not None for t in with_code)
    assert answered > len(with_code) * 3 / 4, (answered, len(with_code))


@pytest.mark.parametrize(
    "text",
    [
        "> q\n- a\n> q",  # a list item without ">" closes the quote: no lazy line
        ">\n- \n> ",
        "> q\n- a\nb\n> `c`",  # "b" continues the item, not the closed quote
        "> `q`\n# a\n> q",
    ],
)
def test_a_quote_broken_by_a_block_of_its_own_is_read_alike_on_both_paths(text):
    # Found by the properties above at ten times their examples: the check for a quote going
    # on after a lazy line (markdown_code._requoted_after_lazy_line) must see these as no
    # lazy line, and both paths must give the same layout and escaping.
    lines = text.split("\n")
    assert not markdown_code._requoted_after_lazy_line(lines)
    _check(text)
    assert markdown.escape_prose(text) == _reference(markdown.escape_prose, text)
