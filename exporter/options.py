"""The options of one export run, and how they follow from the settings."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .daily import daily_notes
from .errors import ConfigError
from .notespec import NOTE_MAX_BYTES, NoteSettings, PropertySettings, TurnView
from .prices import shipped_table
from .redact import Redactor, redactor

if TYPE_CHECKING:
    from collections.abc import Callable

    from .config import Settings
    from .redact_rules import Rule


@dataclass(slots=True)
class ExportOptions:
    vault: Path
    home: Path | None = None
    sources: list[str] | None = None
    dry_run: bool = False
    diff: bool = False
    folder: str = "AI Sessions"
    layout: str = "{source}/{project}"
    attachments_folder: str = "attachments/ccexport"
    templates: Path | None = None
    timezone: tzinfo | None = None
    # The machine's zone as the vault keeps it (``zones``): times a source writes without a
    # zone (Aider's) are read in it; None: this process's local time.
    local_zone: tzinfo | None = None
    since: datetime | None = None
    project: str | None = None
    paths: dict[str, list[Path]] = field(default_factory=dict)
    frontmatter_add: dict[str, Any] = field(default_factory=dict)
    frontmatter_drop: list[str] = field(default_factory=list)
    project_tag: str = "project"  # a note's tag is project_tag/<project> ("": none)
    index: bool = True
    index_dataview: bool = False
    lock_wait: float = 5.0
    # Told once when another run holds the vault and this one waits for it (the command
    # says so on a terminal; a library caller may pass its own).
    waiting: Callable[[str], None] | None = None
    workers: int | None = None  # processes that render notes (None: one per core)
    force: bool = False  # re-read every source; update notes even if their source shrank
    restore: bool = False  # write again the notes the person deleted in the vault
    # take notes gone from the vault as deleted by the person, also when all are gone
    accept_deleted: bool = False
    note_max_bytes: int = NOTE_MAX_BYTES  # a longer session continues in part notes
    redact: bool = True  # secrets become [REDACTED:<rule>] before anything is written
    redact_extra: tuple[Rule, ...] = ()  # the user's own rules, run before ours
    redact_allow: tuple[str, ...] = ()  # strings never redacted
    prices: dict[str, dict[str, float]] = field(default_factory=dict)  # the user's [prices]
    daily_notes: bool | None = None  # None: when the vault has the Daily notes plugin set up
    daily_folder: str | None = None
    daily_format: str | None = None
    view: TurnView = field(default_factory=TurnView)  # "Notes to taste": how much is shown

    def redactor(self) -> Redactor | None:
        """The redaction rules in effect, or None when redaction is off."""
        if not self.redact:
            return None
        return redactor(tuple(self.redact_extra), tuple(self.redact_allow))

    def note_settings(self) -> NoteSettings:
        return NoteSettings(
            folder=self.folder,
            layout=self.layout,
            attachments_folder=self.attachments_folder,
            timezone=self.timezone,
            templates=self.templates,
            frontmatter_add=dict(self.frontmatter_add),
            frontmatter_drop=tuple(self.frontmatter_drop),
            properties=self.property_settings(),
            view=self.view,
            project_tag=self.project_tag,
        )

    def property_settings(self) -> PropertySettings:
        """The price table and the daily notes the ``cost`` and ``day`` properties use."""
        table = shipped_table().with_user(self.prices) if self.prices else shipped_table()
        daily = daily_notes(self.vault, self.daily_notes, self.daily_folder, self.daily_format)
        return PropertySettings(table, daily)

    def render_fingerprint(self) -> str:
        """What notes are rendered with: a change re-renders every note on the next run."""
        from .render import template_fingerprint  # (the templates, without the note builder)

        return template_fingerprint(
            self.templates,
            [self.folder, self.layout, self.attachments_folder, str(self.timezone),
             str(self.local_zone),
             sorted(self.frontmatter_add.items()), self.frontmatter_drop, self.index,
             self.index_dataview, self.note_max_bytes, self._redaction_fingerprint(),
             repr(self.property_settings()), repr(self.view),
             # (only once set: the vaults that keep the default render as they did)
             *([] if self.project_tag == "project" else [f"project_tag {self.project_tag}"])],
        )  # fmt: skip

    def _redaction_fingerprint(self) -> str:
        rules = self.redactor()
        return rules.fingerprint if rules else "redaction off"


def check_home(home: Path | None) -> None:
    """A ``--home`` that cannot be what the person meant is a usage error, not "0 sessions"."""
    if home is None:
        return
    path = home.expanduser()
    if not path.exists():
        raise ConfigError(f"--home {home} does not exist; give the home folder to read from")
    if not path.is_dir():
        raise ConfigError(f"--home {home} is a file; give the home folder to read from")
    # (by its layout, not its name alone: a backup home in a folder named ``src``, Aider's
    # folder's name, was refused; review43 L5)
    if (
        path.name in source_folder_names()
        and not _holds_roots(path, path, below=True)
        and _holds_roots(path.parent, path, below=False)
    ):
        raise ConfigError(
            f"--home {home} looks like a source folder itself ({path.name}); give the home "
            f"folder that contains it: --home {path.parent}"
        )


def _holds_roots(home: Path, folder: Path, below: bool) -> bool:
    """Does ``folder`` hold a place a source reads under ``home`` (``below``: strictly
    inside it, as a home holds ``.claude/projects``; else it or inside it, as ``~/.claude``
    is laid out as Claude Code's own folder)?"""
    from .adapters import SourceContext, all_adapters

    ctx = SourceContext(home, {}, False)
    for adapter in all_adapters():
        for root in adapter.roots(ctx):
            inside = root.is_relative_to(folder) and (root != folder or not below)
            if inside and root.is_dir():
                return True
    return False


def source_folder_names() -> set[str]:
    """The first folder under a home of every place an adapter reads (``.claude``, ...)."""
    from .adapters import SourceContext, all_adapters

    probe = Path("/nonexistent-home")
    ctx = SourceContext(probe, {}, False)
    names = set()
    for adapter in all_adapters():
        for root in adapter.roots(ctx):
            if root.is_relative_to(probe) and root != probe:
                names.add(root.relative_to(probe).parts[0])
    return names


def check_vault(vault: Path, dry_run: bool) -> None:
    """A vault that is a file, or that this user cannot write, stops the run before it starts
    (a dry run only reads it: it says so in a warning, ``unwritable``)."""
    path = vault.expanduser()
    if path.exists() and not path.is_dir():
        raise ConfigError(f"the vault {vault} is a file, not a folder; give a folder to --vault")
    if dry_run:
        return
    if why := unwritable(vault):
        raise ConfigError(f"the vault {vault} {why}; make it writable or choose another --vault")


def unwritable(vault: Path) -> str | None:
    """Why this user cannot write ``vault`` (or make it), or None."""
    path = vault.expanduser()
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        return f"cannot be written ({existing} is read-only or not yours)"
    return None


def export_options(
    settings: Settings,
    home: Path | None,
    dry_run: bool = False,
    diff: bool = False,
    workers: int | None = None,
    force: bool = False,
    restore: bool = False,
    accept_deleted: bool = False,
) -> ExportOptions:
    """The options of one run, from the effective settings (config files and flags)."""
    from .config_values import zone_or_fail

    if settings.vault is None:
        raise ConfigError("no vault given")
    zone = None
    if settings.timezone:
        zone = zone_or_fail(
            settings.timezone, ConfigError(f"unknown time zone {settings.timezone!r}")
        )
    return ExportOptions(
        vault=settings.vault,
        home=home,
        sources=settings.sources,
        dry_run=dry_run,
        diff=diff,
        folder=settings.folder,
        layout=settings.layout,
        attachments_folder=settings.attachments,
        templates=settings.templates,
        timezone=zone,
        since=_since(settings.since, zone),
        project=settings.project,
        paths=settings.paths,
        frontmatter_add=settings.frontmatter_add,
        frontmatter_drop=settings.frontmatter_drop,
        project_tag=settings.project_tag or "",
        index=settings.index,
        index_dataview=settings.index_dataview,
        workers=workers,
        force=force,
        restore=restore,
        accept_deleted=accept_deleted,
        note_max_bytes=settings.note_max_bytes,
        redact=settings.redact,
        redact_extra=tuple(settings.redact_extra),
        redact_allow=tuple(settings.redact_allow),
        prices=settings.prices,
        daily_notes=settings.daily_notes,
        daily_folder=settings.daily_folder,
        daily_format=settings.daily_format,
        view=TurnView(
            settings.tool_output,
            settings.tool_output_lines,
            settings.thinking,
            settings.tools,
            settings.todo_as_checklist,
        ),
    )


def _since(since: datetime | None, zone: tzinfo | None) -> datetime | None:
    """--since as an aware time: a wall-clock date (``2026-11-01``) is midnight in the zone the
    notes are dated in, so a note filed under that day is never left out as older. With no
    ``timezone``, that is the vault's zone: the date stays a wall-clock one until the export
    knows it (``zones.with_vault_zone``)."""
    if since is None or since.tzinfo is not None or zone is None:
        return since
    return since.replace(tzinfo=zone)
