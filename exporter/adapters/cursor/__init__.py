"""Cursor: the IDE's chats in ``state.vscdb`` and the Agent's transcripts (FORMATS.md §3).

Where:

- the ``User`` folder: ``~/.config/Cursor/User`` (Linux), ``~/Library/Application
  Support/Cursor/User`` (macOS), ``%APPDATA%\\Cursor\\User`` (Windows); all are tried under
  ``--home``. Generations 1-3 (``composer.py``): the legacy AI-chat panel, the 2024
  workspace composer and the global split storage (``composerData`` + ``bubbleId`` rows);
  a composer another started is its subagent, or a best-of-N alternative shown as a fork
  (``family.py``).
- ``~/.cursor`` (``%USERPROFILE%\\.cursor``; on the real home also ``$CURSOR_CONFIG_DIR``):
  generation 4, the Agent transcripts Cursor ≥ 3 and ``cursor-agent`` write
  (``agent_store.py`` finds them, ``transcripts.py`` reads them with ``wrappers.py``,
  ``agent.py`` builds the sessions), with subagents as their own linked notes.

A conversation found in both places (same id) is exported once, from ``state.vscdb``; its
transcript's subagents (which the database does not hold) from ``~/.cursor``.
Details and quirks: ``docs/sources/cursor.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from .._parts import held_size, part_refs
from ..base import FileStamp, LoadResult, SessionRef, SourceContext
from ..vscode import VSCODE_VARIABLES, user_dirs
from .agent_store import STATE_DB_FACT, Workspaces, discover_transcripts, recorded_folders
from .composer import (
    GLOBAL,
    composer_parts,
    count_conversations,
    discover_user_dir,
    held_conversations,
    load_part,
    load_user_dir,
    workspace_owners,
)

SOURCE = "cursor"

__all__ = ["CursorAdapter", "lexical_text"]


def __getattr__(name: str) -> Any:
    """``lexical_text`` from the message parser, imported when asked for (not at start-up)."""
    if name == "lexical_text":
        from .bubbles import lexical_text

        return lexical_text
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class CursorAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Cursor"
    env_vars: ClassVar[tuple[str, ...]] = ("CURSOR_CONFIG_DIR", *VSCODE_VARIABLES)
    # A unit's sessions depend on its files alone (a transcript also asks, read only, whether
    # the database holds its conversation): a worker reads a unit ahead as the main process
    # would (``readahead``). A database of 8 MB or more is read here, a family at a time.
    reads_alone: ClassVar[bool] = True

    def __init__(self) -> None:
        # (user folder, its files' stamps) -> composer id -> workspace folder, for its parts
        self._owners: dict[tuple[Path, tuple[FileStamp, ...]], dict[str, str | None]] = {}

    def roots(self, ctx: SourceContext) -> list[Path]:
        return self._user_dirs(ctx) + [root / "projects" for root in self._agent_roots(ctx)]

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        # The databases first: a conversation in both places is exported from them.
        users = self._user_dirs(ctx)
        for user_dir in users:
            ref = discover_user_dir(user_dir)
            if ref:
                yield ref
        facts = tuple(f"{STATE_DB_FACT}={u / GLOBAL}" for u in users if (u / GLOBAL).is_file())
        read: list[Workspaces] = []  # the workspaces' folders, read once, when first asked

        def workspaces() -> Workspaces:
            if not read:
                read.append(recorded_folders(users))
            return read[0]

        for root in self._agent_roots(ctx):
            yield from discover_transcripts(root, facts, workspaces)

    def count_sessions(self, ref: SessionRef) -> int:
        """How many conversations a unit holds (for ``ccexport sources``): a transcript and
        its subagents, but for those the database holds (exported from there)."""
        user_dir = ref.fact("user_dir")
        if user_dir:
            return count_conversations(Path(user_dir))
        state_dbs = [
            Path(x.partition("=")[2]) for x in ref.extra if x.startswith(STATE_DB_FACT + "=")
        ]
        ids = [
            ref.session_id,
            *(f.path.stem for f in ref.related if f.path.parent.name == "subagents"),
        ]
        held = held_conversations(state_dbs, ids) if state_dbs else set()
        return sum(1 for cid in ids if cid not in held)

    def parts(self, ref: SessionRef) -> list[SessionRef] | None:
        """A user folder cut into parts that workers read side by side (``readahead``), in
        the order ``load_families`` reads them; None for a transcript, or a folder whose
        global database cannot be read now (it is read whole)."""
        user_dir = ref.fact("user_dir")
        if not user_dir or ref.fact("part") is not None:
            return None
        cut = composer_parts(Path(user_dir))
        if cut is None:
            return None
        return part_refs(ref, Path(user_dir), cut, f"user_dir={user_dir}")

    def held_size(self, ref: SessionRef) -> int:
        return held_size(ref)

    def load(self, ref: SessionRef) -> LoadResult:
        part = ref.fact("part")
        if part is not None:
            user_dir = Path(ref.fact("user_dir") or "")
            key = (user_dir, ref.related)
            if key not in self._owners:
                self._owners = {key: workspace_owners(user_dir)}  # one folder's at a time
            return load_part(user_dir, part, self._owners[key])
        return LoadResult.merged(self.load_families(ref))

    def load_families(self, ref: SessionRef) -> Iterator[LoadResult]:
        """A user folder one composer at a time; a transcript with its subagents at once."""
        user_dir = ref.fact("user_dir")
        if user_dir:
            yield from load_user_dir(Path(user_dir))
        else:
            from .agent import load_conversation  # the transcript parser, when one is read

            yield load_conversation(ref)

    def _user_dirs(self, ctx: SourceContext) -> list[Path]:
        return ctx.configured(SOURCE, "User") or user_dirs(ctx, ["Cursor"])

    def _agent_roots(self, ctx: SourceContext) -> list[Path]:
        configured = ctx.configured(SOURCE)
        if configured:
            return [f for f in configured if (f / "projects").is_dir()]
        roots = []
        if ctx.real_home and ctx.env.get("CURSOR_CONFIG_DIR"):
            roots.append(Path(ctx.env["CURSOR_CONFIG_DIR"]).expanduser())
        roots.append(ctx.home / ".cursor")
        return list(dict.fromkeys(roots))
