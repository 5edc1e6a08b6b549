"""Session text must be visible exactly as typed, checked by rendering with CommonMark
(markdown-it-py), and must not create Obsidian tags, links, embeds or comments."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from obsidian_check import constructs

from exporter import markdown
from exporter.markdown import callout, code_span, escape_inline, escape_prose, fence

COMMONMARK = MarkdownIt("commonmark")
GFM = MarkdownIt("commonmark").enable(["table", "strikethrough"])  # as Obsidian reads notes


def visible(markdown: str, parser: MarkdownIt = COMMONMARK) -> str:
    """What a reader sees: rendered HTML without tags, entities decoded, spaces collapsed."""
    rendered = re.sub(r"</?code>", "", parser.render(markdown))  # (inline: no space)
    text = html.unescape(re.sub(r"<[^>]+>", " ", rendered))
    return " ".join(text.split())


def same_text(a: str) -> str:
    return " ".join(a.split())


TRICKY = [
    "How do I return a Vec<HeldoutItem> from a function?",
    'a question about <div class="note"> blocks',
    "the a < b && c > d comparison",
    "entities stay literal: &amp; &copy; &#35; &#x41;",
    "<!-- not a comment --> and <script>alert(1)</script>",
    "prices $5 and $10, paths $HOME/$USER",
    r"C:\Users\me\.claude and \*not emphasis\* typed with backslashes",
    "*args and **kwargs in __init__.py",
    "[[not a link]] and ![[not an embed]]",
    "#include <stdio.h> and #tag-like words",
    "%% not a comment %% stays visible",
    "see [the file](src/main.rs) and ![pic](img/a.png)",
    "a paragraph with a block id ^abc-1",
    "<https://example.com> in angle brackets",
]


@pytest.mark.parametrize("text", TRICKY)
def test_prose_renders_exactly_as_typed(text):
    assert visible(escape_prose(text, literal=True)) == same_text(text)


@pytest.mark.parametrize("text", [t for t in TRICKY if "*" not in t and "__" not in t])
def test_model_prose_keeps_brackets_visible(text):
    # Emphasis is formatting in a model's Markdown, so those samples are left out here.
    assert visible(escape_prose(text)) == same_text(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab <>&;#$%[]()!*_^\\:/=.\"'-", min_size=1, max_size=40))
def test_any_typed_text_is_visible_as_typed(text):
    line = "x " + text  # start with a word: a line-leading marker would be structure
    assert visible(escape_prose(line, literal=True)) == same_text(line)


def _emphasis_tokens(markdown: str) -> list[str]:
    tokens = COMMONMARK.parseInline(markdown)[0].children or []
    return [t.type for t in tokens if t.type in ("em_open", "strong_open")]


# Runs of either marker with words, spaces and punctuation on both sides: every flanking
# case and the rule of three (runs of 1 to 4).
_EMPHASIS_PIECES = st.sampled_from(
    ["*", "**", "***", "****", "_", "__", "___", "a", " ", ".", "(", "/"]
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(_EMPHASIS_PIECES, max_size=24).map("".join))
def test_typed_emphasis_markers_pair_nowhere_and_each_escape_is_needed(text):
    """A person's ``*`` and ``_`` stay text, and only the runs that would close emphasis
    are escaped: given the rest of the line, un-escaping any one of them lets CommonMark
    pair it again (the text holds no backslash of its own, so each one was added). A word
    that reads as code (``src/__init__.py``) is a code span instead, its text as typed."""
    line = "x " + text
    out = escape_prose(line, literal=True)
    assert _emphasis_tokens(out) == []
    assert out.replace("\\", "").replace("`", "") == line
    for run in re.finditer(r"(?:\\[*])+|(?:\\_)+", out):
        unescaped = out[: run.start()] + run.group(0).replace("\\", "") + out[run.end() :]
        assert _emphasis_tokens(unescaped), (out, run.group(0))
    codes = [t.content for t in COMMONMARK.parseInline(out)[0].children or []
             if t.type == "code_inline"]  # fmt: skip
    for code in codes:  # a word as typed, with a run that would have needed its escape
        assert code in line, (out, code)
        assert re.search(r"[*_]", code) and any(c.isalnum() for c in code), (out, code)


# PRODUCT.md: what a person remembers is found as typed (Obsidian searches the raw text).
_FINDABLE = ["src/__init__.py", "**/*.ts", "mcp__server__tool", "snake_case", "__main__",
             "tests/**/test_*.py", "a*b*c", "v1.2_beta_", "__init__.py"]  # fmt: skip
_AROUND_WORDS = st.sampled_from(["see", "and", "(", ")", ",", ".", "**bold**", "_x_", "*", "__"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_FINDABLE) | _AROUND_WORDS, min_size=1, max_size=10))
def test_typed_paths_and_identifiers_are_found_as_typed(words):
    """Each path or identifier typed in a prompt is in the note's text as typed, whatever
    stands around it, and shows as typed; nothing in the line becomes emphasis."""
    line = "x " + " ".join(words)
    out = escape_prose(line, literal=True)
    for word in words:
        if word in _FINDABLE:
            assert word in out, (line, out)
    assert visible(out) == same_text(line)
    assert _emphasis_tokens(out) == []


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(_FINDABLE) | _AROUND_WORDS, min_size=1, max_size=10),
    st.integers(0, 10),
    st.sampled_from(["`", "it`s", "`x"]),
)
def test_a_persons_lone_backtick_never_pairs_with_a_code_span_made_for_a_word(words, at, tick):
    """A backtick of the person's (``it`s``) left unpaired is text: a code span made for
    ``src/__init__.py`` beside it would pair with it and swallow the text between."""
    words.insert(min(at, len(words)), tick)
    line = "x " + " ".join(words)
    out = escape_prose(line, literal=True)
    assert visible(out) == same_text(line)
    assert _emphasis_tokens(out) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FINDABLE) | _AROUND_WORDS, min_size=1, max_size=10))
def test_identifiers_in_a_title_are_found_as_typed_in_its_heading(words):
    """A title (the note's heading, a call's title) holds its paths and identifiers as typed,
    as the prompt below it does: ``# in __init__, check`` was ``# in __init\\_\\_, check``."""
    title = "x " + " ".join(words)
    out = escape_inline(title)
    for word in words:
        if word in _FINDABLE:
            assert word in out, (title, out)
    assert visible("# " + out) == same_text(title)
    assert _emphasis_tokens("# " + out) == []


def test_a_typed_dunder_path_is_code_and_typed_emphasis_keeps_its_look():
    out = escape_prose("edit (src/__init__.py). You **MUST** keep _this_", literal=True)
    assert out == "edit (`src/__init__.py`). You **MUST\\*\\* keep _this\\_"
    out = escape_prose("4. **Generate tasks.md**: from __init__", literal=True)
    assert out == "4. **Generate tasks.md\\*\\*: from `__init__`"
    out = escape_prose("it`s failing in src/__init__.py now", literal=True)
    assert out == "it`s failing in src/__init\\_\\_.py now"  # (a lone backtick: escaped)


def test_code_is_left_untouched():
    text = "use `a<b>` here\n\n```rust\nlet v: Vec<&str> = x; // $y #z [[w]] %%\n```\nafter <x>"
    out = escape_prose(text)
    assert "`a<b>`" in out
    assert "let v: Vec<&str> = x; // $y #z [[w]] %%" in out.split("\n")
    tokens = COMMONMARK.parse(out)
    fences = [t.content for t in tokens if t.type == "fence"]
    assert fences == ["let v: Vec<&str> = x; // $y #z [[w]] %%\n"]
    assert visible(out).endswith("after <x>")


def test_indented_code_block_is_left_untouched():
    text = "Pasted:\n\n    if a < b:\n        return $x\n\nthat is all <ok>"
    out = escape_prose(text, literal=True)
    tokens = COMMONMARK.parse(out)
    assert [t.content for t in tokens if t.type == "code_block"] == ["if a < b:\n    return $x\n"]


def test_list_continuation_is_prose_not_code():
    text = "1. step one\n\n    keep <b> and #tag here\n"
    out = escape_prose(text)
    assert "\\<b>" in out and "\\#tag" in out and visible(out) == "step one keep <b> and #tag here"


def test_headings_are_demoted_below_the_turn_headings():
    """A reply's "## Steps" becomes "####" (NOTE-EXAMPLE.md), its "###" h5: a reply's own
    outline kept below the turn headings (h3), where "###" and deeper were all h6."""
    text = "# Title\n\n## Steps\n\n### One\n\n#### Detail\n\n###### Deep\n\nSetext\n===\n\ntext"
    out = escape_prose(text)
    levels = [t.tag for t in COMMONMARK.parse(out) if t.type == "heading_open"]
    assert levels == ["h4", "h4", "h5", "h6", "h6", "h4"]
    assert "\n#### Steps\n" in out


def test_a_hash_line_indented_past_its_paragraph_stays_text_as_written():
    # Four columns or more past the paragraph's container, "# x" cannot start a heading:
    # it is the paragraph's text, and stays "#" (it was shown as "####").
    for text in ("a\n    # b", "- item\n      # x", "> a\n>     # b", "a\n        ## c"):
        assert escape_prose(text) == text
    # Three columns or fewer inside its container, it is a heading: demoted.
    for text, demoted in (
        (">a\n>    ## b", ">a\n>    #### b"),  # the quote's marker takes one space
        ("1. a\n    # h", "1. a\n    #### h"),  # three columns into the item
        ("- a\n     # x", "- a\n     #### x"),
    ):
        assert escape_prose(text) == demoted


def test_indented_code_found_twice_is_left_to_no_guess():
    # The parser reads the last line as indented code and the second as a heading in the
    # item; the same text was taken for the code at the first place it matched, and kept
    # verbatim there: a live h1. Found in two places for one block, it is now unsure.
    text = "- a\n    # d\n# d\n    # d"
    assert not re.search(r"<h[1-3]>", COMMONMARK.render(escape_prose(text)))
    # The same snippet twice, two blocks: each is found, the layout kept.
    assert escape_prose("x\n\n    code\n\ny\n\n    code\n") == "x\n\n    code\n\ny\n\n    code\n"


_CONTAINERS = ["", "> ", ">", "- ", "1. ", "10. ", "> - ", ">  - "]
_PREFIXES = st.sampled_from(
    [*_CONTAINERS, "  ", "   ", "    ", "     ", "      ", "        ", ">    ", ">     "]
)
_BODIES = st.sampled_from(["a", "b c", "# d", "## e", "### f", "#g"])


def _hash_lines(first: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    # ("10. " below a paragraph's line is its text, which the escaper reads as an item.)
    line = st.tuples(_PREFIXES.filter(lambda p: p != "10. "), _BODIES).map("".join)
    return st.tuples(st.tuples(first, _BODIES).map("".join), st.lists(line, max_size=6)).map(
        lambda t: "\n".join([t[0], *t[1]])
    )


@pytest.mark.parametrize(
    "text",
    [
        ">     a\n> - a\na\n>     # d",  # found by the property below
        ">     a\n> - a\n#g\n>     # d",  # and again: "#g" is no heading, so it is lazy
        ">     a\n> - a\n2. g\n>     # d",  # nor is an item numbered 2 (cannot interrupt)
        ">     a\n> - a\n-\n>     # d",  # nor an empty one
        ">     x\n> - a\nb\n>     ## d",
        ">     x\n> 1. a\nb\n>      # d",
        ">     x\n>> - a\nb\n>>     # d",
        "> ```\n> x\n> ```\n> - a\nb\n>     # d",
    ],
)
def test_a_quote_going_on_after_a_lazy_line_is_not_taken_for_code(text):
    # mistune closes the quote and its list item at the unquoted (lazy) line and reads the
    # last line as code in a new quote; to CommonMark it is a heading in the list item.
    out = escape_prose(text)
    assert not re.search(r"<h[1-3]>", COMMONMARK.render(out))
    assert visible(out) == visible(fence(text, "text"))  # the unsure path: verbatim


@given(_hash_lines(_PREFIXES))
@settings(max_examples=400)
def test_no_hash_line_becomes_a_heading_above_the_turn_headings(text):
    out = COMMONMARK.render(escape_prose(text))
    assert not re.search(r"<h[1-3]>", out)


@given(_hash_lines(st.sampled_from(_CONTAINERS)))
@settings(max_examples=400)
def test_a_hash_that_is_text_stays_text_as_written(text):
    """A text whose every "#" is text to CommonMark renders the same once escaped: no "#"
    turned into "####". Not covered (still demoted, safely): a paragraph whose first line
    is indented more than its container needs (its container's column is not known from
    its lines alone), and a line continuing a quote's paragraph without the quote's ">"."""
    lines = text.split("\n")
    assume(all(line.count(">") == lines[0].count(">") for line in lines))
    if not re.search(r"<h[1-6]>", COMMONMARK.render(text)):
        assert COMMONMARK.render(escape_prose(text)) == COMMONMARK.render(text)


def test_nothing_becomes_an_obsidian_tag_link_embed_or_comment():
    out = escape_prose("#tag [[link]] ![[embed.png]] %%hidden%% $x^2$ text ^block", literal=True)
    assert not re.search(r"(?<![\\\w])#\w", out)  # a tag needs an unescaped #
    assert "[[" not in out.replace("\\[\\[", "")
    assert "%%" not in out.replace("\\%\\%", "")
    assert not re.search(r"(?<!\\)\$", out)
    assert not re.search(r"(?<!\\)\^block$", out)


def test_relative_links_are_text_web_links_stay_links():
    out = escape_prose("see [notes](other-note.md) or [docs](https://docs.rs/x)")
    links = [t for t in COMMONMARK.parseInline(out)[0].children if t.type == "link_open"]
    assert [t.attrs["href"] for t in links] == ["https://docs.rs/x"]
    assert visible(out) == "see [notes](other-note.md) or docs"


_PATH_PIECES = st.sampled_from(["src", "/", "_", "__", "*", "**", "a", "tests", ".", "-", "x_y"])
_PATH = st.lists(_PATH_PIECES, min_size=1, max_size=8).map("".join)


@given(_PATH, st.sampled_from(["[t]({p})", "[t]({p}:12)", '<a href="{p}">', "<http://x/{p}>"]))
@settings(max_examples=600)
def test_a_local_link_or_tag_made_text_shows_its_path_as_written(path, shape):
    """In a model's reply a link to a local file, an HTML tag or an autolink becomes text;
    what was its destination (never inline text) must not turn into emphasis then."""
    assume(path.strip(" ") and not path.startswith(("/", ".")) and ">" not in path)
    text = "see " + shape.format(p=path) + " now"
    shown = visible(escape_prose(text))
    assert path in shown.replace("<", " ").replace(">", " ").replace("(", " ").replace(")", " ")


def test_a_path_in_a_link_made_text_keeps_its_underscores():
    for text in ("See [t.ts](src/__tests__/t.ts)", "x <span class=\"__a__\">y</span>",
                 "<http://x.com/__b__/c>", "[a](/p/_b_/c) with *emphasis* kept"):  # fmt: skip
        out = escape_prose(text)
        assert "<strong>" not in COMMONMARK.render(out).replace("<em>emphasis</em>", "")
        assert "<em>" not in COMMONMARK.render(out).replace("<em>emphasis</em>", "")
    assert escape_prose("[f](my_file.py)") == "[f\\](my_file.py)"  # no pair: no backslash


def test_unclosed_fence_is_closed_so_the_note_continues():
    out = escape_prose("```python\nprint(1)")
    assert out.endswith("\n```")
    after = COMMONMARK.parse(out + "\n\n## Next turn")
    assert any(t.type == "heading_open" for t in after)


def test_a_code_span_across_lines_is_code_as_the_parser_says():
    text = "a `span that\ncrosses lines <x>` end <y>"
    out = escape_prose(text)
    spans = [t.content for t in COMMONMARK.parseInline(out)[0].children if t.type == "code_inline"]
    assert spans == ["span that crosses lines <x>"]
    assert out == "a `span that\ncrosses lines <x>` end \\<y>"


def test_fenced_block_inside_a_list_item_does_not_desynchronise_the_text_after_it():
    text = (
        "- step\n  ```py\n  x = 1\n  ```\n  then #tag <div onclick=x> [[link]] ![[embed]] $m$ %%c%%"
    )
    out = escape_prose(text)
    assert "  x = 1" in out.split("\n")
    assert constructs(out) == []
    assert visible(out) == "step x = 1 then #tag <div onclick=x> [[link]] ![[embed]] $m$ %%c%%"


def test_text_the_parser_places_differently_than_commonmark_is_shown_verbatim():
    # mistune reads the last line as inside the list item's fence; CommonMark does not.
    text = "- ```\n#tag"
    out = escape_prose(text)
    assert [t.content for t in COMMONMARK.parse(out) if t.type == "fence"] == [text + "\n"]


@pytest.mark.parametrize(
    "content", ["plain", "has ``` inside", "has ```` four and ``` three", "`edge`"]
)
def test_fence_cannot_be_broken_by_its_content(content):
    tokens = COMMONMARK.parse(fence(content, "text") + "\n\nafter")
    assert [t.content for t in tokens if t.type == "fence"] == [content + "\n"]


def test_code_span_and_inline_and_callout():
    assert visible(code_span("a`b")) == "a`b"
    assert (
        visible(escape_inline("Title with #tag [[x]] | pipe <b>"))
        == "Title with #tag [[x]] | pipe <b>"
    )
    box = callout("note", "Output", "line 1\n\nline 3\n")
    assert box == "> [!note]- Output\n>\n> line 1\n>\n> line 3"
    assert (
        callout("example", "Tool output", fence("x"))
        == "> [!example]- Tool output\n> ```\n> x\n> ```"
    )


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(["", " ", "x", "> ", "\r", "```"]), min_size=1, max_size=12))
def test_every_empty_line_of_a_callout_is_a_bare_quote_marker(lines):
    """Runs of empty lines of any length: each becomes ">" alone, as a line-by-line
    rewrite of the quoted text gives (no trailing space for editors to strip)."""
    body = "\n".join(lines).strip("\n")
    box = callout("note", "T", body)
    quoted = "> " + "\n> ".join(body.split("\n"))
    assert not body or box.endswith(re.sub(r"(?m)^> $", ">", quoted))
    assert not re.search(r"(?m)^> $", box)


@pytest.mark.parametrize("body", ["---", "=", "- \n- ", "    indented #code", "text\n---"])
def test_a_callout_body_never_joins_its_title(body):
    box = callout("quote", "Thinking", escape_prose(body))
    found = [c for c in constructs(box) if c.detail not in ("h4", "h5", "h6")]
    assert [c.kind for c in found] == ["callout"]


def test_a_fence_the_parse_saw_as_html_is_shown_verbatim():
    # Inside an HTML block "```" is text; once "<div>" is escaped it would open a fence.
    text = "<div>\n```\n#tag [[x]]"
    out = escape_prose(text)
    assert [t.content for t in COMMONMARK.parse(out) if t.type == "fence"] == [text + "\n"]
    assert constructs(out) == []


def test_the_lines_of_an_html_block_stay_text_once_its_opener_is():
    # To CommonMark these lines are raw HTML up to the blank line: text, not a quote, a
    # heading, a list or a rule. Escaping the opener alone made them all live.
    for text, shown in (
        ("<div>\n> quoted\n# h\n</div>", None),
        ("<source>\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n</source>", None),
        ("<details>\n- a\n1. b\n***\n</details>", None),
        ("> <div>\n> > q\n> - a", "<div> > q - a"),  # inside the quote
    ):
        out = escape_prose(text)
        opened = [t.type for t in COMMONMARK.parse(out) if t.type.endswith("_open")]
        assert opened in (["paragraph_open"], ["blockquote_open", "paragraph_open"]), out
        assert visible(out) == (shown or same_text(text))
    # A comment that ends on its own line leaves the next line a heading (demoted).
    assert escape_prose("<!-- c -->\n# h") == "\\<!-- c -->\n#### h"


_HTML_OPENERS = st.sampled_from(
    ["<div>", "<source>", "<details open>", "<pre>", "<!-- note", "<?php", "</section>"]
)
_HTML_LINES = st.sampled_from(
    ["> q", ">> q", "# h", "## h", "- a", "+ a", "* a", "1. b", "2) b", "***", "---", "===",
     "text", "<p>", "</div>", "> # h", "- > x", "[x]: y", "- [ ] t",
     "| a | b |", "| --- | --- |", "|:-:|", "a | b", "--- | :--", " -|-"]
)  # fmt: skip


@given(_HTML_OPENERS, st.lists(_HTML_LINES, min_size=1, max_size=6))
@settings(max_examples=500)
def test_an_html_block_made_text_is_one_paragraph_shown_as_written(opener, lines):
    text = "\n".join([opener, *lines])
    out = escape_prose(text)
    opened = [t.type for t in GFM.parse(out) if t.type.endswith("_open")]
    assert opened == ["paragraph_open"], out  # no table either, as Obsidian reads them
    assert visible(out, GFM) == same_text(text)


@given(
    st.sampled_from(["<pre>", "<script>", "<style>", "<!-- c", "<?php", "<![CDATA[", "<textarea>"]),
    st.lists(st.one_of(_HTML_LINES, st.just("")), min_size=1, max_size=8),
)
@settings(max_examples=500)
def test_an_html_block_that_goes_on_past_blank_lines_stays_text_to_its_end(opener, lines):
    """<pre>, <script>, a comment… run to their end marker, blank lines and all: every
    line up to it is text, in as many paragraphs as the blank lines make."""
    text = "\n".join([opener, *lines])
    out = escape_prose(text)
    opened = {t.type for t in GFM.parse(out) if t.type.endswith("_open")}
    assert opened <= {"paragraph_open"}, out
    assert visible(out, GFM) == same_text(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab -.,:;!?()'\"/@+ü世*_#`[]<&\\", min_size=1, max_size=30))
def test_a_title_nothing_acts_on_is_returned_unread_and_as_the_full_escape_gives_it(text):
    from exporter import markdown_text

    # ``plain`` (rules for the start of lines, which a title does not have) only turns the
    # shortcut off: every rule then runs.
    full = markdown_text._escape_text(text, literal=True, inline=True, plain={-1})
    assert markdown_text._escape_text(text, literal=True, inline=True) == full
    if not re.search(r"[*_#`\[\]<&\\]|::", text):
        assert full == text


def test_a_plain_title_is_not_walked_for_emphasis_or_markers(monkeypatch):
    from exporter import markdown_text

    def walked(*args):
        raise AssertionError("walked")

    monkeypatch.setattr(markdown_text, "_emphasis", walked)
    assert escape_inline("Fix the  login flow (v2.1): tests pass") == (
        "Fix the login flow (v2.1): tests pass"
    )
    with pytest.raises(AssertionError):
        escape_inline("a *starred* word")


_ITEMS = st.sampled_from(["- ", "* ", "1. ", "10. ", "> - ", "- > ", "1. - ", "> 1. "])
_FENCES = st.sampled_from(["```", "~~~", "````"])
_LIVE = st.sampled_from(["[[PWN note]]", "#PWNtag", "![[PWN.png]]", "%%", "==PWN==", "$PWN$",
                         '<span style="display:none">PWN</span>', "PWN:: v"])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(_ITEMS, _FENCES, st.lists(_LIVE, min_size=1, max_size=3), st.integers(0, 6), st.booleans())
def test_a_code_line_left_of_its_fence_in_a_list_item_never_becomes_live(
    item, fence, live, indent, opener_on_item
):
    """Models write a list item's fence with its code lines unindented. CommonMark ends the
    item at such a line, which is then text, where links, tags and a lone %% act; mistune
    kept it as code, unescaped (the safety audit found 2,000 such shapes). After a quote's
    line, a fence without its own ``>`` may continue the quote's paragraph: text too."""
    inner = " " * len(item) if not opener_on_item else ""
    head = f"{item}{fence}sh" if opener_on_item else f"{item}Run this:\n{inner}{fence}sh"
    code = "\n".join(" " * indent + token for token in live)
    text = f"Steps:\n\n{head}\n{code}\n{inner}{fence}\n\n2. Done."
    assert constructs(escape_prose(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "1. </div>\n  <?x\n- ?>^Qid\n\n\t===#Qtag <b>Q</b>",  # the safety audit's fuzz
        "1. First\n2. Second\n\n\tfunc main() { #tag [[x]] }",
        "- a\n\n\t\t%%\n\t[[x]] #tag",
    ],
)
def test_a_tab_indented_line_below_a_list_item_never_becomes_live(text):
    """A tab below a list item may reach only the item's text to CommonMark (a paragraph
    of the item, where tags and links act), while the parser took the line for code."""
    assert constructs(escape_prose(text)) == []


def test_a_tab_indented_block_after_a_list_has_ended_stays_code():
    """Only a list item just above makes a tab-indented block unsure: a paragraph at the
    left margin between ends the list, and the block is code (it was shown verbatim)."""
    text = "- item one\n\nSome text.\n\n\tcode line #x\n\nA [[wikilink]] and #tag after."
    out = escape_prose(text)
    assert "\n\tcode line #x\n" in out and not out.startswith("```")
    assert constructs(out) == []


_PASTED_LINE = st.tuples(
    st.sampled_from(["", "", "  ", "    ", "\t", "                  "]),
    st.sampled_from("abXY"),  # (a line starting with a letter starts no block of its own)
    st.text(alphabet="ab_#*[]<>:=~^|$%`-.() ", max_size=12).map(str.rstrip),
).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["Traceback:", "error[E0425]: x", "It fails"]),
    st.lists(_PASTED_LINE, min_size=1, max_size=6),
)
@example("Traceback:", ["a~~:", "a`", "a~~", "    a`"])  # found by the fuzz audit
def test_a_pasted_block_laid_out_by_spaces_keeps_every_line_as_typed(first, rest):
    """A prompt paragraph whose later lines are indented (a traceback, a compiler's
    diagnostics) is a fenced text block holding each line exactly, indentation included:
    as prose CommonMark drops it, and the ``^^^^`` under an expression points at nothing."""
    deep = any(line.startswith(("    ", "\t")) for line in rest)
    assume(deep or sum(line.startswith("  ") for line in rest) >= 2)
    text = "\n".join([first, *rest])
    whole = f"{text}\n\nAfter that, #tag?"
    out = escape_prose(whole, literal=True)
    if markdown._layout(whole) is None:
        # Where the layout is unsure of the text's blocks (a code span across an indented
        # line), all of it is one fenced block, shown as typed: never live, nothing lost.
        assert out == fence(whole, "text")
        return
    tokens = COMMONMARK.parse(out)
    assert [t.content for t in tokens if t.type == "fence"] == [text + "\n"], out
    assert visible(out).endswith("After that, #tag?")


def test_a_pasted_block_with_nothing_to_escape_is_laid_out_too():
    text = "It fails\n  at line 3\n    in main"
    assert escape_prose(text, literal=True) == f"```text\n{text}\n```"
    assert escape_prose("> quote\n>     indented", literal=True) == (
        "> ```text\n> quote\n>     indented\n> ```"
    )
    # A line going on without its quote's ">" keeps its spaces too.
    out = escape_prose("> Traceback:\n>   File x.py\n      y = 1/0", literal=True)
    assert out == "> ```text\n> Traceback:\n>   File x.py\n>       y = 1/0\n> ```"


def test_typed_prose_without_indented_lines_stays_prose():
    text = "first line\nsecond line with snake_case\n- a list\n  continued"
    tokens = COMMONMARK.parse(escape_prose(text, literal=True))
    assert not [t for t in tokens if t.type in ("fence", "code_block")]
    # One line indented two columns is how prose a terminal wrapped reads: prose still.
    text = "why would jobs go there, when it just pulled\n  jobs from a central queue: see x"
    assert "```" not in escape_prose(text, literal=True)
    # A reply's indented lines are the model's layout, not a paste: left to Markdown.
    tokens = COMMONMARK.parse(escape_prose("It fails:\n  File x.py\n    y = 1"))
    assert not [t for t in tokens if t.type in ("fence", "code_block")]


@pytest.mark.parametrize(
    ("info", "shown"),
    [
        ("typescript:src/app/app.routes.ts", "typescript typescript:src/app/app.routes.ts"),
        (
            "327:333:/Users/dev/git-ai/src/agent_preset.rs",
            "rust 327:333:/Users/dev/git-ai/src/agent_preset.rs",
        ),
        ("dataview:notes/x.md", "sql dataview dataview:notes/x.md"),  # (still no plugin's)
        ("python", "python"),
        ("js title=app.js", "js title=app.js"),
    ],
)
def test_a_cursor_citation_in_a_fence_keeps_its_language_first(info, shown):
    """Cursor's replies cite the file a block is from where its language goes: Obsidian
    takes the first word for the language, so the language goes first, the citation after."""
    out = escape_prose(f"Here:\n\n```{info}\nconst a = 1;\n```")
    tokens = COMMONMARK.parse(out)
    assert [t.info for t in tokens if t.type == "fence"] == [shown]
    assert [t.content for t in tokens if t.type == "fence"] == ["const a = 1;\n"]


def test_a_run_of_hyphens_under_a_line_needs_one_backslash():
    """A ``----`` line that would underline the text above (or, lazily, a list item) is
    text with one backslash: ``\\-\\-\\-\\-`` doubled the line and hid it from a search."""
    out = escape_prose("add the following:\n- User name\n----\n- list of", literal=True)
    assert "\n\\----\n" in out
    assert visible(out) == same_text("add the following: User name ---- list of")
    # "=" runs still take one each: what is left of a run could pair into a highlight.
    assert "\n\\=\\=\\=\n" in escape_prose("a ==x\nb\n===\nmore==", literal=True)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["", "Here is a quote:\n", "> first\n"]),
    st.lists(_LIVE, min_size=1, max_size=2),
    st.sampled_from([0, 0, 0, 1, 3, 4, 6]),
    _FENCES,
    st.lists(_LIVE, min_size=1, max_size=2),
    st.booleans(),
)
def test_a_quote_line_right_before_a_fence_keeps_the_replys_layout(
    above, quoted, indent, fence, code, literal
):
    """A fence opening on the line after a quote's line (no ``>`` of its own) opens a code
    block, which ends the quote, when it is indented less than four columns: the whole
    message was shown as one ``text`` block, its formatting and its code's colours lost.
    Indented further it goes on in the quote's paragraph: no ``python`` block then. (A
    fence indented one to three columns with code left of it is still shown verbatim, a
    rule of its own.) Either way nothing of it is live."""
    text = f"{above}> {' '.join(quoted)}\n{' ' * indent}{fence}python\n" + "\n".join(code)
    text += f"\n{fence}\nDone."
    out = escape_prose(text, literal=literal)
    assert constructs(out) == []
    fences = [t for t in COMMONMARK.parse(out) if t.type == "fence"]
    if indent == 0:
        assert [(t.info, t.content) for t in fences] == [("python", "\n".join(code) + "\n")]
    elif indent >= 4:
        assert "python" not in [t.info for t in fences]


@settings(max_examples=200, deadline=None)
@given(
    st.text(st.sampled_from("abc xyz_.:*"), max_size=12).map(lambda s: "Plan" + s),
    st.sampled_from(["-", "="]),
    st.integers(1, 8),
    st.sampled_from(["", "> ", "- ", "1. "]),
)
def test_a_line_typed_over_a_run_of_dashes_stays_as_typed(line, mark, n, container):
    """Under a person's line, ``---`` or ``===`` is text as typed, most likely a separator:
    it was made a heading, the run gone and words in the note's outline never typed. (A
    model's reply keeps its heading, demoted.)"""
    inner = " " * len(container) if container[:1] != ">" else container
    text = f"{container}{line}\n{inner}{mark * n}\n{inner}step 1"
    out = escape_prose(text, literal=True)
    assert not [t for t in COMMONMARK.parse(out) if t.type == "heading_open"]
    assert visible(out) == same_text(f"{line} {mark * n} step 1")
