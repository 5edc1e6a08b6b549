"""``doctor`` on templates put where ccexport does not read them: a folder named nearly as
the vault's own (``.ccexport/template``, ``<vault>/templates``), a template whose name lacks
``.j2``, and the vault's own folder when another (the config's, ``--templates``) is used
in its place. Each run ignores them without a word; ``doctor`` says so."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .doctor_check import Check

OWN = Path(".ccexport", "templates")


def place_checks(settings: Any) -> list[Check]:
    """The checks for templates the next export does not use (none without a vault)."""
    from .doctor_check import Check
    from .render import default_templates_dir

    vault = settings.vault
    if vault is None:
        return []
    ours = sorted(p.name for p in default_templates_dir().glob("*.j2"))
    own = vault / OWN
    checks = []
    nears: list[Path] = []
    for near in (vault / ".ccexport" / "template", vault / "templates", vault / "Templates"):
        if near.is_dir() and not any(os.path.samefile(near, seen) for seen in nears):
            nears.append(near)  # (one folder on a file system that ignores case)
    for near in nears:
        if held := _ours_held(near, ours, bare=near.parent.name == ".ccexport"):
            said = (
                f"{near} holds {held}, which no export reads: ccexport reads templates from "
                f"{own} (or `templates` in the config, or --templates); move them there"
            )
            checks.append(Check("Templates", "attention", said))
    for folder in dict.fromkeys(f for f in (settings.templates, own) if f and f.is_dir()):
        for name in ours:
            stem = folder / name.removesuffix(".j2")
            if stem.is_file() and not (folder / name).exists():
                said = f"{stem} is not read: a template's name ends in .j2; rename it to {name}"
                checks.append(Check("Templates", "attention", said))
    used = settings.templates
    if own.is_dir() and used is not None and used.resolve() != own.resolve():
        origin = settings.origin.get("templates", "the config")
        said = (
            f"{own} is not used: the templates in {used} ({origin}) are, and a template "
            "missing there is ours, not the vault's (one templates folder is used: "
            "--templates, else the config's, else the vault's)"
        )
        checks.append(Check("Templates", "attention", said))
    return checks


def _ours_held(folder: Path, ours: list[str], bare: bool) -> str:
    """The names of our templates ``folder`` holds, as a list in words, or "". ``bare``:
    without ``.j2`` too (not in a vault's ``Templates``, where a ``session.md`` may well be
    an Obsidian template of the person's)."""
    found = [
        name
        for name in ours
        if (folder / name).is_file() or (bare and (folder / name.removesuffix(".j2")).is_file())
    ]
    return ", ".join(found)
