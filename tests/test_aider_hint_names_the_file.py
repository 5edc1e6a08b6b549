"""The Aider hint ``sources`` and ``doctor`` give names the configuration file to edit
(review35 12: "in the configuration file" sent the person to the README to find it)."""

from __future__ import annotations

from typer.testing import CliRunner

from exporter.adapters.aider import AiderAdapter
from exporter.adapters.base import SourceContext
from exporter.cli import app
from exporter.config import user_config_path


def test_the_hint_names_the_user_configuration_file(tmp_path, isolated_home, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    wanted = str(tmp_path / "cfg" / "ccexport" / "config.toml")
    hint = AiderAdapter().setup_note(SourceContext(isolated_home, {}, True))
    assert hint is not None and '[paths] aider = ["~/src"]' in hint and wanted in hint
    assert str(user_config_path()) == wanted  # the file the settings are read from
    said = CliRunner().invoke(app, ["sources"])
    assert wanted in said.output, said.output
