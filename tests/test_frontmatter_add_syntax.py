"""A ``[frontmatter] add`` expression that is no template (``"{{ title"``) is refused when
the config is read, with its file, line and key, as every other bad value is: it failed
note by note (36 failed), or was a warning on notes whose session's end is not known."""

from __future__ import annotations

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()


def test_an_add_expression_with_a_syntax_error_is_refused_when_the_config_is_read(tmp_path):
    vault = tmp_path / "v"
    config = vault / ".ccexport" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[frontmatter]\nadd = { fine = "{{ project }}", about = "{{ title" }\n')
    result = runner.invoke(app, ["--vault", str(vault), "--home", str(EXAMPLES_HOME)])
    assert result.exit_code == 2
    assert (
        f"vault config ({config}), line 2: 'frontmatter.add.about' is not a valid "
        "{{ expression }}: unexpected end of template"
    ) in result.stderr
    assert not (vault / "AI Sessions").exists()
    config.write_text('[frontmatter]\nadd = { about = "{{ title | inline }}", n = 3 }\n')
    assert runner.invoke(app, ["--vault", str(vault), "--home", str(EXAMPLES_HOME)]).exit_code == 0
