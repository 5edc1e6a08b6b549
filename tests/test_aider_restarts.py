"""A reply's code kept as code where the model or Aider broke into it (review12 F2, note
20448dfe, source lines 51337-52949: 169 headings of a translated HISTORY.md rendered live):

- the model cut off inside a file's code block and wrote its whole answer anew (a
  paragraph, the same file's name, an opening fence): the new fence closed the old block
  and the new file read as Markdown;
- Aider's report of a failed request it tried again (``> litellm.APIConnectionError …``,
  ``> Retrying in 0.2 seconds...``) inside the reply's code, the reply going on after it:
  kept as lines of the file, the rest of the reply then outside its fence;
- a test build's ``> badness`` then ``> Retrying in …``: a tool's output, not an error."""

from __future__ import annotations

from aider_builder import AiderLog
from conftest import texts
from markdown_it import MarkdownIt
from test_aider_adapter import load, utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)

from exporter.model import NoticePart, ToolResultPart


def headings(markdown: str) -> list[str]:
    tokens = MarkdownIt().parse(markdown)
    return [tokens[k + 1].content for k, t in enumerate(tokens) if t.type == "heading_open"]


def _session(tmp_path, log: AiderLog):
    log.write(tmp_path / "home" / "src" / "r")
    (session,), problems = load(tmp_path / "home")
    assert problems == []
    return session


def errors(session) -> list[str]:
    return [p.text for m in session.messages for p in m.parts if isinstance(p, NoticePart)]


FIRST = "Voici :\n\nHISTORY.md\n```\n# Historique\n\n### Branche principale\n- Sortie infinie"
AGAIN = (
    "Sure, here is the whole file:\n\nHISTORY.md\n```\n# Historique\n\n### Aider v0.49\n- Un\n```"
)


def test_a_reply_that_starts_again_inside_its_open_block_closes_it_there(tmp_path):
    log = AiderLog().run("2024-08-12 20:56:40").prompt("translate it all to french")
    log.reply(f"{FIRST}\n\n\n{AGAIN}").tokens("15,218", "3,458", "0.01", "0.01")
    (reply,) = texts(_session(tmp_path, log), "assistant")
    assert reply == f"{FIRST}\n```\n\n\n{AGAIN}"
    assert headings(reply) == []  # every line of both files is code


def test_the_same_name_and_fence_in_a_files_code_after_other_text_is_left_alone(tmp_path):
    """Only the file the open block is for, named again: another name is the file's own."""
    reply = "docs.md\n```\n# Docs\n\nsetup.py\n```\nx = 1\n```"
    log = AiderLog().run("2024-08-12 20:56:40").prompt("write the docs").reply(reply)
    (text,) = texts(_session(tmp_path, log.tokens("900", "30", "0.01", "0.01")), "assistant")
    assert text == reply


def test_aiders_retry_inside_the_replys_code_is_an_error_and_the_code_goes_on(tmp_path):
    log = AiderLog().run("2024-08-12 20:56:40").prompt("translate it all to french")
    log.reply("HISTORY.md\n```\n# Historique\n- Correction de bogue pour `/add` lorsque")
    log.aider("litellm.APIConnectionError: peer closed connection", "Retrying in 0.2 seconds...")
    log.reply("de GPT-4 Turbo.\n\n### Aider v0.17.0\n\n- Prise en charge\n```")
    session = _session(tmp_path, log.tokens("15,218", "3,458", "0.01", "0.01"))
    first, rest = texts(session, "assistant")
    assert first == "HISTORY.md\n```\n# Historique\n- Correction de bogue pour `/add` lorsque"
    assert rest == "```\nde GPT-4 Turbo.\n\n### Aider v0.17.0\n\n- Prise en charge\n```"
    assert headings(rest) == []
    assert errors(session) == [
        "litellm.APIConnectionError: peer closed connection\nRetrying in 0.2 seconds..."
    ]
    roles = [m.role for m in session.messages]
    assert roles == ["user", "assistant", "system", "assistant"]


def test_a_quote_in_code_that_is_no_retry_stays_code(tmp_path):
    """A ``>`` line in the reply's code with more of the reply after it is the reply's."""
    reply = "notes.md\n```\n> Retrying in 0.2 seconds...\nsaid the log\n```"
    log = AiderLog().run("2024-08-12 20:56:40").prompt("quote the log").reply(reply)
    session = _session(tmp_path, log.tokens("900", "30", "0.01", "0.01"))
    assert texts(session, "assistant") == [reply] and errors(session) == []


def test_a_failure_aider_tried_again_is_an_api_error_whatever_it_said(tmp_path):
    """Corpus lines 13692-13721: ``> badness`` then ``> Retrying in 0.2 seconds...``, five
    times: a tool's output (review12 F7)."""
    log = AiderLog().run("2024-08-08 15:16:51").prompt("hi")
    log.aider("Committing app.py before applying edits.", "", "badness")
    log.lines[-1:] = []  # (Aider's lines, one after the other)
    log.aider("Retrying in 0.2 seconds...", "badness", "Retrying in 0.5 seconds...")
    log.reply("Hello!").tokens("638", "25", "0.01", "0.01")
    session = _session(tmp_path, log)
    assert errors(session) == [
        "badness\nRetrying in 0.2 seconds...",
        "badness\nRetrying in 0.5 seconds...",
    ]
    outputs = [p.output for m in session.messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert outputs == ["Committing app.py before applying edits."]
