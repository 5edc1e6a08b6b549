"""Long pathological text (a prompt of blank lines, a line of ``a*a*a*``, thousands of
unmatched backticks) is read in about linear time, with the same result as the plain
formula each step replaced. An audit exported a session holding each of about 100 such
texts at 30,000 and 120,000 characters; these steps were quadratic (minutes for a few
hundred kilobytes) and are checked here against their old formulas, kept below. Emphasis
pairing is now one pass with a different, smaller result (only the closers that need it
are escaped): ``test_markdown.py`` checks it with CommonMark itself.

The guards time a whole step on a text of a few hundred kilobytes against a bound about
a hundred times what the linear step takes: they catch a quadratic step, not a slow one.
"""

from __future__ import annotations

import re
import time
from datetime import UTC

from claude_builder import ClaudeSession
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter import clean, markdown, markdown_code
from exporter.export import ExportOptions, run_export
from exporter.notenames import TITLE_LENGTH, cut_keeping_path
from exporter.notenames import shorten as _shorten


def shorten_formula(text: str) -> str:
    text = re.sub(r"(?m)^\s*(`{3,}|~{3,})[\w-]*\s*$", " ", text)
    text = re.sub(r"(?m)^\s*(#{1,6}|>|[-*+])\s+", "", text)
    line = " ".join(text.split())
    # (The cut is not what is compared: the formula's patterns are, which were quadratic.
    # A title is cut as the note's name is, a word kept whole unless that keeps too little.)
    return cut_keeping_path(line, TITLE_LENGTH)


def span_runs_formula(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    runs = list(re.finditer(r"`+", text))
    k = 0
    while k < len(runs):
        m = runs[k]
        start, length = m.start(), len(m.group(0))
        before = text[: m.start()]
        if (len(before) - len(before.rstrip("\\"))) % 2:
            start, length = start + 1, length - 1
        close = next((j for j in range(k + 1, len(runs)) if len(runs[j].group(0)) == length), None)
        if not length or close is None:
            k += 1
            continue
        spans.append((start, runs[close].end()))
        k = close + 1
    return spans


def _old_block(harness: str) -> re.Pattern[str]:
    tags = "|".join(re.escape(w.tag) for w in clean.INJECTED if w.harness == harness)
    return re.compile(rf"<({tags})(?:\s[^<>]*)?>(.*?)</\1>\s*", re.DOTALL)


_OLD_BLOCK = {harness: _old_block(harness) for harness in (clean.CLAUDE_CODE, clean.CODEX)}

_TAG_PIECES = st.sampled_from(
    ["<system-reminder>", "</system-reminder>", "<command-name>", "</command-name>",
     "<command-args>", "</command-args>", "<bash-stdout>", "</bash-stdout>", "<skill a='1'>",
     "</skill>", "<skill\n", "<system-reminder x>", "<system-reminderx>", "<div>", "</div>",
     "<", ">", "/", " ", "\n", "\t", "a", "`", "```\n", "    ", "<command-name", "</"]
)  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(_TAG_PIECES, max_size=30).map("".join), st.sampled_from(sorted(_OLD_BLOCK)))
def test_injected_blocks_are_found_as_the_old_pattern_found_them(text, harness):
    found = _OLD_BLOCK[harness].finditer(text)
    old = [(m.start(), m.end(), m.group(1), m.group(2)) for m in found]
    assert list(clean._injected_blocks(text, harness)) == old


_TITLE_PIECES = st.sampled_from(
    ["\n", "\n\n", " ", "\t", "\r", "\x0b", "\u2028", "\x85", "\u00a0", "```", "~~~", "`",
     "#", "##", "#######", ">", "-", "*", "+", "a", "b_c", "py", "x-y", "word ", ".", ":"]
)  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(_TITLE_PIECES, max_size=40).map("".join))
def test_a_title_is_the_old_formulas_title(text):
    assert _shorten(text) == shorten_formula(text)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(["`", "``", "```", "\\", "\\\\", "a", " "]), max_size=30))
def test_code_spans_pair_as_the_old_formula_does(pieces):
    text = "".join(pieces)
    assert markdown_code._span_runs(text) == span_runs_formula(text)


def _timed(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return time.perf_counter() - started


def _cleaned_as_claude_code(text: str) -> list:
    return clean.clean_user_text(text, clean.CLAUDE_CODE)


def test_the_quadratic_steps_are_linear_now():
    cases = [
        (_shorten, "\n" * 200_000 + "a"),  # was 165 s at 80,000
        (_shorten, " \n" * 100_000 + "a"),
        (markdown.escape_prose, "a `x`\n" + "*a" * 100_000),  # 5 s at 15,000
        (markdown.escape_prose, "a `x`\n" + "a_" * 100_000 + "a"),
        # Each closer pairs with the one opener only once the one before is text: escaping
        # and parsing again took a round per closer (20 s at 4,000).
        (markdown.escape_prose, "a `x`\n*a*" + " a*" * 50_000),
        (markdown.escape_prose, "a `x`\n" + "*_" * 100_000),  # 2 s at 60,000
        (markdown.escape_prose, "a `x`\n" + "\\`" * 100_000),  # minutes at 60,000
        (markdown.code_ranges, "a `x`\n" + "`` `" * 50_000),
        (markdown.escape_prose, "a `x`\n" + "a:: [" * 40_000),
        # Lines opening with "[" and no "]:" after them: each looked for one to the end of
        # the text (a pasted log of 256 KB: 1.7 s; this 1 MB one, about 27 s).
        (markdown.escape_prose, "[INFO] step done\n" * 60_000),
        (_cleaned_as_claude_code, "<system-reminder>" * 20_000),  # 4 s at 7,000
        (_cleaned_as_claude_code, "<x>`a`<system-reminder>y</system-reminder>" * 10_000),
        # Many tags before the first code opener: one search for it, not one per tag.
        (_cleaned_as_claude_code, "<system-reminder>y</system-reminder>" * 20_000 + "`a`"),
        # A table's code span of escaped pipes: each pipe's backslashes counted once.
        (markdown.escape_prose, "| a |\n|---|\n| `" + "\\|" * 100_000 + "` |"),
    ]
    for function, text in cases:
        assert _timed(function, text) < 10, (function.__name__, text[:12])


def test_a_session_of_pathological_texts_exports_in_seconds(tmp_path):
    """End to end: every role holding each text; the audit's worst cases took minutes."""
    texts = [
        "\n" * 60_000,
        "*a" * 30_000,
        "\\`" * 30_000,
        "<system-reminder>" * 4_000,
        "*a*" + " a*" * 10_000,
    ]
    home, vault = tmp_path / "home", tmp_path / "vault"
    s = ClaudeSession("0a1b2c3d-0000-4000-8000-00000000000a", "/home/dev/app")
    for k, text in enumerate(texts):
        text = f"A `x` y_z {k}\n{text}x\n"
        s.user(text)
        s.assistant(
            [
                {"type": "thinking", "thinking": text, "signature": "x"},
                {"type": "text", "text": text},
                {"type": "tool_use", "id": f"toolu_{k}", "name": "Bash",
                 "input": {"command": text, "description": text[:200]}},
            ]
        )  # fmt: skip
        s.tool_result(f"toolu_{k}", text)
    s.write(
        home
        / ".claude"
        / "projects"
        / "-home-dev-app"
        / "0a1b2c3d-0000-4000-8000-00000000000a.jsonl"
    )
    started = time.perf_counter()
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    assert not report.failed, report.problems
    assert time.perf_counter() - started < 60
