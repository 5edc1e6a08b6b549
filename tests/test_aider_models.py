"""Which model an Aider session used: the one its banner names (or a ``/model`` switch
prints), the bare id without Aider's badges, never a line of a command's output; and what
a run cost when its prompts went to an Aider started before it (overlapping processes)."""

from __future__ import annotations

import pytest
from aider_builder import AiderLog
from test_aider_adapter import load, utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)


def test_a_models_line_in_a_commands_output_is_no_model(tmp_path):
    """A script's debug print, ``Models: ['claude-3-opus', …]``, in a ``/run``'s output
    (Aider's own corpus log, line 66094) says nothing of the session's model; the banner
    and the one ``/model`` prints again do."""
    log = AiderLog().run("2025-03-01 09:15:00").prompt("plot it").reply("Done.")
    log.prompt("/run python plot.py")
    log.aider("Models: ['claude-3-opus-20240229', 'gpt-4o']", "Main model: debug-print")
    log.prompt("/model gpt-4o")
    log.aider("Aider v0.86.1", "Model: gpt-4o with diff edit format")
    log.prompt("why is it empty?").reply("The dates are strings.")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert session.models == ("claude-3-5-sonnet-20240620", "gpt-4o")
    assert [m.model for m in session.messages if m.role == "assistant"] == [
        "claude-3-5-sonnet-20240620",
        "gpt-4o",
    ]


@pytest.mark.parametrize(
    "banner",
    [
        "Model: anthropic/claude-3-haiku-20240307⚡ with ♾️ whole edit format",
        "Models: anthropic/claude-3-haiku-20240307⚡ with diff edit format, weak model x",
        "Main model: anthropic/claude-3-haiku-20240307♾️ with diff edit format, prompt cache",
    ],
)
def test_the_model_id_is_bare_without_aiders_badges(tmp_path, banner):
    """``⚡`` is Aider's "prompt caching on" badge and ``♾️`` its "infinite output" one,
    not part of the model's name (corpus line 82128)."""
    log = AiderLog()
    log.header("2025-03-01 09:15:00").aider("/opt/bin/aider --haiku", "Aider v0.51.0", banner)
    log.prompt("hi").reply("Hello!")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert session.models == ("anthropic/claude-3-haiku-20240307",)
    assert session.messages[-1].model == "anthropic/claude-3-haiku-20240307"

