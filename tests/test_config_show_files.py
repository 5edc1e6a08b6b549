"""``config show`` ends by naming the config files it read or would read, and how a value is
set in them (review40 L4: on a home without a config every row said "from default", and no
file was named; there is no ``config set``)."""

from __future__ import annotations

from typer.testing import CliRunner

from exporter.cli import app
from exporter.config import user_config_path

runner = CliRunner()


def _shown(*args: object) -> list[str]:
    result = runner.invoke(app, ["config", "show", *(str(a) for a in args)])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_config_show_names_both_files_missing_and_how_to_set_a_value(tmp_path):
    vault = tmp_path / "Notes"
    vault.mkdir()
    lines = _shown("--vault", vault)
    tail = "\n".join(lines[lines.index("") :])
    assert "Set a value by editing one of these files" in tail
    assert f"user config: {user_config_path()} (not there: defaults apply)" in tail
    vault_file = vault / ".ccexport" / "config.toml"
    assert f"vault config: {vault_file} (not there: defaults apply)" in tail
    assert "dataview = true below [index]" in tail  # (the table syntax, in short)


def test_config_show_says_a_file_that_is_there_without_defaults(tmp_path):
    vault = tmp_path / "Notes"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text('thinking = "hidden"\n', encoding="utf-8")
    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(f'vault = "{vault}"\n', encoding="utf-8")
    lines = _shown()  # (the vault from the user's file)
    assert f"  user config: {user}" in lines
    assert f"  vault config: {vault / '.ccexport' / 'config.toml'}" in lines


def test_config_show_without_a_vault_says_none_is_given(tmp_path):
    lines = _shown()
    assert "  vault config: none (no vault given: --vault DIR)" in lines
    assert f"  user config: {user_config_path()} (not there: defaults apply)" in lines
