"""The corpus's early-Rust Codex rollouts (a header line, no per-line times): their notes
have `created` and, from the rollout alone, no `updated` (only the start is known); given
a ``history.jsonl`` naming their threads (invented here, with invented times), `updated` is
their last prompt's time. Every other Codex note has both."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import CORPUS
from corpus_home import build_codex_home

from exporter.export import ExportOptions, run_export

pytestmark = pytest.mark.corpus


def _early(path: Path) -> dict | None:
    """An early-Rust rollout's header (its first line: no record type), else None."""
    with path.open("rb") as f:
        first = json.loads(f.readline() or b"null")
    if isinstance(first, dict) and "type" not in first and {"id", "timestamp"} <= first.keys():
        return first
    return None


def _fronts(vault: Path) -> dict[str, dict[str, str]]:
    """Each Codex note's front matter (its plain ``key: value`` lines), by session id."""
    out = {}
    for note in (vault / "AI Sessions" / "codex").rglob("*.md"):
        head = note.read_text(encoding="utf-8").split("\n---\n", 1)[0]
        front = dict(line.split(": ", 1) for line in head.splitlines() if ": " in line)
        out[front["session_id"]] = front
    return out


def _naive(stamp: str | datetime) -> str:
    when = datetime.fromisoformat(stamp.replace("Z", "+00:00")) if isinstance(stamp, str) else stamp
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


def test_early_rust_rollouts_end_at_their_last_prompt_or_not_at_all(tmp_path):
    if not (CORPUS / "codex").is_dir():
        pytest.skip(f"the shared corpus's Codex rollouts are not beside this checkout ({CORPUS})")
    home = tmp_path / "home"
    headers = {h["id"]: h for f in build_codex_home(CORPUS, home) if (h := _early(f))}
    if not headers:
        pytest.skip("the shared corpus holds no early-Rust Codex rollout")
    run_export(ExportOptions(vault=tmp_path / "v1", home=home, timezone=UTC))
    fronts = _fronts(tmp_path / "v1")
    for sid, front in fronts.items():
        if sid in headers:  # the start alone: the header's time, no end
            assert front["created"] == _naive(headers[sid]["timestamp"])
            assert "updated" not in front, sid
        else:
            assert "created" in front and "updated" in front, sid
    # (one early rollout holds its environment context alone: no conversation, no note)
    headers = {sid: h for sid, h in headers.items() if sid in fronts}
    assert len(headers) >= 2

    lines = []
    for sid, header in headers.items():
        start = datetime.fromisoformat(header["timestamp"].replace("Z", "+00:00"))
        for minutes in (1, 25, 7):  # (appended as submitted: not in order of time)
            ts = int((start + timedelta(minutes=minutes)).timestamp())
            lines.append(json.dumps({"session_id": sid, "ts": ts, "text": "invented"}) + "\n")
    (home / ".codex" / "history.jsonl").write_text("".join(lines))
    run_export(ExportOptions(vault=tmp_path / "v2", home=home, timezone=UTC))
    after = _fronts(tmp_path / "v2")
    for sid, header in headers.items():
        start = datetime.fromisoformat(header["timestamp"].replace("Z", "+00:00"))
        last = datetime.fromtimestamp(int((start + timedelta(minutes=25)).timestamp()), UTC)
        assert after[sid]["updated"] == _naive(last)
        assert after[sid]["created"] == fronts[sid]["created"]
    assert {s: f for s, f in after.items() if s not in headers} == {
        s: f for s, f in fronts.items() if s not in headers
    }
