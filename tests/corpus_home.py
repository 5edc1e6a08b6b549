"""A fake home holding the shared corpus's Claude Code files where Claude Code keeps them.

Corpus files are named ``<owner>__<repo>__<path parts>.jsonl``. Each upstream folder becomes
one project folder; a session file is named by its session id (the id is the file stem in
real homes); ``…__subagents__agent-x.jsonl`` goes under ``<session>/subagents/``. The files
are copied into a temporary folder at test time, never into the repository.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path


def _records(path: Path) -> Iterator[dict]:
    """Each line of a JSONL file that is a JSON object holding a ``sessionId`` string."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("sessionId"), str):
                yield record


def _session_id(path: Path) -> str | None:
    return next((r["sessionId"] for r in _records(path) if not r.get("agentId")), None)


def build_corpus_home(corpus: Path, home: Path) -> list[Path]:
    """Copy every Claude Code corpus file into ``home``; return the copies."""
    source = corpus / "claude-code"
    projects = home / ".claude" / "projects"
    copies = []
    for f in sorted(source.glob("*.jsonl")):
        owner, repo, rest = f.name.split("__", 2)
        main_part, _, agent_part = rest.partition("__subagents__")
        folder = projects / "-".join(["", owner, repo, *main_part.split("__")[:-1]])
        stem = f.stem.split("__")[-1]
        if agent_part:
            parent = source / f"{owner}__{repo}__{main_part}.jsonl"
            dest = folder / (_session_id(parent) or stem) / "subagents" / f"{stem}.jsonl"
        elif stem.startswith("agent-"):
            dest = folder / f"{stem}.jsonl"
        else:
            dest = folder / f"{_session_id(f) or stem}.jsonl"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, dest)
        copies.append(dest)
    return copies


def build_codex_home(corpus: Path, home: Path) -> list[Path]:
    """Copy every Codex corpus rollout under ``home/.codex/sessions/YYYY/MM/DD/``."""
    copies = []
    for i, f in enumerate(sorted((corpus / "codex").glob("*.jsonl"))):
        name = f.name.split("__", 2)[-1]
        if not name.startswith("rollout-"):
            name = f"rollout-2026-01-01T00-00-{i:02d}-00000000-0000-4000-8000-{i:012d}.jsonl"
        year, month, day = name[8:12], name[13:15], name[16:18]
        dest = home / ".codex" / "sessions" / year / month / day / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, dest)
        copies.append(dest)
    return copies


def corpus_texts(corpus: Path, home: Path) -> tuple[list[str], list[str]]:
    """Every prose text (prompts, replies, thinking) and every tool output of the Claude
    Code and Codex corpus sessions, built into ``home``: what the code tests read."""
    from conftest import load_sessions

    from exporter.adapters import ClaudeCodeAdapter, CodexAdapter
    from exporter.model import TextPart, ThinkingPart, ToolResultPart

    build_corpus_home(corpus, home)
    build_codex_home(corpus, home)
    prose: list[str] = []
    outputs: list[str] = []
    for adapter in (ClaudeCodeAdapter(), CodexAdapter()):
        sessions, _problems = load_sessions(adapter, home)
        for session in sessions:
            for message in session.messages:
                for part in message.parts:
                    if isinstance(part, TextPart | ThinkingPart):
                        prose.append(part.text)
                    elif isinstance(part, ToolResultPart):
                        outputs.append(part.output)
    return prose, outputs


COPILOT_CLI_REAL = "copilot/git-ai-project__git-ai__copilot_cli_session_events.jsonl"


def build_copilot_cli_home(corpus: Path, home: Path) -> list[Path]:
    """Flat samples in the legacy layout, the tree sample and the real file in the current
    ``<id>/events.jsonl`` layout."""
    state = home / ".copilot" / "session-state"
    state.mkdir(parents=True)
    copies = []
    for f in sorted((corpus / "copilot-cli").glob("*.jsonl")):
        copies.append(Path(shutil.copyfile(f, state / f.name.split("__")[-1])))
    for events in sorted((corpus / "copilot-cli").glob("*/*/events.jsonl")):
        folder = state / events.parent.name
        folder.mkdir()
        copies.append(Path(shutil.copyfile(events, folder / "events.jsonl")))
    real = state / "301561f1-558a-43e9-a144-82d3ca12ab62"
    real.mkdir()
    copies.append(Path(shutil.copyfile(corpus / COPILOT_CLI_REAL, real / "events.jsonl")))
    return copies


def build_gemini_home(corpus: Path, home: Path) -> list[Path]:
    """Each Gemini sample as a chat file of one project, named as the CLI names them."""
    chats = home / ".gemini" / "tmp" / "corpus-project" / "chats"
    chats.mkdir(parents=True)
    copies = []
    for i, f in enumerate(sorted((corpus / "gemini").iterdir())):
        dest = chats / f"session-2026-01-01T00-{i:02d}-c{i:07d}{f.suffix}"
        shutil.copyfile(f, dest)
        copies.append(dest)
    return copies


def build_corpus_copies(corpus: Path, home: Path, copies: int) -> int:
    """The corpus's Claude Code sessions ``copies`` times over: each copy in project folders
    of its own, every session id in it (inside the files and in their names) replaced by a
    new one, so each copy is exported as sessions of their own. A home of real sessions at
    a chosen size, for the benchmark (8 copies: about 97 MB). Returns the bytes written."""
    import tempfile
    import uuid

    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        originals = build_corpus_home(corpus, Path(tmp))
        projects = Path(tmp) / ".claude" / "projects"
        ids = {r["sessionId"] for f in originals for r in _records(f)}
        for copy in range(copies):
            new = {
                i: str(uuid.uuid5(uuid.NAMESPACE_URL, f"ccexport-bench/{copy}/{i}")) for i in ids
            }
            for f in originals:
                first, *rest = f.relative_to(projects).parts
                parts = [f"{first}-copy{copy}", *rest]
                data = f.read_bytes()
                for old, fresh in new.items():
                    data = data.replace(old.encode(), fresh.encode())
                    parts = [p.replace(old, fresh) for p in parts]
                dest = home / ".claude" / "projects" / Path(*parts)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
                total += len(data)
    return total
