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


def test_a_table_both_files_add_to_names_each_keys_own_file(tmp_path, isolated_home):
    """``[paths]``, ``[prices]``, ``[frontmatter] add`` add up both files' keys: each key is
    its own row, from the file that gave it, not the whole table from the vault's file."""
    vault = tmp_path / "v"
    (isolated_home / "a").mkdir()
    user = write(isolated_home / ".config" / "ccexport" / "config.toml",
                 '[paths]\nclaude-code = "~/a"\n[frontmatter.add]\nowner = "me"\n'
                 '[prices."gpt-x*"]\ninput = 1.0\noutput = 2.0\n'
                 '[redact]\nallow = ["x"]\n')  # fmt: skip
    mine = write(vault / ".ccexport" / "config.toml",
                 '[paths]\ncodex = "~/a"\n[frontmatter]\nadd = { status = "inbox" }\n'
                 '[prices."claude-z*"]\ninput = 3.0\noutput = 4.0\n'
                 '[redact]\nallow = ["y"]\n')  # fmt: skip
    rows = shown(vault)
    folder = [str(isolated_home / "a")]
    assert rows["paths.claude-code"] == (folder, f"user config ({user})")
    assert rows["paths.codex"] == (folder, f"vault config ({mine})")
    assert rows["frontmatter.add.owner"] == ("me", f"user config ({user})")
    assert rows["frontmatter.add.status"] == ("inbox", f"vault config ({mine})")
    assert rows['prices."gpt-x*"'] == ({"input": 1.0, "output": 2.0}, f"user config ({user})")
    assert rows['prices."claude-z*"'][1] == f"vault config ({mine})"
    assert "paths" not in rows and "prices" not in rows and "frontmatter.add" not in rows
    # a list's items have no key: both files are named
    assert rows["redact.allow"] == (["x", "y"], f"user config ({user}) and vault config ({mine})")


def test_a_table_one_file_sets_stays_one_row(tmp_path, isolated_home):
    vault = tmp_path / "v"
    write(isolated_home / ".config" / "ccexport" / "config.toml", '[frontmatter.add]\na = "1"\n')
    mine = write(vault / ".ccexport" / "config.toml", '[frontmatter.add]\na = "2"\nb = "3"\n')
    rows = shown(vault)  # the vault's 'a' replaces the user's: every key is the vault's
    assert rows["frontmatter.add"] == ({"a": "2", "b": "3"}, f"vault config ({mine})")
