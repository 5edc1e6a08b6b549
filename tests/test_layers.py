"""The house's one-way flow, checked on the source: an adapter reads a source into the
model and knows nothing of Markdown, notes or the vault (README, "The house")."""

from __future__ import annotations

import ast
from pathlib import Path

import exporter

PACKAGE = Path(exporter.__file__).parent
# What an adapter may take from the rest of the package: the model it fills, the shape of
# a failure it reports, the pause of the cycle collector for a large read, and the latest
# time a source may give (clock.py, shared with the vault).
ADAPTERS_MAY_USE = {"exporter.model", "exporter.errors", "exporter.collector", "exporter.clock"}


def _imported(path: Path) -> set[str]:
    """The modules of the package that ``path`` imports, as absolute names."""
    # (a package's ``__init__`` and its modules alike: ``.`` is the folder they are in)
    package = ".".join(path.relative_to(PACKAGE.parent).parent.parts)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            name = ".".join([*base, node.module] if node.module else base)
            if node.level == 0:
                name = node.module or ""
            # ``from .. import _sqlite`` names modules, not attributes
            found.update(f"{name}.{a.name}" for a in node.names if not node.module)
            found.add(name)
    return {name for name in found if name.split(".")[0] == "exporter"}


def test_adapters_import_nothing_of_the_note_builder_or_the_vault():
    wrong = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in sorted((PACKAGE / "adapters").rglob("*.py"))
        for name in _imported(path)
        if name != "exporter.adapters"
        and not name.startswith("exporter.adapters.")
        and name not in ADAPTERS_MAY_USE
    }
    assert not wrong, sorted(wrong)


def test_the_check_sees_relative_and_absolute_imports():
    """The check above would pass on a package it could not read: it finds each form."""
    adapters = PACKAGE / "adapters"
    probe = adapters / "cursor" / "bubbles.py"
    assert "exporter.model" in _imported(probe)
    assert "exporter.adapters._jsonl" in _imported(probe)
    assert "exporter.adapters._sqlite" in _imported(adapters / "opencode" / "__init__.py")
    assert "exporter.errors" in _imported(adapters / "base.py")
    assert "exporter.errors" in _imported(adapters / "opencode" / "__init__.py")


NOTE_BUILDER = ["notes", "notenames", "turns", "clean", "render", "session_body", "split",
                "index", "index_body", "toolinput", "toolpairs", "stats", "markdown*"]  # fmt: skip


def test_the_note_builder_knows_no_source_format():
    """The note builder reads the model alone, never an adapter."""
    paths = {p for name in NOTE_BUILDER for p in PACKAGE.glob(f"{name}.py")}
    assert len(paths) > len(NOTE_BUILDER)  # (the markdown modules are many)
    wrong = {
        f"{path.name}: {name}"
        for path in sorted(paths)
        for name in _imported(path)
        if name.startswith("exporter.adapters")
    }
    assert not wrong, sorted(wrong)
