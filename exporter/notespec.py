"""What every run knows of notes without building one, light enough to import for any run.

A run that renders nothing (an empty home, a nightly re-run with nothing new) still needs
the settings, to tell whether they changed since the notes were written, the labels the
index notes and ``Sessions.base`` show, the keys of a long session's parts and what
``--project`` selects; the note builder itself (notes.py, turns.py, stats.py, split.py,
and the Markdown and template modules under them) is imported once a note is built. Those
modules still name what they used to hold, imported from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import TYPE_CHECKING, Any

from .vaultpaths import fold

if TYPE_CHECKING:
    from .daily import DailyNotes
    from .prices import PriceTable

NOTE_MAX_BYTES = 4 * 1024 * 1024  # Obsidian opens a note of a few megabytes comfortably

# Each source as its notes, index notes and Sessions.base name it.
SOURCE_LABELS = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "cursor": "Cursor",
    "trae": "Trae",
    "copilot": "Copilot",
    "copilot-cli": "Copilot CLI",
    "gemini": "Gemini CLI",
    "antigravity": "Antigravity",
    "opencode": "OpenCode",
    "kilo": "Kilo",
    "cline": "Cline",
    "roo-code": "Roo Code",
    "zoo-code": "Zoo Code",
    "kilo-code": "Kilo Code",
    "aider": "Aider",
}


@dataclass(frozen=True, slots=True)
class TurnView:
    """How much of each turn a note shows (the settings of "Notes to taste")."""

    tool_output: str = "full"  # full | head | none
    tool_output_lines: int = 20
    thinking: str = "folded"  # folded | shown | hidden
    tools: str = "full"  # full | summary | hidden
    todo_as_checklist: bool = False


@dataclass(frozen=True, slots=True)
class PropertySettings:
    """What the properties depend on beyond the session (part of the render fingerprint)."""

    prices: PriceTable | None = None  # None: the table shipped with the package
    daily: DailyNotes | None = None  # None: no ``day`` property


@dataclass(frozen=True, slots=True)
class NoteSettings:
    folder: str = "AI Sessions"
    layout: str = "{source}/{project}"  # folders below `folder`
    attachments_folder: str = "attachments/ccexport"
    timezone: tzinfo | None = None  # None: the machine's local time
    templates: Any = None  # a user template folder (Path) or None
    session_template: str = "session.md.j2"
    frontmatter_add: Mapping[str, Any] = field(default_factory=dict)  # value or {{ expression }}
    frontmatter_drop: tuple[str, ...] = ()
    properties: Any = None  # PropertySettings: prices and daily notes (None: defaults)
    view: TurnView = TurnView()  # how much of each turn is shown ("Notes to taste")
    # The tag a note's project tag goes below (``project/<slug>``); "": no project tag.
    project_tag: str = "project"


def part_key(key: str, number: int) -> str:
    """The identity of one part: the session's own key for the first."""
    return key if number == 1 else f"{key}#part{number}"


def is_later_part(key: str) -> bool:
    """A key of part 2 or later (the first part has the session's own key)."""
    return "#part" in key


def project_matches(wanted: str, project: str | None) -> bool:
    """Does ``--project`` select this project? Its name holds what the person typed, in
    any case, composed or decomposed (macOS)."""
    return fold(wanted) in fold(project or "")
