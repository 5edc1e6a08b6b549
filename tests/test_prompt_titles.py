"""A session without a title of its own is titled by its first prompt. spec-kit's commands
expand into a prompt that opens with a ``## User Input`` heading over a fence holding what
the person typed, then the command's instructions: the title is the person's words."""

from __future__ import annotations

import pytest
from conftest import CORPUS, load_sessions
from corpus_home import build_codex_home
from hypothesis import given
from hypothesis import strategies as st
from message_builder import msg, session

from exporter.model import TextPart
from exporter.notenames import session_title

_SPEC_KIT = "\n## User Input\n\n```text\n{}\n```\n\nYou **MUST** consider the user input before proceeding.\n"


def _titled(prompt: str) -> str:
    return session_title(session(msg("user", TextPart(prompt)), msg("assistant")))


def test_a_spec_kit_prompt_is_titled_by_what_the_person_typed():
    prompt = _SPEC_KIT.format("Create principles focused on code quality and testing")
    assert _titled(prompt) == "Create principles focused on code quality and testing"


def test_the_label_of_a_tilde_fence_in_any_case_goes_too():
    assert _titled("# user input\n~~~\nfix the login test\n~~~\nmore") == "fix the login test"


@pytest.mark.parametrize(
    "prompt, title",
    [
        ("## User Input\nplain text, no fence", "User Input plain text, no fence"),
        # nothing typed: only the command's template, folded, no words of the person's
        ("## User Input\n\n```text\n\n```\nthe rest", "Untitled session"),
        ("Some context\n## User Input\n```\nx\n```", "Some context User Input x"),  # not first
        ("## Error\n```\nTypeError: x\n```", "Error TypeError: x"),  # another heading: words
    ],
)
def test_other_prompts_keep_their_words(prompt, title):
    assert _titled(prompt) == title


_WORDS = st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=12)


@given(st.lists(_WORDS, min_size=1, max_size=12).map(" ".join))
def test_whatever_the_person_typed_is_the_title(typed):
    assert _titled(_SPEC_KIT.format(typed)) == _titled(typed)


def test_the_corpus_spec_kit_sessions_are_titled_by_the_persons_words(tmp_path):
    if not (CORPUS / "codex").is_dir():
        pytest.skip("../shared/corpus is not beside this clone (CI has it)")
    from exporter.adapters.codex import CodexAdapter

    build_codex_home(CORPUS, tmp_path)
    sessions, _ = load_sessions(CodexAdapter(), tmp_path)
    titles = {s.session_id[:8]: session_title(s) for s in sessions}
    # (the Shannon and ai-trading-bot rollouts: "/speckit.*" prompts)
    assert titles["019ba997"].startswith("I want to ensure the functionality of the tauri")
    assert titles["0199e4a5"].startswith("Create principles focused on code quality")
    assert not any(t.startswith("User Input") for t in titles.values())
