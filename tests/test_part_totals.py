"""A long session's totals (tokens, cost) are on its first part: the note the index notes
link and a query over sessions keeps (``!part OR part = 1``), and on no later part, so a sum
over every note counts them once (review35 7: part 1 had none, the last part all)."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import yaml
from claude_builder import ClaudeSession, tool_use
from conftest import note_files

from exporter.export import ExportOptions, run_export

LIMIT = 64 * 1024
SID = "0000abcd-0000-4000-8000-00000000cafe"
TOTALS = ("tokens_in", "tokens_out", "tokens", "cost", "cost_estimated")


def _session(turns: int) -> ClaudeSession:
    s = ClaudeSession(SID, "/home/dev/work/big")
    for i in range(turns):
        s.user(f"question q{i}q")
        call = f"call-{i}"
        s.assistant([tool_use("Read", {"file_path": f"/src/f{i}.py"}, call)], usage=(1000, 50))
        s.tool_result(call, f"file f{i}\n" + "lorem ipsum dolor sit amet\n" * 150)
        s.assistant(f"answer a{i}a " + "consectetur adipiscing " * 40, usage=(2000 + i, 70))
    return s


def _export(home: Path, vault: Path, limit: int) -> list[dict]:
    """Each note's properties, in part order."""
    options = ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=limit)
    assert not run_export(options).failed
    notes = sorted(note_files(vault).items(), key=lambda item: (len(item[0]), item[0]))
    return [yaml.safe_load(data.decode().split("---\n")[1]) for _, data in notes]


def test_the_first_part_carries_the_whole_sessions_totals_and_no_later_part_any(tmp_path):
    home = tmp_path / "home"
    _session(40).write(home / ".claude" / "projects" / "-w-big" / f"{SID}.jsonl")
    (whole,) = _export(home, tmp_path / "one", 1 << 30)  # the session as one note
    parts = _export(home, tmp_path / "parts", LIMIT)
    assert len(parts) >= 3 and [p["part"] for p in parts] == list(range(1, len(parts) + 1))
    first, later = parts[0], parts[1:]
    assert whole["tokens"] > 0 and whole["cost"] > 0
    assert {k: first.get(k) for k in TOTALS} == {k: whole.get(k) for k in TOTALS}
    assert all(k not in p for p in later for k in TOTALS)
    # A sum over every note counts the session once.
    assert sum(p.get("tokens", 0) for p in parts) == whole["tokens"]
    # What describes a part's own text stays its own (the shrink check compares them).
    assert sum(p["messages"] for p in parts) == whole["messages"]
    assert sum(p["tool_calls"] for p in parts) == whole["tool_calls"]


def test_the_first_parts_totals_grow_with_the_session_and_stay_off_the_new_parts(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    path = home / ".claude" / "projects" / "-w-big" / f"{SID}.jsonl"
    _session(20).write(path)
    before = _export(home, vault, LIMIT)
    _session(45).write(path)
    after = _export(home, vault, LIMIT)
    (fresh,) = _export(home, tmp_path / "one", 1 << 30)
    assert len(after) > len(before) >= 2
    assert after[0]["tokens"] == fresh["tokens"] > before[0]["tokens"]
    assert all("tokens" not in p and "cost" not in p for p in after[1:])
