"""Builds synthetic ``.aider.chat.history.md`` logs the way Aider writes them (FORMATS.md §6.4).

Aider appends one run per launch: a blank line, ``# aider chat started at <local time>``,
its banner as ``> `` lines, then prompts (``#### ``), replies (plain Markdown, as the model
wrote them) and its own output (``> ``), every line it writes itself, a prompt's too, ending
in two spaces.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CORPUS_BIG = "Aider-AI__aider__chat-history.md"  # (in ../shared/corpus/aider)
CORPUS_SMALL = "kenn-io__agentsview__testdata__aider__myrepo__.aider.chat.history.md"


def corpus_home(corpus: Path, name: str, home: Path, repo: str) -> Path:
    """``home`` holding the corpus's Aider log ``name`` as the history of ``src/<repo>``;
    the test is skipped, saying why, where the corpus lacks it."""
    path = corpus / "aider" / name
    if not path.is_file():
        pytest.skip(f"the corpus has no Aider log {name} ({path})")
    (home / "src" / repo).mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, home / "src" / repo / ".aider.chat.history.md")
    return home


class AiderLog:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def run(
        self,
        started: str,
        *,
        model: str = "claude-3-5-sonnet-20240620",
        version: str = "0.86.1",
        weak: str | None = "claude-3-haiku-20240307",
        command: str = "/home/me/.local/bin/aider --model sonnet",
    ) -> AiderLog:
        models = (f"Models: {model} with diff edit format, weak model {weak}" if weak
                  else f"Model: {model} with diff edit format")  # fmt: skip
        self.header(started)
        return self.aider(
            command,
            f"Aider v{version}",
            models,
            "Git repo: .git with 42 files",
            "Repo-map: using 1024 tokens, auto refresh",
        )

    def header(self, started: str) -> AiderLog:
        """A run's header alone: what an Aider started by ``/run aider …`` writes into the
        log of the Aider that started it before that one goes on writing there."""
        self.lines += ["", f"# aider chat started at {started}", ""]
        return self

    def prompt(self, *lines: str) -> AiderLog:
        """An input, each line ``#### <line>`` and two spaces, as Aider logs it."""
        self.lines += [f"#### {line}  " for line in lines]
        self.lines.append("")
        return self

    def reply(self, text: str) -> AiderLog:
        self.lines += [*text.split("\n"), ""]
        return self

    def aider(self, *lines: str) -> AiderLog:
        self.lines += [f"> {line}  " if line else ">  " for line in lines]
        self.lines.append("")
        return self

    def tokens(
        self, sent: str, received: str, message: str, session: str, **cache: str
    ) -> AiderLog:
        """A usage line; ``cache_write``/``cache_hit`` give the newer wording."""
        if cache:
            parts = [f"{sent} sent"]
            if "cache_write" in cache:
                parts.append(f"{cache['cache_write']} cache write")
            if "cache_hit" in cache:
                parts.append(f"{cache['cache_hit']} cache hit")
            parts.append(f"{received} received")
            line = f"Tokens: {', '.join(parts)}. Cost: ${message} message, ${session} session."
        else:
            line = f"Tokens: {sent} sent, {received} received. Cost: ${message} request, ${session} session."
        return self.aider(line)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def write(self, repo: Path, *, append: bool = False) -> Path:
        repo.mkdir(parents=True, exist_ok=True)
        path = repo / ".aider.chat.history.md"
        with path.open("a" if append else "w", encoding="utf-8", newline="") as f:
            f.write(self.text())
        return path
