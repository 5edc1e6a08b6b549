"""A Ctrl-C is an interruption only where it stopped something: a reply streaming, a request
the model had not answered (or Aider was retrying). One at Aider's prompt, after a
command's output, a command that asks nothing or a request that failed for good, stopped
nothing (review12 F4: 41 notes said "Interrupted by the user" after a command's output, as
``/undo``, its output, then the two Ctrl-C that quit Aider, corpus lines 60060-60069)."""

from __future__ import annotations

from aider_builder import AiderLog
from test_aider_adapter import load, utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)

QUIT = ("", "^C again to exit", "", "^C KeyboardInterrupt")
ERROR = "litellm.BadRequestError: AnthropicException - the prompt is too long"


def notices(session) -> list[str]:
    return [p.notice for m in session.messages for p in m.parts if p.kind == "notice"]


def _session(tmp_path, log: AiderLog):
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    return session


def _talked() -> AiderLog:
    log = AiderLog().run("2024-08-13 10:00:00").prompt("change --analytics-disable")
    return log.reply("Done.").tokens("2,000", "100", "0.01", "0.01")


def test_a_ctrl_c_after_a_commands_output_stopped_nothing(tmp_path):
    log = _talked().prompt("/undo").aider("Removed: 1a2b3c4 rename the option")
    session = _session(tmp_path, log.aider(*QUIT))
    assert notices(session) == []


def test_a_ctrl_c_after_a_command_that_asks_nothing_stopped_nothing(tmp_path):
    log = _talked().prompt("/clear")
    session = _session(tmp_path, log.aider(*QUIT))
    assert notices(session) == []


def test_a_ctrl_c_after_a_request_that_failed_for_good_stopped_nothing(tmp_path):
    log = _talked().prompt("translate the whole history").aider(ERROR)
    session = _session(tmp_path, log.aider(*QUIT))
    assert notices(session) == ["error"]


def test_a_ctrl_c_while_aider_retried_a_request_stopped_it(tmp_path):
    log = _talked().prompt("translate the whole history")
    log.aider("litellm.InternalServerError: overloaded", "Retrying in 0.2 seconds...")
    session = _session(tmp_path, log.aider(*QUIT))
    assert notices(session) == ["error", "interrupted"]


def test_a_ctrl_c_before_a_reply_or_in_one_stopped_it(tmp_path):
    """A prompt, a shell command and /help's question sent to the model, not answered yet;
    a reply cut before its usage line: each was running."""
    log = _talked().prompt("and the docs?").aider(*QUIT[:2])
    log.prompt("!pytest -q").aider(*QUIT[:2])
    log.prompt("/help how do I quit?", "# Question: how do I quit?", "", "# Relevant docs:")
    log.aider(*QUIT[:2]).prompt("explain it").reply("It is").aider(*QUIT)
    session = _session(tmp_path, log)
    assert notices(session) == ["interrupted"] * 4
