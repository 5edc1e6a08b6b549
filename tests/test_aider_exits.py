"""Lines logged after an Aider exited: its second Ctrl-C prints ``^C KeyboardInterrupt`` and
Aider quits there (``Coder.keyboard_interrupt`` calls ``sys.exit``), so a prompt, a reply
or a usage line after it, up to the next header, was written by another Aider appending to
the same log (two Aiders in one repository). They were filed under the run that had
exited (review12 F1: corpus lines 57797-58093, a French translation another Aider was
streaming shown as the reply of "does this comply with privacy laws?")."""

from __future__ import annotations

from aider_builder import AiderLog
from conftest import texts
from test_aider_adapter import load, utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)

from exporter.adapters.aider_requests import conversation
from exporter.model import ToolResultPart

QUIT = ("", "^C again to exit", "", "^C KeyboardInterrupt")


def _line(log: AiderLog, text: str) -> int:
    """The 1-based line of the log that starts with ``text``."""
    return next(n for n, line in enumerate(log.text().splitlines(), 1) if line.startswith(text))


def test_the_rest_of_a_reply_after_another_aider_exited_is_the_open_runs(tmp_path):
    log = AiderLog().run("2024-08-13 06:20:47", command="aider HISTORY.md --dry-run")
    log.prompt("translate it all to french")
    log.reply("Voici :\n\nHISTORY.md\n```\n# Historique\n\n- Ajouté le support (`gpt-4`")
    log.run("2024-08-13 06:31:30").prompt("does this comply with privacy laws?")
    log.reply("Yes, it collects nothing personal.").tokens("1,882", "693", "0.01", "0.01")
    log.aider(*QUIT)
    log.reply(").\n- Correction d'un bug.\n```")
    log.tokens("15,229", "3,413", "0.02", "0.02").aider(
        "Did not apply edit to HISTORY.md (--dry-run)"
    )
    log.write(tmp_path / "home" / "src" / "r")
    (french, privacy), problems = load(tmp_path / "home")
    assert texts(privacy, "assistant") == ["Yes, it collects nothing personal."]
    assert privacy.usage.input_tokens == 1882 and privacy.usage.output_tokens == 693
    assert not [p for m in privacy.messages for p in m.parts if isinstance(p, ToolResultPart)]
    (reply,) = texts(french, "assistant")
    assert "(`gpt-4`\n" in reply and reply.endswith("\n).\n- Correction d'un bug.\n```")
    assert french.usage.input_tokens == 15229 and french.usage.output_tokens == 3413
    outputs = [p.output for m in french.messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert outputs == ["Did not apply edit to HISTORY.md (--dry-run)"]
    (problem,) = problems  # said once, at the first line the other Aider wrote
    assert problem.severity == "warning" and problem.line == _line(log, ").") - 1
    assert f"line {_line(log, '> ^C KeyboardInterrupt')}" in problem.message
    assert "rest of a reply" in problem.message


def test_prompts_after_an_aider_exited_are_a_session_of_their_own(tmp_path):
    """Corpus line 61892: "do a bar graph …" and its whole conversation were the turns of
    a run started with ``aider ./scripts/jekyll_run.sh``, which had exited."""
    log = AiderLog().run("2024-08-13 13:42:45").prompt("fix the jekyll script")
    log.reply("Done.").tokens("2,000", "100", "0.01", "0.01").aider(*QUIT)
    log.prompt("do a bar graph with the % code on the y-axis")
    log.reply("Certainly!").tokens("3,000", "200", "0.02", "0.02")
    log.write(tmp_path / "home" / "src" / "r")
    (jekyll, graph), problems = load(tmp_path / "home")
    assert texts(jekyll) == ["fix the jekyll script", "Done."]
    assert texts(graph) == ["do a bar graph with the % code on the y-axis", "Certainly!"]
    assert graph.session_id == jekyll.session_id + "-2"
    assert graph.started_at == jekyll.started_at  # (no input history: the run's own time)
    assert graph.usage.input_tokens == 3000 and jekyll.usage.input_tokens == 2000
    (problem,) = problems
    assert problem.line == _line(log, "#### do a bar graph") - 1
    assert "a session of their own" in problem.message


def test_prompts_after_an_exit_whose_cost_goes_on_an_earlier_run_join_it(tmp_path):
    """Corpus line 24227: a short-lived Aider started beside a running one and quit; the
    prompts after its exit went on the running one (their first request's running total
    is that run's plus its own cost), as prompts after another Aider's banner do."""
    log = AiderLog().run("2024-08-09 17:11:44").prompt("add a /web command")
    log.reply("Added.").tokens("5,000", "300", "0.04", "0.04")
    log.run("2024-08-09 17:20:00", command="aider --show-repo-map").aider(*QUIT)
    log.prompt("move the imports to the top")
    log.reply("Moved.").tokens("6,000", "100", "0.02", "0.06")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), problems = load(tmp_path / "home")
    assert texts(session) == [
        "add a /web command",
        "Added.",
        "move the imports to the top",
        "Moved.",
    ]
    assert session.cost is not None and abs(session.cost - 0.06) < 0.001
    (problem,) = problems
    assert "whose running cost they go on" in problem.message


def test_what_an_aider_printed_itself_after_its_exit_stays_its_own(tmp_path):
    """Corpus lines 77025, 84954: a ``--lint`` Aider printed its findings' question and its
    commit after the exit (caught there); and a request whose running total goes on from
    the run's own ($0.02 before, $0.02 more) is the same process (corpus line 42844).
    Nothing moves, nothing is said."""
    log = AiderLog().run("2024-08-17 06:57:37").prompt("fix the lint")
    log.reply("Fixed.").tokens("6,625", "185", "0.02", "0.02")
    log.aider(*QUIT, "Attempt to fix lint errors? n", "Commit e7fdce0 fix: lint")
    log.run("2024-08-17 08:00:00").prompt("hi").reply("Hello!")
    log.tokens("1,000", "10", "0.02", "0.02").aider(*QUIT)
    log.prompt("and more").reply("More.").tokens("1,000", "10", "0.02", "0.04")
    log.write(tmp_path / "home" / "src" / "r")
    (lint, hi), problems = load(tmp_path / "home")
    assert any(
        "Commit e7fdce0 fix: lint" in p.output
        for m in lint.messages
        for p in m.parts
        if isinstance(p, ToolResultPart)
    )
    assert texts(hi, "user") == ["hi", "and more"]
    assert problems == []


def test_an_exit_with_only_ctrl_c_lines_after_it_moves_nothing(tmp_path):
    """Corpus line 48818: another Aider's two Ctrl-C lines after the exit: nothing to file."""
    log = AiderLog().run("2024-08-12 16:00:00").prompt("hi").reply("Hello!")
    log.tokens("638", "25", "0.01", "0.01").aider(*QUIT, *QUIT)
    log.write(tmp_path / "home" / "src" / "r")
    (session,), problems = load(tmp_path / "home")
    assert texts(session) == ["hi", "Hello!"] and problems == []


def test_commands_alone_after_an_exit_are_no_session_and_need_no_word(tmp_path):
    """Corpus lines 22701 and 96357: another Aider's "/ex" and "/diff" after the exit. They
    make no note where they were, nor where they go: nothing to say."""
    log = AiderLog().run("2024-08-21 16:05:55").prompt("hi").reply("Hello!")
    log.tokens("638", "25", "0.01", "0.01").aider(*QUIT)
    log.prompt("/diff").aider("Diff since 25f9886...")
    log.write(tmp_path / "home" / "src" / "r")
    (session, diff), problems = load(tmp_path / "home")
    assert texts(session) == ["hi", "Hello!"] and problems == []
    assert not conversation(list(diff.messages))  # (no note: a run of commands alone)
