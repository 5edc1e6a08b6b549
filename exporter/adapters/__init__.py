"""The source registry: one adapter per assistant, each a small class with three methods.

An adapter

- ``roots(ctx)``: the folders it would read on this machine (they may not exist);
- ``discover(ctx)``: lists sessions cheaply (paths, sizes, mtimes; nothing parsed); facts
  from an index beside the transcripts (titles, folders) go into each ``SessionRef``, and
  an index that is there but cannot be read marks the refs it describes (``unread_index``);
- ``load(ref)``: parses one discovered session (plus any subagent transcripts that belong
  to it) into model ``Session`` values, reporting bad input as ``Problem`` values.

It never writes to a source. Adding a source is one module and one line in ``ADAPTERS``.
"""

from __future__ import annotations

from ..errors import ConfigError
from .aider import AiderAdapter
from .antigravity import AntigravityAdapter
from .base import Adapter, FileStamp, LoadResult, SessionRef, SourceContext
from .claude_code import ClaudeCodeAdapter
from .cline import ClineAdapter, KiloCodeAdapter, RooCodeAdapter, ZooCodeAdapter
from .codex import CodexAdapter
from .copilot import CopilotAdapter
from .copilot_cli import CopilotCliAdapter
from .cursor import CursorAdapter
from .gemini import GeminiAdapter
from .opencode import KiloAdapter, OpenCodeAdapter
from .trae import TraeAdapter

# The one list of sources, in the order they are exported and listed.
ADAPTERS: list[type[Adapter]] = [
    ClaudeCodeAdapter,
    CodexAdapter,
    CursorAdapter,
    TraeAdapter,
    CopilotAdapter,
    GeminiAdapter,
    AntigravityAdapter,
    CopilotCliAdapter,
    OpenCodeAdapter,
    KiloAdapter,
    ClineAdapter,
    RooCodeAdapter,
    ZooCodeAdapter,
    KiloCodeAdapter,
    AiderAdapter,
]

__all__ = [
    "ADAPTERS",
    "Adapter",
    "FileStamp",
    "LoadResult",
    "SessionRef",
    "SourceContext",
    "all_adapters",
    "select_adapters",
]


def all_adapters() -> list[Adapter]:
    """Fresh adapter instances (they may cache per run, so never share them across runs)."""
    return [cls() for cls in ADAPTERS]


def select_adapters(names: list[str] | None) -> list[Adapter]:
    """The adapters named (all when none are), or a ConfigError naming the valid ones."""
    adapters = all_adapters()
    if not names:
        return adapters
    known = {a.name: a for a in adapters}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(f"unknown source {', '.join(unknown)}; choose from {', '.join(known)}")
    return [known[n] for n in dict.fromkeys(names)]
