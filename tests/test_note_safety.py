"""Nothing from a session becomes live syntax, and what it said stays visible as it was.

Random and adversarial Markdown goes in as a prompt, a reply, thinking, a tool call and its
output; the rendered note is read by a CommonMark parser with Obsidian's rules
(``obsidian_check``). The only constructs are the template's own: the same note rendered
from plain words has exactly the same ones (headings from a reply may add levels 4-6).
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from obsidian_check import Construct, constructs, visible

from exporter.markdown import ZERO_WIDTH_SPACE, escape_inline, escape_prose, fence
from exporter.model import (
    Message,
    Session,
    SummaryPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from exporter.notes import NoteSettings, build_note

# Everything Obsidian, its plugins or CommonMark act on, as fragments to combine.
ADVERSARIAL = [
    "#tag", "#nested/tag", "[[Note]]", "[[Note|alias]]", "![[embed.png]]", "![[Note#^id]]",
    "==mark==", "~~gone~~", "%%hidden%%", "%% ccexport:end %%", "$x^2$", "$$\nE=mc^2\n$$",
    " ^block-id", "key:: value", "[key:: v]", "(key:: v)", "`= this.file.name`",
    "`$= dv.pages()`", "```dataview\nLIST\n```", "```dataviewjs\ndv.el('b', 1)\n```",
    "```tasks\nnot done\n```", "~~~query\ntag:#x\n~~~", "```ad-note\n#live\n```",
    "<div onclick=alert(1)>", "<!-- c -->", "<script>x()</script>", "&amp;", "&#35;", "# Head",
    "## Two", "Setext\n===", "> [!warning] Boom", "- [ ] task", "- [x] done", "[ref]: ./x.md",
    "[^1]", "[^1]: note", "^[inline]", "[local](notes/x.md)", "![img](a.png)",
    "![remote](https://e.x/p.png)", "[web](https://e.x/a_b)", "<https://e.x>", "<file:///etc>",
    "[obs](obsidian://open?vault=v)", "---\ntitle: x\n---", "snake_case", "__init__.py",
    "**/*.ts", "mcp__srv__tool", "*em*", "_em_", "**strong**", "\\", "\\#", "`code`",
    "``a`b``", "- item\n  ```py\n  #x\n  ```\n  #after", "> quote\n> ```\n> #q\n> ```\n> #a",
    "    indented #code", "1. one\n2. two", "| a | b |\n|---|---|\n| #c | d |", "\n", "\n\n",
    "- ", "> ", "```", "~~~", "`", "*", "_", "[", "]", "(", ")", "!", "<", ">", "=", "~", "$",
    "%", "^", ":", "&", "|", "\t", "    ", "<%+ tp.file.title %>", "<%*+ app.vault %>",
    "<%_ *+\nx %>", "<%", "%>", "+", "<\\%+ x %>", "<%\\+ x %>", "<\\%*\\+ x %>", "<\\%\\_ \\~\\+ x %>", "`INPUT[toggle:done]`", "` VIEW[{title}] `",
    "```\nBUTTON[run]\n```", "INPUT[text:title]", "BUTTON[", "VIEW",
]  # fmt: skip
CHARS = "ab #$%[]()!*_^\\:=~`<>&;/-|.\n 1\t+"
markdownish = st.lists(
    st.one_of(st.sampled_from(ADVERSARIAL), st.text(alphabet=CHARS, max_size=6)), max_size=10
).map("".join)

ALLOWED_FROM_SESSION = {"heading": {"h4", "h5", "h6"}}
WHEN = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def _session(prompt: str, reply: str, thinking: str, command: str, output: str) -> Session:
    messages = (
        Message("user", (TextPart(prompt),), "u1", WHEN),
        Message(
            "assistant",
            (
                ThinkingPart(thinking),
                TextPart(reply),
                ToolCallPart("Bash", {"command": command}, "c1"),
                ToolCallPart("Task", {"prompt": reply, "subagent_type": "Explore"}, "c2", reply),
            ),
            "a1",
            WHEN,
        ),
        Message(
            "tool",
            (ToolResultPart(output, "c1"), ToolResultPart(reply, "c2")),
            "t1",
            WHEN,
        ),
        Message("assistant", (TextPart(reply),), "a2", WHEN),
    )
    return Session("claude-code", "s1", messages, Path("s1.jsonl"), title=None, project="p")


def _note_constructs(*texts: str) -> list[Construct]:
    note = build_note(_session(*texts), "n.md", NoteSettings(), lambda key: None)
    return constructs(note.body)


PLAIN = _note_constructs("plain words", "plain words", "plain words", "ls", "plain words")


def _extra(found: list[Construct]) -> Counter[Construct]:
    extra = Counter(found) - Counter(PLAIN)
    return Counter(
        {c: n for c, n in extra.items() if c.detail not in ALLOWED_FROM_SESSION.get(c.kind, ())}
    )


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(markdownish, markdownish, markdownish, markdownish, markdownish)
def test_session_text_never_becomes_a_construct_of_the_note(
    prompt, reply, thinking, command, output
):
    found = _note_constructs(
        prompt.strip() and prompt or "p",
        reply.strip() and reply or "r",
        thinking.strip() and thinking or "t",
        command.strip() and command or "c",
        output,
    )
    assert not _extra(found), (prompt, reply, thinking, command, output)
    assert Counter(PLAIN) - Counter(found) == Counter()  # the template's own are all there


def test_a_compaction_trigger_stays_text_in_the_callout_title():
    """The trigger is the source's word ("auto", "manual"), read from the transcript: it
    broke out of the title (a line break ended the callout) and made tags and links."""

    def found(trigger: str) -> list[Construct]:
        messages = (
            Message("user", (TextPart("q"),)),
            Message("system", (SummaryPart("s", trigger),)),
        )
        session = Session("claude-code", "s1", messages, Path("s1.jsonl"))
        return constructs(build_note(session, "n.md", NoteSettings(), lambda key: None).body)

    plain = Counter(found("auto"))
    for trigger in ADVERSARIAL:
        assert Counter(found(trigger)) == plain, trigger


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(ADVERSARIAL), min_size=1, max_size=6).map("".join))
# A fence opener holding a pipe above a delimiter row: a fence to CommonMark, a table (live
# cells) to markdown-it, which tries tables first. Found by this test in CI.
@example("#tag```dataview\nLIST\n```\\| a | b |\n|---|---|\n| #c | d |")
@example("> ```| a | b |\n> |---|---|\n> | #c | d |")
# A code span from a row to the lines below it: mistune ends the table and joins the lines
# into one span; GFM reads each line as a row, "#live" a live cell. Found by CI.
@example("| a | b |\n|---|---|\n| #c | d |```ad-note\n#live\n```1`")
# A pipe in a code span ends the cell in GFM; and a table in a quote, found by probing.
@example("| a | b |\n|---|---|\n| `x | #y` | z |")
@example("> | a |\n> |---|\n> | `b\n> #x` |")
# Two backslashes (one shown) before a backtick run: the run is not escaped, and escaping
# its first backtick left a shorter run that paired as a Dataview query. Found by this test.
@example("\\\\``= this.file.name`")
# A block that a line like a closing fence (text after it) does not close, ending in blank
# lines: Meta Bind reads its text without them, a button. Found by this test in CI.
@example("```\nBUTTON[run]\n```[[Note]]\n\n")
@example("```\nBUTTON[run]\n\n\n```\n")
def test_adversarial_constructs_alone_are_neutral_in_every_filter(text):
    for rendered in (escape_prose(text), escape_prose(text, literal=True)):
        found = [c for c in constructs(rendered) if c.detail not in ("h4", "h5", "h6")]
        assert not found, (text, rendered)
    assert constructs("# " + escape_inline(text)) == [Construct("heading", "h1")], text


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["::", ":", "\\", "key", "a b", " ", "-", "/", "_", "`k`", "`a::b`",
                                 "[x]", "(", "é", "1", "\n"]), max_size=12).map("".join))  # fmt: skip
@example("\\::key:: value")  # the author's escaped colon, then a key: found by CI
@example("::key:: value")
@example("- ::x:: y")
@example("\\_::key::")  # an escaped "_": a sign to Obsidian, a key's first letter to Dataview
def test_no_line_becomes_a_dataview_field(text):
    """Dataview reads a line as ``key:: value`` at its first ``::`` when only signs (colons
    and backslashes too) and a key come before it: breaking the first ``::`` of a line is
    not enough when nothing but signs precede it."""
    for rendered in (escape_prose(text), escape_prose(text, literal=True)):
        fields = [c for c in constructs(rendered) if c.kind == "dataview field"]
        assert not fields, (text, rendered)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["- ", "* ", "+ ", "1. ", "> - ", "  - "]), st.characters(exclude_characters="\n\r"),
       st.sampled_from([" Advanced Elicitation", "", "\tnext", " [b] more"]))  # fmt: skip
@example("- ", "a", " Advanced Elicitation")  # a BMAD menu in a reply (review46)
@example("- ", "?", "")
def test_no_list_item_becomes_a_task_whatever_its_box_holds(marker, box, rest):
    """Obsidian makes a task of any one character between the brackets ("[?]", "[-]",
    "[a]": statuses of themes and the Tasks plugin), which queries across the vault list
    and a click rewrites: none may come from session text."""
    text = f"{marker}[{box}]{rest}\n{marker}second line"
    for rendered in (escape_prose(text), escape_prose(text, literal=True)):
        tasks = [c for c in constructs(rendered) if c.kind == "task"]
        assert not tasks, (text, rendered)


LINE_START = st.sampled_from("abcxyzAB")


@settings(max_examples=400, deadline=None)
@given(LINE_START, st.text(alphabet="ab #$%[]()!*_^\\:=~<>&;/-|.123", max_size=50))
def test_what_a_person_typed_is_visible_exactly(first, rest):
    # Starting each line with a letter keeps list and heading markers out: those are
    # structure; everything else must read exactly as typed.
    text = first + rest
    assert visible(escape_prose(text, literal=True)) == " ".join(text.split())
    assert visible("# " + escape_inline(text)) == " ".join(text.split())


@settings(max_examples=400, deadline=None)
@given(LINE_START, st.text(alphabet="ab #$%[]!^:=~<>&;/-|.123\n", max_size=50))
def test_a_replys_text_is_visible_exactly(first, rest):
    # Without emphasis markers, backslashes, backticks and parentheses (a model's Markdown
    # formatting), a reply reads exactly as written, line starts kept to letters.
    text = first + rest.replace("\n", "\nq")
    assert visible(escape_prose(text)) == " ".join(text.split())


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=CHARS + "ü€\u200b", max_size=80))
@example("<%+")
def test_tool_output_is_kept_byte_for_byte_in_its_block(output):
    """Byte for byte, but for what Templater would run when the note is shown: a dynamic
    command's ``<%+`` gets a zero-width space after its ``<``, in code too (README). The
    test drew ``<%+`` once in a hundred-odd runs and failed on that exception."""
    from markdown_it import MarkdownIt

    from exporter.markdown import without_templater

    tokens = MarkdownIt("commonmark").parse(fence(output, "text") + "\n\nafter #x")
    blocks = [t.content for t in tokens if t.type == "fence"]
    shown = without_templater(output)
    assert blocks == [shown + ("\n" if shown and not shown.endswith("\n") else "")] or (
        not output and blocks == [""]
    )
    assert shown.replace(ZERO_WIDTH_SPACE, "") == output.replace(ZERO_WIDTH_SPACE, "")


def test_identifiers_are_written_without_escapes():
    text = "use snake_case, mcp__srv__tool, src/utils_v2.py and **/*.ts; flags --dry-run"
    assert escape_prose(text, literal=True) == text
    assert escape_prose(text) == text
    assert escape_inline(text) == text


LINKISH = st.lists(
    st.sampled_from(
        [
            "[notes](docs/setup.md)",
            "![shot](https://e.x/a.png)",
            "[web](https://e.x/b)",
            "[^1](https://e.x/f)",
            "\\[esc](https://e.x/e)",
            "[[",
            "]]",
            "[",
            "]",
            "!",
            "(",
            ")",
            "[a [b] c](https://e.x/n)",
            "`[`",
            " and ",
            "x",
            "\n",
        ]
    ),
    max_size=8,
).map("".join)


def _web_links(rendered: str) -> list[tuple[str, str]]:
    from markdown_it import MarkdownIt

    found = []
    for token in MarkdownIt("commonmark").parse(rendered):
        children = token.children or []
        for k, child in enumerate(children):
            if child.type == "link_open":
                end = next(j for j in range(k, len(children)) if children[j].type == "link_close")
                shown = "".join(c.content for c in children[k + 1 : end])
                found.append((shown, str(child.attrs.get("href", ""))))
    return found


@settings(max_examples=300, deadline=None)
@given(LINE_START, LINKISH)
@example("a", "[notes](docs/setup.md) and ![shot](https://e.x/a.png)")
@example("a", "[^1](https://e.x/f)[notes](docs/setup.md)")
def test_every_live_link_is_one_the_session_wrote_whole(first, rest):
    # A web link stays live, but only as written: an escaped bracket (an image's, a
    # footnote's, a local link's) must not let a "](https://…)" pair with another "[",
    # which would make a link the session never had (its text garbled, its address another's).
    text = first + rest
    # (A bracket the author escaped inside the link's text shows without its backslash, a
    # code span there without its backticks.)
    plain = "".join(text.replace("`", "").split())  # (white space, a line break: compared out)
    unescaped = plain.replace("\\[", "[").replace("\\]", "]")
    for literal in (False, True):
        for shown, href in _web_links(escape_prose(text, literal=literal)):
            link = f"[{''.join(shown.split())}]({href})"
            assert link in (plain if literal else unescaped), (text, shown, href)


def test_a_web_link_whose_text_holds_balanced_brackets_stays_live():
    for literal in (False, True):
        out = escape_prose("see [a [b] c](https://e.x/n) now", literal=literal)
        assert _web_links(out) == [("a [b] c", "https://e.x/n")], out
        # A local link inside it was one: the outer brackets were never a link.
        out = escape_prose("see [a [b](b.md) c](https://e.x/n)", literal=literal)
        assert _web_links(out) == [], out
