"""A person's template that overrides our ``item`` block sees ``not_run_words`` and
``attached``, as the docs promise "in a block that overrides one of ours" (they were set
inside ``item``, so only an override of ``tool_call`` saw them)."""

from __future__ import annotations

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()


def test_an_override_of_item_sees_not_run_words_and_attached(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "session.md.j2").write_text(
        '{% extends "default/session.md.j2" %}\n'
        "{% block item %}\n"
        "IT {{ item.kind }} nrw={{ not_run_words }} att={{ attached }}\n"
        "{% endblock %}\n"
    )
    args = ["--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME)]
    result = runner.invoke(app, [*args, "--templates", str(folder)])
    assert result.exit_code == 0, result.stderr
    said = "\n".join(n.read_text() for n in (tmp_path / "v").rglob("*.md"))
    assert "IT tool_call nrw=rejected by the user att=" in said
    assert "IT attachment nrw= att=Attached" in said
