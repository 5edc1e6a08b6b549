"""A spec-kit command's prompt as a source records it (``## User Input``, a fence holding
what the person typed, then the command's template): the person's words are their prompt,
the template the prompt the command sent, folded as a custom slash command's file is."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import CORPUS, load_sessions
from corpus_home import build_codex_home
from hypothesis import given
from hypothesis import strategies as st
from message_builder import msg, session

from exporter.clean import clean_user_text
from exporter.model import CommandOutputPart, TextPart
from exporter.notenames import session_title
from exporter.notes import NoteSettings, build_note, has_conversation
from exporter.stats import prompt_count
from exporter.turns import clean_parts, is_prompt

_TEMPLATE = (
    "You **MUST** consider the user input before proceeding (if not empty).\n\n"
    "## Outline\n\n"
    "1. **Setup**: Run `.specify/scripts/bash/setup-plan.sh --json` from repo root.\n"
    "2. **Load context**: Read FEATURE_SPEC and `.specify/memory/constitution.md`."
)


def _expanded(typed: str, template: str = _TEMPLATE, fence: str = "```") -> str:
    return f"\n## User Input\n\n{fence}text\n{typed}\n{fence}\n\n{template}\n"


def _codex(*messages):
    return replace(session(*messages), source="codex")


def _note(*prompts: str) -> str:
    messages = []
    for n, prompt in enumerate(prompts):
        messages += [
            msg("user", TextPart(prompt), minute=2 * n),
            msg("assistant", minute=2 * n + 1),
        ]
    s = _codex(*messages)
    return build_note(s, "n.md", NoteSettings(), lambda key: None).body


@pytest.mark.parametrize("source", ["codex", "claude-code", "gemini"])
def test_what_was_typed_is_the_prompt_and_the_template_is_the_prompt_sent(source):
    parts = clean_user_text(_expanded("plan the queue change"), source)
    assert parts == [TextPart("plan the queue change"), CommandOutputPart(_TEMPLATE, sent=True)]


def test_nothing_typed_leaves_only_the_prompt_sent():
    assert clean_user_text(_expanded(""), "codex") == [CommandOutputPart(_TEMPLATE, sent=True)]


def test_the_note_folds_the_template_and_shows_no_escaped_bold():
    body = _note(_expanded("plan the queue change"))
    typed = body.index("plan the queue change")
    folded = body.index("> [!note]- Prompt sent")
    assert typed < folded
    assert "> You **MUST** consider" in body
    assert "\\*" not in body and "User Input" not in body


def test_a_prompt_of_nothing_typed_is_a_prompt_and_its_own_turn():
    s = _codex(
        msg("user", TextPart("first")),
        msg("assistant", minute=1),
        msg("user", TextPart("## User Input\n~~~\n~~~\n" + _TEMPLATE), minute=2),
        msg("assistant", minute=3),
    )
    assert prompt_count(s) == 2
    body = build_note(s, "n.md", NoteSettings(), lambda key: None).body
    assert body.count("### User") == 2 and "> [!note]- Prompt sent" in body


def test_a_session_opened_by_nothing_typed_is_titled_by_its_next_prompt():
    s = _codex(
        msg("user", TextPart(_expanded(""))),
        msg("assistant", minute=1),
        msg("user", TextPart("fix the login test"), minute=2),
    )
    assert session_title(s) == "fix the login test"


@pytest.mark.parametrize(
    "prompt",
    [
        "## Error\n\n```text\nTypeError: x\n```\n\n" + _TEMPLATE,  # another heading
        "Some context\n## User Input\n\n```text\nx\n```\n\n" + _TEMPLATE,  # not first
        "Please read the User Input section:\n\n```text\nx\n```\n" + _TEMPLATE,
        "## User Input\nno fence under it\n\n" + _TEMPLATE,
        "## User Input\n\n```text\nnever closed\n\n" + _TEMPLATE,
        "## User Input\n\n```text\nonly this\n```\n",  # no template after it
    ],
)
def test_other_prompts_are_the_persons_text(prompt):
    parts = clean_user_text(prompt, "codex")
    assert len(parts) == 1 and type(parts[0]) is TextPart


_LINE = st.text(
    st.characters(blacklist_categories=["Cs", "Cc"], blacklist_characters="`~"),
    max_size=30,
)
_TEXT = st.lists(_LINE, max_size=6).map("\n".join)


@given(typed=_TEXT, template=_TEXT.filter(str.strip))
def test_the_typed_text_and_every_template_line_are_kept(typed, template):
    parts = clean_parts(msg("user", TextPart(_expanded(typed, template))), "codex")
    texts = [p.text for p in parts if type(p) is TextPart]
    sent = [p.output for p in parts if type(p) is CommandOutputPart and p.sent]
    assert texts == ([typed.strip("\n").rstrip()] if typed.strip() else [])
    (prompt,) = sent
    assert all(line.strip() in prompt for line in template.split("\n"))


_WORDS = st.lists(st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=9), min_size=1)


@given(typed=_WORDS.map(" ".join), template=st.lists(_WORDS.map(" ".join), min_size=1))
def test_in_the_note_the_typed_words_and_every_template_line_are_shown(typed, template):
    body = _note(_expanded(typed, "\n".join(f"**{line}**" for line in template)))
    assert typed in body.split("> [!note]- Prompt sent")[0]
    assert all(f"> **{line}**" in body for line in template)


def test_the_corpus_spec_kit_prompts_fold_their_templates(tmp_path):
    if not (CORPUS / "codex").is_dir():
        pytest.skip("../shared/corpus is not beside this clone (CI has it)")
    from exporter.adapters.codex import CodexAdapter

    build_codex_home(CORPUS, tmp_path)
    sessions, _ = load_sessions(CodexAdapter(), tmp_path)
    by_id = {s.session_id[:8]: s for s in sessions}
    # MoonMind: user messages 4-6 typed nothing; Shannon: 2, 3, 8, 9 nothing, 1 and 7 text
    for sid, empty, typed in (("019a7ae6", (4, 5, 6), ()), ("019ba997", (2, 3, 8, 9), (1, 7))):
        s = by_id[sid]
        prompts = [clean_parts(m, s.source) for m in s.messages if is_prompt(m, s.source)]
        for number in empty:
            (sent,) = prompts[number - 1]
            assert type(sent) is CommandOutputPart and sent.sent
            assert sent.output.startswith("You **MUST** consider the user input")
        for number in typed:
            text, sent = prompts[number - 1]
            assert type(text) is TextPart and not text.text.startswith("#")
            assert type(sent) is CommandOutputPart and sent.sent
        body = build_note(s, "n.md", NoteSettings(), lambda key: None).body
        assert "**MUST\\*\\*" not in body and "User Input" not in body


def test_a_prompt_of_nothing_typed_after_an_unanswered_one_is_a_turn_of_its_own():
    s = _codex(
        msg("user", TextPart("first")),
        msg("user", TextPart(_expanded("")), minute=1),
        msg("assistant", minute=2),
    )
    body = build_note(s, "n.md", NoteSettings(), lambda key: None).body
    assert body.count("### User") == 2


def test_a_session_of_only_commands_run_with_nothing_typed_gets_a_note():
    # `/speckit.plan` with no arguments, and the person left before any reply: the
    # command ran and sent its prompt, so the session is worth a note showing it sent.
    s = _codex(msg("user", TextPart(_expanded(""))), msg("user", TextPart(_expanded("")), minute=1))
    assert has_conversation(s)
    body = build_note(s, "n.md", NoteSettings(), lambda key: None).body
    assert body.count("### User") == 2 and body.count("> [!note]- Prompt sent") == 2
    assert "> You **MUST** consider the user input" in body


def test_a_session_of_only_commands_that_sent_nothing_still_gets_no_note():
    s = replace(session(msg("user", TextPart("<command-name>/clear</command-name>"))),
                source="claude-code")  # fmt: skip
    assert not has_conversation(s)


# spec-kit's own template line, as every template since the fenced input opens.
_SPEC_KIT_TEMPLATE = (
    "You **MUST** consider the user input before proceeding (if not empty).\n\n"
    "## Outline\n\n1. Run the script:\n\n   ```text\n   out\n   ```\n\n"
    "```text\nExample\n```\n\n2. Report."
)


@pytest.mark.parametrize(
    "typed",
    [
        "look at this:\n```\nx = 1\n```\nand plan it",  # a bare block
        "```python\nx = 1\n```",  # a block with a language
        "only an opening line\n```",
        "```\n\nafter a lone fence",
        "~~~\ntilde lines\n~~~\n````\nlonger\n````",
    ],
)
def test_fence_lines_in_the_typed_text_stay_in_the_typed_text(typed):
    parts = clean_user_text(_expanded(typed, _SPEC_KIT_TEMPLATE), "codex")
    assert parts == [TextPart(typed), CommandOutputPart(_SPEC_KIT_TEMPLATE, sent=True)]


@pytest.mark.parametrize(
    ("opening", "closing"),
    [("```", "````"), ("````", "`````"), ("~~~", "~~~~"), ("```", "   ```  ")],
)
def test_a_closing_fence_is_read_as_commonmark_reads_it(opening, closing):
    # at least as long as the opening, of the same character, up to three spaces in
    text = f"## User Input\n\n{opening}text\nplan it\n{closing}\n\nDo the plan."
    assert clean_user_text(text, "codex") == [
        TextPart("plan it"),
        CommandOutputPart("Do the plan.", sent=True),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "## User Input\n\n```text\nplan it\n~~~\n\nDo the plan.",  # another character
        "## User Input\n\n````text\nplan it\n```\n\nDo the plan.",  # shorter
        "## User Input\n\n```text\nplan it\n``` x\n\nDo the plan.",  # text after it
        "## User Input\n\n```te`xt\nplan it\n```\n\nDo the plan.",  # not a fence: ` in info
    ],
)
def test_what_commonmark_does_not_read_as_a_closed_fence_is_the_persons_text(text):
    parts = clean_user_text(text, "codex")
    assert len(parts) == 1 and type(parts[0]) is TextPart


_FENCE = st.builds(
    "{}{}{}{}".format,
    st.sampled_from(["", " ", "   "]),
    st.sampled_from(["```", "````", "~~~", "~~~~~"]),
    st.sampled_from(["", "python", "text", " sh"]),
    st.sampled_from(["", " "]),
)
_TYPED_LINE = st.one_of(_FENCE, _LINE, st.just(""))


@given(
    typed=st.lists(_TYPED_LINE, max_size=8).map("\n".join), fence=st.sampled_from(["```", "~~~"])
)
def test_any_typed_text_round_trips(typed, fence):
    parts = clean_user_text(_expanded(typed, _SPEC_KIT_TEMPLATE, fence), "codex")
    kept = typed.strip("\n").rstrip()
    assert parts == [
        *([TextPart(kept)] if kept.strip() else []),
        CommandOutputPart(_SPEC_KIT_TEMPLATE, sent=True),
    ]


_BLOCK = st.builds(
    "{}{}\n{}\n{}".format,
    st.sampled_from(["```", "~~~"]),
    st.sampled_from(["python", "text", "sh"]),
    _LINE,
    st.sampled_from(["```", "~~~"]),
).filter(lambda block: block[0] == block[-1])


@given(
    typed=st.lists(st.one_of(_BLOCK, _LINE), max_size=6).map("\n".join),
    template=_TEXT.filter(str.strip),
)
def test_typed_blocks_with_a_language_round_trip_before_any_template(typed, template):
    # No spec-kit line to find the closing fence by: the typed text's own blocks (opened
    # with a language, as code is pasted) are read as blocks, not as the closing fence.
    parts = clean_user_text(_expanded(typed, template), "codex")
    kept = typed.strip("\n").rstrip()
    assert [p for p in parts if type(p) is TextPart] == ([TextPart(kept)] if kept.strip() else [])
