"""The options of one export run, and how they follow from the settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from .config import Settings
from .errors import ConfigError
from .notes import NoteSettings
from .render import template_fingerprint


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
    since: datetime | None = None
    project: str | None = None
    paths: dict[str, list[Path]] = field(default_factory=dict)
    frontmatter_add: dict[str, Any] = field(default_factory=dict)
    frontmatter_drop: list[str] = field(default_factory=list)
    index: bool = True
    index_dataview: bool = False
    lock_wait: float = 5.0
    workers: int | None = None  # processes that render notes (None: one per core)

    def note_settings(self) -> NoteSettings:
        return NoteSettings(
            folder=self.folder,
            layout=self.layout,
            attachments_folder=self.attachments_folder,
            timezone=self.timezone,
            templates=self.templates,
            frontmatter_add=dict(self.frontmatter_add),
            frontmatter_drop=tuple(self.frontmatter_drop),
        )

    def render_fingerprint(self) -> str:
        """What notes are rendered with: a change re-renders every note on the next run."""
        return template_fingerprint(
            self.templates,
            [self.folder, self.layout, self.attachments_folder, str(self.timezone),
             sorted(self.frontmatter_add.items()), self.frontmatter_drop, self.index,
             self.index_dataview],
        )  # fmt: skip


def export_options(
    settings: Settings,
    home: Path | None,
    dry_run: bool = False,
    diff: bool = False,
    workers: int | None = None,
) -> ExportOptions:
    """The options of one run, from the effective settings (config files and flags)."""
    from .config import zone_or_fail

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
        since=settings.since,
        project=settings.project,
        paths=settings.paths,
        frontmatter_add=settings.frontmatter_add,
        frontmatter_drop=settings.frontmatter_drop,
        index=settings.index,
        index_dataview=settings.index_dataview,
        workers=workers,
    )
