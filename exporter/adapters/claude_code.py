"""Claude Code: ``~/.claude/projects/<encoded-cwd>/<session-id>.jsonl`` (FORMATS.md §1).

Where: ``<home>/.claude/projects``; on the real home also ``$CLAUDE_CONFIG_DIR/projects``.
The encoded folder name is lossy, so the project always comes from the ``cwd`` field.

Subagents come in three layouts, each exported as its own session linked to its parent:

- before 2.0.28, inline in the session file as ``isSidechain`` lines (grouped by their root
  line; linked to the Task call whose prompt they answer);
- until ~2.1, ``agent-<id>.jsonl`` beside the sessions (the ``sessionId`` inside names the
  parent; the parent's Task result carries ``agentId``);
- now ``<session>/subagents/agent-<id>.jsonl`` with an ``agent-<id>.meta.json`` sidecar
  whose ``toolUseId`` names the Task call.

A session file and its ``subagents/`` folder are one discovery unit, loaded together. The
"Warmup" agents Claude Code 2.0 starts to prime its cache are not conversations and are
skipped.

Titles: the last ``custom-title``, else the last ``ai-title``, else a ``summary`` whose
``leafUuid`` lies in the session (often written into a later file of the same project, so
the leading summary lines of the project's files are indexed once per run).

A file is read once, line by line: each line is turned into parts of messages and let go,
so memory holds a long session's messages, not its JSON (about half of which repeats tool
output). Only the sidechain lines of the old layout are kept until the file is read. A
session file of ``STREAM_FROM`` bytes or more is not held at all: the first reading keeps
only what describes the whole session (times, models, usage, titles, subagents), and its
messages are a MessageStream that reads the file again, as far as the first reading went,
each time they are needed (the note builder cuts them into part notes as they come). Given
a ``keep`` sink (``packed.PartPacker``, in a worker reading ahead), the first reading hands
it each message as it is closed, so that the file need not be read again.

Finding the files is in claude_discovery.py, one pass over a file's lines in
claude_mainfile.py, linking subagents to their Task calls in claude_subagents.py, loading a
discovered unit and building its sessions in claude_load.py (imported with the first unit
read: a run with nothing new never imports the parser); this module is the adapter.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from ..collector import collector_paused
from ..errors import Problem
from .base import (
    STREAM_FROM,
    LoadResult,
    MessageSink,
    SessionRef,
    SourceContext,
    listed,
)
from .claude_desktop import CoworkHome, code_tab_titles, cowork_homes
from .claude_discovery import (
    SOURCE,
    NewerCopies,
    Replays,
    discover_project,
)


class ClaudeCodeAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Claude Code"
    # (The last three on the real home only, for Claude Desktop's folder: Cowork tasks and
    # the Code tab's titles, ``claude_desktop.desktop_dirs``.)
    env_vars: ClassVar[tuple[str, ...]] = (
        "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "APPDATA", "LOCALAPPDATA",
    )  # fmt: skip
    # A unit's sessions depend on its files alone (and on folder listings and, for a
    # resumed session, the files of the sessions it continues, read the same way
    # anywhere): a worker may read it ahead (``readahead``).
    reads_alone: ClassVar[bool] = True
    # ``load`` hands a streamed session's messages to a ``keep`` sink as it reads them.
    keeps_streamed: ClassVar[bool] = True

    def __init__(self) -> None:
        # What the run learns once and every unit's loading asks (claude_load.py).
        self.summary_index: dict[Path, dict[str, str]] = {}  # a folder's leading summaries
        self.copies = NewerCopies()
        self.replays = Replays()
        self.context: SourceContext | None = None  # the run's, for --since

    def held_size(self, ref: SessionRef) -> int:
        """The bytes reading the unit holds: a main file that is streamed, nothing."""
        return sum(f.size for f in ref.files if f is not ref.main or not self.streams(ref))

    def streams(self, ref: SessionRef) -> bool:
        """Is the unit's main file streamed (never held)?"""
        return ref.main.size >= STREAM_FROM

    def roots(self, ctx: SourceContext) -> list[Path]:
        return self._roots(ctx, cowork_homes(ctx))

    def _roots(self, ctx: SourceContext, cowork: list[CoworkHome]) -> list[Path]:
        configured_paths = ctx.configured(SOURCE, "projects")
        if configured_paths:
            return configured_paths
        roots: list[Path] = []
        configured = ctx.env.get("CLAUDE_CONFIG_DIR") if ctx.real_home else None
        if configured:
            roots.append(Path(configured).expanduser() / "projects")
        roots.append(ctx.home / ".claude" / "projects")
        roots += [home.projects for home in cowork]  # Claude Desktop's Cowork tasks
        return list(dict.fromkeys(roots))

    def use_context(self, ctx: SourceContext) -> None:
        """The run's context: a session --since leaves out is no copy to leave out."""
        self.context = ctx

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        self.use_context(ctx)
        # The Desktop app's facts (FORMATS.md §1.1): a Cowork task's title and project, a
        # Code tab session's title; in the fingerprint, so that a rename re-exports it.
        desktop = not ctx.configured(SOURCE, "projects")
        titles, unread = code_tab_titles(ctx) if desktop else ({}, None)
        homes = cowork_homes(ctx) if desktop else []  # their sidecars read once a discovery
        cowork = {home.projects: home for home in homes}
        for root in self._roots(ctx, homes):
            if not root.is_dir():
                continue
            task = cowork.get(root)
            for project in listed(root):
                if project.is_dir():
                    try:
                        for ref in discover_project(Path(project.path)):
                            yield _with_desktop_facts(ref, titles, task, unread)
                    except PermissionError:
                        continue  # reported by the pipeline as an unreadable folder

    def load(self, ref: SessionRef, keep: MessageSink | None = None) -> LoadResult:
        # A held session is tens of thousands of new containers (parts, tool inputs) and no
        # cycle among them: the collector, woken every few hundred, would walk them again
        # and again (a 100,000-line session: 1.8 -> 1.3 s). Values are the same either way.
        from .claude_load import load_unit  # the parser: with the first unit read

        with collector_paused():
            return load_unit(self, ref, keep)


FALLBACK = "project-fallback"  # a Cowork task's project when its sidecar cannot be read


def _with_desktop_facts(
    ref: SessionRef,
    titles: dict[str, str],
    task: CoworkHome | None,
    code_tab_unread: Problem | None = None,
) -> SessionRef:
    """A session with the Desktop app's title for it and, in a Cowork task, the task's
    project (its subagents too) and title (its own transcript's). ``code_tab_unread``: why
    some Code tab sidecars cannot be read; which sessions they title cannot be told, so
    each session they may title (any the Code tab gives none) keeps its last run's."""
    extra: list[str] = []
    title = titles.get(ref.session_id)
    titled = not ref.session_id.startswith("agent-") and "/" not in ref.session_id
    if task is not None:
        if task.title and ref.session_id == task.session_id:
            title = title or task.title
        # (a sidecar that cannot be read gives no project: the last run's comes back, and
        # only a task never exported before takes the fallback)
        extra.append(f"{'project' if task.unread is None else FALLBACK}={task.project}")
    if title and titled:
        extra.insert(0, f"title={title}")
    unread = task.unread if task is not None else None
    if unread is None and titled and ref.session_id not in titles:
        unread = code_tab_unread
    if unread is not None:
        ref = replace(ref, unread_index=unread)
    return replace(ref, extra=(*ref.extra, *extra)) if extra else ref
