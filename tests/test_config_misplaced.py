"""A top-level setting written at the end of config.toml, below a ``[table]``, is in that
table for TOML (review22 F3: it was called "not a setting ccexport knows", and a typo of it
got no did-you-mean): the message says it is a top-level setting, names the header it is
written below and the first table's line, above which it goes."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_config_keys import config_error as config_error_of
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()

# The README's example ends with [paths], [frontmatter] and [index]; "Notes to taste" says
# to set `tools = "summary"` in config.toml, and the user appends it.
EXAMPLE = (
    'folder = "AI Sessions"\n'
    "\n"
    "[paths]\n"
    'claude-code = ["~/backup/.claude"]\n'
    "\n"
    "[frontmatter]\n"
    'drop = ["tokens_cache_read"]\n'
    "\n"
    "[index]\n"
    "dataview = true\n"
)


def config_error(tmp_path: Path, text: str) -> str:
    said = config_error_of(tmp_path, text)
    assert said.count("\n") == 1
    return said


def test_a_top_level_setting_appended_below_a_table_is_said_to_be_one(tmp_path):
    said = config_error(tmp_path, EXAMPLE + 'tools = "summary"\n')
    assert (
        "line 11: 'index.tools' is the top-level setting 'tools'; it is written below [index] "
        "(line 9), so TOML puts it in that table: move it above the first table ([paths], line 3)"
    ) in said
    assert "not a setting ccexport knows" not in said


def test_a_typo_of_a_top_level_setting_below_a_table_gets_its_near_name_and_the_same_hint(
    tmp_path,
):
    said = config_error(tmp_path, EXAMPLE + 'toolz = "summary"\n')
    assert (
        "line 11: 'index.toolz' is not a setting ccexport knows (did you mean the top-level "
        "setting 'tools'?); it is written below [index] (line 9), so TOML puts it in that "
        "table: move it above the first table ([paths], line 3)"
    ) in said


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # below each kind of table the example shows, or another takes
        ('[paths]\nclaude-code = ["~/c"]\nsince = "90d"\n',
         "line 3: 'paths.since' is the top-level setting 'since'; it is written below [paths] "
         "(line 1), so TOML puts it in that table: move it above that header"),
        ('[frontmatter]\ndrop = []\nthinking = "shown"\n',
         "line 3: 'frontmatter.thinking' is the top-level setting 'thinking'; it is written "
         "below [frontmatter] (line 1)"),
        ('[daily]\nfolder = "Journal"\nlayot = "{year}"\n',
         "line 3: 'daily.layot' is not a setting ccexport knows (did you mean the top-level "
         "setting 'layout'?); it is written below [daily] (line 1)"),
        ('[redact]\nallow = []\n\n[prices."x*"]\ninput = 1.0\ntool_output = "head"\n',
         "line 6: 'prices.\"x*\".tool_output' is the top-level setting 'tool_output'; it is "
         "written below [prices.\"x*\"] (line 4), so TOML puts it in that table: move it "
         "above the first table ([redact], line 1)"),
        ('[prices]\n"x*" = { input = 1.0 }\nproject = "api"\n',
         "line 3: 'prices.project' is the top-level setting 'project'; it is written below "
         "[prices] (line 1)"),
        ("[[redact.extra]]\nid = 'a'\npattern = 'b'\nredact = false\n",
         "line 4: 'redact.extra[0].redact' is the top-level setting 'redact'; it is written "
         "below [[redact.extra]] (line 1)"),
        # written inside the table on purpose (a dotted key, an inline table): no header
        ('folder = "x"\nindex.tools = "summary"\n',
         "line 2: 'index.tools' is the top-level setting 'tools', not a key of 'index': "
         "write it outside the table"),
        ('index = { dataview = true, thinking = "shown" }\n',
         "line 1: 'index.thinking' is the top-level setting 'thinking', not a key of 'index'"),
    ],
)  # fmt: skip
def test_below_every_table_a_top_level_setting_is_named_with_its_header(tmp_path, text, message):
    assert message in config_error(tmp_path, text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # a typo of the table's own key keeps its own did-you-mean
        ("[index]\nenabled = true\ndataviw = true\n",
         "'index.dataviw' is not a setting ccexport knows (did you mean dataview?); 'index' takes"),
        ('[daily]\nfoldr = "J"\n', "'daily.foldr' is not a setting ccexport knows (did you mean folder?)"),
        ('[paths]\nclaude_code = ["~/c"]\n', "'paths.claude_code' is not a source (did you mean claude-code?)"),
        # a model pattern near a setting's name is a pattern still
        ('[prices]\n"tool*" = 3\n', "'prices.\"tool*\"' must be a table such as"),
        # nothing near: as before
        ("[index]\nzzz = 1\n", "'index.zzz' is not a setting ccexport knows; 'index' takes"),
    ],
)  # fmt: skip
def test_a_key_unlike_any_top_level_setting_is_told_as_before(tmp_path, text, message):
    said = config_error(tmp_path, text)
    assert message in said and "top-level" not in said


def test_the_readme_example_says_top_level_keys_go_above_the_tables():
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    example = readme.split("# ~/Notes/.ccexport/config.toml", 1)[1].split("[paths]", 1)[0]
    assert "top-level keys go above the tables" in example.lower()


def test_a_top_level_setting_appended_below_frontmatter_add_is_no_silent_property(tmp_path):
    """``[frontmatter.add]`` takes any key, so ``timezone = …`` appended below it became a
    property of every note (and, once given, a property stays), the zone never set. A key
    named as a top-level setting there is said to be one; written in ``add = { … }``, it is
    the property it says."""
    text = '[frontmatter.add]\nstatus = "inbox"\ntimezone = "Europe/Berlin"\n'
    said = config_error(tmp_path, text)
    assert (
        "line 3: 'frontmatter.add.timezone' is the top-level setting 'timezone'; it is written "
        "below [frontmatter.add] (line 1), so TOML puts it in that table: move it above that "
        "header; to add a property of that name, write it in 'add = { … }' under [frontmatter]"
    ) in said
    vault = tmp_path / "v"
    inline = '[frontmatter]\nadd = { status = "inbox", timezone = "Europe/Berlin" }\n'
    (vault / ".ccexport" / "config.toml").write_text(inline, encoding="utf-8")
    shown = runner.invoke(app, ["config", "show", "--vault", str(vault)])
    assert shown.exit_code == 0 and 'timezone = "Europe/Berlin"' in shown.output
