"""What Aider reports as going wrong: an edit block it could not apply (a failed ``edit``,
counted in ``errors``), a request to the model that failed (an API error notice), a reply
cut short with its code fence left open (the report is Aider's, not the reply's code), and
the banner of another Aider whose run is joined to this one."""

from __future__ import annotations

from datetime import UTC

import pytest
from aider_builder import AiderLog
from conftest import texts
from test_aider_adapter import load, outputs, utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)

from exporter.export import ExportOptions, run_export
from exporter.model import NoticePart, ToolCallPart, ToolResultPart
from exporter.stats import edited_files, error_count

OVERLOADED = (
    "Unexpected error: litellm.InternalServerError: AnthropicException - Overloaded. "
    "Handle with `litellm.InternalServerError`."
)


def notices(session) -> list[tuple[str, str]]:
    return [(p.notice, p.text) for m in session.messages for p in m.parts
            if isinstance(p, NoticePart)]  # fmt: skip


def calls_and_results(session) -> list[tuple[ToolCallPart, ToolResultPart]]:
    found = []
    for m in session.messages:
        parts = list(m.parts)
        for call, result in zip(parts, parts[1:], strict=False):
            if isinstance(call, ToolCallPart) and isinstance(result, ToolResultPart):
                found.append((call, result))
    return found


def test_an_error_after_a_reply_cut_short_is_aiders_not_the_replys_code(tmp_path):
    """A reply the API cut off mid-code leaves its fence open; Aider's report after it
    (corpus log, line 6387) was shown as a line of that code, ``> `` and all."""
    log = AiderLog().run("2024-08-06 10:00:00").prompt("check for a new version")
    log.reply("Here:\n\n```python\nif io.confirm_ask('Run pip install?'):\n"
              "    success, output = utils.run_install")  # fmt: skip
    log.aider(OVERLOADED)
    log.prompt("try again").reply("Done.")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    first, second = texts(session, "assistant")
    assert first.endswith("utils.run_install") and "Unexpected error" not in first
    assert notices(session) == [("error", OVERLOADED)]
    assert texts(session, "user") == ["check for a new version", "try again"]


def test_a_token_limit_hit_after_a_cut_reply_is_a_notice_and_a_ctrl_c_after_it_stops_nothing(
    tmp_path,
):
    """The request ended at the model's limit and Aider was back at its prompt: a Ctrl-C
    there interrupted nothing (it read "Interrupted by the user" before review12 F4)."""
    log = AiderLog().run("2024-08-12 10:00:00").prompt("translate it all to french")
    log.reply("```md\n### Aider v0.38.0\n\n- Utilisez `--vim`")
    log.aider("", "", "Model claude-3-haiku-20240307 has hit a token limit!",
              "Token counts below are approximate.", "",
              "Output tokens: ~3,472 of 4,096 -- possibly exceeded output limit!", "",
              "^C again to exit")  # fmt: skip
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    (reply,) = texts(session, "assistant")
    assert reply.endswith("Utilisez `--vim`") and "token limit" not in reply
    ((notice, text),) = notices(session)
    assert notice == "error" and text.startswith("Model claude-3-haiku-20240307 has hit")
    assert "Output tokens: ~3,472 of 4,096" in text


def test_a_quote_in_a_replys_open_code_followed_by_more_of_it_stays_the_replys(tmp_path):
    """Only a ``>`` line after which the run holds nothing of the reply ends its fence: a
    Markdown quote (with a hard break) inside code the reply goes on with is code."""
    log = AiderLog().run("2024-08-06 10:00:00").prompt("write the docs")
    log.reply("```md\n> Note: this is a quote  \n\nMore of the docs.")
    log.tokens("900", "30", "0.01", "0.01")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    (reply,) = texts(session, "assistant")
    assert "> Note: this is a quote  \n\nMore of the docs." in reply
    assert notices(session) == []


def test_an_edit_aider_could_not_apply_is_a_failed_edit_counted_in_errors(tmp_path):
    log = AiderLog().run("2024-08-06 10:00:00").prompt("use the pager")
    log.reply("aider/commands.py\n```python\n<<<<<<< SEARCH\nold\n=======\nnew\n"
              ">>>>>>> REPLACE\n```")  # fmt: skip
    log.tokens("16,949", "274", "0.05", "0.12")
    log.aider("Committing aider/io.py before applying edits.", "Commit 2904e1b feat: io",
              "The LLM did not conform to the edit format.",
              "https://aider.chat/docs/troubleshooting/edit-errors.html",
              "# 1 SEARCH/REPLACE block failed to match!", "",
              "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines "
              "in aider/commands.py", "<<<<<<< SEARCH", "old", "=======", "new",
              ">>>>>>> REPLACE")  # fmt: skip
    log.reply("Sorry: here is the block again.\n\naider/commands.py\n```python\n"
              "<<<<<<< SEARCH\nolder\n=======\nnew\n>>>>>>> REPLACE\n```")  # fmt: skip
    log.aider("Applied edit to aider/commands.py", "Commit 3a4b5c6 feat: pager")
    log.prompt("and the docs").reply("README.md\n```\nbad block\n```")
    log.aider("The LLM did not conform to the edit format.",
              "https://aider.chat/docs/troubleshooting/edit-errors.html")  # fmt: skip
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    failed, applied, unnamed = calls_and_results(session)
    assert (failed[0].name, failed[0].input, failed[1].is_error) == (
        "edit",
        {"path": "aider/commands.py"},
        True,
    )
    assert failed[1].output.startswith("The LLM did not conform") and "2904e1b" not in (
        failed[1].output
    )
    assert (applied[0].input, applied[1].is_error) == ({"path": "aider/commands.py"}, False)
    assert (unnamed[0].input, unnamed[1].is_error) == ({}, True)  # no file named
    assert outputs(session)[0] == "Committing aider/io.py before applying edits.\n" + (
        "Commit 2904e1b feat: io"
    )
    assert error_count(session) == 2 and edited_files(session) == ["aider/commands.py"]
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC))
    (note,) = [p.read_text() for p in vault.rglob("*use the pager*.md")]
    assert "\nerrors: 2\n" in note and "\nfiles:\n- aider/commands.py\n" in note
    assert "> [!failure]- `edit` — `aider/commands.py` (error)" in note
    assert "> [!failure]- `edit` (error)\n> ```text\n> The LLM did not conform" in note


def test_an_api_error_is_a_notice_up_to_aiders_retry_and_usage_without_cost_counts(tmp_path):
    log = AiderLog().run("2024-08-08 14:50:00").prompt("hi")
    log.aider("litellm.APIConnectionError: b'{\"type\":\"error\"}'",
              "Traceback (most recent call last):", 'File "litellm/utils.py", line 10080',
              "Retrying in 0.2 seconds...")  # fmt: skip
    log.reply("Bonjour!")
    log.aider("Tokens: 1,497 sent, 57 received.")  # a model Aider knows no price of
    log.prompt("again")
    log.aider("Error during API call: litellm.NotFoundError: OpenAIException - Error code: 404")
    log.aider("Tokens: 1,169 sent, 0 received.")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    first, second = notices(session)
    assert first[0] == "error" and first[1].startswith("litellm.APIConnectionError")
    assert first[1].endswith("Retrying in 0.2 seconds...") and "Traceback" in first[1]
    assert second == ("error", "Error during API call: litellm.NotFoundError: "
                               "OpenAIException - Error code: 404")  # fmt: skip
    assert texts(session, "assistant") == ["Bonjour!"]
    assert outputs(session) == []  # the usage lines are counted, not shown
    assert (session.usage.input_tokens, session.usage.output_tokens) == (2666, 57)
    assert session.cost is None and error_count(session) == 0  # no tool call failed


def test_a_joined_run_shows_no_banner_of_the_other_aider(tmp_path):
    """A second Aider started in the repository while the first was answering (corpus log,
    line 5246): its header and banner land inside the first one's output; the banner is
    that other Aider's, nothing of this session."""
    log = AiderLog().run("2024-08-06 09:52:26").prompt("include the time zone")
    log.reply("Here.").tokens("19,537", "217", "0.06", "0.06")
    log.aider("The LLM did not conform to the edit format.")
    log.run("2024-08-06 09:52:50", model="gpt-4o", command="/home/me/.venv/bin/aider --show-prompt")
    log.reply("I apologize: here is the edit.").tokens("19,942", "132", "0.06", "0.12")
    log.aider("Applied edit to app.py")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert texts(session, "assistant") == ["Here.", "I apologize: here is the edit."]
    failed, applied = calls_and_results(session)
    assert failed[1].output == "The LLM did not conform to the edit format."
    assert session.models == ("claude-3-5-sonnet-20240620",)  # not the other Aider's gpt-4o


@pytest.mark.parametrize("command", ["/run aider main.py", "!aider main.py"])
def test_a_nested_aiders_banner_stays_the_output_of_the_command_that_started_it(tmp_path, command):
    log = AiderLog().run("2025-03-01 09:15:00").prompt(command)
    log.run("2025-03-01 09:15:05", command="/home/me/.local/bin/aider main.py")
    log.reply("Hello from the child.").tokens("4,000", "20", "0.01", "0.01")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    shown = "\n".join(p.output for m in session.messages for p in m.parts
                      if hasattr(p, "output"))  # fmt: skip
    assert "Aider v0.86.1" in shown


@pytest.mark.parametrize("reference", [False, True])
def test_a_long_api_error_is_folded_machine_text_kept_verbatim(tmp_path, monkeypatch, reference):
    """An API error of many lines (litellm's exception with the whole prompt, a traceback:
    17 KB in the corpus log) was an open callout of escaped prose: `*SEARCH/REPLACE*`
    read `*SEARCH/REPLACE\\*`, and a search for it missed. It is a folded callout holding
    the text as written, in a code block; a one-line error stays a line of prose. The
    optimised renderer and the template (the reference path) write the same."""
    if reference:
        monkeypatch.setenv("CCEXPORT_REFERENCE_RENDER", "1")
    lines = ["litellm.BadRequestError: AnthropicException - invalid request",
             "Received Messages=[{'role': 'system', 'content': 'Use *SEARCH/REPLACE* blocks'}]",
             "Traceback (most recent call last):",
             *[f'  File "litellm/factory.py", line {n}, in prompt_factory' for n in range(30)],
             "    ^^^^^^^^^^^^^^^^"]  # fmt: skip
    log = AiderLog().run("2024-08-17 07:15:06").prompt("hi")
    log.aider(*lines)
    log.prompt("again")
    log.aider(OVERLOADED)
    log.write(tmp_path / "home" / "src" / "r")
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", timezone=UTC))
    (note,) = [p.read_text() for p in (tmp_path / "v").rglob("*.md") if "/aider/" in str(p)]
    assert "> [!warning]- API error\n> ```text\n> litellm.BadRequestError" in note
    assert (
        "> Received Messages=[{'role': 'system', 'content': 'Use *SEARCH/REPLACE* blocks'}]" in note
    )
    assert '>   File "litellm/factory.py", line 29, in prompt_factory\n' in note
    assert "> [!warning] API error\n>\n> Unexpected error: litellm.InternalServerError" in note


@pytest.mark.parametrize("reference", [False, True])
def test_an_api_error_long_in_few_lines_is_folded_too(tmp_path, monkeypatch, reference):
    """The corpus's two longest Aider errors hold the whole prompt on one line of 6,820
    characters, in 15 and 4 lines: folded past 20 lines only, they stayed open."""
    if reference:
        monkeypatch.setenv("CCEXPORT_REFERENCE_RENDER", "1")
    prompt = (
        "Received Messages=[{'role': 'system', 'content': '" + "Act as an expert. " * 200 + "'}]"
    )
    log = AiderLog().run("2024-08-17 07:15:06").prompt("hi")
    log.aider("litellm.BadRequestError: AnthropicException - invalid request", prompt)
    log.prompt("and a long one-line error")
    log.aider("litellm.BadRequestError: " + "x" * 2100)
    log.write(tmp_path / "home" / "src" / "r")
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", timezone=UTC))
    (note,) = [p.read_text() for p in (tmp_path / "v").rglob("*.md") if "/aider/" in str(p)]
    assert note.count("> [!warning]- API error\n> ```text\n> litellm.BadRequestError") == 2
    assert "> [!warning] API error" not in note
