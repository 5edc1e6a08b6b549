"""The real Cline 4 SDK session in ../shared/corpus/cline (the Cline developers' own, home
path anonymised upstream) exports end to end: every prompt and every reply is findable in
the note, with its tool calls, both models and the summed tokens and cost."""

from __future__ import annotations

import json
import shutil
from datetime import UTC

import pytest
from conftest import normalize, note_files

from exporter.export import ExportOptions, run_export

pytestmark = pytest.mark.corpus
SESSION = "cline__cline__sdk-fixtures__session__session.messages.json"
SUBAGENT = "cline__cline__sdk-fixtures__messages__success.messages.json"


def test_real_sdk_session_exports_with_every_prompt_and_reply(corpus, tmp_path):
    source = corpus / "cline" / SESSION
    data = json.loads(source.read_text())
    session_id = data["sessionId"]
    folder = tmp_path / "home" / ".cline" / "data" / "sessions" / session_id
    folder.mkdir(parents=True)
    shutil.copyfile(source, folder / f"{session_id}.messages.json")
    shutil.copyfile(corpus / "cline" / SUBAGENT, folder / "agent_1.messages.json")
    report = run_export(
        ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", sources=["cline"],
                      timezone=UTC)
    )  # fmt: skip
    assert not report.failed and report.problems == []
    notes = note_files(tmp_path / "v")
    assert len(notes) == 2  # the session and the subagent transcript beside it
    main = next(v.decode() for k, v in notes.items() if " · agent " not in k.rsplit("/", 1)[-1])
    visible = normalize(main)
    checked, missing = 0, []
    for message in data["messages"]:
        for block in message["content"]:
            if block["type"] == "text" and block["text"].strip():
                checked += 1
                escaped = message["role"] == "assistant"
                if normalize(block["text"], escaped=escaped) not in visible:
                    missing.append(block["text"][:80])
    assert checked >= 15 and missing == []
    assert main.count("[!example]") >= 11  # every tool call, with its result
    assert "anthropic/claude-opus-4.8-fast" in main and "mistralai/voxtral-small-24b-2507" in main
    metrics = [m["metrics"] for m in data["messages"] if "metrics" in m]
    # inputTokens is the whole prompt, cache reads included (the prompt grows from 34,334
    # to 35,912 while 34,332 of it is read from the cache, and every opus reply's cost fits
    # one price only so): the input apart from the cache is 630,254 - 534,435. (This test
    # asserted the plain sum, which counted the cache reads twice.)
    uncached = sum(m["inputTokens"] - m["cacheReadTokens"] - m["cacheWriteTokens"] for m in metrics)
    assert uncached == 95_819
    assert f"tokens_in: {uncached}\n" in main
    assert f"tokens_cache_read: {sum(m['cacheReadTokens'] for m in metrics)}\n" in main
    assert "tokens: 634649\n" in main  # input + output + cache reads, each counted once
    assert f"cost: {round(sum(m['cost'] for m in metrics), 6)}" in main
    assert "[[" in main  # linked to its subagent's note
    # the SDK's editor tool changed one file four times: the note lists it (it listed none)
    assert "\nfiles:\n- apps/examples/desktop-app/webview/components/agent-sidebar.tsx\n" in main
    # No index row, no manifest: the folder is the one the SDK's system prompt names
    # (``<env>`` … ``4. Working Directory: /Users/example/dev/cline``); the subagent's too
    for note in notes.values():
        assert "\nproject: cline\ncwd: /Users/example/dev/cline\n" in note.decode()
