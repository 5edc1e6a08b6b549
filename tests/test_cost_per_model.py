"""A session that used several models is priced at each model's rate, where its source says
which model used which tokens; a session whose input tokens are unknown gets no estimate."""

from __future__ import annotations

import dataclasses
import pickle
from datetime import UTC, datetime
from pathlib import Path

import pytest
from claude_builder import ClaudeSession
from codex_builder import CodexRollout
from conftest import load_sessions
from copilot_cli_builder import CopilotCliSession
from gemini_builder import GeminiChat, project_folder
from opencode_builder import OpenCodeStore, step_finish, text

from exporter import prices
from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.adapters.codex import CodexAdapter
from exporter.adapters.copilot_cli import CopilotCliAdapter
from exporter.adapters.gemini import GeminiAdapter
from exporter.adapters.opencode import OpenCodeAdapter
from exporter.model import Message, Session, TextPart, Usage
from exporter.split import part_sessions
from exporter.stats import session_properties

SID = "5e0c1a77-3f0e-4c52-9a0b-0d1f6b2c7a10"
SONNET, OPUS = "claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101"
# USD per million tokens in the shipped table: input, output, cache read, cache write
SONNET_PRICES, OPUS_PRICES = (3.0, 15.0, 0.30, 3.75), (5.0, 25.0, 0.50, 6.25)


def usd(usage: Usage, per_million: tuple[float, float, float, float]) -> float:
    counts = (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens,
              usage.cache_write_tokens)  # fmt: skip
    return sum(c * p for c, p in zip(counts, per_million, strict=True)) / 1_000_000


def session(*replies: str, **kw) -> Session:
    when = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    messages = tuple(
        Message("assistant", (TextPart("ok"),), timestamp=when, model=m) for m in replies
    )
    return Session("claude-code", SID, messages, Path("/x.jsonl"), **kw)


def cost(s: Session) -> float | None:
    return session_properties(s).get("cost")


def test_each_model_s_tokens_are_priced_at_its_own_rate():
    sonnet, opus = Usage(2000, 100, 300, 60), Usage(3000, 50)
    s = session(SONNET, SONNET, OPUS, usage=sonnet + opus,
                model_usage=((SONNET, sonnet), (OPUS, opus)))  # fmt: skip
    expected = usd(sonnet, SONNET_PRICES) + usd(opus, OPUS_PRICES)
    assert cost(s) == pytest.approx(expected)
    assert session_properties(s)["cost_estimated"] is True
    # (before: every token at the main model's rate, Sonnet's)
    assert cost(s) != pytest.approx(usd(sonnet + opus, SONNET_PRICES))


def test_tokens_no_model_is_named_for_are_priced_at_the_main_model_s_rate():
    opus, rest = Usage(3000, 50), Usage(1000, 10)
    s = session(SONNET, SONNET, OPUS, usage=opus + rest, model_usage=((OPUS, opus),))
    assert cost(s) == pytest.approx(usd(opus, OPUS_PRICES) + usd(rest, SONNET_PRICES))


def test_one_model_without_a_price_leaves_the_session_without_an_estimate():
    sonnet, unknown = Usage(2000, 100), Usage(3000, 50)
    s = session(SONNET, usage=sonnet + unknown,
                model_usage=((SONNET, sonnet), ("gpt-9-ultra", unknown)))  # fmt: skip
    assert "cost" not in session_properties(s)  # never the low estimate of Sonnet's alone
    assert "cost_estimated" not in session_properties(s)


def test_output_tokens_alone_give_no_estimate():
    """The input a reply needed is unknown (Copilot CLI without a clean shutdown counts the
    replies' output alone): its price is not the session's cost."""
    assert cost(session(SONNET, usage=Usage(output_tokens=40))) is None
    assert prices.estimate(Usage(output_tokens=40), SONNET, prices.shipped_table()) is None
    alone = Usage(output_tokens=40)
    s = session(SONNET, usage=Usage(1000, 10) + alone,
                model_usage=((SONNET, Usage(1000, 10)), (OPUS, alone)))  # fmt: skip
    assert cost(s) is None
    assert cost(session(SONNET, usage=Usage(0, 40, 500))) is not None  # cached input counts


def test_a_recorded_cost_still_wins():
    s = session(SONNET, usage=Usage(1000, 10), model_usage=((OPUS, Usage(1000, 10)),), cost=0.5)
    assert "cost" not in session_properties(s)  # notes.py writes the source's 0.5


def test_only_the_first_part_of_a_long_session_carries_the_tokens_per_model():
    big = "word " * 400
    when = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    messages = tuple(
        Message("assistant", (TextPart(big),), f"m{i}", when, SONNET) for i in range(12)
    )
    usage = Usage(2000, 100)
    s = Session("claude-code", SID, messages, Path("/x.jsonl"), usage=usage,
                model_usage=((SONNET, usage),))  # fmt: skip
    parts = part_sessions(s, max_bytes=4000)
    assert len(parts) > 1
    assert [cost(p) is not None for p in parts] == [True] + [False] * (len(parts) - 1)
    assert parts[0].model_usage == ((SONNET, usage),)
    assert all(p.model_usage == () for p in parts[1:])


def test_sessions_built_and_pickled_without_the_new_field_still_work():
    s = session(SONNET, usage=Usage(1, 2), model_usage=((SONNET, Usage(1, 2)),))
    assert pickle.loads(pickle.dumps(s)) == s
    constructor, fields = s.__reduce__()
    before = [f.name for f in dataclasses.fields(s)].index("model_usage")
    older = constructor(*fields[:before])  # a Session from the fields in the older order
    assert older.model_usage == () and older.usage == Usage(1, 2)


# -- adapters ------------------------------------------------------------------------------


def test_claude_code_counts_each_response_s_tokens_to_its_model(tmp_path):
    s = ClaudeSession(SID)
    s.user("explain")
    s.assistant("one", usage=(2000, 100))
    s.user("and again, with more thought")
    s.assistant("two", model=OPUS, usage=(3000, 50))
    s.assistant("three", usage=(1000, 20))
    s.write(tmp_path / ".claude" / "projects" / "-w-proj" / f"{SID}.jsonl")
    (found,), _ = load_sessions(ClaudeCodeAdapter(), tmp_path)
    # (the builder adds 100 cache reads and 20 cache writes to every response)
    sonnet, opus = Usage(3000, 120, 200, 40), Usage(3000, 50, 100, 20)
    assert found.model_usage == ((SONNET, sonnet), (OPUS, opus))
    assert found.usage == sonnet + opus
    assert cost(found) == pytest.approx(usd(sonnet, SONNET_PRICES) + usd(opus, OPUS_PRICES))


def test_copilot_cli_counts_tokens_per_model_from_model_metrics(tmp_path):
    s = CopilotCliSession(SID)
    s.user("Rate limit POST /notes")
    s.assistant("Done.")
    s.shutdown({
        "claude-sonnet-4.5": {"inputTokens": 48000, "outputTokens": 1900, "cacheReadTokens": 30000,
                              "cacheWriteTokens": 0},
        "gpt-5": {"inputTokens": 9000, "outputTokens": 400, "cacheReadTokens": 0,
                  "cacheWriteTokens": 0},
    })  # fmt: skip
    s.write(tmp_path / ".copilot")
    (found,), _ = load_sessions(CopilotCliAdapter(), tmp_path)
    sonnet, gpt = Usage(18000, 1900, 30000), Usage(9000, 400)
    assert found.model_usage == (("claude-sonnet-4.5", sonnet), ("gpt-5", gpt))
    # Sonnet's 0.0915 and GPT-5's 0.01525 (before: all at Sonnet's rate, 0.1245)
    assert cost(found) == pytest.approx(0.0915 + 0.01525)


def test_copilot_cli_without_a_shutdown_counts_output_alone_and_gets_no_estimate(tmp_path):
    s = CopilotCliSession(SID)
    s.user("Why does the build fail?")
    s.assistant("Looking.", outputTokens=40)
    s.write(tmp_path / ".copilot")
    (found,), _ = load_sessions(CopilotCliAdapter(), tmp_path)
    assert found.usage == Usage(output_tokens=40) and found.model_usage == ()
    props = session_properties(found)
    assert props["tokens"] == 40 and "cost" not in props and "cost_estimated" not in props


def codex_two_models(tmp_path, first: tuple[int, ...], *later: tuple[int, ...]) -> Session:
    """A rollout whose first turn (gpt-5-codex) reports the running total ``first`` and
    whose next turn, after /model, reports each of ``later``."""
    r = CodexRollout(SID)
    r.user("Add a health endpoint").assistant("Added.")  # (its turn: gpt-5-codex)
    r.tokens(*first)
    r.model = "gpt-5-mini"  # (the next turns' model, as /model sets it)
    r.user("And a test").assistant("Added a test.")
    for total in later:
        r.tokens(*total)
    r.write(tmp_path / ".codex")
    (found,), _ = load_sessions(CodexAdapter(), tmp_path)
    return found


def test_codex_counts_what_each_total_adds_to_the_model_of_its_turn(tmp_path):
    # the same total again adds nothing
    found = codex_two_models(tmp_path, (1000, 400, 120), (2500, 900, 300), (2500, 900, 300))
    assert found.usage == Usage(1600, 300, 900)
    assert found.model_usage == (("gpt-5-codex", Usage(600, 120, 400)),
                                 ("gpt-5-mini", Usage(1000, 180, 500)))  # fmt: skip


def test_codex_totals_that_go_down_say_nothing_per_model(tmp_path):
    found = codex_two_models(tmp_path, (2500, 900, 300), (1000, 400, 120))
    assert found.usage == Usage(600, 120, 400) and found.model_usage == ()


def test_gemini_counts_each_reply_s_tokens_to_its_model(tmp_path):
    chat = GeminiChat(SID)
    chat.user("hi")
    chat.gemini("hello", tokens={"input": 1000, "output": 50, "cached": 400, "thoughts": 10})
    chat.user("more")
    chat.gemini("sure", model="gemini-2.5-flash", tokens={"input": 500, "output": 20})
    chat.write_json(project_folder(tmp_path, chat.root, "api") / "chats")
    (found,), _ = load_sessions(GeminiAdapter(), tmp_path)
    assert found.model_usage == (("gemini-2.5-pro", Usage(600, 60, 400)),
                                 ("gemini-2.5-flash", Usage(500, 20)))  # fmt: skip


def test_opencode_counts_each_step_s_tokens_to_its_message_s_model(tmp_path):
    store = OpenCodeStore()
    s = store.session("Fix the cart", "/w/shop")
    store.user(s, text("Fix it"))
    store.assistant(s, text("Done."), step_finish(0.0, 1000, 50, read=200))
    store.user(s, text("Explain"))
    store.assistant(s, text("Because."), step_finish(0.0, 500, 20), model=("openai", "gpt-5"))
    store.write_db(tmp_path / ".local" / "share" / "opencode" / "opencode.db")
    (found,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    assert found.model_usage == (("anthropic/claude-sonnet-5", Usage(1000, 50, 200)),
                                 ("openai/gpt-5", Usage(500, 20)))  # fmt: skip
    assert found.cost == 0.0  # what OpenCode recorded, which the note keeps
