"""Every real Codex rollout in ../shared/corpus exports without a crash; every prompt and
every assistant message is in the notes, the double-recorded ones exactly once, and none
of the injected environment context is."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC
from pathlib import Path

import pytest
from conftest import normalize, note_files
from corpus_home import build_codex_home

from exporter.export import ExportOptions, run_export
from exporter.model import TextPart
from exporter.spec_kit import typed_and_sent

pytestmark = pytest.mark.corpus
_INJECTED = ("<environment_context>", "# AGENTS.md instructions", "<user_instructions>")
_IDE_MARKER = "## My request for Codex:"
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def read(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def payloads(records: list[dict]) -> list[tuple[str, dict]]:
    """(kind, payload) for enveloped and bare early lines alike."""
    out = []
    for r in records:
        if isinstance(r.get("payload"), dict):
            out.append((r.get("type"), r["payload"]))
        elif isinstance(r.get("type"), str):
            out.append(("response_item", r))
    return out


def texts_of(path: Path) -> tuple[list[str], Counter]:
    """(prompts, assistant texts with how often the model said each) as the file has them."""
    items = payloads(read(path))
    events = [p["message"] for k, p in items if k == "event_msg" and p.get("type") == "user_message"
              and p.get("kind") not in ("user_instructions", "environment_context")]  # fmt: skip
    # The VS Code extension puts IDE context first; the request follows its marker.
    prompts = [m.split(_IDE_MARKER, 1)[-1] for m in events if isinstance(m, str) and m.strip()]
    # A spec-kit prompt is shown as its pieces: what the person typed, the template sent.
    prompts = [
        piece
        for m in prompts
        for part in typed_and_sent(m) or [TextPart(m)]
        for piece in [part.text if isinstance(part, TextPart) else part.output]
    ]
    said_item: Counter = Counter()
    said_event: Counter = Counter()
    for kind, p in items:
        if kind == "response_item" and p.get("type") == "message":
            text = "\n\n".join(c.get("text", "") for c in p.get("content") or [] if isinstance(c, dict)
                               and c.get("type") in ("input_text", "output_text"))  # fmt: skip
            if p.get("role") == "assistant" and text.strip():
                said_item[text] += 1
            elif (
                p.get("role") == "user"
                and not events
                and text.strip()
                and not text.startswith(_INJECTED)
            ):
                prompts.append(text)
        elif (
            kind == "event_msg"
            and p.get("type") == "agent_message"
            and str(p.get("message") or "").strip()
        ):
            said_event[p["message"]] += 1
    said = Counter({t: max(said_item[t], said_event[t]) for t in said_item | said_event})
    return prompts, said


def origin_of(path: Path) -> str | None:
    metas = [p for k, p in payloads(read(path)) if k == "session_meta"]
    ids = [m.get("id") for m in metas if isinstance(m.get("id"), str)]
    forked = next(
        (m["forked_from_id"] for m in metas if isinstance(m.get("forked_from_id"), str)), None
    )
    return forked or (ids[1] if len(ids) > 1 and ids[1] != ids[0] else None)


def test_every_codex_rollout_exports_and_nothing_is_lost_or_doubled(corpus, tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    files = build_codex_home(corpus, home)
    report = run_export(ExportOptions(vault=vault, home=home, sources=["codex"], timezone=UTC))
    assert not report.failed, [str(p) for p in report.problems if p.severity == "error"]
    assert len(files) == 15 and report.total("found") + report.total("empty") == 15
    notes = {rel: b.decode() for rel, b in note_files(vault).items()}
    assert len(notes) >= 10
    everything = normalize("\n".join(notes.values()))
    by_id = {_UUID.findall(p.name)[-1]: p for p in files if _UUID.findall(p.name)}
    checked = doubled = 0
    missing = []
    for path in files:
        prompts, said = texts_of(path)
        for text, markdown in [(t, False) for t in prompts] + [(t, True) for t in said]:
            checked += 1
            if normalize(text, escaped=markdown) not in everything:
                missing.append((path.name[-20:], text[:100]))
        session_id = _UUID.findall(path.name)[-1] if _UUID.findall(path.name) else None
        note = next(
            (t for t in notes.values() if session_id and f"session_id: {session_id}" in t), None
        )
        if note is None:
            continue
        origin = origin_of(path)
        copied = texts_of(by_id[origin])[1] if origin in by_id else Counter()
        body = normalize(note)
        for text, times in said.items():
            if len(text) >= 30:  # short texts ("Done.") also occur inside longer ones
                doubled += 1
                expected = max(0, times - copied[text])
                assert body.count(normalize(text)) == expected, (path.name, text[:80])
    assert missing == []
    assert checked > 200 and doubled > 50
    for text in notes.values():
        assert (
            "environment_context" not in text
            and "<INSTRUCTIONS>" not in text
            and "\\<INSTRUCTIONS\\>" not in text
        )
