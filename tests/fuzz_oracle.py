"""The oracle of the damaged-input tests (``test_fuzz_<source>.py``): an export of one
source whose every note is checked as evidence (its frontmatter parses, no raw control
character, no Python repr of a value), with the problems as printed."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path

import yaml

from exporter.export import ExportOptions, run_export

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# (``[{`` is no sign of a repr: JSON a note shows holds it; a Python list of dicts has ``{'``)
REPRS = re.compile(r"\bNone\b|\{'|\['|Traceback")


def checked_export(
    home: Path, vault: Path, source: str, failed: int | None = None
) -> tuple[str, list[str]]:
    """Every note's text, each checked, and the problems as printed (``path:line: why``);
    with ``failed``, that many sessions failed."""
    report = run_export(ExportOptions(vault=vault, home=home, sources=[source], timezone=UTC))
    notes = [
        p.read_text(encoding="utf-8") for p in vault.rglob("*.md") if ".ccexport" not in p.parts
    ]
    for text in notes:
        assert not CONTROL.search(text), CONTROL.findall(text)
        assert not REPRS.search(text), REPRS.search(text)
        if text.startswith("---\n"):
            yaml.safe_load(text[4 : text.index("\n---\n", 4)])
    if failed is not None:
        assert report.total("failed") == failed
    return "\n".join(notes), [str(p) for p in report.problems]
