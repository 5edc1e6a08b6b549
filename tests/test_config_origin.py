"""``config show`` says where each setting came from (review22 F8): a key of a table has
the origin of the file that sets that key, not of one that sets another key of the same
table; and with no ``timezone`` set, the zone the vault keeps in ``.ccexport/zone`` is the
one shown, from that file."""

from __future__ import annotations

from pathlib import Path

from test_config_templates import shown as rows_shown
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()


def shown(vault: Path) -> dict[str, tuple[object, str]]:
    result = runner.invoke(app, ["config", "show", "--vault", str(vault)])
    assert result.exit_code == 0, result.output
    return rows_shown(result)


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_each_key_of_a_table_has_the_origin_of_the_file_that_sets_it(tmp_path, isolated_home):
    vault = tmp_path / "v"
    user = write(isolated_home / ".config" / "ccexport" / "config.toml",
                 '[daily]\nformat = "YYYY"\n[redact]\nallow = ["x"]\n')  # fmt: skip
    mine = write(vault / ".ccexport" / "config.toml",
                 '[index]\ndataview = true\n[frontmatter]\ndrop = ["tokens_cache_read"]\n'
                 '[daily]\nfolder = "Journal"\n')  # fmt: skip
    rows = shown(vault)
    assert rows["index.dataview"] == (True, f"vault config ({mine})")
    assert rows["index.enabled"] == (True, "default")  # the file sets only dataview
    assert rows["frontmatter.drop"][1] == f"vault config ({mine})"
    assert rows["frontmatter.add"] == ("-", "default")
    assert rows["daily.folder"] == ("Journal", f"vault config ({mine})")
    assert rows["daily.format"] == ("YYYY", f"user config ({user})")
    assert rows["daily_notes"] == ("-", "default")
    assert rows["redact.allow"] == (["x"], f"user config ({user})")
    assert rows["redact"] == (True, "default") and rows["redact.extra"] == ("-", "default")


def test_a_table_key_set_in_both_files_is_the_vaults(tmp_path, isolated_home):
    vault = tmp_path / "v"
    user = write(isolated_home / ".config" / "ccexport" / "config.toml",
                 "[index]\nenabled = false\ndataview = true\n")  # fmt: skip
    mine = write(vault / ".ccexport" / "config.toml", "[index]\ndataview = false\n")
    rows = shown(vault)
    assert rows["index.enabled"] == (False, f"user config ({user})")
    assert rows["index.dataview"] == (False, f"vault config ({mine})")


def test_the_zone_the_vault_keeps_is_shown_from_its_zone_file(tmp_path):
    vault = tmp_path / "v"
    zone = write(vault / ".ccexport" / "zone", "Etc/UTC\n")
    assert shown(vault)["timezone"] == ("Etc/UTC", f"the vault's zone file ({zone})")
    # a timezone set wins over it, and is shown as set
    mine = write(vault / ".ccexport" / "config.toml", 'timezone = "Europe/Berlin"\n')
    assert shown(vault)["timezone"] == ("Europe/Berlin", f"vault config ({mine})")


def test_no_zone_or_an_unknown_one_kept_is_shown_as_not_set(tmp_path):
    vault = tmp_path / "v"
    assert shown(vault)["timezone"] == ("-", "default")  # the first export keeps one
    write(vault / ".ccexport" / "zone", "Europe/Nowhere\n")  # the export replaces it, warned
    assert shown(vault)["timezone"] == ("-", "default")
