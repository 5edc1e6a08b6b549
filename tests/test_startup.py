"""Start-up stays small: heavy modules are imported when they are used, not when the command
starts (the issue's budget is 0.3 s for ``ccexport --help`` and an export of nothing)."""

from __future__ import annotations

import subprocess
import sys


def _imported_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"import sys\n{code}\nprint(' '.join(sys.modules))"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return set(out.split())


def test_the_command_and_the_export_pipeline_start_without_jinja_or_mistune():
    loaded = _imported_after("import exporter.cli, exporter.export, exporter.notes")
    assert "exporter.export" in loaded
    assert not {"jinja2", "mistune"} & loaded


def test_jinja_is_imported_once_templates_are_needed():
    loaded = _imported_after("from exporter.render import environment\nenvironment(None)")
    assert "jinja2" in loaded
