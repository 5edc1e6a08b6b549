"""A Markdown blockquote the model wrote in a reply (``> `` lines without the two spaces
Aider ends each message of its own with) stays in the reply, quoted: not Aider's output
(review21 F2)."""

from __future__ import annotations

from aider_builder import AiderLog
from test_aider_adapter import load, utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)

from exporter.model import ToolCallPart, ToolResultPart

QUOTE = "> Simple is better than complex.\n> Flat is better than nested."


def test_a_blockquote_in_a_reply_stays_in_the_reply(tmp_path):
    log = AiderLog().run("2026-01-05 10:00:00").prompt("explain the zen")
    log.reply(f"Here is a quote:\n\n{QUOTE}\n\nThat is the Zen.")
    log.tokens("1.2k", "20", "0.01", "0.01")
    log.prompt("and a note?").reply(f"> **Note:** it is a poem.\n\n{QUOTE}")
    log.aider("Applied edit to zen.txt")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    replies = [p.text for m in session.messages if m.role == "assistant" for p in m.parts]
    assert replies == [
        f"Here is a quote:\n\n{QUOTE}\n\nThat is the Zen.",
        f"> **Note:** it is a poem.\n\n{QUOTE}",
    ]
    calls = [p for m in session.messages for p in m.parts if isinstance(p, ToolCallPart)]
    results = [p.output for m in session.messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert [c.input for c in calls] == [{"path": "zen.txt"}]  # Aider's own line stays its own
    assert results == ["Applied edit to zen.txt"]


def _replies_and_results(home):
    (session,), _ = load(home)
    replies = [p.text for m in session.messages if m.role == "assistant" for p in m.parts]
    results = [p.output for m in session.messages for p in m.parts if isinstance(p, ToolResultPart)]
    return session, replies, results


def test_a_quote_that_ends_the_log_stays_in_the_reply(tmp_path):
    """The log's last reply ends with a quote, or goes on after it, with no line of Aider's
    after it (review23 F6): no spaced ``>`` line comes, so the quote is the reply's."""
    log = AiderLog().run("2026-01-05 10:00:00").prompt("what does the doc say")
    log.reply(f"The doc says:\n\n{QUOTE}\n\nSo keep it flat.")
    log.write(tmp_path / "a" / "src" / "r")
    _, replies, results = _replies_and_results(tmp_path / "a")
    assert replies == [f"The doc says:\n\n{QUOTE}\n\nSo keep it flat."]
    assert results == []

    log = AiderLog().run("2026-01-05 10:00:00").prompt("quote it")
    log.reply(f"The doc says:\n\n{QUOTE}")  # the quote is the log's last line
    log.write(tmp_path / "b" / "src" / "r")
    _, replies, results = _replies_and_results(tmp_path / "b")
    assert replies == [f"The doc says:\n\n{QUOTE}"]
    assert results == []


def test_a_quote_before_the_next_prompt_with_no_usage_line_stays_in_the_reply(tmp_path):
    """An Aider that printed no usage line: the next prompt follows the reply's quote."""
    log = AiderLog().run("2026-01-05 10:00:00").prompt("what does the doc say")
    log.reply(f"The doc says:\n\n{QUOTE}")
    log.prompt("thanks").reply("You are welcome.")
    log.tokens("1.2k", "20", "0.01", "0.01")
    log.write(tmp_path / "home" / "src" / "r")
    session, replies, results = _replies_and_results(tmp_path / "home")
    assert replies == [f"The doc says:\n\n{QUOTE}", "You are welcome."]
    assert results == []
    assert [m.role for m in session.messages] == ["user", "assistant", "user", "assistant"]


def test_aiders_own_last_messages_after_a_reply_stay_aiders(tmp_path):
    """A ``>`` line that ends with Aider's two spaces is Aider's, at the log's end too; and
    its usage line, its last line cut before its spaces were written, is still its own."""
    log = AiderLog().run("2026-01-05 10:00:00").prompt("fix it")
    log.reply(f"Done:\n\n{QUOTE}\n\nThat is all.")
    log.aider("Applied edit to zen.txt", "Commit 1234567 fix: zen")
    log.write(tmp_path / "a" / "src" / "r")
    _, replies, results = _replies_and_results(tmp_path / "a")
    assert replies == [f"Done:\n\n{QUOTE}\n\nThat is all."]
    assert results == ["Applied edit to zen.txt\nCommit 1234567 fix: zen"]

    log = AiderLog().run("2026-01-05 10:00:00").prompt("fix it").reply("Done.")
    log.lines.append("> Tokens: 1.2k sent, 20 received.")  # being written: no spaces yet
    log.write(tmp_path / "b" / "src" / "r")
    session, replies, results = _replies_and_results(tmp_path / "b")
    assert replies == ["Done."]
    assert session.usage is not None and session.usage.input_tokens == 1200


def test_a_reply_that_is_only_a_quote_is_the_models_reply(tmp_path):
    """A reply of a quote alone, where a reply belongs: after a message of Aider's that came
    between the prompt and the reply (its question about a URL in the prompt) it was read
    as that message going on, up to and with the usage line (the run lost its cost); with
    no usage line after it (before the next prompt, at the log's end) it was Aider's."""
    log = AiderLog().run("2026-01-05 10:00:00").prompt("quote https://peps.python.org/pep-0020/")
    log.aider("Add https://peps.python.org/pep-0020/ to the chat? n")
    log.reply(QUOTE).tokens("1.2k", "20", "0.01", "0.01")
    log.prompt("/ask and the next two?", " and the next two?")
    log.reply("> Explicit is better than implicit.")  # (an Aider that printed no usage line)
    log.prompt("the last one").reply("> Namespaces are one honking great idea.")
    log.write(tmp_path / "home" / "src" / "r")
    session, replies, results = _replies_and_results(tmp_path / "home")
    assert replies == [
        QUOTE,
        "> Explicit is better than implicit.",
        "> Namespaces are one honking great idea.",
    ]
    assert results == ["Add https://peps.python.org/pep-0020/ to the chat? n"]
    assert session.cost == 0.01 and session.usage.input_tokens == 1200


def test_aiders_own_lines_where_a_reply_belongs_stay_aiders(tmp_path):
    """What tells a reply's quote from Aider's lines: Aider ends each message with two
    spaces (older versions on its last line only, marking only its first with ``>``). Its
    error after a prompt stays its own, and so does a line after a command (no message
    went to the model: no reply is awaited there)."""
    log = AiderLog().run("2026-01-05 10:00:00").prompt("hi")
    log.lines += ["> Unexpected error: litellm.APIConnectionError: {", '"code": 429', "}  ", ""]
    log.prompt("/run cat zen.txt")
    log.lines += ["> Simple is better than complex.", ""]  # (its output, hand-trimmed)
    log.prompt("thanks").reply("You are welcome.").tokens("1.2k", "20", "0.01", "0.01")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert [(m.role, p.kind) for m in session.messages for p in m.parts] == [
        ("user", "text"),
        ("system", "notice"),  # the API error
        ("user", "command"),
        ("user", "command_output"),
        ("user", "text"),
        ("assistant", "text"),
    ]
    assert session.messages[3].parts[0].output == "Simple is better than complex."
