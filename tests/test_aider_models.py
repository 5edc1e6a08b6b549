"""Which model an Aider session used: the one its banner names (or a ``/model`` switch
prints), the bare id without Aider's badges, never a line of a command's output; and what
a run cost when its prompts went to an Aider started before it (overlapping processes)."""

from __future__ import annotations

import pytest
from aider_builder import AiderLog
from conftest import texts
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


def overlapping(spent_before: str = "0.74") -> AiderLog:
    """A sonnet Aider answers; a short-lived ``aider --model gpt-4 --exit`` (a test run)
    writes its banner into the log; the next prompt goes to the sonnet one (corpus lines
    4010-4417: the first request after the banner reports ``$0.04 request, $0.78 session``)."""
    log = AiderLog().run("2024-08-06 08:55:14").prompt("add the tests").reply("Added.")
    log.tokens("9,359", "416", spent_before, spent_before)
    exit_run = "/opt/bin/aider --model gpt-4 --exit --yes"
    log.run("2024-08-06 09:05:50", model="gpt-4", weak=None, command=exit_run)
    log.run("2024-08-06 09:06:27", model="gpt-4", weak=None, command=exit_run)
    log.prompt("fix the failing test").reply("Fixed it.").tokens("10,466", "637", "0.04", "0.78")
    return log


def test_prompts_after_another_aiders_banner_go_on_the_aider_that_was_running(tmp_path):
    overlapping().write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert texts(session, "user") == ["add the tests", "fix the failing test"]
    assert session.models == ("claude-3-5-sonnet-20240620",)
    assert {m.model for m in session.messages if m.role == "assistant"} == {
        "claude-3-5-sonnet-20240620"
    }
    assert session.cost == pytest.approx(0.78)  # Aider's running total, counted once
    assert not any("gpt-4" in str(p) for m in session.messages for p in m.parts)


def test_a_run_gone_on_from_an_unknown_aider_counts_its_requests_and_names_no_model(tmp_path):
    """The totals do not meet (the process's earlier requests are not in the log as such):
    the run stays a note of its own, its cost its requests' (not the $0.78 the process had
    spent), and no model (the banner's is another Aider's; a /model switch's is known)."""
    log = overlapping(spent_before="0.30")
    log.prompt("/model gpt-4o").aider("Aider v0.86.1", "Model: gpt-4o with diff edit format")
    log.prompt("and the docs").reply("Done.").tokens("5,000", "100", "0.02", "0.80")
    log.write(tmp_path / "home" / "src" / "r")
    (first, second), _ = load(tmp_path / "home")
    assert first.cost == pytest.approx(0.30)
    assert texts(second, "user") == ["fix the failing test", "and the docs"]
    assert second.cost == pytest.approx(0.06)
    assert second.models == ("gpt-4o",)
    assert [m.model for m in second.messages if m.role == "assistant"] == [None, "gpt-4o"]


def test_a_usage_line_quoted_in_a_prompt_joins_nothing(tmp_path):
    """Only Aider's own usage line says how much its process had spent: a prompt quoting
    one (here before the run's first request) is no evidence of an earlier process."""
    log = AiderLog().run("2024-08-06 08:55:14").prompt("add the tests").reply("Added.")
    log.tokens("9,359", "416", "0.74", "0.74")
    log.run("2024-08-06 09:06:27")
    log.prompt("it said Cost: $0.04 request, $0.78 session. why?").reply("Caching.")
    log.tokens("1,000", "20", "0.01", "0.01")
    log.write(tmp_path / "home" / "src" / "r")
    first, second = load(tmp_path / "home")[0]
    assert texts(second, "user") == ["it said Cost: $0.04 request, $0.78 session. why?"]
    assert second.cost == pytest.approx(0.01)


def test_the_editor_command_is_no_model_switch(tmp_path):
    from exporter.adapters.aider_log import _switches

    assert _switches("/model gpt-4o") and _switches("/chat ask") and _switches("/editor-model x")
    assert not _switches("/edit") and not _switches("/editor") and not _switches("/ed")
