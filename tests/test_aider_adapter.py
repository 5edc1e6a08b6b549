"""Aider: runs split at their headers, prompts, replies, Aider's output, usage and cost, and
the configured folders searched for logs (FORMATS.md §6.4)."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aider_builder import AiderLog
from conftest import note_files, texts
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from exporter import notes
from exporter.adapters import SourceContext
from exporter.adapters.aider import (
    MAX_DEPTH,
    UNSET_HINT,
    AiderAdapter,
    parse_run,
    roots_unset,
    split_runs,
)
from exporter.cli import app
from exporter.config import resolve
from exporter.export import ExportOptions, run_export
from exporter.model import CommandOutputPart, CommandPart, TextPart, ToolCallPart, ToolResultPart
from exporter.stats import edited_files


@pytest.fixture(autouse=True)
def utc_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Aider writes local time without a zone: tests pin the machine's zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def load(home: Path, paths: dict | None = None, env: dict | None = None, real: bool = False):
    adapter = AiderAdapter()
    ctx = SourceContext(home, env or {}, real, {k: tuple(v) for k, v in (paths or {}).items()})
    sessions, problems = [], []
    for ref in adapter.discover(ctx):
        result = adapter.load(ref)
        sessions += result.sessions
        problems += result.problems
    return sessions, problems


def two_runs() -> AiderLog:
    log = AiderLog().run("2025-03-01 09:15:00")
    log.aider("Added src/app.py to the chat.")
    log.prompt("make the greeting configurable")
    log.reply("I'll read it from the environment.\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\n"
              'GREETING = "hi"\n=======\nGREETING = os.environ.get("GREETING", "hi")\n'
              ">>>>>>> REPLACE\n```")  # fmt: skip
    log.aider("Applied edit to src/app.py", "Commit 1a2b3c4 feat: configurable greeting")
    log.tokens("5,244", "604", "0.02", "0.02")
    log.prompt("/run pytest -q")
    log.aider("3 passed in 0.01s", "Add the output to the chat? (Y)es/(N)o [Yes]: n")
    log.prompt("now document it", "", "in the README too")
    log.reply("Done: the README explains `GREETING`.")
    log.tokens("12.3k", "1.0k", "0.05", "0.07", cache_write="2.0k", cache_hit="8.1k")
    log.run("2025-03-02 18:00:05", model="gpt-4o", weak=None)
    log.prompt("/add docs/usage.md")
    log.aider("Added docs/usage.md to the chat")
    log.prompt("!ls docs")
    log.aider("usage.md")
    log.prompt("> is this quoted?")
    log.reply("No: only Aider's own lines start with `>`.\n\n```md\n> a quote inside a fence\n```")
    return log


def test_each_run_is_a_session_with_its_prompts_replies_and_output(tmp_path):
    home = tmp_path / "home"
    two_runs().write(home / "src" / "greeter")
    sessions, problems = load(home)
    assert problems == []
    first, second = sessions
    assert first.started_at == datetime(2025, 3, 1, 9, 15, tzinfo=UTC)
    assert second.started_at == datetime(2025, 3, 2, 18, 0, 5, tzinfo=UTC)
    # under --home the folder is named as it is in that home, not where the copy sits
    assert first.project == "greeter" and first.cwd == "~/src/greeter"
    assert first.source_path == home / "src" / "greeter" / ".aider.chat.history.md"
    assert texts(first, "user") == [
        "make the greeting configurable",
        "now document it\n\nin the README too",  # one prompt of three #### lines
    ]
    replies = texts(first, "assistant")
    assert replies[0].startswith("I'll read it") and ">>>>>>> REPLACE\n```" in replies[0]
    assert replies[1] == "Done: the README explains `GREETING`."
    parts = [p for m in first.messages for p in m.parts]
    outputs = [p.output for p in parts if isinstance(p, ToolResultPart)]
    assert outputs == ["Applied edit to src/app.py\nCommit 1a2b3c4 feat: configurable greeting"]
    # the edit Aider applied is an ``edit`` of that file, what it printed the result
    (edit,) = [p for p in parts if isinstance(p, ToolCallPart)]
    assert (edit.name, edit.input) == ("edit", {"path": "src/app.py"})
    assert [p.call_id for p in parts if isinstance(p, ToolResultPart)] == [edit.call_id]
    # what ``aider`` printed as it started is its own output, not a reply's tool output
    assert first.messages[0].role == "system"
    assert first.messages[0].parts == (CommandOutputPart("Added src/app.py to the chat."),)
    assert CommandPart("/run pytest -q") in parts  # as typed (PRODUCT.md)
    command_output = [p.output for p in parts if isinstance(p, CommandOutputPart)]
    assert command_output[1].startswith("3 passed")
    # the banner is not conversation; its facts are kept
    assert not any("Aider v" in str(p) or "Repo-map" in str(p) for p in parts)
    assert first.models == ("claude-3-5-sonnet-20240620",) and second.models == ("gpt-4o",)
    assert first.extra["aider_version"] == "0.86.1"
    # the command line that started it, its program named without its folder (review12
    # F6: dropped): the note's ``command`` property
    assert first.command == "aider --model sonnet"
    assert all(m.model == "claude-3-5-sonnet-20240620" for m in first.messages
               if m.role == "assistant")  # fmt: skip


def test_slash_commands_shell_commands_and_quoted_prompts(tmp_path):
    home = tmp_path / "home"
    two_runs().write(home / "src" / "greeter")
    second = load(home)[0][1]
    parts = [(m.role, p) for m in second.messages for p in m.parts]
    assert ("user", CommandPart("/add docs/usage.md")) in parts
    assert ("user", CommandOutputPart("Added docs/usage.md to the chat")) in parts
    assert ("user", CommandPart("ls docs", shell=True)) in parts
    assert ("user", CommandOutputPart("usage.md")) in parts
    assert ("user", TextPart("> is this quoted?")) in parts
    # a quote inside the reply's code fence stays in the reply
    assert "> a quote inside a fence" in texts(second, "assistant")[0]


def test_tokens_and_cost_are_summed_in_both_wordings(tmp_path):
    home = tmp_path / "home"
    two_runs().write(home / "src" / "greeter")
    first, second = load(home)[0]
    # "12.3k sent, 2.0k cache write, 8.1k cache hit": Aider's "sent" holds both (the
    # prompt tokens, cache hits among them, plus the writes); input is the rest
    assert first.usage.input_tokens == 5244 + (12300 - 2000 - 8100)
    assert first.usage.output_tokens == 604 + 1000
    assert first.usage.cache_write_tokens == 2000
    assert first.usage.cache_read_tokens == 8100
    assert first.cost == 0.07  # Aider's running total for the run
    assert second.cost is None and second.usage.input_tokens == 0


def test_a_sent_count_below_the_cached_tokens_is_the_input_alone(tmp_path):
    """Aider 0.50's builds logged "sent" without the cache writes ("194 sent, 9,474 cache
    write", the same request later "2,930 sent, 2,728 cache write"): taking the cached
    tokens off it left no input at all."""
    log = AiderLog().run("2025-03-01 09:15:00").prompt("hi").reply("hello")
    log.aider(
        "Tokens: 194 sent, 9,474 cache write, 7 received. Cost: $0.01 message, $0.01 session."
    )
    log.prompt("again").reply("hello again")
    log.aider(
        "Tokens: 2,930 sent, 2,728 cache write, 18 received. Cost: $0.01 message, $0.02 session."
    )
    # rounded counts, as Aider prints them since 0.51, are the newer "sent" even when the
    # rounding leaves it below what was cached (20k less 20k and 215: no input, not 20k)
    log.prompt("and again").reply("once more")
    log.aider(
        "Tokens: 20k sent, 215 cache write, 20k cache hit, 350 received. Cost: $0.01 message, $0.03 session."
    )
    log.write(tmp_path / "home" / "src" / "r")
    (run,), _ = load(tmp_path / "home")
    assert (run.usage.input_tokens, run.usage.cache_write_tokens) == (
        194 + 202, 9474 + 2728 + 215
    )  # fmt: skip


def test_cache_hits_called_cached_are_counted_as_hits(tmp_path):
    """Aider's development builds logged its cache hits as "cached" ("492 sent, 1,278
    cached", 20 lines of the corpus log): they were not counted at all."""
    log = AiderLog().run("2025-03-01 09:15:00").prompt("hi").reply("hello")
    log.aider(
        "Tokens: 492 sent, 1,278 cached, 72 received. Cost: $0.0026 message, $0.0026 session."
    )
    log.write(tmp_path / "home" / "src" / "r")
    (run,), _ = load(tmp_path / "home")
    assert (run.usage.input_tokens, run.usage.cache_read_tokens) == (492, 1278)
    assert run.usage.output_tokens == 72


def test_cost_is_the_sum_of_messages_when_no_session_total_is_printed(tmp_path):
    log = AiderLog().run("2025-03-01 09:15:00").prompt("hi").reply("hello")
    log.aider("Tokens: 1.5M sent, 20 received. Cost: $0.50 message.")
    log.prompt("again").reply("hello again")
    log.aider("Tokens: 100 sent, 20 received. Cost: $0.25 message.")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert session.cost == 0.75 and session.usage.input_tokens == 1_500_100


def old_output_log(answer: str) -> AiderLog:
    """Older Aider (0.4x–0.5x) marks only the first line of a message of its own with ``>``
    and ends it with two spaces: a command's output runs on, blank lines and pytest's own
    ``>`` lines included, and the usage line is split in two."""
    log = AiderLog().run("2024-08-09 10:00:00", version="0.49.1")
    log.prompt("/run pytest -q")
    log.lines += [
        "> ============================= test session starts ==============================",
        "platform linux -- Python 3.12.4, pytest-8.3.2",
        "collected 2 items",
        "",
        "tests/test_calc.py F.",
        "    def test_add():",
        "    ",  # (pytest's blank line of code: spaces alone end nothing)
        ">       assert add(1, 2) == 4",
        "E       assert 3 == 4",
        "========================= 1 failed, 1 passed in 0.05s ==========================  ",
        "> Add the output to the chat?",
        f"(y/n/instructions) {answer}  ",
        "",
    ]
    log.reply("The test expects the wrong sum; `add` is right.")
    log.lines += ["> Tokens: 1.2k sent, 80 received.", "Cost: $0.02 message, $0.02 session.  "]
    return log


@pytest.mark.parametrize("answer", ["y", "the fixture is wrong, fix the test"])
def test_older_aiders_multi_line_output_and_split_usage_line_stay_aiders(tmp_path, answer):
    """Found in the corpus's long log: the rest of such an output (pytest's, 31 times)
    showed as the model's reply, as did the usage line's second half (122 times), whose
    tokens and cost were not counted; and instructions typed at "Add the output to the
    chat?" were the model's words too."""
    old_output_log(answer).write(tmp_path / "home" / "src" / "calc")
    (session,), _ = load(tmp_path / "home")
    replies = texts(session, "assistant")
    assert replies == ["The test expects the wrong sum; `add` is right."]
    (output,) = [
        p.output for m in session.messages for p in m.parts if isinstance(p, CommandOutputPart)
    ]
    assert output.startswith("============================= test session starts")
    assert "collected 2 items\n\ntests/test_calc.py F.\n    def test_add():" in output
    assert "\n\n>       assert add(1, 2) == 4" in output
    assert "E       assert 3 == 4" in output and "(y/n/instructions)" in output
    assert (session.usage.input_tokens, session.usage.output_tokens, session.cost) == (
        1200, 80, 0.02
    )  # fmt: skip
    typed = [p.text for m in session.messages if m.role == "user" for p in m.parts
             if isinstance(p, TextPart)]  # fmt: skip
    if answer == "y":
        assert typed == [] and output.endswith("(y/n/instructions) y")
    else:  # the person's words, as a prompt of their own
        assert typed == [answer] and output.endswith("(y/n/instructions)")


def test_aiders_own_line_left_open_ends_at_the_next_prompt(tmp_path):
    """A ``>`` line without its two closing spaces (a log edited by hand) runs on at most
    to the next prompt: that prompt and its reply are read as always. (After a command: a
    quote after a prompt to the model, where its reply belongs, is that reply.)"""
    log = AiderLog().run("2024-08-09 10:00:00")
    log.prompt("/add a.py")
    log.lines += ["> Added a.py to the chat.", "still Aider's", ""]
    log.prompt("second question")
    log.reply("second answer")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert texts(session, "user") == ["second question"]
    assert texts(session, "assistant") == ["second answer"]
    said = [p.output for m in session.messages for p in m.parts if p.kind == "command_output"]
    assert said == ["Added a.py to the chat.\nstill Aider's"]


def test_a_quote_in_a_reply_stays_the_replys(tmp_path):
    """Right after a reply, a ``>`` line without Aider's two spaces, none after it before
    Aider's next message, is the reply's own quote: the reply stays whole (review21 F2;
    before, the quote's paragraph was Aider's output and cut the reply in two). A message
    Aider wrote a line at a time (``>   `` for an empty line) ends on each line."""
    log = AiderLog().run("2024-08-09 10:00:00").prompt("summarise the RFC")
    log.lines += ["It says:", "", "> MUST reject a request", "without a body", "",
                  "So the handler returns 400.", ""]  # fmt: skip
    log.lines += ["> # 1 SEARCH/REPLACE block failed to match!  ", ">   ",
                  "> ## SearchReplaceNoExactMatch: a.py  ", ""]  # fmt: skip
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert texts(session, "assistant") == [
        "It says:\n\n> MUST reject a request\nwithout a body\n\nSo the handler returns 400."
    ]
    assert outputs(session)[-1] == (
        "# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: a.py"
    )


def test_a_reply_that_leaves_a_code_fence_open_ends_at_the_usage_line(tmp_path):
    """Inside a reply's code fence ``>`` lines are the reply's; a reply that never closed
    its fence took Aider's usage line and everything after it (19,537 tokens uncounted in
    one corpus run)."""
    log = AiderLog().run("2024-08-09 10:00:00").prompt("which shells?")
    log.reply("Use one of:\n\n1. Bash:\n   ```bash\n\n2. PowerShell:\n   ```ps1")
    log.aider("Tokens: 7.3k sent, 523 received. Cost: $0.06 message, $0.06 session.")
    log.aider("Applied edit to aider/coders/editblock_coder.py")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    (reply,) = texts(session, "assistant")
    assert "Tokens" not in reply and "Applied edit" not in reply
    assert session.usage.input_tokens == 7300 and session.cost == 0.06
    assert outputs(session) == ["Applied edit to aider/coders/editblock_coder.py"]


EDIT_IN_TAGS = [
    "src/app.py",
    "<source>python",
    "<<<<<<< SEARCH",
    "def greet():",
    "        ",  # a line of spaces: part of what the search must match
    '    return "hi"',
    "=======",
    "def greet():",
    '    return os.environ.get("GREETING", "hi")',
    "> not Aider's: a line of the code",
    ">>>>>>> REPLACE",
    "</source>",
]


def test_an_edit_fenced_with_aiders_tags_is_code_with_every_byte_kept(tmp_path):
    """Where a file in the chat holds ``` lines, Aider asks the model to fence its edits
    with a tag (``<source>python`` … ``</source>``): the edit is code, its ``>`` lines
    the model's, not Aider's output, and it reaches the note as a fenced block (it was
    prose: the indentation lost, ``>>>>>>> REPLACE`` seven nested quotes)."""
    log = AiderLog().run("2024-08-12 14:26:01").prompt("make the greeting configurable")
    log.reply("\n".join(["Here is the change:", "", *EDIT_IN_TAGS, "", "Done."]))
    log.aider("Applied edit to src/app.py")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    (reply,) = texts(session, "assistant")
    code = EDIT_IN_TAGS[2:-1]
    assert reply == "\n".join(["Here is the change:", "", "src/app.py", "```python", *code, "```", "", "Done."])  # fmt: skip
    assert outputs(session) == ["Applied edit to src/app.py"]
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path / "home", sources=["aider"]))
    (note,) = note_files(vault).values()
    blocks = [t for t in MarkdownIt("commonmark").parse(note.decode()) if t.type == "fence"]
    # (the other block: Aider's output, "Applied edit to src/app.py")
    assert [b.content for b in blocks if b.info == "python"] == ["\n".join(code) + "\n"]


def test_a_tag_fence_around_code_holding_backticks_gets_a_longer_fence(tmp_path):
    """Aider chose the tag because the code holds ``` lines: the Markdown fence made of it
    is longer than any of them, so none ends it early."""
    code = ["Run it:", "````bash", "make", "````", "```"]
    log = AiderLog().run("2024-08-12 14:26:01").prompt("document the build")
    log.reply("\n".join(["README.md", "<source>markdown", *code, "</source>"]))
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    (reply,) = texts(session, "assistant")
    assert reply == "\n".join(["README.md", "`````markdown", *code, "`````"])
    blocks = [t for t in MarkdownIt("commonmark").parse(reply) if t.type == "fence"]
    assert [b.content for b in blocks] == ["\n".join(code) + "\n"]


@pytest.mark.parametrize(
    "reply",
    [
        "Write it as:\n\n```html\n<pre>\nkept\n</pre>\n```",  # inside a Markdown fence: code
        "Open one with\n<code>\nand never close it.",  # a tag never closed: the text as written
        "README.md\n<source>\n<<<<<<< SEARCH\n# Aider",  # a reply cut short by Ctrl-C
        "Here:\n```python\nx = 1",  # a Markdown fence cut short: Ctrl-C's lines end it too
    ],
)
def test_a_tag_inside_a_markdown_fence_or_never_closed_is_left_as_written(tmp_path, reply):
    """And what Aider printed after a tag never closed stays Aider's output: a fence
    opened there took its ``>`` lines (``^C again to exit``, ``Applied edit``) into the
    reply as quotes (a corpus run cut by Ctrl-C). (It said ``^C KeyboardInterrupt``, the
    second Ctrl-C, after which Aider exits: a prompt after that is another Aider's.)"""
    log = AiderLog().run("2024-08-12 14:26:01").prompt("show me")
    log.reply(reply)
    log.aider("", "^C again to exit")
    log.prompt("go on").reply("Done.").aider("Applied edit to index.html")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert texts(session, "assistant") == [reply, "Done."]
    assert outputs(session) == ["Applied edit to index.html"]
    # the Ctrl-C is the person's interruption of that reply, said once, not Aider's output
    kinds = [(m.role, p.kind) for m in session.messages for p in m.parts]
    assert kinds.count(("user", "notice")) == 1
    assert kinds.index(("user", "notice")) == kinds.index(("assistant", "text")) + 1


def test_a_line_of_spaces_in_a_replys_code_keeps_its_spaces(tmp_path):
    """Code is byte-exact: a line of spaces in a fence stayed an empty line (83 in the
    corpus log), where a search block must match it. Outside code it is a blank line."""
    log = AiderLog().run("2024-08-06 09:44:24").prompt("portable?")
    log.reply("Yes:\n   \n```python\ndef f():\n        \n    return 1\n```\n  \nThat is all.")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert texts(session, "assistant") == [
        "Yes:\n\n```python\ndef f():\n        \n    return 1\n```\n\nThat is all."
    ]


def test_session_ids_are_stable_distinct_and_survive_appends(tmp_path):
    home = tmp_path / "home"
    repo = home / "src" / "greeter"
    two_runs().write(repo)
    before = [s.session_id for s in load(home)[0]]
    AiderLog().run("2025-03-02 18:00:05").prompt("same second again").reply("ok").write(
        repo, append=True
    )
    after = [s.session_id for s in load(home)[0]]
    assert after[:2] == before and len(set(after)) == 3
    assert after[2] == f"{before[1]}-2"  # a second run in the same second
    assert before[0].endswith("-20250301091500")
    other = home / "src" / "other"
    two_runs().write(other)
    ids = {s.session_id for s in load(home)[0]}
    assert len(ids) == 5  # the same times in another repository are other sessions


def test_header_time_is_local_time(tmp_path, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    AiderLog().run("2025-03-01 09:15:00").prompt("hi").reply("hello").write(
        tmp_path / "home" / "src" / "r"
    )
    (session,), _ = load(tmp_path / "home")
    assert session.started_at == datetime(2025, 3, 1, 0, 15, tzinfo=UTC)


def test_text_before_the_first_header_is_kept_only_when_it_holds_a_prompt(tmp_path):
    repo = tmp_path / "home" / "src" / "old"
    repo.mkdir(parents=True)
    log = AiderLog().run("2025-03-01 09:15:00").prompt("hi").reply("hello")
    (repo / ".aider.chat.history.md").write_text(
        "-*- mode: fundamental -*-\n> lint output  \n\n#### fix the lint  \n\nFixed.\n" + log.text()
    )
    sessions, problems = load(tmp_path / "home")
    assert problems == [] and len(sessions) == 2
    assert sessions[0].started_at is None and sessions[0].session_id.endswith("-start")
    assert texts(sessions[0], "user") == ["fix the lint"]
    (repo / ".aider.chat.history.md").write_text("-*- mode: fundamental -*-\n" + log.text())
    assert len(load(tmp_path / "home")[0]) == 1


def test_what_aider_prints_as_it_starts_is_its_own_output_not_a_reply(tmp_path):
    """Before the first prompt and the first reply, Aider's lines are what the ``aider``
    command printed as it started (files added to the chat, a model warning, a ``--lint``
    run's output): the harness's, shown whole as its output, under no "Assistant" heading.
    Once the model has answered (a one-shot ``--lint`` fix before any prompt), Aider's lines
    are what that reply did. The Emacs mode line heading an old log is no one's."""
    repo = tmp_path / "home" / "src" / "app"
    log = AiderLog().run("2025-03-01 09:15:00", command="/opt/bin/aider src/app.py")
    log.aider("Added src/app.py to the chat.", "Model gpt-x: Unknown context window size.")
    log.prompt("use pathlib").reply("Done.")
    log.run("2025-03-02 10:00:00", command="/opt/bin/aider --lint")
    log.aider("Attempt to fix lint errors? y")
    log.reply("Removed the unused import.").aider("Applied edit to src/app.py")
    log.prompt("thanks").reply("You're welcome.")
    (repo / "x").parent.mkdir(parents=True)
    (repo / ".aider.chat.history.md").write_text(
        "-*- mode: fundamental -*-\n> isort....Passed  \n> flake8...Failed  \n\n"
        "#### fix the lint  \n\nFixed.\n" + log.text()
    )
    (old, started, lint), problems = load(tmp_path / "home")
    assert problems == []

    def shape(session):
        return [(m.role, p.kind, getattr(p, "output", getattr(p, "text", "")))
                for m in session.messages for p in m.parts]  # fmt: skip

    assert shape(old) == [
        ("system", "command_output", "isort....Passed\nflake8...Failed"),
        ("user", "text", "fix the lint"),
        ("assistant", "text", "Fixed."),
    ]
    assert shape(started)[:2] == [
        ("system", "command_output",
         "Added src/app.py to the chat.\nModel gpt-x: Unknown context window size."),
        ("user", "text", "use pathlib"),
    ]  # fmt: skip
    assert shape(lint)[:5] == [
        ("system", "command_output", "Attempt to fix lint errors? y"),
        ("assistant", "text", "Removed the unused import."),
        ("tool", "tool_call", ""),  # the edit Aider applied: src/app.py
        ("tool", "tool_result", "Applied edit to src/app.py"),
        ("user", "text", "thanks"),
    ]
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC))
    note = next(t for t in map(bytes.decode, note_files(vault).values()) if "pathlib" in t)
    body = note.split("\n# ", 1)[1]
    assert "\n> [!note]- Output\n> ```text\n> Added src/app.py to the chat.\n" in body
    assert body.index("### User") < body.index("### Assistant")


def test_bad_input_is_reported_and_loses_nothing_else(tmp_path):
    repo = tmp_path / "home" / "src" / "r"
    log = AiderLog().run("2025-03-01 09:15:00").prompt("first").reply("one")
    log.run("yesterday at noon").prompt("second").reply("two")
    path = log.write(repo)
    # Windows line ends, an undecodable byte and a truncated last line
    raw = path.read_bytes().replace(b"\n", b"\r\n") + b"#### third \xff\xfe half-writ"
    path.write_bytes(raw)
    sessions, problems = load(tmp_path / "home")
    assert [texts(s, "user") for s in sessions] == [
        ["first"],
        ["second", "third \ufffd\ufffd half-writ"],
    ]
    assert sessions[1].started_at is None
    undecodable, problem = problems
    header_line = raw.split(b"\n").index(b"# aider chat started at yesterday at noon\r") + 1
    assert problem.severity == "warning" and problem.line == header_line
    assert "yesterday at noon" in problem.message and problem.path == str(path)
    # (the undecodable byte is said too, at its line: the last)
    assert (undecodable.line, undecodable.severity) == (raw.count(b"\n") + 1, "warning")
    assert "not UTF-8" in undecodable.message and undecodable.path == str(path)


def test_runs_without_a_prompt_make_no_session(tmp_path):
    log = AiderLog().run("2025-03-01 09:15:00")  # started and quit
    log.run("2025-03-01 09:16:00").prompt("hi").reply("hello")
    log.write(tmp_path / "home" / "src" / "r")
    sessions, _ = load(tmp_path / "home")
    assert [s.started_at.minute for s in sessions] == [16]


def outputs(session) -> list[str]:
    """Aider's output after the replies (each applied edit's line its edit's result)."""
    return [p.output for m in session.messages if m.role == "tool" for p in m.parts
            if isinstance(p, ToolResultPart)]  # fmt: skip


def nested(command: str = "/run aider main.py other/README.md") -> AiderLog:
    """A run whose person starts another Aider from inside it: the child's header, then
    what the child printed and all the parent wrote after it."""
    log = AiderLog().run("2025-03-01 09:15:00")
    log.prompt("why does it crash with files from two repos?")
    log.reply("Run it and show me.")
    log.tokens("4,000", "20", "0.01", "0.01")
    log.prompt(command)
    log.header("2025-03-01 09:17:30")
    log.aider("Files are in different git repos.")
    log.aider(
        "Add the output to the chat? (y/n/instructions): y", "Files are in different git repos."
    )
    log.reply("Catch `SuitableRepoNotFound`:\n\nmain.py\n```python\n<<<<<<< SEARCH\n"
              "    except FileNotFoundError:\n=======\n    except SuitableRepoNotFound:\n"
              ">>>>>>> REPLACE\n```")  # fmt: skip
    log.tokens("7,525", "471", "0.03", "0.04")
    log.aider("Applied edit to main.py", "Commit 9c8baa1 fix: Handle files in different git repos")
    return log


@pytest.mark.parametrize("command", ["/run aider main.py other/README.md", "!aider main.py"])
def test_a_nested_aider_does_not_cut_the_rest_of_the_run_off(tmp_path, command):
    log = nested(command)
    log.run("2025-03-01 10:00:00").prompt("next").reply("ok")
    log.write(tmp_path / "home" / "src" / "r")
    sessions, problems = load(tmp_path / "home")
    assert problems == [] and len(sessions) == 2
    first, second = sessions
    assert first.started_at == datetime(2025, 3, 1, 9, 15, tzinfo=UTC)
    assert texts(second, "user") == ["next"]
    kinds = [(m.role, type(p).__name__, getattr(p, "command", None) or getattr(p, "text", None)
              or getattr(p, "output", None) or p.name)
             for m in first.messages for p in m.parts]  # fmt: skip
    start = kinds.index(("user", "CommandPart", command.removeprefix("!")))
    after = kinds[start + 1 :]
    assert after[0][:2] == ("user", "CommandOutputPart")  # the child's output, then the parent's
    assert "Files are in different git repos." in after[0][2]
    assert "Add the output to the chat? (y/n/instructions): y" in after[0][2]
    assert (
        after[1][:2] == ("assistant", "TextPart") and "except SuitableRepoNotFound:" in after[1][2]
    )
    assert after[2:] == [
        ("tool", "ToolCallPart", "edit"),
        ("tool", "ToolResultPart", "Applied edit to main.py\n"
                                   "Commit 9c8baa1 fix: Handle files in different git repos"),
    ]  # fmt: skip
    assert "aider chat started" not in str(kinds)  # nothing invented
    assert first.cost == pytest.approx(0.04) and first.usage.input_tokens == 11_525


def test_a_model_request_in_a_run_nobody_typed_in_goes_on_the_run_before(tmp_path):
    """A second Aider started in the repository while the first was answering: its header
    lands before the first one's reply (Aider's own corpus log, line 5246)."""
    log = AiderLog().run("2025-03-01 09:15:00").prompt("include the time zone")
    log.run("2025-03-01 09:15:40", command="/home/me/.local/bin/aider --show-prompt")
    log.reply("Here is the edit.").tokens("19,942", "132", "0.06", "0.06")
    log.aider("Applied edit to app.py", "Commit d009677 feat: time zone")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert texts(session, "user") == ["include the time zone"]
    assert texts(session, "assistant") == ["Here is the edit."]
    assert "Commit d009677 feat: time zone" in outputs(session)[-1]
    assert session.cost == pytest.approx(0.06)


def test_a_one_shot_that_asks_the_model_itself_is_not_joined_to_the_run_before(tmp_path):
    """``aider --lint`` (or ``--test``, ``-m``, ``--commit``) asks the model itself with no
    ``####`` prompt: its request is its own, not the run before going on, which may be days
    older: its fix would have been shown in that run's note."""
    log = AiderLog().run("2025-03-01 09:15:00").prompt("include the time zone").reply("Done.")
    log.run("2025-03-04 16:00:00", command="/home/me/.local/bin/aider --lint src/app.py")
    log.reply("Fixed the unused import.").tokens("2,100", "40", "0.01", "0.01")
    log.aider("Applied edit to src/app.py")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), problems = load(tmp_path / "home")
    assert texts(session, "assistant") == ["Done."]  # the lint fix is not put in this note
    assert [p.message for p in problems] == [
        "a run with no prompt changed the code (aider --lint src/app.py: Applied edit to "
        "src/app.py); it holds no conversation, so no note"
    ]


def test_a_run_nobody_typed_in_that_changed_the_code_is_reported(tmp_path):
    """``aider --apply``, ``aider --lint --commit``: no prompt, no reply, so no
    conversation and no note, but the change is said (which run, what it did)."""
    log = AiderLog().run("2025-03-01 09:15:00", command="/opt/bin/aider --apply fix.md app.py")
    log.aider("Added app.py to the chat.", "Applied edit to app.py")
    log.run("2025-03-01 09:16:00", command="aider --lint --commit")
    log.aider(*(f"Commit {n}a5b5c3 fix: number {n}" for n in range(1, 6)))
    log.run("2025-03-01 09:17:00", command="aider --show-repo").aider("app.py:", "│def main")
    log.run("2025-03-01 09:18:00", command="aider --exit")  # the banner only
    path = log.write(tmp_path / "home" / "src" / "r")
    sessions, problems = load(tmp_path / "home")
    assert sessions == []
    lines = path.read_text().split("\n")
    apply, commit = problems  # the repo map and the bare start: nothing to say
    assert (apply.path, apply.line, apply.severity) == (str(path), 2, "warning")
    assert lines[apply.line - 1] == "# aider chat started at 2025-03-01 09:15:00"
    assert apply.message == (
        "a run with no prompt changed the code (aider --apply fix.md app.py: Applied edit to "
        "app.py); it holds no conversation, so no note"
    )
    assert lines[commit.line - 1] == "# aider chat started at 2025-03-01 09:16:00"
    assert (
        "(aider --lint --commit: Commit 1a5b5c3 fix: number 1; Commit 2a5b5c3 fix: number 2; "
        "Commit 3a5b5c3 fix: number 3; 2 more)"
    ) in commit.message


def test_a_run_of_commands_alone_that_changed_the_code_is_reported(tmp_path):
    """``/undo`` takes commits back: a run where the person typed only that holds no
    conversation (no note), and was counted among the empty ones, unsaid (three such runs
    in the corpus log). A run of commands that changed nothing stays unsaid."""
    log = AiderLog().run("2025-03-01 09:15:00").prompt("/undo")
    log.aider("Removed: 4e7204e fix: retry the request", "Now at:  1a2b3c4 feat: retries")
    log.prompt("/undo").aider("Removed: cb1efad style: format")
    log.run("2025-03-01 09:20:00").prompt("/help what is this tool?").aider("Use /help …")
    path = log.write(tmp_path / "home" / "src" / "r")
    sessions, problems = load(tmp_path / "home")
    assert [s for s in sessions if notes.has_conversation(s)] == []
    (undo,) = problems
    assert (undo.path, undo.line, undo.severity) == (str(path), 2, "warning")
    assert undo.message == (
        "a run of commands alone (/undo; /undo) changed the code (Removed: 4e7204e fix: retry "
        "the request; Removed: cb1efad style: format); it holds no conversation, so no note"
    )


def test_a_change_made_as_aider_started_is_not_laid_at_a_command_typed_after_it(tmp_path):
    """``aider --lint --commit`` commits, then the person types ``/ex``: the warning named
    ``/ex`` as what changed the code (corpus log, line 90223). A change after a command is
    the command's, and one of each says both."""
    log = AiderLog().run("2025-03-01 09:15:00", command="aider --lint --commit")
    log.aider("Commit fc055a1 fix: Remove unused attribute").prompt("/ex")
    log.run("2025-03-01 09:20:00", command="aider --commit")
    log.aider("Commit 1a2b3c4 style: format").prompt("/undo")
    log.aider("Removed: 1a2b3c4 style: format")
    path = log.write(tmp_path / "home" / "src" / "r")
    sessions, (lint, both) = load(tmp_path / "home")
    assert not any(notes.has_conversation(s) for s in sessions)
    assert (lint.line, lint.path) == (2, str(path))
    assert lint.message == (
        "a run with no prompt changed the code (aider --lint --commit: Commit fc055a1 fix: "
        "Remove unused attribute); it holds no conversation, so no note"
    )
    assert both.message == (
        "a run with no prompt changed the code (aider --commit: Commit 1a2b3c4 style: "
        "format), and commands typed in it (/undo) changed the code (Removed: 1a2b3c4 style: "
        "format); it holds no conversation, so no note"
    )


def test_a_nested_aider_joins_its_run_and_an_append_changes_only_the_last_unit(tmp_path):
    repo = tmp_path / "home" / "src" / "r"
    path = nested().write(repo)
    adapter, ctx = AiderAdapter(), SourceContext(tmp_path / "home", {}, False)
    (joined,) = adapter.discover(ctx)
    # the parent's run and the child's: from the parent's header to the end
    assert int(joined.fact("offset")) + joined.main.size == path.stat().st_size
    AiderLog().run("2025-03-01 10:00:00").prompt("next").write(repo, append=True)
    before = list(adapter.discover(ctx))
    assert [r.session_id for r in before] == [joined.session_id, before[1].session_id]
    AiderLog().run("2025-03-01 11:00:00").prompt("again").write(repo, append=True)
    after = list(adapter.discover(ctx))
    assert len(after) == 3 and after[0].fingerprint() == before[0].fingerprint()
    assert after[1].session_id == before[1].session_id


def test_configured_folders_are_searched_to_a_bounded_depth_skipping_noise(tmp_path):
    code = tmp_path / "code"
    wanted = [code / "top", code / "a" / "b" / "c" / "d"]  # depth 1 and depth MAX_DEPTH
    assert len(wanted[1].relative_to(code).parts) == MAX_DEPTH
    skipped = [
        code / "a" / "b" / "c" / "d" / "e",  # too deep
        code / "node_modules" / "pkg",
        code / ".git" / "x",
        code / ".venv" / "lib",
        code / "proj" / "venv",
        code / "proj" / "myenv",  # a virtual environment by its pyvenv.cfg
    ]
    (code / "proj" / "myenv").mkdir(parents=True)
    (code / "proj" / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for repo in wanted + skipped:
        AiderLog().run("2025-03-01 09:15:00").prompt(f"in {repo.name}").reply("ok").write(repo)
    (code / "loop").symlink_to(code, target_is_directory=True)
    sessions, _ = load(tmp_path / "home", paths={"aider": [code]})
    assert sorted(s.project for s in sessions) == ["d", "top"]


def test_nothing_configured_on_the_real_home_is_reported_not_guessed(tmp_path):
    home = tmp_path / "home"
    two_runs().write(home / "src" / "greeter")
    real = SourceContext(home, {}, True)
    assert roots_unset(real) and AiderAdapter().roots(real) == []
    assert load(home, real=True)[0] == []
    assert "[paths] aider" in UNSET_HINT
    # --home: <home>/src is the default; configured folders make it unnecessary
    assert not roots_unset(SourceContext(home, {}, False))
    assert len(load(home)[0]) == 2
    assert not roots_unset(SourceContext(home, {}, True, {"aider": (home / "src",)}))
    sessions = load(home, paths={"aider": [home / "src"]}, real=True)[0]
    assert len(sessions) == 2 and sessions[0].cwd == str(home / "src" / "greeter")


def test_a_relocated_log_named_by_the_environment_is_read_on_the_real_home(tmp_path, monkeypatch):
    path = two_runs().write(tmp_path / "elsewhere")
    named = path.rename(tmp_path / "elsewhere" / "chat.md")
    env = {"AIDER_CHAT_HISTORY_FILE": str(named)}
    assert not roots_unset(SourceContext(tmp_path / "home", env, True))
    assert len(load(tmp_path / "home", env=env, real=True)[0]) == 2
    assert load(tmp_path / "home", env=env, real=False)[0] == []  # not under --home
    # sources and doctor list it where it is: they said "looked in nowhere", 0 sessions
    from exporter.sources import list_sources

    monkeypatch.setattr(os, "environ", {**os.environ, **env, "HOME": str(tmp_path / "home")})
    monkeypatch.setattr(Path, "home", lambda: tmp_path / "home")
    (row,) = [r for r in list_sources(None, ["aider"]) if r.source == "aider"]
    assert (row.path, row.sessions) == (tmp_path / "elsewhere", 2)


def test_each_run_is_a_unit_and_an_append_changes_only_the_last_ones(tmp_path):
    repo = tmp_path / "home" / "src" / "greeter"
    two_runs().write(repo)
    adapter, ctx = AiderAdapter(), SourceContext(tmp_path / "home", {}, False)
    before = list(adapter.discover(ctx))
    assert len(before) == 2
    # a finished run is dated by the next run's start (for --since), the last by the file
    assert before[0].mtime_ns == datetime(2025, 3, 2, 18, 0, 5, tzinfo=UTC).timestamp() * 1e9
    assert before[1].mtime_ns == (repo / ".aider.chat.history.md").stat().st_mtime_ns
    with (repo / ".aider.chat.history.md").open("a") as f:
        f.write("#### a late prompt  \n\nA late reply.\n")
    AiderLog().run("2025-03-04 10:00:00").prompt("new run").reply("ok").write(repo, append=True)
    after = list(adapter.discover(ctx))
    assert len(after) == 3
    assert after[0].fingerprint() == before[0].fingerprint()  # untouched: not read again
    assert after[1].fingerprint() != before[1].fingerprint()
    assert after[1].session_id == before[1].session_id
    assert texts(adapter.load(after[1]).sessions[0], "user")[-1] == "a late prompt"


def test_export_writes_a_note_per_run_and_only_new_runs_after_an_append(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    repo = home / "src" / "greeter"
    two_runs().write(repo)
    options = ExportOptions(vault=vault, home=home, sources=["aider"], timezone=UTC)
    report = run_export(options)
    assert not report.failed and report.per_source["aider"].created == 2
    notes = note_files(vault)
    first = next(v.decode() for k, v in notes.items() if "configurable" in k)
    assert "source: aider" in first and "cost: 0.07" in first and "tokens_in: 7444" in first
    assert "project: greeter" in first and "make the greeting configurable" in first
    assert run_export(options).per_source["aider"].skipped == 2  # unchanged: not even read
    AiderLog().run("2025-03-03 07:00:00").prompt("one more thing").reply("sure").write(
        repo, append=True
    )
    report = run_export(options)
    counts = report.per_source["aider"]
    # the first run is skipped unread; the one before the append is read again (its range
    # gained the blank line before the new header) and found unchanged
    assert (counts.created, counts.skipped, counts.unchanged, counts.updated) == (1, 1, 1, 0)
    assert note_files(vault).keys() > notes.keys()
    assert os.path.getsize(repo / ".aider.chat.history.md") > 0  # the source is untouched


def test_the_paths_setting_names_the_folders_aider_logs_are_searched_in(tmp_path, isolated_home):
    two_runs().write(isolated_home / "code" / "greeter")
    vault = tmp_path / "vault"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text('[paths]\naider = ["~/code"]\n')
    assert resolve({"vault": str(vault)}).paths["aider"] == [isolated_home / "code"]
    result = CliRunner().invoke(app, ["--vault", str(vault), "--source", "aider"])
    assert result.exit_code == 0, result.output
    assert len(note_files(vault)) == 2


_line = st.sampled_from(["#### ", "####", "> ", ">", "```", "~~~", "# aider chat started at ",
                         "> Tokens: ", "> Model: ", "!", "/run ", ""])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_line, st.text(max_size=12)), max_size=12))
def test_any_text_in_a_log_is_read_without_an_exception(lines):
    raw = "\n".join(a + b for a, b in lines).encode("utf-8", "surrogatepass")
    for run in split_runs(raw):
        parse_run(run, "x", Path("log.md"), None)


def test_prompts_are_dated_from_the_input_history(tmp_path):
    repo = tmp_path / "home" / "src" / "greeter"
    two_runs().write(repo)
    (repo / ".aider.input.history").write_text(
        "\n# 2025-03-01 09:14:00.000001\n+make the greeting configurable\n"  # before the run
        "\n# 2025-03-01 09:16:10.500000\n+make the greeting configurable\n"
        "\n# 2025-03-01 09:17:00.000000\n+something never logged\n"
        "\n# 2025-03-01 09:18:30.000000\n+/run pytest -q\n"
        "\n# 2025-03-01 09:20:00.000000\n+now document it\n+\n+in the README too  \n"
        "\n# not a time\n+ignored\n"
        "\n# 2025-03-02 18:01:00.000000\n+/add docs/usage.md\n"
    )
    (first, second), problems = load(tmp_path / "home")
    # The entry whose time cannot be read costs its own time, and says so, once.
    (problem,) = problems
    assert problem.path == str(repo / ".aider.input.history") and problem.line == 19
    assert problem.severity == "warning" and "'not a time'" in problem.message
    times = [m.timestamp for m in first.messages if m.role == "user"]
    assert times == [
        datetime(2025, 3, 1, 9, 16, 10, 500000, tzinfo=UTC),
        datetime(2025, 3, 1, 9, 18, 30, tzinfo=UTC),
        None,  # the command's output
        datetime(2025, 3, 1, 9, 20, tzinfo=UTC),
    ]
    assert first.ended_at == datetime(2025, 3, 1, 9, 20, tzinfo=UTC)
    assert second.messages[0].timestamp == datetime(2025, 3, 2, 18, 1, tzinfo=UTC)
    assert second.messages[2].timestamp is None  # "!ls docs" was not in the history


def test_a_header_or_input_time_with_no_local_time_costs_only_that_time(tmp_path, monkeypatch):
    """Year 1 on a machine east of UTC has no local time: converting it raised out of the
    reader (a damaged header or input-history entry stopped the whole log)."""
    import time

    from exporter.adapters.aider import read_input_history
    from exporter.adapters.aider_runs import parse_header

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert parse_header("0001-01-01 00:00:00") is None
        assert parse_header("2025-03-02 18:00:00").hour == 9
        history = tmp_path / ".aider.input.history"
        history.write_text("\n# 0001-01-01 00:00:00.1\n+lost\n\n# 2025-03-02 18:00:00.5\n+kept\n")
        assert [text for _, text in read_input_history(history)] == ["kept"]
    finally:
        monkeypatch.undo()
        time.tzset()


def test_an_input_history_that_cannot_be_read_is_reported_and_the_prompts_kept(tmp_path):
    repo = tmp_path / "home" / "src" / "greeter"
    two_runs().write(repo)
    (repo / ".aider.input.history").mkdir()  # (a folder: reading it fails on any system)
    (first, second), problems = load(tmp_path / "home")
    (problem,) = problems
    assert problem.path == str(repo / ".aider.input.history")
    assert "could not be read" in problem.message and problem.severity == "warning"
    assert any(m.role == "user" for m in first.messages)  # the log's prompts, undated
    assert all(m.timestamp is None for m in first.messages if m.role == "user")


def test_an_empty_input_is_no_prompt(tmp_path):
    """Aider logs an Enter pressed on an empty line as ``#### <blank>``: its placeholder,
    sent to no model. It was the person's prompt, the title of a note of nothing."""
    log = AiderLog().run("2025-03-01 09:15:00").prompt("<blank>")
    log.aider("", "^C again to exit", "", "^C KeyboardInterrupt")
    log.run("2025-03-01 09:16:00").prompt("<blank>").prompt("/diff").aider("Diff since 62fc417...")
    log.prompt("<blank>").aider("^C again to exit").prompt("fix it")
    log.reply("Fixed.")
    log.write(tmp_path / "home" / "src" / "r")
    sessions, _ = load(tmp_path / "home")
    assert all("<blank>" not in texts(s) for s in sessions)
    (second,) = [s for s in sessions if s.started_at.minute == 16]
    assert texts(second, "user") == ["fix it"]
    # Aider's answer to a Ctrl-C after an empty input is its own, not the command's output
    assert [p.output for m in second.messages for p in m.parts if p.kind == "command_output"] == [
        "Diff since 62fc417..."
    ]
    # a Ctrl-C at the prompt before anyone talked stopped nothing: no interruption, no output
    assert outputs(second) == []
    assert not [p for m in second.messages for p in m.parts if p.kind == "notice"]
    vault = tmp_path / "v"
    run_export(ExportOptions(vault=vault, home=tmp_path / "home", sources=["aider"]))
    notes = note_files(vault)
    assert len(notes) == 1 and "blank" not in " ".join(notes)


def _note(vault: Path, words: str) -> str:
    return next(t for t in map(bytes.decode, note_files(vault).values()) if words in t)


def test_a_questions_echo_is_no_second_prompt_and_helps_documents_are_aiders(tmp_path):
    """``/ask hi`` then `` hi``: Aider logs the question it sends for a mode command as a
    prompt of its own. The command says it once; the echo is no second prompt. ``/help``'s
    message (the question with the documents found for it) is Aider's, shown folded under
    the command, never as what the person typed (FORMATS.md §6.4; corpus line 37532)."""
    log = AiderLog().run("2025-03-01 09:15:00")
    log.prompt("/ask hi").prompt(" hi").reply("Hello!").tokens("63", "9", "0.01", "0.01")
    log.prompt("/help hi").prompt(
        "# Question:  hi", "", "# Relevant docs:", "", "<doc>", "Use /help <question>.", "</doc>"
    )
    log.reply("Type `/help <question>` to ask about aider.")
    log.prompt("hi").reply("Hello again.")  # typed after a reply: a prompt, though the same
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    user = [(type(p).__name__, getattr(p, "command", None) or getattr(p, "text", None)
             or p.output) for m in session.messages if m.role == "user" for p in m.parts]  # fmt: skip
    assert user == [
        ("CommandPart", "/ask hi"),
        ("CommandPart", "/help hi"),
        ("CommandOutputPart", "# Question:  hi\n\n# Relevant docs:\n\n<doc>\n"
                              "Use /help <question>.\n</doc>"),
        ("TextPart", "hi"),
    ]  # fmt: skip
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC))
    note = _note(vault, "Hello again.")
    assert "\nprompts: 3\n" in note and "title: /ask hi\n" in note
    assert "\n> [!note]- Output\n> ```text\n> # Question:  hi\n" in note
    turns = note.split("\n### ")
    assert not any(t.startswith("User") and "Relevant docs" in t.split("> [!note]")[0]
                   for t in turns)  # fmt: skip


def test_a_question_no_reply_came_to_keeps_its_note(tmp_path):
    """``/ask why is the cache stale?`` and Ctrl-C before the answer: the person's question,
    worth a note as a prompt with no reply is. Its echo made it one before the echo was
    read as the echo. A ``/help`` question (about Aider) and ``/run pytest`` alone make none."""
    log = AiderLog().run("2025-03-01 09:15:00")
    log.prompt("/ask why is the cache stale?").prompt(" why is the cache stale?")
    log.run("2025-03-01 10:00:00").prompt("/help how do I undo?")
    log.run("2025-03-01 11:00:00").prompt("/run pytest").aider("1 passed")
    log.write(tmp_path / "home" / "src" / "r")
    vault = tmp_path / "vault"
    report = run_export(ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC))
    assert not report.failed, report.problems
    notes = [p for p in note_files(vault) if "/aider/" in p]
    assert len(notes) == 1 and "why is the cache stale" in notes[0]
    assert "\nprompts: 1\n" in _note(vault, "/ask why is the cache stale?")


def test_a_lint_report_aider_sent_is_aiders_and_names_the_run(tmp_path):
    """``aider --lint``: Aider prints its linter's report, asks "Fix lint errors in …?", and
    sends the model the report, which it logs as a prompt headed "# Fix any errors below, if
    possible." Nobody typed it: it is Aider's output (before any prompt, under no heading;
    after ``/lint``, under that command), the run has no prompt, and its title is what
    Aider asked, not the report's first words. With no reply there is no conversation."""
    report = ["# Fix any errors below, if possible.", "", "## Running: flake8 app/main.py", "",
              "app/main.py:3:1: F401 'os' imported but unused", "", "",
              "## See relevant line below marked with █.", "", "app/main.py:", "  1│import sys",
              "  3█import os"]  # fmt: skip
    log = AiderLog().run("2025-03-01 09:15:00", command="/opt/bin/aider --lint --commit")
    log.aider(*report, "Fix lint errors in /home/me/src/r/app/main.py? y")
    log.prompt(*report).reply("Remove the unused import:\n\napp/main.py\n```python\n"
                              "<<<<<<< SEARCH\nimport os\n=======\n>>>>>>> REPLACE\n```")  # fmt: skip
    log.tokens("1,200", "40", "0.01", "0.01").aider("Applied edit to app/main.py")
    log.run("2025-03-01 10:00:00").prompt("/lint").aider(*report, "Fix lint errors in x? y")
    log.prompt(*report).reply("Fixed.")
    log.run("2025-03-01 11:00:00", command="/opt/bin/aider --lint")  # answered by no one
    log.aider(*report, "Fix lint errors in x? y").prompt(*report)
    log.write(tmp_path / "home" / "src" / "r")
    sessions, problems = load(tmp_path / "home")
    assert problems == [] and len(sessions) == 2
    started, typed = sessions
    sent = "\n".join(report)
    assert [(m.role, m.parts) for m in started.messages][:2] == [
        ("system", (CommandOutputPart(sent + "\nFix lint errors in /home/me/src/r/app/main.py? y"),)),
        ("system", (CommandOutputPart(sent),)),
    ]  # fmt: skip
    assert not [m for m in started.messages if m.role == "user"]
    assert notes.session_title(started) == "Fix lint errors in `app/main.py`"
    assert [m.role for m in typed.messages][:3] == [
        "user",
        "user",
        "user",
    ]  # /lint, its output, the report
    assert typed.messages[2].parts == (CommandOutputPart(sent),)
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC))
    note = _note(vault, "Remove the unused import")
    assert "\nprompts: 0\n" in note and "title: Fix lint errors in `app/main.py`\n" in note
    assert "### User" not in note and note.count("> # Fix any errors below, if possible.") == 2


@pytest.mark.parametrize("marked", [True, False])
def test_a_heading_in_a_reply_is_the_replys_where_aider_marks_its_prompts(tmp_path, marked):
    """Aider ends every line of an input it logs with two spaces and writes the model's
    reply as it came: in such a log a ``####`` line without them is the reply's (a heading,
    a line of a file in an edit block; corpus lines 10709, 42880, 99942), and a prompt with
    them still is one, even right after a reply with no usage line between. A log without
    the spaces anywhere (trimmed by an editor, hand-made) reads every ``####`` line as a
    prompt, as Aider's own history reader does."""
    log = AiderLog().run("2025-03-01 09:15:00")
    log.prompt("how should the classes change?")
    log.reply("Two changes.\n\n#### `InputOutput` Class\n\nMake `confirm_ask` async.\n\n"
              "#### `Coder` Class\n\nAwait it.")  # fmt: skip
    log.prompt("and the docs?")  # right after the reply: no usage line between
    log.reply("docs/modes.md\n<source>markdown\n<<<<<<< SEARCH\n#### /help How do I use ollama?\n"
              "=======\n#### /code Add a factorial function\n>>>>>>> REPLACE\n</source>")  # fmt: skip
    log.tokens("2,000", "80", "0.02", "0.02")
    text = log.text() if marked else log.text().replace("  \n", "\n")
    (tmp_path / "home" / "src" / "r").mkdir(parents=True)
    (tmp_path / "home" / "src" / "r" / ".aider.chat.history.md").write_text(text)
    (session,), _ = load(tmp_path / "home")
    if not marked:
        assert "`InputOutput` Class" in texts(session, "user")
        return
    assert texts(session, "user") == ["how should the classes change?", "and the docs?"]
    first, second = texts(session, "assistant")
    assert "\n\n#### `InputOutput` Class\n\n" in first and first.endswith("Await it.")
    assert second == (
        "docs/modes.md\n```markdown\n<<<<<<< SEARCH\n#### /help How do I use "
        "ollama?\n=======\n#### /code Add a factorial function\n>>>>>>> REPLACE\n```"
    )


def test_every_applied_edit_is_an_edit_of_that_file_so_the_note_lists_it(tmp_path):
    """``> Applied edit to <path>`` is Aider's word that the model's edit block changed the
    file: an ``edit`` of that path, so the note's ``files`` (and a Dataview query on it)
    find the session. A failed edit says no such thing and adds nothing."""
    log = AiderLog().run("2025-03-01 09:15:00").prompt("rename it")
    log.reply("app.py\n```python\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```")
    log.tokens("900", "30", "0.01", "0.01")
    log.aider("Committing app.py before applying edits.", "Applied edit to app.py")
    log.aider("Applied edit to docs/usage.md", "Commit 1a2b3c4 rename")
    log.prompt("and the test").reply("tests/t.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n"
                                      ">>>>>>> REPLACE\n```")  # fmt: skip
    log.aider("The LLM did not conform to the edit format.")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert edited_files(session) == ["app.py", "docs/usage.md"]
    assert session.tool_call_count == 3  # the failed one too (tests/test_aider_failures.py)
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC))
    note = _note(vault, "rename it")
    assert "\nfiles:\n- app.py\n- docs/usage.md\n" in note
    assert note.index("> Committing app.py before applying edits.") < note.index(
        "`edit` — `app.py`"
    )
    assert "> [!example]- `edit` — `app.py`\n> ```text\n> Applied edit to app.py\n> ```" in note
    assert "`docs/usage.md`\n> ```text\n> Applied edit to docs/usage.md\n> Commit 1a2b3c4" in note


@pytest.mark.parametrize(
    ("typed", "title"),
    [
        (["/add aider/io.py", "move the imports to the top"], "move the imports to the top"),
        (["/model gpt-4o", "/web https://aider.chat", "/ask what is it?"], "/ask what is it?"),
        (["/drop a.py", "/run pytest -q"], "/run pytest -q"),
        (["/add aider/io.py", "/tokens"], "/add aider/io.py"),  # no request: as before
        (["why?", "/add b.py", "and now?"], "why?"),
    ],
)
def test_a_note_is_titled_by_what_was_asked_not_by_the_chat_set_up(tmp_path, typed, title):
    """``/add``, ``/drop``, ``/model``, ``/web`` set the chat up: the note is titled by the
    first request after them (a prompt, or ``/ask``, ``/run`` … with its words), and by
    the first command only when nothing was asked."""
    log = AiderLog().run("2025-03-01 09:15:00")
    for line in typed:
        log.prompt(line)
    log.reply("Done.").write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert notes.session_title(session) == title


def test_a_title_made_of_a_later_request_is_redacted_and_names_the_note(tmp_path):
    """The title made of the request after ``/add`` is the note builder's, from the message
    as redaction left it: a token in the request never reaches the title, the name or the
    index. (The token is generated at test time; none is real.)"""
    from test_redact import SAMPLES, Gen
    from test_redact_export import every_file

    token = SAMPLES["github-pat"](Gen(7))[1]
    log = AiderLog().run("2025-03-01 09:15:00")
    log.prompt("/add deploy.sh").prompt(f"deploy with {token} please").reply("Done.")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert session.title is None and session.title_from is not None
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC))
    note = _note(vault, "deploy with")
    assert "\ntitle: deploy with [REDACTED:github-pat] please\n" in note
    assert any("deploy with -REDACTED" in p for p in note_files(vault))  # (its name)
    assert all(token not in path and token not in text for path, text in every_file(vault).items())


_WORDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")),
                 min_size=1, max_size=30).map(str.strip).filter(bool)  # fmt: skip
_REPLY_LINE = st.one_of(
    _WORDS.filter(lambda w: not w.startswith((">", "#", "<", "`", "~", "-", "*", "+"))),
    _WORDS.map(lambda w: f"#### {w}"),  # a heading, or a line of a file in an edit block
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_WORDS.filter(lambda w: not w.startswith(("/", "!", "#", "<"))),
                          st.lists(_REPLY_LINE, min_size=1, max_size=6)),
                min_size=1, max_size=4))  # fmt: skip
def test_in_a_marked_log_the_prompts_are_exactly_what_was_typed(exchanges):
    """Whatever the replies hold (``####`` lines among them), a log in which Aider marked its
    prompts reads back with exactly the prompts typed and every reply line the reply's."""
    log = AiderLog().run("2025-03-01 09:15:00")
    for prompt, reply in exchanges:
        log.prompt(prompt).reply("\n\n".join(reply))
    (run,) = split_runs(log.text().encode())
    session = parse_run(run, "x", Path("log.md"), None)
    assert texts(session, "user") == [p for p, _ in exchanges]
    assert texts(session, "assistant") == ["\n\n".join(r) for _, r in exchanges]
